package http_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// gateMarkers are words planted in confidential and restricted memories:
// in content, data, summary, an entity's name, a time expression, and a
// key's first revision before it was reclassified. None may reach a key
// that reads masked (SEC-3, SEC-8).
var gateMarkers = []string{
	"Vaultmark7Q",            // /ops/vault's first revision (internal), reclassified restricted
	"Zebra42Tango",           // a password: restricted by classification
	"Quillfeather",           // the name of the password's owner: an entity
	"qx.auditor@example.com", // an e-mail address: confidential by classification
	"March 1987",             // the time expression of the auditor's memory
	"1987-03-14",             // and the day it names (occurred)
	"Datamark55",             // data of a confidential memory
	"Summark88",              // summary of a restricted memory
	"Halvorsenix",            // an alias the writer gave a confidential memory
	"Writemark31",            // written by the masking key itself: restricted
	"Patchmark64",            // patched in by the masking key: restricted
	"Kestrel19Moon",          // a password in a restricted event's text
	"Ostrowskaya",            // a name in that text: an entity node of the graph
}

// gateStores are the stores the gate is tried on.
var gateStores = []struct {
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
	{"files", func(t *testing.T) mnemo.Store {
		st, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}},
	{"memory", func(t *testing.T) mnemo.Store { return inmem.New(inmem.Options{}) }},
}

// startOn starts a server over store.
func startOn(t *testing.T, store mnemo.Store, opts mhttp.Options) *testServer {
	t.Helper()
	svc := service.New(store, service.Options{})
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
	return &testServer{URL: "http://" + ln.Addr().String(), Srv: srv}
}

// TestMaskGate attacks every route of the route table with two keys that
// read masked — mro (read) and mrw (read, write and admin) — after an
// owner planted confidential and restricted markers, on every store: no
// marker may appear in any answer's bytes; a read-only key is refused on
// every route that needs more than read; and a masking key may not change
// a memory's security level (SEC-8, SEC-9, SEC-10). Each case the owner
// can read says which markers the owner sees with the same request, so
// that a case that finds nothing to mask fails rather than passes. A
// route missing from the table fails the test.
func TestMaskGate(t *testing.T) {
	t.Parallel()
	for _, st := range gateStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			testMaskGate(t, st.name, st.open(t))
		})
	}
}

