package http_test

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// sseMessage is one message of a Server-Sent Events stream.
type sseMessage struct{ id, event, data string }

// readSSE reads a whole stream.
func readSSE(t *testing.T, r io.Reader) []sseMessage {
	t.Helper()
	var out []sseMessage
	var m sseMessage
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if m != (sseMessage{}) {
				out = append(out, m)
			}
			m = sseMessage{}
		case strings.HasPrefix(line, ":"): // a comment
		case strings.HasPrefix(line, "id: "):
			m.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			m.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			m.data = line[6:]
		default:
			t.Fatalf("not SSE: %q", line)
		}
	}
	return out
}

func appendEvents(t *testing.T, url string, n int, gap time.Duration) []mnemo.Event {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var in []any
	for i := range n {
		in = append(in, map[string]any{"type": []string{"AgentStarted", "AgentStopped"}[i%2], "source": "s", "ts": start.Add(time.Duration(i) * gap)})
	}
	var res struct{ Events []mnemo.Event }
	if st, raw := call(t, "POST", url+"/v1/events/batch", map[string]any{"agent_id": "a", "events": in}, &res); st != 201 {
		t.Fatalf("append: %d %s", st, raw)
	}
	return res.Events
}

// TestEventStream replays a window as Server-Sent Events: every event in
// order, each with its cursor as id, then an end message; Last-Event-ID
// resumes after an event. The server's request timeout does not cut a
// stream that waits between events.
func TestEventStream(t *testing.T) {
	// The timeout stretches with the load, so that the appends answer
	// within it; the events are twice the timeout apart.
	timeout := testwait.D(500 * time.Millisecond)
	ts := start(t, mhttp.Options{Timeout: timeout}, nil)
	in := appendEvents(t, ts.URL, 4, 2*timeout)

	get := func(query, lastID string) []sseMessage {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/events/stream?agent_id=a"+query, nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return readSSE(t, resp.Body)
	}
	// 1.5 times faster: 4/3 of the timeout between events.
	msgs := get("&speed=1.5", "")
	if len(msgs) != 5 || msgs[4].event != "end" || msgs[4].data != `{"published":4,"next":"`+msgs[3].id+`"}` {
		t.Fatalf("stream: %+v", msgs)
	}
	for i, m := range msgs[:4] {
		var e mnemo.Event
		if err := json.Unmarshal([]byte(m.data), &e); err != nil || e.ID != in[i].ID || m.event != "event" {
			t.Fatalf("message %d: %+v", i, m)
		}
	}
	resumed := get("", msgs[1].id)
	if len(resumed) != 3 || !strings.Contains(resumed[0].data, in[2].ID) || !strings.Contains(resumed[1].data, in[3].ID) {
		t.Fatalf("resumed after the second: %+v", resumed)
	}
	if msgs := get("&types=AgentStopped", ""); len(msgs) != 3 || !strings.Contains(msgs[0].data, in[1].ID) {
		t.Fatalf("filtered: %+v", msgs)
	}
}

// TestReplayRoute replays to a webhook through the API: in order, and when
// the webhook refuses, a 200 that says how far it got and why.
func TestReplayRoute(t *testing.T) {
	ts := start(t, mhttp.Options{}, nil)
	in := appendEvents(t, ts.URL, 3, time.Millisecond)
	var (
		mu     sync.Mutex
		got    []string
		refuse bool
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e mnemo.Event
		json.NewDecoder(r.Body).Decode(&e)
		mu.Lock()
		defer mu.Unlock()
		if refuse && len(got) == 1 {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		got = append(got, e.ID)
	}))
	defer hook.Close()
	var res struct {
		Published int
		Next      string
		Error     string
		Code      string
	}
	if st, raw := call(t, "POST", ts.URL+"/v1/events/replay", map[string]any{"agent_id": "a", "webhook_url": hook.URL, "speed": 1000}, &res); st != 200 || res.Published != 3 || res.Error != "" {
		t.Fatalf("replay: %d %s", st, raw)
	}
	if !slices.Equal(got, []string{in[0].ID, in[1].ID, in[2].ID}) {
		t.Fatalf("webhook got %v", got)
	}
	got, refuse = nil, true
	if st, raw := call(t, "POST", ts.URL+"/v1/events/replay", map[string]any{"agent_id": "a", "webhook_url": hook.URL}, &res); st != 200 || res.Published != 1 ||
		res.Code != mnemo.EUNAVAILABLE || !strings.Contains(res.Error, "refused event "+in[1].ID) || res.Next == "" {
		t.Fatalf("refused: %d %s", st, raw)
	}
	// Resuming from next sends the rest.
	got, refuse = nil, false
	if st, raw := call(t, "POST", ts.URL+"/v1/events/replay", map[string]any{"agent_id": "a", "webhook_url": hook.URL, "cursor": res.Next}, &res); st != 200 || res.Published != 2 {
		t.Fatalf("resumed: %d %s", st, raw)
	}
	if !slices.Equal(got, []string{in[1].ID, in[2].ID}) {
		t.Fatalf("resumed webhook got %v", got)
	}
}

func TestExportEventsCSV(t *testing.T) {
	ts := start(t, mhttp.Options{}, nil)
	in := appendEvents(t, ts.URL, 2, time.Second)
	resp, raw := send(t, "", "GET", ts.URL+"/v1/events/export?agent_id=a&format=csv", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The header, two events, and the two relations of the second
	// (precedes and causes).
	if len(rows) != 5 || rows[1][1] != in[0].ID || rows[2][1] != in[1].ID || rows[3][0] != "L2" || rows[3][5] != in[1].ID {
		t.Fatalf("csv: %q", rows)
	}
}
