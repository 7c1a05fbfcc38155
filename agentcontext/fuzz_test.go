package agentcontext_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// FuzzRun feeds arbitrary calls, responses and turns to a run's short-term
// memory and a session's working memory. Whatever the input, a change
// either fails with a domain error and leaves the run as it was, or keeps
// the run within its token limit; a session's turn count only grows.
func FuzzRun(f *testing.F) {
	for _, s := range []struct{ name, input, output, text string }{
		{"search", `{"q":"kyoto"}`, `"12 results"`, "My name is Dana. Remember that I hate crowds."},
		{"tail_log", ``, `"` + strings.Repeat("log line ", 300) + `"`, "我叫小明，我住在上海。记住：我对花生过敏。"},
		{"", `{`, `null`, ""},
		{"f", `[1,2,3]`, `{"a":{"b":[true,null]}}`, "call me Ann!!! I'm so angry"},
		{"x", `"\u0000"`, `"\ud800"`, "\x00\xff"},
	} {
		f.Add(s.name, s.input, s.output, s.text)
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{Context: agentcontext.Options{RunTokenLimit: 300}})
	sc := mnemo.Scope{TenantID: "fuzz", AgentID: "fuzz"}
	r, err := svc.OpenRun(ctx, sc, agentcontext.RunOptions{ID: "r", Trigger: agentcontext.Trigger{Type: "cron"}})
	if err != nil {
		f.Fatal(err)
	}
	turns := 0
	f.Fuzz(func(t *testing.T, name, input, output, text string) {
		before, err := svc.GetRun(ctx, sc, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		after, err := svc.RecordCall(ctx, sc, r.ID, agentcontext.ToolCall{Name: name, Input: []byte(input), Output: []byte(output)})
		if err != nil {
			if code := mnemo.ErrorCode(err); code == mnemo.EINTERNAL || code == "" {
				t.Fatalf("RecordCall: %v", err)
			}
			if now, _ := svc.GetRun(ctx, sc, r.ID); now.NextRound != before.NextRound {
				t.Fatalf("a failed call changed the run")
			}
		} else if after.Tokens > after.TokenLimit {
			t.Fatalf("%d tokens over the limit %d", after.Tokens, after.TokenLimit)
		}
		if _, err := svc.RecordResponse(ctx, sc, r.ID, text); err != nil && mnemo.ErrorCode(err) == mnemo.EINTERNAL {
			t.Fatalf("RecordResponse: %v", err)
		}
		wm, err := svc.AddTurn(ctx, sc, "s", agentcontext.Turn{Text: text})
		switch {
		case err != nil && mnemo.ErrorCode(err) == mnemo.EINTERNAL:
			t.Fatalf("AddTurn: %v", err)
		case err == nil:
			turns++
			if wm.TurnCount != turns {
				t.Fatalf("turn count %d, want %d", wm.TurnCount, turns)
			}
		}
	})
}
