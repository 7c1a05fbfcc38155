package importers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/importers"
	"github.com/mnemo-dev/mnemo/internal/testkit"
	"github.com/mnemo-dev/mnemo/service"
)

func read(t *testing.T, f importers.Format, in []byte) *importers.History {
	t.Helper()
	h, err := importers.Read(f, "file", bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// sessionLines lists a session's messages as "time role: content", oldest
// first.
func sessionLines(t *testing.T, svc *service.Mnemo, sc mnemo.Scope, session string) []string {
	t.Helper()
	ms, _, err := svc.List(context.Background(), sc, mnemo.ListQuery{
		Filter: mnemo.Filter{SessionID: session}, Order: mnemo.OrderOldest, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		var d struct{ Role string }
		json.Unmarshal(m.Data, &d)
		if m.Type != mnemo.TypeEvent {
			t.Fatalf("type %s", m.Type)
		}
		out = append(out, m.CreatedAt.UTC().Format(time.RFC3339Nano)+" "+d.Role+": "+m.Content)
	}
	return out
}

// Each format's fixture comes in with its times, speakers and sessions
// (IMP-1), and a second import stores nothing (IMP-2).
func TestImport(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		format  importers.Format
		input   func(testing.TB) []byte
		session string
		want    []string
	}{
		{importers.ChatGPT, chatgptExport, "chatgpt:c-lisbon", []string{
			"2023-11-14T22:13:20.25Z user: Plan a trip to Lisbon in May",
			"2023-11-14T22:13:29.5Z assistant: Lisbon in May is warm; stay in Alfama.",
			"2023-11-14T22:15:00Z user: Thanks!"}},
		{importers.Claude, claudeExport, "claude:cl-1", []string{
			"2025-02-01T09:00:05.123456Z user: How long should I proof sourdough?",
			"2025-02-01T09:00:20Z assistant: Proof it 4 to 6 hours at room temperature.",
			"2025-02-01T09:01:00Z user: Great, thanks"}},
		{importers.ClaudeCode, claudeCodeSession, "claude-code-s-1111", []string{
			"2025-06-01T10:00:01Z user: The checkout total ignores the discount; fix it",
			"2025-06-01T10:00:03Z assistant: I'll look at cart.go.",
			"2025-06-01T10:00:10Z assistant: Fixed: the discount is applied before tax.",
			"2025-06-01T10:00:11Z user: caf\ufffd receipts too"}},
		{importers.Codex, codexRollout, "codex:0199-aaaa", []string{
			"2025-09-03T08:00:02Z user: Add rate limiting to the login endpoint",
			"2025-09-03T08:00:09Z assistant: Added a token bucket of 5 attempts a minute per IP."}},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			svc := testkit.NewService(t, testkit.NewClock())
			sc := testkit.Alice
			h := read(t, tc.format, tc.input(t))
			var seen []importers.Progress
			res, err := importers.Import(ctx, svc, sc, tc.format, h, importers.Options{Progress: func(p importers.Progress) { seen = append(seen, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Messages != len(tc.want) || res.Skipped != 0 || len(seen) != len(h.Conversations) || seen[len(seen)-1].Done != seen[len(seen)-1].Total {
				t.Fatalf("result %+v, progress %+v", res, seen)
			}
			if got := sessionLines(t, svc, sc, tc.session); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("session %s:\n%s\nwant\n%s", tc.session, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			again, err := importers.Import(ctx, svc, sc, tc.format, read(t, tc.format, tc.input(t)), importers.Options{})
			if err != nil || again.Messages != 0 || again.Skipped != len(tc.want) {
				t.Fatalf("second import: %+v %v", again, err)
			}
			if got := sessionLines(t, svc, sc, tc.session); len(got) != len(tc.want) {
				t.Fatalf("after a second import the session holds %d messages", len(got))
			}
		})
	}
}

// A conversation continued after an import brings only its new messages
// on the next one; a message longer than the store takes is stored whole,
// in parts.
func TestImportContinued(t *testing.T) {
	ctx := context.Background()
	svc := testkit.NewService(t, testkit.NewClock())
	h := read(t, importers.Claude, claudeExport(t))
	h.Conversations[0].Messages = h.Conversations[0].Messages[:2]
	if _, err := importers.Import(ctx, svc, testkit.Alice, importers.Claude, h, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	h = read(t, importers.Claude, claudeExport(t))
	long := strings.Repeat("knead and fold the dough gently ", 20)
	h.Conversations[0].Messages = append(h.Conversations[0].Messages, importers.Message{ID: "cm-4", Role: "user", Text: long, Time: time.Date(2025, 2, 1, 9, 2, 0, 0, time.UTC)})
	res, err := importers.Import(ctx, svc, testkit.Alice, importers.Claude, h, importers.Options{Limits: mnemo.Limits{MaxMessageChars: 250}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 2 || res.Messages != 4 {
		t.Fatalf("result %+v, want 2 skipped and 1+3 parts stored", res)
	}
	got := sessionLines(t, svc, testkit.Alice, "claude:cl-1")
	joined := ""
	for _, l := range got[3:] {
		joined += " " + l[strings.Index(l, ": ")+2:]
	}
	if len(got) != 6 || strings.Join(strings.Fields(joined), " ") != strings.TrimSpace(long) {
		t.Fatalf("session:\n%s", strings.Join(got, "\n"))
	}
}

// The MCP memory server's entities become memories about them, and its
// relations links between them (IMP-8); importing again adds nothing.
func TestImportMCPMemory(t *testing.T) {
	ctx := context.Background()
	svc := testkit.NewService(t, testkit.NewClock())
	sc := testkit.Alice
	res, err := importers.Import(ctx, svc, sc, importers.MCPMemory, read(t, importers.MCPMemory, mcpMemory(t)), importers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories != 6 || res.Entities != 3 || res.Links != 1 || res.Skipped != 1 {
		t.Fatalf("result %+v", res)
	}
	ana, err := svc.GetByKey(ctx, sc, "/history/mcp-memory/Ana%20Silva")
	if err != nil || ana.Content != "Ana Silva is a person." {
		t.Fatalf("%+v %v", ana, err)
	}
	obs, _, err := svc.List(ctx, sc, mnemo.ListQuery{Filter: mnemo.Filter{KeyPrefix: "/history/mcp-memory/Ana%20Silva/"}, Order: mnemo.OrderKey, Limit: 10})
	if err != nil || len(obs) != 3 || obs[0].ID != ana.ID {
		t.Fatalf("%d memories, %v", len(obs), err)
	}
	for _, m := range obs {
		if len(m.Entities) == 0 || m.Entities[0] != "Ana Silva" {
			t.Fatalf("observation %q is not about Ana Silva: %v", m.Content, m.Entities)
		}
	}
	rels, err := svc.Neighbours(ctx, sc, ana.ID, events.GraphQuery{})
	if err != nil || len(rels) != 1 || rels[0].Type != "works_at" {
		t.Fatalf("links %+v %v", rels, err)
	}
	again, err := importers.Import(ctx, svc, sc, importers.MCPMemory, read(t, importers.MCPMemory, mcpMemory(t)), importers.Options{})
	if err != nil || again.Memories != 0 || again.Skipped != 7 {
		t.Fatalf("second import %+v %v", again, err)
	}
	if rels, _ := svc.Neighbours(ctx, sc, ana.ID, events.GraphQuery{}); len(rels) != 1 {
		t.Fatalf("links after a second import: %+v", rels)
	}
}

// An import stopped by the store says exactly what it stored before.
func TestImportPartial(t *testing.T) {
	ctx := context.Background()
	svc := testkit.NewService(t, testkit.NewClock())
	h := read(t, importers.ChatGPT, chatgptExport(t))
	h.Conversations = append(h.Conversations, importers.Conversation{ID: "bad", Messages: []importers.Message{{ID: "x", Role: "user", Text: "hello", Time: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Hour)}}})
	res, err := importers.Import(ctx, svc, testkit.Alice, importers.ChatGPT, h, importers.Options{})
	var pe *importers.PartialError
	if !errors.As(err, &pe) || pe.Result.Messages != 3 || res.Messages != 3 || !strings.HasPrefix(err.Error(), "conversation bad: ") ||
		!strings.Contains(err.Error(), "created_at") || !strings.Contains(err.Error(), "stored before it: 3 messages in 1 conversation,") || mnemo.ErrorCode(pe.Err) != mnemo.EINVALID {
		t.Fatalf("result %+v, error %v", res, err)
	}
}
