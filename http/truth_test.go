package http_test

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestWriteNotApplied checks that a keyed write losing last-write-wins says
// so, with the winner's time, alone and in a batch.
func TestWriteNotApplied(t *testing.T) {
	base := serve(t, mhttp.Options{})
	var first struct {
		UpdatedAt time.Time `json:"updated_at"`
		Applied   bool      `json:"applied"`
	}
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/city", "content": "lives in Berlin"}, &first); st != 201 || !first.Applied {
		t.Fatalf("first write: %d %s", st, raw)
	}
	stale := first.UpdatedAt.Add(-time.Hour).Format(time.RFC3339Nano)
	var lost struct {
		Content         string     `json:"content"`
		Applied         bool       `json:"applied"`
		WinnerUpdatedAt *time.Time `json:"winner_updated_at"`
	}
	st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/city", "content": "lives in Rome", "updated_at": stale}, &lost)
	if st != 201 || lost.Applied || lost.WinnerUpdatedAt == nil || !lost.WinnerUpdatedAt.Equal(first.UpdatedAt) || lost.Content != "lives in Berlin" {
		t.Fatalf("stale write: %d %s; want applied false and winner_updated_at %v", st, raw, first.UpdatedAt)
	}
	var batch struct {
		Applied         []bool       `json:"applied"`
		WinnerUpdatedAt []*time.Time `json:"winner_updated_at"`
	}
	st, raw = call(t, "POST", base+"/v1/memories/batch", map[string]any{"agent_id": "a", "memories": []map[string]any{
		{"key": "/city", "content": "lives in Oslo", "updated_at": stale},
		{"key": "/tea", "content": "likes green tea"},
	}}, &batch)
	if st != 201 || len(batch.Applied) != 2 || batch.Applied[0] || !batch.Applied[1] ||
		batch.WinnerUpdatedAt[0] == nil || !batch.WinnerUpdatedAt[0].Equal(first.UpdatedAt) || batch.WinnerUpdatedAt[1] != nil {
		t.Fatalf("batch: %d %s", st, raw)
	}
}

// startWith serves svc on a loopback port and returns its base URL.
func startWith(t *testing.T, svc *service.Mnemo, opts mhttp.Options) string {
	t.Helper()
	srv := mhttp.NewServer(svc, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		svc.Close()
	})
	return "http://" + ln.Addr().String()
}

// embeddedService is a service over a real SQLite store with an in-process
// embedder, so that memories have vectors.
func embeddedService(t *testing.T) *service.Mnemo {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	if err := svc.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return svc
}

// TestStatsOfAnEmptyAgent checks that an agent with no memory has nothing
// indexed, not -1.
func TestStatsOfAnEmptyAgent(t *testing.T) {
	base := startWith(t, embeddedService(t), mhttp.Options{})
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "content": "likes green tea"}, nil); st != 201 {
		t.Fatalf("remember: %d %s", st, raw)
	}
	var stats mnemo.Stats
	st, raw := call(t, "GET", base+"/v1/stats?agent_id=empty", nil, &stats)
	if st != 200 || (stats.Vectors != nil && (stats.Vectors.Indexed != 0 || stats.Vectors.Pending != 0)) {
		t.Fatalf("stats of an empty agent: %d %s; want nothing indexed or pending", st, raw)
	}
	if st, raw = call(t, "GET", base+"/v1/stats?agent_id=a", nil, &stats); st != 200 || stats.Vectors == nil || stats.Vectors.Embedded != 1 || stats.Vectors.Indexed < 0 && stats.Vectors.Indexed != -1 {
		t.Fatalf("stats of a: %d %s", st, raw)
	}
}

