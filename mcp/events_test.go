package mcp_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func TestSearchEventsTool(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	t.Cleanup(func() { svc.Close() })
	es, err := svc.AppendEvents(t.Context(), alice, []mnemo.Event{
		{Type: "user.message", Source: "chat", Data: json.RawMessage(`{"text":"the backup of the billing database failed"}`)},
		{Type: "user.message", Source: "chat", Data: json.RawMessage(`{"text":"lunch with the team on friday"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, svc, alice)
	var out struct {
		Count  int
		Events []struct{ ID, Text, Modality string }
	}
	ok(t, cs, "search_events", map[string]any{"query": "billing database backup", "limit": 1}, &out)
	if out.Count != 1 || out.Events[0].ID != es[0].ID || out.Events[0].Modality != "text" || out.Events[0].Text == "" {
		t.Fatalf("search_events = %+v", out)
	}
	fails(t, cs, "search_events", map[string]any{"query": ""}, mnemo.EINVALID)
	// Another agent's events stay its own.
	bob := connectMemory(t, svc, mnemo.Scope{TenantID: "default", AgentID: "bob"})
	ok(t, bob, "search_events", map[string]any{"query": "billing database backup"}, &out)
	if out.Count != 0 {
		t.Fatalf("bob found alice's events: %+v", out)
	}
}
