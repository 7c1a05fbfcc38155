package mcp_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestCompactionMasked: reflect's compaction of 55 memories of a tag, one
// of them confidential by its writer's word, writes a summary memory at
// least as secret
// (SEC-12), which the MCP channel masks in the reflect report and wherever
// the summary comes back: recall, surface, recall_path, boot.
func TestCompactionMasked(t *testing.T) {
	svc := newService(t)
	const leak = "heron"
	var drafts []mnemo.Draft
	for i := range 55 {
		content := fmt.Sprintf("Ops %d: backup done.", i)
		d := mnemo.Draft{Content: &content, Tags: []string{"ops"}}
		if i == 7 { // confidential by its writer's word: nothing in its text says so
			content = "Ops 7: the on-call vault word is heron."
			d.SecurityLevel = mnemo.SecurityConfidential
		}
		drafts = append(drafts, d)
	}
	if _, err := svc.RememberBatch(t.Context(), alice, drafts); err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, svc, alice)
	res := ok(t, cs, "reflect", map[string]any{"phase": "compact"}, nil)
	if w := wire(t, res); strings.Contains(w, leak) || !strings.Contains(w, "[CONFIDENTIAL]") {
		t.Errorf("the reflect report shows the compacted secret: %s", w)
	}
	ms, _, err := svc.List(t.Context(), alice, mnemo.ListQuery{Filter: mnemo.Filter{Tags: []string{"compacted"}}})
	if err != nil || len(ms) != 1 || ms[0].SecurityLevel != mnemo.SecurityConfidential || !strings.Contains(ms[0].Content, leak) {
		t.Fatalf("the summary memory: %+v, %v; want one, confidential, holding the word", ms, err)
	}
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"recall", map[string]any{"query": "on-call vault word"}},
		{"surface", map[string]any{"query": "on-call vault word"}},
		{"recall_path", map[string]any{"uri": "/compacted"}},
		{"boot", map[string]any{}},
		{"boot", map[string]any{"format": "json"}},
	} {
		res := ok(t, cs, tool.name, tool.args, nil)
		if w := wire(t, res); strings.Contains(w, leak) || !strings.Contains(w, "[CONFIDENTIAL]") {
			t.Errorf("%s %v shows the compacted secret: %s", tool.name, tool.args, w)
		}
	}
}

// TestEventToolsMasked: the event tools mask what a restricted event
// holds (SEC-11) and what is built from it (SEC-12): search_events,
// capabilities and event_summary.
func TestEventToolsMasked(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	t.Cleanup(func() { svc.Close() })
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	const leak = "4111"
	var evs []mnemo.Event
	for i, d := range []string{
		`{"text":"the deploy paid with card 4111 1111 1111 1111","description":"paid with card 4111 1111 1111 1111"}`,
		`{"text":"the deploy of the api","description":"deployed the api"}`,
		`{"text":"the deploy of the web","description":"deployed the web"}`,
	} {
		evs = append(evs, mnemo.Event{Type: "DeployCompleted", Source: "w", TS: t0.Add(time.Duration(i) * time.Minute), Data: json.RawMessage(d)})
	}
	if _, err := svc.AppendEvents(t.Context(), alice, evs); err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, svc, alice)
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"search_events", map[string]any{"query": "deploy paid with card"}},
		{"capabilities", map[string]any{"text": "deploy"}},
		{"event_summary", map[string]any{"period": "week", "at": t0.Format(time.RFC3339)}},
	} {
		res := ok(t, cs, tool.name, tool.args, nil)
		if w := wire(t, res); strings.Contains(w, leak) || !strings.Contains(w, "[RESTRICTED]") {
			t.Errorf("%s shows the restricted event: %s", tool.name, w)
		}
	}
}