// TestVectorsOnlyWhenAsked checks that no answer carries a memory's vector
// unless the request says include=embedding, and that the OpenAPI document
// says so.
func TestVectorsOnlyWhenAsked(t *testing.T) {
	base := startWith(t, embeddedService(t), mhttp.Options{})
	var m mnemo.Memory
	st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/tea", "content": "likes green tea"}, &m)
	if st != 201 || strings.Contains(string(raw), `"embedding"`) {
		t.Fatalf("remember: %d %s; want no embedding", st, raw)
	}
	call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/tea", "content": "likes black tea now"}, nil)
	for _, path := range []string{
		"/v1/memories?agent_id=a",
		"/memory/long-term?agent_id=a",
		"/v1/memories/" + m.ID + "?agent_id=a",
		"/memory/long-term/" + m.ID + "?agent_id=a",
		"/v1/keys?agent_id=a&key=/tea",
		"/v1/history?agent_id=a&key=/tea",
	} {
		st, raw := call(t, "GET", base+path, nil, nil)
		if st != 200 || strings.Contains(string(raw), `"embedding"`) {
			t.Errorf("GET %s: %d %s; want no embedding", path, st, raw)
		}
		if strings.HasPrefix(path, "/v1/history") {
			continue // revisions keep no vectors
		}
		st, raw = call(t, "GET", base+path+"&include=embedding", nil, nil)
		if st != 200 || !strings.Contains(string(raw), `"embedding":[`) {
			t.Errorf("GET %s&include=embedding: %d %.300s; want the embedding", path, st, raw)
		}
	}
	for _, path := range []string{"/v1/recall", "/v1/surface"} {
		st, raw := call(t, "POST", base+path, map[string]any{"agent_id": "a", "query": "tea"}, nil)
		if st != 200 || !strings.Contains(string(raw), m.ID) || strings.Contains(string(raw), `"embedding"`) {
			t.Errorf("POST %s: %d %s; want the memory without its embedding", path, st, raw)
		}
	}
	st, raw = call(t, "POST", base+"/v1/memories?include=embedding", map[string]any{"agent_id": "a", "content": "reads on Sundays"}, nil)
	if st != 201 || !strings.Contains(string(raw), `"embedding":[`) {
		t.Errorf("remember with include=embedding: %d %.300s", st, raw)
	}
	if st, raw = call(t, "GET", base+"/v1/stats?agent_id=a&include=embedding", nil, nil); st != 400 {
		t.Errorf("include on a route without memories: %d %s, want 400", st, raw)
	}
	_, raw = call(t, "GET", base+"/openapi.json", nil, nil)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name string } `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/v1/keys", "/v1/memories", "/memory/long-term"} {
		found := false
		for _, q := range doc.Paths[p]["get"].Parameters {
			found = found || q.Name == "include"
		}
		if !found {
			t.Errorf("OpenAPI: GET %s has no include parameter", p)
		}
	}
}

// TestLongMessagesStoredWhole checks that a conversation message over the
// content limit of a memory is stored whole, found whole by recall, and
// that a message refused is named by its index.
func TestLongMessagesStoredWhole(t *testing.T) {
	base := serve(t, mhttp.Options{})
	long := "We finally settled on Lisbon for the offsite. " + strings.Repeat("The venue near the river has a big hall. ", 49)
	if n := len([]rune(long)); n <= 2000 {
		t.Fatalf("the long message is %d characters, want over 2,000", n)
	}
	msgs := []map[string]any{{"role": "user", "content": "Where is the offsite?"}, {"role": "assistant", "content": long}, {"role": "user", "content": "Great, thanks."}}
	var ids struct{ IDs []string }
	if st, raw := call(t, "POST", base+"/v1/messages", map[string]any{"agent_id": "a", "session_id": "s1", "messages": msgs}, &ids); st != 201 || len(ids.IDs) != 3 {
		t.Fatalf("messages with a %d-character one: %d %s", len([]rune(long)), st, raw)
	}
	var res memory.Result
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "offsite venue Lisbon"}, &res); st != 200 || len(res.Results) == 0 {
		t.Fatalf("recall: %d %s", st, raw)
	}
	if got := res.Results[0]; got.ID != ids.IDs[1] || got.Content != strings.TrimSpace(long) {
		t.Errorf("recall's first = %s (%d characters), want the long message %s whole", got.ID, len([]rune(got.Content)), ids.IDs[1])
	}
	// A memory keeps its own limit.
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "content": long}, nil); st != 413 {
		t.Errorf("a memory of %d characters: %d %s, want 413", len([]rune(long)), st, raw)
	}
	tooLong := strings.Repeat("x", 32001)
	for _, c := range []struct {
		msgs []map[string]any
		want string
	}{
		{[]map[string]any{{"role": "user", "content": "hi"}, {"role": "user", "content": "ok"}, {"role": "user", "content": tooLong}}, "messages[2]: "},
		{[]map[string]any{{"role": "user", "content": tooLong}}, "messages[0]: "},
		{[]map[string]any{{"role": "user", "content": "hi"}, {"role": "user", "content": " "}}, "messages[1]: "},
	} {
		st, raw := call(t, "POST", base+"/v1/messages", map[string]any{"agent_id": "a", "session_id": "s2", "messages": c.msgs}, nil)
		if p := problem(t, raw); st < 400 || !strings.HasPrefix(p.Detail, c.want) {
			t.Errorf("refused messages: %d %s, want the detail to start with %q", st, raw, c.want)
		}
	}
}

// TestImportRevealsNoOtherTenant checks, with keys, that a tenant importing
// a line with another tenant's id gets the same answer as for an id no one
// holds, and changes nothing of the other tenant's.
func TestImportRevealsNoOtherTenant(t *testing.T) {
	base := serve(t, mhttp.Options{Keys: []mhttp.APIKey{apiKey("t1", "t1", nil, allScopes...), apiKey("t2", "t2", nil, allScopes...)}})
	var m mnemo.Memory
	if st, raw := callAs(t, secret("t1"), "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "content": "t1's secret plan"}, &m); st != 201 {
		t.Fatalf("remember: %d %s", st, raw)
	}
	line := func(id string) string {
		return `{"id":"` + id + `","tenant_id":"t2","agent_id":"a","content":"probe ` + id[len(id)-4:] + `"}` + "\n"
	}
	free := "01959581-0000-7000-8000-000000000042"
	type answer struct {
		Imported int               `json:"imported"`
		IDs      map[string]string `json:"ids"`
	}
	var taken, unknown answer
	st1, raw1 := callAs(t, secret("t2"), "POST", base+"/v1/import?agent_id=a", line(m.ID), &taken)
	st2, raw2 := callAs(t, secret("t2"), "POST", base+"/v1/import?agent_id=a", line(free), &unknown)
	if st1 != 200 || st2 != 200 || taken.Imported != 1 || unknown.Imported != 1 || len(taken.IDs) != 1 || len(unknown.IDs) != 1 {
		t.Fatalf("imports of a taken and a free id differ: %d %s / %d %s", st1, raw1, st2, raw2)
	}
	var still mnemo.Memory
	if st, raw := callAs(t, secret("t1"), "GET", base+"/v1/memories/"+m.ID+"?agent_id=a", nil, &still); st != 200 || still.Content != "t1's secret plan" {
		t.Fatalf("t1's memory after t2's import: %d %s", st, raw)
	}
}
