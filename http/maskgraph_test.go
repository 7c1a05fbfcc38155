package http_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// graphStores are the stores that keep events and their relations.
var graphStores = []struct {
	name string
	open func(t *testing.T) mnemo.Store
}{
	{"sqlite", func(t *testing.T) mnemo.Store {
		db, err := sqlite.Open(t.Context(), t.TempDir()+"/mnemo.db", sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}},
	{"postgres", func(t *testing.T) mnemo.Store {
		db, err := postgres.Open(t.Context(), pgtest.Native(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}},
}

// TestMaskedGraph walks the graph of relations as a key that reads masked
// and as one that reads whole, after an owner related a public and a
// restricted event to what their text names, and linked a public memory
// to a restricted one: the masking key walks only along edges none of
// whose ends is a record it reads masked, so that no node read from the
// restricted text, no edge to a restricted record and no path through one
// reaches it, nor an orphan link of one in reflect's report, nor recall
// along links (traverse_hops) (SEC-13); the clearing key sees them all.
func TestMaskedGraph(t *testing.T) {
	t.Parallel()
	for _, st := range graphStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			testMaskedGraph(t, st.open(t))
		})
	}
}

func testMaskedGraph(t *testing.T, store mnemo.Store) {
	masked := apiKey("masked", "t", nil, allScopes...)
	masked.Mask = true
	ts := startOn(t, store, mhttp.Options{Registry: newRegistry(), Keys: []mhttp.APIKey{
		apiKey("owner", "t", nil, allScopes...),
		apiKey("clear", "t", nil, mhttp.ScopeRead),
		masked,
	}})
	owner := secret("owner")
	u := func(p string) string { return ts.URL + p }
	post := func(path string, body map[string]any, out any) {
		t.Helper()
		body["agent_id"] = "a"
		if st, raw := callAs(t, owner, "POST", u(path), body, out); st/100 != 2 {
			t.Fatalf("POST %s %v: %d %s", path, body, st, raw)
		}
	}
	for _, e := range []map[string]any{
		{"id": "ev-pub", "type": "note", "security_level": "public", "data": map[string]any{"text": "The Lisbon office opened its doors"}},
		{"id": "ev-sec", "type": "note", "data": map[string]any{"text": "Dana Ostrowskaya in Lisbon says the password is Kestrel19Moon"}},
		{"id": "ev-child", "type": "note", "security_level": "restricted", "data": map[string]any{"parent_id": "ev-pub"}},
	} {
		post("/v1/events", e, nil)
	}
	// The restricted text first: its edge to entity:Lisbon is the older,
	// so that a limit counted before the filter would miss the public one.
	for _, id := range []string{"ev-sec", "ev-child", "ev-pub"} {
		post("/v1/events/graph/text", map[string]any{"event_id": id}, nil)
	}
	var pub, sec mnemo.Memory
	post("/v1/memories", map[string]any{"content": "The Lisbon plants need water", "security_level": "public"}, &pub)
	post("/v1/memories", map[string]any{"content": "The Lisbon safe code is 4711", "security_level": "restricted"}, &sec)
	post("/v1/events/graph/links", map[string]any{"source": pub.ID, "target": sec.ID}, nil)
	post("/v1/events/graph/links", map[string]any{"source": "ev-pub", "target": pub.ID}, nil)
	// Orphan links, as a crash or an older version may leave them: their
	// far ends are nothing; one starts at the restricted event.
	if err := store.(mnemo.EventStore).AddRelations(t.Context(), mnemo.Scope{TenantID: "t", AgentID: "a"}, []mnemo.Relation{
		{Source: "ev-pub", Target: "ghost-pub", Type: "related", Confidence: 1, CreatedAt: time.Now()},
		{Source: "ev-sec", Target: "ghost-sec", Type: "related", Confidence: 1, CreatedAt: time.Now()},
	}); err != nil {
		t.Fatal(err)
	}

	// hidden are what the masking key may not meet: the restricted
	// records' ids and the names read from the restricted text.
	hidden := []string{"ev-sec", "ev-child", sec.ID, "Ostrowskaya", "Kestrel19Moon"}
	q := url.QueryEscape
	cases := []struct {
		name, method, path string
		body               map[string]any
		// clear and masked are the statuses each key gets; masked also
		// must meet nothing hidden.
		clear, masked int
		// seen are what the clearing key meets and the masking key does
		// not; shown are what both meet; left is what the masking key
		// meets instead.
		seen, shown, left []string
	}{
		{name: "neighbours of a shared entity", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=" + q("entity:Lisbon"),
			clear: 200, masked: 200, seen: []string{"ev-sec"}, shown: []string{"ev-pub"}},
		{name: "neighbours within a limit", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&limit=1&direction=in&node=" + q("entity:Lisbon"),
			clear: 200, masked: 200, seen: []string{"ev-sec"}, left: []string{"ev-pub"}},
		{name: "neighbours of a restricted event", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=ev-sec",
			clear: 200, masked: 200, seen: []string{"Ostrowskaya", "Kestrel19Moon"}},
		{name: "neighbours of a public memory", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=" + pub.ID,
			clear: 200, masked: 200, seen: []string{sec.ID}, shown: []string{"ev-pub"}},
		{name: "neighbours of a public event", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=ev-pub",
			clear: 200, masked: 200, seen: []string{"ev-child", "ev-sec"}, shown: []string{"entity:Lisbon", pub.ID}},
		{name: "traverse", method: "GET", path: "/v1/events/graph/traverse?agent_id=a&depth=4&node=ev-pub",
			clear: 200, masked: 200, seen: []string{"Ostrowskaya", "Kestrel19Moon", "ev-child", sec.ID}, shown: []string{"entity:Lisbon", pub.ID}},
		{name: "traverse from a restricted event", method: "GET", path: "/v1/events/graph/traverse?agent_id=a&node=ev-sec",
			clear: 200, masked: 200, seen: []string{"Ostrowskaya"}},
		{name: "path through a restricted event", method: "GET", path: "/v1/events/graph/path?agent_id=a&from=ev-pub&to=" + q("entity:Dana Ostrowskaya"),
			clear: 200, masked: 404},
		{name: "path to a restricted memory", method: "GET", path: "/v1/events/graph/path?agent_id=a&from=ev-pub&to=" + sec.ID,
			clear: 200, masked: 404},
		{name: "path along public edges", method: "GET", path: "/v1/events/graph/path?agent_id=a&from=" + q("entity:Lisbon") + "&to=" + pub.ID,
			clear: 200, masked: 200, shown: []string{"ev-pub"}},
		{name: "text relations of a restricted event", method: "POST", path: "/v1/events/graph/text", body: map[string]any{"agent_id": "a", "event_id": "ev-sec"},
			clear: 403, masked: 200},
		{name: "recall along links", method: "POST", path: "/v1/recall", body: map[string]any{"agent_id": "a", "query": "plants water", "limit": 5, "traverse_hops": 2},
			clear: 403, masked: 200, seen: []string{sec.ID}, shown: []string{pub.ID, "ev-pub"}},
		{name: "reflect's orphan links", method: "POST", path: "/v1/reflect", body: map[string]any{"agent_id": "a", "dry_run": true, "phases": []string{"govern"}},
			clear: 403, masked: 200, seen: []string{"ghost-sec"}, shown: []string{"ghost-pub"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The owner reads everything the clearing key does, and
			// every write.
			st, whole := callAs(t, owner, c.method, u(c.path), c.body, nil)
			if want := cmpOr(c.clear, 403, 200); st != want {
				t.Fatalf("owner: %d, want %d: %s", st, want, whole)
			}
			if c.clear != 403 {
				if st, raw := callAs(t, secret("clear"), c.method, u(c.path), c.body, nil); st != c.clear || string(raw) != string(whole) {
					t.Errorf("clearing key: %d %s, want what the owner read: %s", st, raw, whole)
				}
			}
			st, raw := callAs(t, secret("masked"), c.method, u(c.path), c.body, nil)
			if st != c.masked {
				t.Fatalf("masking key: %d, want %d: %s", st, c.masked, raw)
			}
			for _, h := range hidden {
				if strings.Contains(string(raw), h) && !strings.Contains(c.path, url.QueryEscape(h)) && !strings.Contains(fmt.Sprint(c.body), h) {
					t.Errorf("masking key meets %q: %s", h, raw)
				}
			}
			for _, s := range c.seen {
				if !strings.Contains(string(whole), s) {
					t.Errorf("owner does not meet %q: %s", s, whole)
				}
			}
			for _, s := range c.left {
				if !strings.Contains(string(raw), s) {
					t.Errorf("masking key does not meet %q: %s", s, raw)
				}
			}
			for _, s := range c.shown {
				for who, got := range map[string][]byte{"owner": whole, "masking key": raw} {
					if !strings.Contains(string(got), s) {
						t.Errorf("%s does not meet %q: %s", who, s, got)
					}
				}
			}
		})
	}
	// Each graph route is among the cases.
	for _, r := range []string{"GET /v1/events/graph/neighbours", "GET /v1/events/graph/traverse", "GET /v1/events/graph/path", "POST /v1/events/graph/text"} {
		if !slices.Contains(ts.Srv.Routes(), r) {
			t.Errorf("route %s is gone: update this test", r)
		}
	}
}

// cmpOr returns v, or ok when v is skip.
func cmpOr(v, skip, ok int) int {
	if v == skip {
		return ok
	}
	return v
}
