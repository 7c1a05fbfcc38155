package mcp_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// gateMarkers are words planted in confidential and restricted memories
// (content, data, summary, names, a time expression, a key's revision
// before it was reclassified) or written through the channel itself: none
// may reach a tool's result (SEC-3, SEC-8).
var gateMarkers = []string{"Vaultmark7Q", "Zebra42Tango", "Quillfeather", "qx.auditor@example.com", "March 1987", "1987-03-14",
	"Datamark55", "Summark88", "Halvorsenix", "Writemark31",
	"Kestrel19Moon", "Ostrowskaya"} // a restricted event's text, and a name read from it: a node of the graph

// TestMaskGate calls every tool the server lists, over both transports, on
// every store, after confidential and restricted markers were planted:
// no marker may appear anywhere in a result as the client receives it. A
// case marked masked must show a masked memory, so that it reached what
// was planted. A tool missing from the table fails the test.
func TestMaskGate(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		open func(t *testing.T) mnemo.Store
	}{
		{"sqlite", func(t *testing.T) mnemo.Store {
			db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
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
		{"memory", func(*testing.T) mnemo.Store { return inmem.New(inmem.Options{}) }},
	}
	for _, st := range stores {
		for _, tr := range transports {
			t.Run(st.name+"/"+tr.name, func(t *testing.T) {
				t.Parallel()
				svc := service.New(st.open(t), service.Options{})
				t.Cleanup(func() { svc.Close() })
				testMaskGate(t, svc, tr.connect, st.name == "sqlite")
			})
		}
	}
}

func testMaskGate(t *testing.T, svc *service.Mnemo, connect func(*testing.T, *service.Mnemo) *mcpsdk.ClientSession, links bool) {
	ctx := t.Context()
	write := func(d mnemo.Draft) mnemo.Memory {
		t.Helper()
		m, err := svc.Remember(ctx, alice, d)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	vault := write(mnemo.Draft{Key: "/ops/vault", Content: new("The vault combination is Vaultmark7Q"), SecurityLevel: mnemo.SecurityInternal})
	time.Sleep(20 * time.Millisecond)
	asOf := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(20 * time.Millisecond)
	if _, err := svc.Update(ctx, alice, vault.ID, memory.Patch{SecurityLevel: new(mnemo.SecurityRestricted)}, "test"); err != nil {
		t.Fatal(err)
	}
	pass := write(mnemo.Draft{Key: "/people/ana", Content: new("Ana Quillfeather's password is Zebra42Tango"), Type: mnemo.TypeIdentity})
	write(mnemo.Draft{Content: new("Lunch with the auditor on 14 March 1987, mail qx.auditor@example.com about the vault"), Type: mnemo.TypeEvent})
	write(mnemo.Draft{Key: "/ops/locker", Content: new("The locker details for the vault are kept here"), Data: json.RawMessage(`{"pin_hint":"Datamark55"}`),
		SecurityLevel: mnemo.SecurityConfidential, Type: mnemo.TypeFact, Entities: []string{"Halvorsenix"}})
	write(mnemo.Draft{Content: new("The alarm procedure for the vault building"), Summary: "Alarm: Summark88", SecurityLevel: mnemo.SecurityRestricted})
	plants := write(mnemo.Draft{Key: "/pub/plants", Content: new("The office plants near the vault need water on Fridays"), SecurityLevel: mnemo.SecurityPublic})
	if links {
		if _, err := svc.Link(ctx, alice, mnemo.Relation{Source: plants.ID, Target: pass.ID}); err != nil {
			t.Fatal(err)
		}
		// A restricted event related to what its text names, and linked
		// to a public memory: the graph holds entity nodes read from it.
		e, err := svc.AppendEvent(ctx, alice, mnemo.Event{ID: "ev-sec", Type: "note",
			Data: json.RawMessage(`{"text":"Dana Ostrowskaya in Lisbon says the password is Kestrel19Moon"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if e.SecurityLevel != mnemo.SecurityRestricted {
			t.Fatalf("the event was classified %s", e.SecurityLevel)
		}
		if _, err := svc.RelateEventText(ctx, alice, e.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Link(ctx, alice, mnemo.Relation{Source: plants.ID, Target: e.ID}); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, svc)

	const query = "vault password auditor alarm locker combination"
	type gateCase struct {
		tool   string
		args   map[string]any
		masked bool // the result shows a masked memory
	}
	cases := []gateCase{
		{"recall", map[string]any{"query": query, "limit": 20, "explain": true, "traverse_hops": 1, "min_match": "none"}, true},
		{"recall", map[string]any{"query": "vault combination", "as_of": asOf, "min_match": "none"}, true},
		{"recall", map[string]any{"query": "what happened with the auditor in March 1987", "min_match": "none"}, true},
		{"surface", map[string]any{"query": query, "limit": 20, "min_vitality": 0, "min_match": "none"}, true},
		{"recall_path", map[string]any{"uri": "/", "traverse_hops": 2}, true},
		{"boot", map[string]any{}, true},
		{"boot", map[string]any{"format": "json"}, true},
		{"boot", map[string]any{"lang": "zh"}, true},
		{"status", map[string]any{}, false},
		{"reflect", map[string]any{"dry_run": true}, false},
		{"remember", map[string]any{"content": "The password is Writemark31"}, true},
		{"set_memory", map[string]any{"key": "/notes/door", "json_content": map[string]any{"note": "the door password is Writemark31"}, "source": "manual"}, true},
		{"ingest", map[string]any{"text": "## Notes\n\n- The gate password is Writemark31\n", "dry_run": true}, true},
		{"ingest", map[string]any{"text": "## Notes\n\n- The gate password is Writemark31\n", "source": "gate"}, true},
		{"link", map[string]any{"source": plants.ID, "target": vault.ID}, false},
		{"capabilities", map[string]any{"text": "open the vault"}, false},
		{"event_summary", map[string]any{}, false},
		{"search_events", map[string]any{"query": query}, false},
		{"forget", map[string]any{"key": "/notes/door"}, false},
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !slices.ContainsFunc(cases, func(c gateCase) bool { return c.tool == tool.Name }) {
			t.Errorf("tool %s has no case in this test", tool.Name)
		}
	}
	for _, c := range cases {
		res := call(t, cs, c.tool, c.args)
		w := wire(t, res)
		for _, m := range gateMarkers {
			if strings.Contains(w, m) {
				t.Errorf("%s(%v) leaks %q: %s", c.tool, c.args, m, w)
			}
		}
		if c.masked && (res.IsError || !strings.Contains(w, "******")) {
			t.Errorf("%s(%v) shows no masked memory: %s", c.tool, c.args, w)
		}
	}
}
