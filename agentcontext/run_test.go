package agentcontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
)

func TestRunCollectsAndCompacts(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	r, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{
		Trigger: agentcontext.Trigger{Type: "cron", Payload: json.RawMessage(`{"job":"hourly_check"}`)},
		Focus:   "disk usage on the database hosts",
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.TokenLimit != 2000 || r.Tokens == 0 || r.Tokens != r.FixedTokens || len(r.Rounds) != 0 {
		t.Fatalf("opened run = %+v", r)
	}
	if _, err := svc.RecordResponse(ctx, alice, r.ID, "I will check each host in turn."); err != nil {
		t.Fatal(err)
	}
	// Twenty rounds of about 150 tokens each: far over 2,000.
	for i := 1; i <= 20; i++ {
		out, _ := json.Marshal(fmt.Sprintf("Host db-%d is at %d%% disk usage. ", i, 50+i) + strings.Repeat("Partition /var is fine. ", 25))
		r, err = svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{
			Name: "check_disk", Input: json.RawMessage(fmt.Sprintf(`{"host":"db-%d"}`, i)), Output: out,
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Tokens > r.TokenLimit {
			t.Fatalf("after round %d: %d tokens, over the limit %d", i, r.Tokens, r.TokenLimit)
		}
		if _, err := svc.RecordResponse(ctx, alice, r.ID, fmt.Sprintf("db-%d looks fine.", i)); err != nil {
			t.Fatal(err)
		}
	}
	r, err = svc.GetRun(ctx, alice, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The fixed part stays, the last three rounds are whole, the older ones
	// are one sentence each (or counted, once even those do not fit).
	if r.Trigger.Type != "cron" || r.Focus == "" {
		t.Fatalf("fixed part lost: %+v", r)
	}
	last := r.Rounds[len(r.Rounds)-1]
	if len(r.Rounds) < 3 || last.Call.Name != "check_disk" || last.N != 21 {
		t.Fatalf("rounds kept = %+v", r.Rounds)
	}
	if got := last.Responses; len(got) != 1 || got[0] != "db-20 looks fine." {
		t.Fatalf("last round's responses = %q", got)
	}
	// 21 rounds (the first only said something), each whole, a sentence or
	// counted; the sentences in order.
	if n := len(r.Earlier) + r.Omitted + len(r.Rounds); n != 21 || len(r.Earlier) == 0 {
		t.Fatalf("earlier %d + omitted %d + rounds %d, want 21", len(r.Earlier), r.Omitted, len(r.Rounds))
	}
	for i, e := range r.Earlier {
		if e.N != r.Omitted+i+1 {
			t.Fatalf("earlier[%d] is round %d", i, e.N)
		}
	}
	for _, e := range r.Earlier {
		if e.By != "extractive" || e.Tokens > 41 || strings.Count(e.Summary, ". ") > 1 || !strings.HasPrefix(e.Summary, fmt.Sprintf("Round %d: ", e.N)) {
			t.Fatalf("summary = %+v", e)
		}
	}
	if e := r.Earlier[len(r.Earlier)-1]; !strings.Contains(e.Summary, "check_disk") || !strings.Contains(e.Summary, fmt.Sprintf("db-%d", e.N-1)) {
		t.Fatalf("latest summary says nothing of its round: %q", e.Summary)
	}
	if r.Tokens > r.TokenLimit {
		t.Fatalf("%d tokens over the limit", r.Tokens)
	}

	// Inject, then close: the run is gone.
	r, err = svc.Inject(ctx, alice, r.ID, "Stop after the next host: an operator is on it.")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Instructions) != 1 || r.Tokens > r.TokenLimit {
		t.Fatalf("inject: %+v", r.Instructions)
	}
	closed, err := svc.CloseRun(ctx, alice, r.ID)
	if err != nil || closed.ID != r.ID {
		t.Fatalf("close = %v, %v", closed.ID, err)
	}
	_, err = svc.GetRun(ctx, alice, r.ID)
	wantCode(t, "get a closed run", err, mnemo.ENOTFOUND)
	_, err = svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{Name: "x"})
	wantCode(t, "record into a closed run", err, mnemo.ENOTFOUND)
}

func TestRunCutsWhatTheWindowCannotHold(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	r, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "webhook"}, TokenLimit: 300})
	if err != nil {
		t.Fatal(err)
	}
	big, _ := json.Marshal(strings.Repeat("lots of log output here ", 200)) // ~1,000 tokens
	r, err = svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{Name: "tail_log", Output: big})
	if err != nil {
		t.Fatal(err)
	}
	if r.Tokens > 300 || !r.Rounds[0].Cut || len(r.Notes) == 0 || !strings.Contains(string(r.Rounds[0].Call.Output), "[cut:") {
		t.Fatalf("an oversized round was not cut with a note: tokens %d, notes %q", r.Tokens, r.Notes)
	}
}