func testMaskGate(t *testing.T, storeName string, store mnemo.Store) {
	mask := func(k mhttp.APIKey) mhttp.APIKey { k.Mask = true; return k }
	ts := startOn(t, store, mhttp.Options{Registry: newRegistry(), Keys: []mhttp.APIKey{
		apiKey("owner", "t", nil, allScopes...),
		mask(apiKey("mro", "t", nil, mhttp.ScopeRead)),
		mask(apiKey("mrw", "t", nil, allScopes...)),
	}})
	owner := secret("owner")
	u := func(p string) string { return ts.URL + p }
	write := func(body map[string]any) mnemo.Memory {
		t.Helper()
		body["agent_id"] = "a"
		var m mnemo.Memory
		if st, raw := callAs(t, owner, "POST", u("/v1/memories"), body, &m); st != 201 {
			t.Fatalf("plant %v: %d %s", body, st, raw)
		}
		return m
	}
	events := storeName == "sqlite" // the others keep no events, links nor ledger

	// The plants. /ops/vault is written internal, then reclassified
	// restricted: its first revision says what the key then held.
	vault := write(map[string]any{"key": "/ops/vault", "content": "The vault combination is Vaultmark7Q", "security_level": "internal", "type": "knowledge", "tags": []string{"ops"}})
	time.Sleep(20 * time.Millisecond)
	asOf := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(20 * time.Millisecond)
	if st, raw := callAs(t, owner, "PATCH", u("/v1/memories/"+vault.ID), map[string]any{"agent_id": "a", "security_level": "restricted"}, nil); st != 200 {
		t.Fatalf("reclassify: %d %s", st, raw)
	}
	pass := write(map[string]any{"key": "/people/ana", "content": "Ana Quillfeather's password is Zebra42Tango", "type": "identity", "pinned": true, "tags": []string{"ops"}})
	if pass.SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("the password was classified %s", pass.SecurityLevel)
	}
	mail := write(map[string]any{"content": "Lunch with the auditor on 14 March 1987, mail qx.auditor@example.com about the vault", "type": "event", "pinned": true})
	if mail.SecurityLevel != mnemo.SecurityConfidential {
		t.Fatalf("the e-mail was classified %s", mail.SecurityLevel)
	}
	write(map[string]any{"key": "/ops/locker", "content": "The locker details for the vault are kept here", "data": map[string]any{"pin_hint": "Datamark55"},
		"security_level": "confidential", "type": "fact", "entities": []string{"Halvorsenix"}})
	write(map[string]any{"content": "The alarm procedure for the vault building", "summary": "Alarm: Summark88", "security_level": "restricted", "type": "knowledge", "pinned": true})
	plants := write(map[string]any{"key": "/pub/plants", "content": "The office plants near the vault need water on Fridays", "security_level": "public", "type": "knowledge"})
	spare := write(map[string]any{"key": "/tmp/spare", "content": "A spare note about the garden shed", "security_level": "public"})
	if events {
		if st, raw := callAs(t, owner, "POST", u("/v1/events/graph/links"), map[string]any{"agent_id": "a", "source": plants.ID, "target": pass.ID}, nil); st != 201 {
			t.Fatalf("link: %d %s", st, raw)
		}
	}

	// Events whose text names entities: a public one and a restricted
	// one that meet at entity:Lisbon, so that a walk from the public one
	// reaches the restricted one's entity:Dana Ostrowskaya.
	const lisbon = "entity:Lisbon"
	if events {
		for _, e := range []map[string]any{
			{"agent_id": "a", "id": "ev-pub", "type": "note", "security_level": "public", "data": map[string]any{"text": "The Lisbon office opened its doors"}},
			{"agent_id": "a", "id": "ev-sec", "type": "note", "data": map[string]any{"text": "Dana Ostrowskaya in Lisbon says the password is Kestrel19Moon"}},
		} {
			var got mnemo.Event
			if st, raw := callAs(t, owner, "POST", u("/v1/events"), e, &got); st != 201 {
				t.Fatalf("plant event: %d %s", st, raw)
			}
			if e["id"] == "ev-sec" && got.SecurityLevel != mnemo.SecurityRestricted {
				t.Fatalf("the event was classified %s", got.SecurityLevel)
			}
			if st, raw := callAs(t, owner, "POST", u("/v1/events/graph/text"), map[string]any{"agent_id": "a", "event_id": e["id"]}, nil); st != 200 {
				t.Fatalf("relate: %d %s", st, raw)
			}
		}
	}

	later := time.Now().AddDate(2, 0, 0).UTC().Format(time.RFC3339)
	const query = "vault password auditor alarm locker combination"
	type gcase struct {
		route  string // the route table's pattern
		method string
		path   string
		body   any
		// sees are markers the owner reads with the same request: the
		// case reaches the planted memories.
		sees []string
		// refused is the status a masking key with the scope gets
		// instead of an answer (0: any).
		refused int
		// last marks a case that changes what others read: it runs
		// after the others.
		last bool
	}
	q := url.QueryEscape
	cases := []gcase{
		{route: "GET /healthz", method: "GET", path: "/healthz"},
		{route: "GET /openapi.json", method: "GET", path: "/openapi.json"},
		{route: "GET /metrics", method: "GET", path: "/metrics"},
		{route: "GET /v1/whoami", method: "GET", path: "/v1/whoami"},
		{route: "GET /v1/agents", method: "GET", path: "/v1/agents"},
		{route: "GET /v1/memories", method: "GET", path: "/v1/memories?agent_id=a&limit=100", sees: []string{"Zebra42Tango", "Quillfeather", "Datamark55", "Halvorsenix", "Summark88", "March 1987", "1987-03-14"}},
		{route: "GET /v1/memories", method: "GET", path: "/v1/memories?agent_id=a&as_of=" + q(asOf), sees: []string{"Vaultmark7Q"}},
		{route: "GET /v1/memories/{id}", method: "GET", path: "/v1/memories/" + pass.ID + "?agent_id=a", sees: []string{"Zebra42Tango", "Quillfeather"}},
		{route: "GET /v1/memories/{id}", method: "GET", path: "/v1/memories/" + mail.ID + "?agent_id=a", sees: []string{"qx.auditor@example.com", "March 1987", "1987-03-14"}},
		{route: "GET /v1/keys", method: "GET", path: "/v1/keys?agent_id=a&key=/ops/locker", sees: []string{"Datamark55", "Halvorsenix"}},
		{route: "GET /v1/keys", method: "GET", path: "/v1/keys?agent_id=a&key=/ops/vault", sees: []string{"Vaultmark7Q"}},
		{route: "GET /v1/keys/tree", method: "GET", path: "/v1/keys/tree?agent_id=a&prefix=/"},
		{route: "GET /v1/history", method: "GET", path: "/v1/history?agent_id=a&key=/ops/vault", sees: []string{"Vaultmark7Q"}},
		{route: "POST /v1/recall", method: "POST", path: "/v1/recall", body: map[string]any{"agent_id": "a", "query": query, "limit": 20, "explain": true, "traverse_hops": 1},
			sees: []string{"Zebra42Tango", "qx.auditor@example.com", "Summark88"}},
		{route: "POST /v1/recall", method: "POST", path: "/v1/recall", body: map[string]any{"agent_id": "a", "query": "vault combination", "as_of": asOf}, sees: []string{"Vaultmark7Q"}},
		{route: "POST /v1/recall", method: "POST", path: "/v1/recall", body: map[string]any{"agent_id": "a", "query": "what happened with the auditor in March 1987"}, sees: []string{"qx.auditor@example.com", "1987-03-14"}},
		{route: "POST /v1/surface", method: "POST", path: "/v1/surface", body: map[string]any{"agent_id": "a", "query": query, "limit": 20}, sees: []string{"Zebra42Tango"}},
		{route: "GET /v1/recall/path", method: "GET", path: "/v1/recall/path?agent_id=a&prefix=/&traverse_hops=2", sees: []string{"Zebra42Tango", "Datamark55"}},
		{route: "GET /v1/stats", method: "GET", path: "/v1/stats?agent_id=a"},
		{route: "GET /v1/export", method: "GET", path: "/v1/export?agent_id=a", sees: []string{"Zebra42Tango"}, refused: 403},
		{route: "GET /memory/long-term", method: "GET", path: "/memory/long-term?agent_id=a", sees: []string{"Zebra42Tango"}},
		{route: "GET /memory/long-term/{id}", method: "GET", path: "/memory/long-term/" + pass.ID + "?agent_id=a", sees: []string{"Zebra42Tango"}},
		{route: "GET /memory/working/{session_id}", method: "GET", path: "/memory/working/s1?agent_id=a"},
		{route: "GET /v1/runs", method: "GET", path: "/v1/runs?agent_id=a"},
		{route: "GET /v1/runs/{run_id}", method: "GET", path: "/v1/runs/r1?agent_id=a"},
		{route: "GET /v1/sessions", method: "GET", path: "/v1/sessions?agent_id=a"},
		{route: "GET /v1/sessions/{session_id}", method: "GET", path: "/v1/sessions/s1?agent_id=a"},
		{route: "POST /v1/snapshot", method: "POST", path: "/v1/snapshot", body: map[string]any{"agent_id": "a", "trigger": map[string]any{"type": "cron", "payload": "vault audit"}, "focus": query, "token_limit": 2000},
			sees: []string{"Zebra42Tango", "qx.auditor@example.com"}},
		{route: "GET /v1/boot", method: "GET", path: "/v1/boot?agent_id=a", sees: []string{"Zebra42Tango", "qx.auditor@example.com"}},
		{route: "GET /v1/boot", method: "GET", path: "/v1/boot?agent_id=a&format=json", sees: []string{"Zebra42Tango", "qx.auditor@example.com"}},
		{route: "GET /v1/boot", method: "GET", path: "/v1/boot?agent_id=a&lang=zh", sees: []string{"Zebra42Tango", "qx.auditor@example.com"}},
		{route: "POST /v1/read", method: "POST", path: "/v1/read", body: map[string]any{"agent_id": "a", "token_limit": 4000}, sees: []string{"Zebra42Tango", "Summark88"}},
		{route: "POST /v1/reflect", method: "POST", path: "/v1/reflect", body: map[string]any{"agent_id": "a", "dry_run": true, "now": later}, sees: []string{"Vaultmark7Q"}},
		{route: "GET /v1/ledger", method: "GET", path: "/v1/ledger?agent_id=a"},
		{route: "GET /v1/events", method: "GET", path: "/v1/events?agent_id=a"},
		{route: "GET /v1/events/{id}", method: "GET", path: "/v1/events/e1?agent_id=a"},
		{route: "GET /v1/events/stream", method: "GET", path: "/v1/events/stream?agent_id=a"},
		{route: "GET /v1/events/export", method: "GET", path: "/v1/events/export?agent_id=a"},
		{route: "GET /v1/events/graph/neighbours", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=" + plants.ID},
		{route: "GET /v1/events/graph/traverse", method: "GET", path: "/v1/events/graph/traverse?agent_id=a&node=" + plants.ID},
		{route: "GET /v1/events/graph/path", method: "GET", path: "/v1/events/graph/path?agent_id=a&from=" + plants.ID + "&to=" + pass.ID},
		{route: "GET /v1/events/summaries", method: "GET", path: "/v1/events/summaries?agent_id=a"},
		{route: "GET /v1/events/capabilities", method: "GET", path: "/v1/events/capabilities?agent_id=a"},
		{route: "POST /v1/events/search", method: "POST", path: "/v1/events/search", body: map[string]any{"agent_id": "a", "vector": []float32{1}, "model": "m"}},
		{route: "GET /v1/profile", method: "GET", path: "/v1/profile?agent_id=a"},

		// Writes. What a masking key writes that classifies above what it
		// reads is stored, and answered masked (SEC-10).
		{route: "POST /v1/memories", method: "POST", path: "/v1/memories", body: map[string]any{"agent_id": "a", "content": "The password is Writemark31", "type": "fact"}},
		{route: "POST /v1/memories/batch", method: "POST", path: "/v1/memories/batch", body: map[string]any{"agent_id": "a", "memories": []any{map[string]any{"content": "Note: the password is Writemark31"}}}},
		{route: "POST /v1/messages", method: "POST", path: "/v1/messages", body: map[string]any{"agent_id": "a", "session_id": "s1", "messages": []any{map[string]any{"role": "user", "content": "the guest wifi password is Writemark31"}}}},
		{route: "PATCH /v1/memories/{id}", method: "PATCH", path: "/v1/memories/" + pass.ID, body: map[string]any{"agent_id": "a", "security_level": "public"}, refused: 403},
		{route: "PATCH /v1/memories/{id}", method: "PATCH", path: "/v1/memories/" + pass.ID, body: map[string]any{"agent_id": "a", "pinned": false, "tags": []string{"ops", "people"}}},
		{route: "PATCH /v1/memories/{id}", method: "PATCH", path: "/v1/memories/" + mail.ID, body: map[string]any{"agent_id": "a", "content": "Lunch with the auditor; the password is Patchmark64"}, last: true},
		{route: "POST /v1/runs", method: "POST", path: "/v1/runs", body: map[string]any{"agent_id": "a", "run_id": "r1", "trigger": map[string]any{"type": "cron", "payload": "vault audit"}, "focus": query}},
		{route: "POST /v1/runs/{run_id}/calls", method: "POST", path: "/v1/runs/r1/calls", body: map[string]any{"agent_id": "a", "name": "lookup", "result": "ok"}},
		{route: "POST /v1/runs/{run_id}/responses", method: "POST", path: "/v1/runs/r1/responses", body: map[string]any{"agent_id": "a", "text": "looking"}},
		{route: "POST /v1/runs/{run_id}/instructions", method: "POST", path: "/v1/runs/r1/instructions", body: map[string]any{"agent_id": "a", "text": "be brief"}},
		{route: "DELETE /v1/runs/{run_id}", method: "DELETE", path: "/v1/runs/r1?agent_id=a", last: true},
		{route: "POST /v1/sessions/{session_id}/turns", method: "POST", path: "/v1/sessions/s1/turns", body: map[string]any{"agent_id": "a", "text": "tell me about the vault"}},
		{route: "DELETE /v1/sessions/{session_id}", method: "DELETE", path: "/v1/sessions/s1?agent_id=a", last: true},
		{route: "POST /v1/ingest", method: "POST", path: "/v1/ingest", body: map[string]any{"agent_id": "a", "text": "## Notes\n\n- The door password is Writemark31\n", "dry_run": true}},
		{route: "POST /v1/ingest", method: "POST", path: "/v1/ingest", body: map[string]any{"agent_id": "a", "text": "## Notes\n\n- The gate password is Writemark31\n", "source": "gate"}},
		{route: "POST /v1/events", method: "POST", path: "/v1/events", body: map[string]any{"agent_id": "a", "id": "e1", "type": "AgentStarted"}},
		{route: "POST /v1/events/batch", method: "POST", path: "/v1/events/batch", body: map[string]any{"agent_id": "a", "events": []any{map[string]any{"type": "AgentStopped"}}}},
		{route: "POST /v1/events/replay", method: "POST", path: "/v1/events/replay", body: map[string]any{"agent_id": "a", "to": "2000-01-01T00:00:00Z", "webhook_url": "http://127.0.0.1:1/hook"}},
		{route: "POST /v1/events/graph/links", method: "POST", path: "/v1/events/graph/links", body: map[string]any{"agent_id": "a", "source": spare.ID, "target": pass.ID}},
		{route: "POST /v1/events/graph/text", method: "POST", path: "/v1/events/graph/text", body: map[string]any{"agent_id": "a", "event_id": "e1"}},
		{route: "POST /v1/events/summaries", method: "POST", path: "/v1/events/summaries", body: map[string]any{"agent_id": "a", "period": "day"}},
		{route: "POST /v1/events/capabilities/extract", method: "POST", path: "/v1/events/capabilities/extract", body: map[string]any{"agent_id": "a"}},
		{route: "PUT /v1/profile", method: "PUT", path: "/v1/profile", body: map[string]any{"agent_id": "a", "version": 99}},
		{route: "POST /v1/profile/interactions", method: "POST", path: "/v1/profile/interactions", body: map[string]any{"agent_id": "a", "text": "hi"}},
		{route: "POST /v1/prune", method: "POST", path: "/v1/prune", body: map[string]any{"agent_id": "a", "tags": []string{"ops"}, "dry_run": true}},
		{route: "POST /v1/import", method: "POST", path: "/v1/import?agent_id=a", body: map[string]any{"content": "An imported note about the garden"}},
		{route: "POST /v1/import/history", method: "POST", path: "/v1/import/history?agent_id=a&from=claude", body: []any{map[string]any{"uuid": "c1", "chat_messages": []any{
			map[string]any{"uuid": "m1", "sender": "human", "text": "the shed password is Writemark31", "created_at": "2025-01-01T00:00:00Z"}}}}},
		{route: "POST /v1/restore", method: "POST", path: "/v1/restore", body: map[string]any{"agent_id": "a", "ledger_seq": 1}},
		{route: "DELETE /v1/memories/{id}", method: "DELETE", path: "/v1/memories/" + spare.ID + "?agent_id=a", last: true},
		{route: "DELETE /memory/long-term/{id}", method: "DELETE", path: "/memory/long-term/" + spare.ID + "?agent_id=a", last: true},
		{route: "DELETE /v1/memories", method: "DELETE", path: "/v1/memories?agent_id=a&key=/tmp/spare", last: true},
		{route: "POST /v1/reset", method: "POST", path: "/v1/reset", body: map[string]any{"agent_id": "a"}, last: true},
		{route: "DELETE /v1/memories", method: "DELETE", path: "/v1/memories?agent_id=a&all=true", last: true},
		{route: "DELETE /memory/long-term", method: "DELETE", path: "/memory/long-term?agent_id=a&all=true", last: true},
	}
	if events {
		// The graph holds entity nodes read from event text: one read from
		// a restricted event is as secret as the event.
		cases = append(cases,
			gcase{route: "GET /v1/events/graph/neighbours", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=ev-sec", sees: []string{"Ostrowskaya"}},
			gcase{route: "GET /v1/events/graph/neighbours", method: "GET", path: "/v1/events/graph/neighbours?agent_id=a&node=" + q(lisbon), sees: []string{"ev-sec"}},
			gcase{route: "GET /v1/events/graph/traverse", method: "GET", path: "/v1/events/graph/traverse?agent_id=a&depth=3&node=ev-pub", sees: []string{"Ostrowskaya"}},
			gcase{route: "GET /v1/events/graph/traverse", method: "GET", path: "/v1/events/graph/traverse?agent_id=a&depth=2&node=" + q(lisbon), sees: []string{"Ostrowskaya"}},
			// A path's ends are the caller's own words; TestMaskedGraph
			// checks that no path runs through what it may not read.
			gcase{route: "GET /v1/events/graph/path", method: "GET", path: "/v1/events/graph/path?agent_id=a&from=ev-pub&to=ev-sec", sees: []string{"precedes"}},
			gcase{route: "POST /v1/events/graph/text", method: "POST", path: "/v1/events/graph/text", body: map[string]any{"agent_id": "a", "event_id": "ev-sec"}, sees: []string{"Ostrowskaya"}},
		)
	}
	slices.SortStableFunc(cases, func(a, b gcase) int {
		switch {
		case a.last == b.last:
			return 0
		case b.last:
			return -1
		}
		return 1
	})
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.route] = true
	}
	covers(t, ts.Srv.Routes(), covered)
	scopes := ts.Srv.RouteScopes()
	leaks := func(raw []byte) []string {
		var out []string
		for _, m := range gateMarkers {
			if strings.Contains(string(raw), m) {
				out = append(out, m)
			}
		}
		return out
	}
	name := func(c gcase) string {
		return fmt.Sprintf("%s %s", c.method, strings.SplitN(c.path, "?", 2)[0])
	}

	// The owner reads the markers each read case promises: the planting
	// reached what the case asks.
	for _, c := range cases {
		if len(c.sees) == 0 {
			continue
		}
		st, raw := callAs(t, owner, c.method, u(c.path), c.body, nil)
		for _, m := range c.sees {
			if !strings.Contains(string(raw), m) {
				t.Errorf("owner %s: %d, %q not in %s", name(c), st, m, raw)
			}
		}
	}

	// mro: read and mask. It reads nothing planted, and is refused every
	// route that needs more than read.
	for _, c := range cases {
		st, raw := callAs(t, secret("mro"), c.method, u(c.path), c.body, nil)
		if l := leaks(raw); len(l) > 0 {
			t.Errorf("mro %s: %d leaks %v: %s", name(c), st, l, raw)
		}
		need := scopes[c.route]
		if len(need) > 0 && !slices.Contains(need, mhttp.ScopeRead) && !slices.Contains(need, "authenticated") && st != 403 {
			t.Errorf("mro %s: %d, want 403 (a read-only key on a write route): %s", name(c), st, raw)
		}
		if c.refused != 0 && slices.Contains(need, mhttp.ScopeRead) && st != c.refused {
			t.Errorf("mro %s: %d, want %d: %s", name(c), st, c.refused, raw)
		}
	}
	// mrw: read, write, admin and mask. It reads nothing planted, nor what
	// it wrote itself, and may not change a security level.
	for _, c := range cases {
		st, raw := callAs(t, secret("mrw"), c.method, u(c.path), c.body, nil)
		if l := leaks(raw); len(l) > 0 {
			t.Errorf("mrw %s: %d leaks %v: %s", name(c), st, l, raw)
		}
		if c.refused != 0 && st != c.refused {
			t.Errorf("mrw %s: %d, want %d: %s", name(c), st, c.refused, raw)
		}
		if c.refused == 403 && st == 403 && problem(t, raw).Code != mnemo.EFORBIDDEN {
			t.Errorf("mrw %s: %s, want code %s", name(c), raw, mnemo.EFORBIDDEN)
		}
		// After the writes, every read as a masking key still hides all.
		if c.route == "POST /v1/profile/interactions" {
			for _, r := range cases {
				if r.last || r.method != "GET" {
					continue
				}
				for _, key := range []string{"mro", "mrw"} {
					st, raw := callAs(t, secret(key), r.method, u(r.path), r.body, nil)
					if l := leaks(raw); len(l) > 0 {
						t.Errorf("%s %s after the writes: %d leaks %v: %s", key, name(r), st, l, raw)
					}
				}
			}
		}
	}
	// The level the masking key tried to change did not change.
	var m mnemo.Memory
	if st, raw := callAs(t, owner, "GET", u("/v1/memories/"+pass.ID+"?agent_id=a"), nil, &m); st == 200 && m.SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("after mrw's PATCH: %s", raw)
	}
}
