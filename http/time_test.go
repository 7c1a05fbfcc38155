package http_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/files"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/service"
)

// TestTimeFields sends every kind of time a person types to the routes that
// take times (TIME-1, TIME-2): RFC 3339 and plain dates are kept exactly, a
// date as that day; words are read against now; a recurrence is kept as
// one; and what is no time, or lies outside the supported range, is a 400
// that names the field, what was sent and an example or the range — never
// a Go layout error, a 500, nor a date other than the one sent.
func TestTimeFields(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testTimeFields(t, serve(t, mhttp.Options{}), true)
	})
	t.Run("files", func(t *testing.T) {
		t.Parallel()
		st, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		srv := mhttp.NewServer(service.New(st, service.Options{}), mhttp.Options{})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			st.Close()
		})
		testTimeFields(t, "http://"+ln.Addr().String(), false) // it keeps no events
	})
}

func testTimeFields(t *testing.T, base string, events bool) {
	const rangeText = "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z"
	type occurred struct {
		Start      time.Time `json:"start"`
		End        time.Time `json:"end"`
		Expression string    `json:"expression"`
		Source     string    `json:"source"`
		Recurrence *struct {
			Rule string `json:"rule"`
		} `json:"recurrence"`
	}
	type memory struct {
		ID        string     `json:"id"`
		CreatedAt time.Time  `json:"created_at"`
		ExpiresAt *time.Time `json:"expires_at"`
		ValidTo   *time.Time `json:"valid_to"`
		Occurred  occurred   `json:"occurred"`
	}
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	n := 0
	remember := func(fields map[string]any) (int, []byte) {
		n++
		body := map[string]any{"agent_id": "a", "content": "note number " + strconv.Itoa(n) + " about the garden"}
		for k, v := range fields {
			body[k] = v
		}
		return call(t, "POST", base+"/v1/memories", body, nil)
	}

	t.Run("kept", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			fields map[string]any
			check  func(m memory) bool
		}{
			{"a plain date is that day", map[string]any{"occurred_at": "2026-11-20"}, func(m memory) bool {
				return m.Occurred.Start.Equal(day(2026, 11, 20)) && m.Occurred.End.Equal(day(2026, 11, 21)) && m.Occurred.Source == "writer" && m.Occurred.Expression == "2026-11-20"
			}},
			{"words are read", map[string]any{"occurred_at": "last Tuesday", "created_at": "2026-11-26T12:00:00Z"}, func(m memory) bool {
				// A Thursday's last Tuesday is two days before (temporal's reading).
				return m.Occurred.Start.Equal(day(2026, 11, 24)) && m.Occurred.End.Equal(day(2026, 11, 25)) && m.Occurred.Expression == "last Tuesday"
			}},
			{"a recurrence is kept as one", map[string]any{"occurred_at": "every Sunday morning", "created_at": "2026-11-26T12:00:00Z"}, func(m memory) bool {
				return m.Occurred.Recurrence != nil && m.Occurred.Recurrence.Rule == "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11" &&
					m.Occurred.Start.Equal(day(2026, 11, 22).Add(6*time.Hour))
			}},
			{"RFC 3339 to the nanosecond", map[string]any{"occurred_at": "2026-11-20T15:04:05.123456789+02:00"}, func(m memory) bool {
				return m.Occurred.Start.Equal(time.Date(2026, 11, 20, 13, 4, 5, 123456789, time.UTC))
			}},
			{"the range's first instant", map[string]any{"occurred_at": "1678-01-01T00:00:00Z", "created_at": "1678-01-01T00:00:00Z"}, func(m memory) bool {
				return m.Occurred.Start.Equal(day(1678, 1, 1)) && m.CreatedAt.Equal(day(1678, 1, 1))
			}},
			{"the range's last instant", map[string]any{"occurred_at": "2261-12-31T23:59:59.999999999Z", "valid_to": nil}, func(m memory) bool {
				return m.Occurred.Start.Equal(day(2262, 1, 1).Add(-time.Nanosecond)) && m.Occurred.End.Equal(day(2262, 1, 1))
			}},
			{"the range's last day", map[string]any{"occurred_at": "2261-12-31"}, func(m memory) bool {
				return m.Occurred.Start.Equal(day(2261, 12, 31)) && m.Occurred.End.Equal(day(2262, 1, 1))
			}},
			{"dates in a span and an expiry", map[string]any{"valid_from": "2026-11-01", "valid_to": "2026-11-20", "expires_at": "2030-01-01"}, func(m memory) bool {
				return m.Occurred.Start.Equal(day(2026, 11, 1)) && m.Occurred.End.Equal(day(2026, 11, 20)) &&
					m.ValidTo != nil && m.ValidTo.Equal(day(2026, 11, 20)) && m.ExpiresAt != nil && m.ExpiresAt.Equal(day(2030, 1, 1))
			}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				status, raw := remember(tt.fields)
				var m memory
				if status != 201 || json.Unmarshal(raw, &m) != nil || !tt.check(m) {
					t.Fatalf("%v: %d %s", tt.fields, status, raw)
				}
			})
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, tt := range []struct {
			name, method, path string
			body               any
			want               []string // in the problem's detail
		}{
			{"a word that is no time", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "banana"}, []string{`occurred_at "banana" is not a time`, "2026-11-20"}},
			{"an empty time", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": ""}, []string{"occurred_at is empty", "2026-11-20"}},
			{"a number", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": 20261120}, []string{"occurred_at must be a time", "20261120"}},
			{"a day that is not", "POST", "/v1/memories", map[string]any{"content": "a", "valid_from": "2026-02-30"}, []string{`valid_from "2026-02-30" is not a date`}},
			{"year 9999", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "9999-12-31T00:00:00Z"}, []string{"occurred_at 9999-12-31T00:00:00Z is outside the supported range", rangeText}},
			{"year 0000", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "0000-01-01T00:00:00Z"}, []string{"occurred_at", rangeText}},
			{"year 1000, not 2169", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "1000-06-15T00:00:00Z"}, []string{"occurred_at 1000-06-15T00:00:00Z", rangeText}},
			{"a nanosecond before the range", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "1677-12-31T23:59:59.999999999Z"}, []string{"occurred_at", rangeText}},
			{"the range's end", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "2262-01-01T00:00:00Z"}, []string{"occurred_at", rangeText}},
			{"a plain date past the range", "POST", "/v1/memories", map[string]any{"content": "a", "occurred_at": "2500-01-01"}, []string{"occurred_at", rangeText}},
			{"valid_from and valid_to out of range", "POST", "/v1/memories", map[string]any{"content": "a", "valid_from": "1500-01-01T00:00:00Z", "valid_to": "3000-01-01T00:00:00Z"}, []string{"valid_from 1500-01-01T00:00:00Z", rangeText}},
			{"created_at 9999", "POST", "/v1/memories", map[string]any{"content": "a", "created_at": "9999-12-31T00:00:00Z"}, []string{"created_at", rangeText}},
			{"expires_at 0000", "POST", "/v1/memories", map[string]any{"content": "a", "expires_at": "0000-01-01T00:00:00Z"}, []string{"expires_at", rangeText}},
			{"a recurrence where one time is asked", "POST", "/v1/memories", map[string]any{"content": "a", "expires_at": "every Sunday"}, []string{`expires_at "every Sunday" names a recurring time`}},
			{"in a batch, by its place", "POST", "/v1/memories/batch", map[string]any{"memories": []any{map[string]any{"content": "first one"}, map[string]any{"content": "second one", "valid_to": "soonish"}}}, []string{`memories[1].valid_to "soonish" is not a time`}},
			{"a message's time", "POST", "/v1/messages", map[string]any{"session_id": "s", "messages": []any{map[string]any{"role": "user", "content": "hello there", "occurred_at": "9999-01-01T00:00:00Z"}}}, []string{"occurred_at", rangeText}},
			{"a message's creation", "POST", "/v1/messages", map[string]any{"session_id": "s", "messages": []any{map[string]any{"role": "user", "content": "hello there", "created_at": "1000-01-01"}}}, []string{"messages[0].created_at", rangeText}},
			{"a recall filter", "POST", "/v1/recall", map[string]any{"query": "garden", "occurred_after": "not a date"}, []string{`occurred_after "not a date" is not a time`}},
			{"a recall as of year 0000", "POST", "/v1/recall", map[string]any{"query": "garden", "as_of": "0000-01-01T00:00:00Z"}, []string{"as_of", rangeText}},
			{"a list filter", "GET", "/v1/memories?occurred_after=" + url.QueryEscape("the day after never"), nil, []string{`occurred_after "the day after never" is not a time`}},
			{"a list filter out of range", "GET", "/v1/memories?created_before=9999-12-31T00:00:00Z", nil, []string{"created_before", rangeText}},
			{"an event's time", "POST", "/v1/events", map[string]any{"type": "note", "ts": "9999-12-31T00:00:00Z"}, []string{"ts", rangeText}},
			{"an event query", "GET", "/v1/events?from=" + url.QueryEscape("2026-13-01"), nil, []string{`from "2026-13-01" is not a date`}},
			{"an imported memory's time that is none", "POST", "/v1/import", map[string]any{"content": "imported", "created_at": "the day after tomorrow-ish"}, []string{`line 1: created_at "the day after tomorrow-ish" is not a time`}},
			{"an imported memory", "POST", "/v1/import", map[string]any{"content": "imported", "occurred": map[string]any{"start": "1000-06-15T00:00:00Z", "end": "1000-06-16T00:00:00Z", "source": "writer"}}, []string{"occurred.start 1000-06-15T00:00:00Z", rangeText}},
		} {
			if strings.HasPrefix(tt.path, "/v1/events") && !events {
				continue
			}
			t.Run(tt.name, func(t *testing.T) {
				u := base + tt.path
				if strings.Contains(u, "?") {
					u += "&agent_id=a"
				} else if tt.method == "GET" || tt.path == "/v1/import" {
					u += "?agent_id=a"
				}
				body := tt.body
				if m, ok := body.(map[string]any); ok && tt.path != "/v1/import" {
					m["agent_id"] = "a"
				}
				status, raw := call(t, tt.method, u, body, nil)
				if status != 400 {
					t.Fatalf("%s %s: %d %s, want 400", tt.method, tt.path, status, raw)
				}
				p := problem(t, raw)
				for _, w := range tt.want {
					if !strings.Contains(p.Detail, w) {
						t.Errorf("detail %q does not say %q", p.Detail, w)
					}
				}
				if strings.Contains(p.Detail, "2006-01-02") || strings.Contains(p.Detail, "parsing time") {
					t.Errorf("detail %q is a Go layout error", p.Detail)
				}
			})
		}
	})

	t.Run("an import reads a date", func(t *testing.T) {
		var out struct {
			IDs map[string]string `json:"ids"`
		}
		if status, raw := call(t, "POST", base+"/v1/import?agent_id=imp", map[string]any{"id": "01a22600-5250-766a-a093-0f1380246653", "content": "an imported note about tulips", "created_at": "2026-11-20"}, &out); status != 200 {
			t.Fatalf("import: %d %s", status, raw)
		}
		id := "01a22600-5250-766a-a093-0f1380246653"
		if v, ok := out.IDs[id]; ok {
			id = v // stored under a new id
		}
		var m memory
		if status, raw := call(t, "GET", base+"/v1/memories/"+id+"?agent_id=imp", nil, &m); status != 200 || !m.CreatedAt.Equal(day(2026, 11, 20)) {
			t.Fatalf("imported created_at: %d %s", status, raw)
		}
	})

	t.Run("filters read dates and words", func(t *testing.T) {
		for _, q := range []string{"occurred_after=2026-11-20", "occurred_before=" + url.QueryEscape("last week"), "as_of=" + url.QueryEscape("yesterday"), "created_after=1678-01-01"} {
			if status, raw := call(t, "GET", base+"/v1/memories?agent_id=a&"+q, nil, nil); status != 200 {
				t.Errorf("%s: %d %s", q, status, raw)
			}
		}
		if status, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "garden", "occurred_after": "2026-11-01", "occurred_before": "next month"}, nil); status != 200 {
			t.Errorf("recall with date filters: %d %s", status, raw)
		}
	})
}