func TestRunBadInput(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{MaxRuns: 2, MaxStepBytes: 1000})
	_, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{})
	wantCode(t, "no trigger", err, mnemo.EINVALID)
	_, err = svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "cron", Payload: json.RawMessage(`{`)}})
	wantCode(t, "bad payload", err, mnemo.EINVALID)
	_, err = svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "cron", Payload: json.RawMessage(`"` + strings.Repeat("x", 2000) + `"`)}})
	wantCode(t, "oversized payload", err, mnemo.ETOOLARGE)
	_, err = svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "cron"}, Focus: strings.Repeat("focus ", 150), TokenLimit: 200})
	wantCode(t, "focus over half the budget", err, mnemo.ETOOLARGE)
	r, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{ID: "r1", Trigger: agentcontext.Trigger{Type: "cron"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.OpenRun(ctx, alice, agentcontext.RunOptions{ID: "r1", Trigger: agentcontext.Trigger{Type: "cron"}})
	wantCode(t, "open twice", err, mnemo.ECONFLICT)
	if _, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "cron"}}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "cron"}})
	wantCode(t, "too many runs", err, mnemo.ETOOLARGE)
	_, err = svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{Name: "f", Output: json.RawMessage(`"` + strings.Repeat("y", 2000) + `"`)})
	wantCode(t, "oversized output", err, mnemo.ETOOLARGE)
	_, err = svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{})
	wantCode(t, "no call name", err, mnemo.EINVALID)
	_, err = svc.RecordResponse(ctx, alice, "no-such-run", "hello")
	wantCode(t, "unknown run", err, mnemo.ENOTFOUND)
	// Runs are isolated by agent: bob cannot see or close alice's.
	_, err = svc.GetRun(ctx, bob, r.ID)
	wantCode(t, "another agent's run", err, mnemo.ENOTFOUND)
	_, err = svc.CloseRun(ctx, bob, r.ID)
	wantCode(t, "close another agent's run", err, mnemo.ENOTFOUND)
	if got, _ := svc.GetRun(ctx, alice, r.ID); len(got.Rounds) != 0 {
		t.Fatalf("a failed call changed the run: %+v", got.Rounds)
	}
}

// Concurrent appends to one run all land: none is lost to another's write.
func TestRunConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{RunTokenLimit: 100000})
	r, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "message"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 5 {
				if _, err := svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{Name: fmt.Sprintf("f%d_%d", i, j)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	r, _ = svc.GetRun(ctx, alice, r.ID)
	if len(r.Rounds) != 40 || r.NextRound != 41 {
		t.Fatalf("%d rounds, next %d; want 40, 41", len(r.Rounds), r.NextRound)
	}
}

// summarizer is a Summarizer that answers, or fails.
type summarizer struct{ fail bool }

func (s summarizer) Summarize(_ context.Context, text string, _ int) (string, error) {
	if s.fail {
		return "", errors.New("model down")
	}
	return "The model's summary of: " + strings.SplitN(text, "\n", 2)[0], nil
}

func TestRunSummarizer(t *testing.T) {
	for _, fail := range []bool{false, true} {
		ctx := context.Background()
		c := newClock()
		svc := newContextService(t, c, agentcontext.Options{Summarizer: summarizer{fail}, RunTokenLimit: 200})
		r, _ := svc.OpenRun(ctx, alice, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "cron"}})
		for i := range 6 {
			out, _ := json.Marshal(strings.Repeat(fmt.Sprintf("result %d ", i), 15))
			var err error
			if r, err = svc.RecordCall(ctx, alice, r.ID, agentcontext.ToolCall{Name: "lookup", Output: out}); err != nil {
				t.Fatal(err)
			}
		}
		if len(r.Earlier) == 0 {
			t.Fatalf("fail=%v: nothing compacted", fail)
		}
		e := r.Earlier[0]
		switch {
		case !fail && (e.By != "llm" || !strings.HasPrefix(e.Summary, "The model's summary of: Called lookup")):
			t.Fatalf("summary = %+v", e)
		case fail && (e.By != "extractive" || !strings.Contains(strings.Join(r.Notes, " "), "summarizer failed")):
			t.Fatalf("fallback = %+v, notes %q", e, r.Notes)
		}
	}
}

// A run its agent never closed is swept after RunIdle; one in use is not.
func TestSweepRuns(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{RunIdle: time.Hour})
	if _, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{ID: "abandoned", Trigger: agentcontext.Trigger{Type: "cron"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.OpenRun(ctx, bob, agentcontext.RunOptions{ID: "busy", Trigger: agentcontext.Trigger{Type: "cron"}}); err != nil {
		t.Fatal(err)
	}
	c.Advance(50 * time.Minute)
	svc.RecordResponse(ctx, bob, "busy", "still working")
	c.Advance(20 * time.Minute)
	if n, err := svc.SweepRuns(ctx); err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v; want 1", n, err)
	}
	_, err := svc.GetRun(ctx, alice, "abandoned")
	wantCode(t, "swept run", err, mnemo.ENOTFOUND)
	if _, err := svc.GetRun(ctx, bob, "busy"); err != nil {
		t.Fatalf("the run in use was swept: %v", err)
	}
}
