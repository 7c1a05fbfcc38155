package agentcontext_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokens"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run %s -update to accept):\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}

// QUAL-1, CTX-13 (scenario 3): 1,000 memories, a cron trigger: at most 8 memories
// (3 related + 5 recent), at most 500 tokens, in "Recent Experience".
func TestSnapshotScenario3(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	n := 1000
	if raceEnabled {
		n = 300 // make unit runs it at full size without -race too
	}
	// 86 minutes apart, the newest 400 minutes old: the last ~12 in the
	// last day (1,000 span 60 days).
	start := c.T.Add(-time.Duration(n*86+400) * time.Minute)
	var drafts []mnemo.Draft
	for i := range n {
		at := start.Add(time.Duration(i) * 86 * time.Minute) // the last ~17 in the last day
		text := fmt.Sprintf("Ticket %d: the user asked about invoice %d and was answered.", i, 1000+i)
		switch i % 100 {
		case 7:
			text = fmt.Sprintf("The hourly check found disk usage at %d%% on db-%d.", 70+i%30, i%5)
		case 8:
			text = fmt.Sprintf("Hourly check: backup job %d finished late.", i)
		}
		drafts = append(drafts, mnemo.Draft{Content: str(text), CreatedAt: &at})
	}
	if _, err := svc.RememberBatch(ctx, alice, drafts); err != nil {
		t.Fatal(err)
	}
	snap, err := svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "cron", Payload: json.RawMessage(`"hourly_check"`)}})
	if err != nil {
		t.Fatal(err)
	}
	tk, _ := tokens.New("")
	if n := len(snap.Memories); n == 0 || n > 8 {
		t.Fatalf("%d memories, want 1 to 8", n)
	}
	if snap.Tokens > 500 || tk.Count(snap.Text) != snap.Tokens || snap.TokenLimit != 500 {
		t.Fatalf("tokens %d (counted %d), limit %d", snap.Tokens, tk.Count(snap.Text), snap.TokenLimit)
	}
	if !strings.HasPrefix(snap.Text, "## Recent Experience\n") {
		t.Fatalf("text = %q", snap.Text)
	}
	reasons := map[string]int{}
	for _, m := range snap.Memories {
		reasons[m.Reason]++
		if !strings.Contains(snap.Text, m.Line) {
			t.Fatalf("line %q not in the text", m.Line)
		}
	}
	if reasons[agentcontext.ReasonRelated] != 3 || reasons[agentcontext.ReasonRecent] != 5 {
		t.Fatalf("reasons = %v, want 3 related and 5 recent", reasons)
	}
	for _, m := range snap.Memories[:3] {
		if !strings.Contains(strings.ToLower(m.Line), "hourly check") {
			t.Fatalf("related memory %q is not about the hourly check", m.Line)
		}
	}
	for _, m := range snap.Memories[3:] {
		if c.T.Sub(m.CreatedAt) > 24*time.Hour {
			t.Fatalf("recent memory %q is from %v", m.Line, m.CreatedAt)
		}
	}
	// Nothing was recorded as accessed.
	if m, _ := svc.Get(ctx, alice, snap.Memories[0].ID); m.AccessCount != 0 {
		t.Fatalf("snapshot recorded an access")
	}
}

// Pinned memories come first; what does not fit is said, never dropped
// silently.
func TestSnapshotBudget(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	for i := range 6 {
		d := mnemo.Draft{Content: str(fmt.Sprintf("Rule %d: %s", i, strings.Repeat("always double-check the deployment target ", 4))), Pinned: true}
		if _, err := svc.Remember(ctx, alice, d); err != nil {
			t.Fatal(err)
		}
	}
	svc.Remember(ctx, alice, draft("Deployed the billing service."))
	snap, err := svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "webhook"}, Focus: "deployment", TokenLimit: 120})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Tokens > 120 || snap.Omitted == 0 || len(snap.Notes) == 0 || !strings.Contains(snap.Text, "did not fit") {
		t.Fatalf("snapshot = %+v", snap)
	}
	if snap.Memories[0].Reason != agentcontext.ReasonPinned {
		t.Fatalf("first = %+v", snap.Memories[0])
	}
	if !strings.Contains(strings.Join(snap.Notes, "; "), "pinned memories did not fit") {
		t.Fatalf("notes = %q", snap.Notes)
	}
	_, err = svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "webhook"}, TokenLimit: 5})
	wantCode(t, "tiny limit", err, mnemo.EINVALID)
	_, err = svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{})
	wantCode(t, "no trigger", err, mnemo.EINVALID)
}

func bootFixture(t *testing.T) (*service.Mnemo, *clock) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	day := func(d int) *time.Time { return tptr(c.T.AddDate(0, 0, -d)) }
	drafts := []mnemo.Draft{
		{Content: str("I am Noa, a careful assistant for the Lin family."), Type: "identity", Priority: new(int)},
		{Content: str("Mei said she loves the new garden plan."), Type: "emotion", CreatedAt: day(1)},
		{Content: str("Jun was frustrated by the late delivery."), Type: "emotion", CreatedAt: day(3)},
		{Content: str("Codex stalls in the plan phase unless told to proceed."), Type: "knowledge", CreatedAt: day(20)},
		{Content: str("The family prefers answers in Chinese."), Type: "preference", CreatedAt: day(40)},
		{Content: str("Finished the DD-0014 design document."), Type: "event", CreatedAt: day(0)},
		{Content: str("Ordered seeds for the garden."), Type: "event", CreatedAt: day(2)},
		{Content: str("Moved the server to the new rack."), Type: "event", CreatedAt: day(30)},
		{Content: str("Renewed the domain."), Type: "event", CreatedAt: day(60)},
		{Content: str("Weekly review every Sunday."), Type: "routine", CreatedAt: day(5)},
	}
	if _, err := svc.RememberBatch(ctx, alice, drafts); err != nil {
		t.Fatal(err)
	}
	return svc, c
}

func TestBootNarrative(t *testing.T) {
	svc, _ := bootFixture(t)
	for _, lang := range []string{"en", "zh"} {
		b, err := svc.Boot(context.Background(), alice, agentcontext.BootQuery{Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "boot_"+lang+".md", b.Text)
	}
}

func TestBootJSON(t *testing.T) {
	svc, _ := bootFixture(t)
	b, err := svc.Boot(context.Background(), alice, agentcontext.BootQuery{Format: agentcontext.BootJSON})
	if err != nil {
		t.Fatal(err)
	}
	if b.Text != "" || len(b.Identity) != 1 || len(b.Emotion) != 2 || len(b.Knowledge) != 2 || len(b.Events) != 2 || b.EarlierEvents != 2 {
		t.Fatalf("boot = %+v", b)
	}
	if b.Summary.Total != 10 || b.Summary.Types[0].Type != "event" || b.Summary.Types[0].Count != 4 {
		t.Fatalf("summary = %+v", b.Summary)
	}
	_, err = svc.Boot(context.Background(), alice, agentcontext.BootQuery{Format: "yaml"})
	wantCode(t, "bad format", err, mnemo.EINVALID)
}

// CTX-20, CTX-21: effective memories only, ranked by recency, importance and
// tags, as `key type summary` lines within the limit.
func TestDefaultRead(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	set := func(key, content string, at time.Time) {
		t.Helper()
		d := mnemo.Draft{Key: key, UpdatedAt: &at, CreatedAt: &at}
		if content == "null" {
			d.Data = json.RawMessage("null")
		} else {
			d.Data = json.RawMessage(content)
		}
		if _, err := svc.Remember(ctx, alice, d); err != nil {
			t.Fatal(err)
		}
	}
	now := c.T
	set("/user/preference/style", `{"type":"preference","summary":"用户喜欢中文、偏好简洁","importance":0.9}`, now.Add(-48*time.Hour))
	set("/user/calendar/dentist", `{"type":"reminder","summary":"明天10点牙科复诊（一次性）","tags":["calendar"]}`, now.Add(-2*time.Hour))
	set("/user/calendar/old", `{"type":"reminder","summary":"expired","expired_at":"2026-02-28T00:00:00Z"}`, now.Add(-72*time.Hour))
	set("/user/note/gone", `{"summary":"deleted"}`, now.Add(-3*time.Hour))
	set("/user/note/gone", "null", now.Add(-time.Hour))
	set("/user/city", `{"summary":"Lives in Berlin"}`, now.Add(-10*time.Hour))
	set("/user/city", `{"summary":"Lives in Lisbon"}`, now.Add(-5*time.Hour))
	set("/user/city", `{"summary":"Lives in Paris (older, arrived late)"}`, now.Add(-8*time.Hour))

	res, err := svc.DefaultRead(ctx, alice, agentcontext.ReadQuery{TokenLimit: 200, Tags: []string{"calendar"}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "default_read.txt", res.Text)
	if res.Effective != 3 || res.Omitted != 0 {
		t.Fatalf("effective %d, omitted %d", res.Effective, res.Omitted)
	}
	tight, err := svc.DefaultRead(ctx, alice, agentcontext.ReadQuery{TokenLimit: 40, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if tight.Tokens > 40 || tight.Omitted == 0 || len(tight.Lines) == 0 {
		t.Fatalf("tight = %+v", tight)
	}
	_, err = svc.DefaultRead(ctx, alice, agentcontext.ReadQuery{})
	wantCode(t, "no token limit", err, mnemo.EINVALID)
}

// TestNothingRelevantIsSaid checks that what goes into a prompt does not
// pad with what matches nothing (API-17): a snapshot's related memories
// are related to its trigger, or none; the boot of an agent that knows
// nothing says so in a line, not a page of empty sections.
func TestNothingRelevantIsSaid(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Now: c.Now, Embedder: builtin.New()})
	defer svc.Close()
	old := c.T.AddDate(0, 0, -10) // older than the snapshot's recent window
	for _, text := range []string{"The espresso machine is in the kitchen", "The user prefers Python for data work", "Grandma's birthday is on the 14th of June"} {
		if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(text), CreatedAt: &old}); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "webhook", Payload: json.RawMessage(`"the user's login failed on the API gateway"`)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range snap.Memories {
		if m.Reason == agentcontext.ReasonRelated {
			t.Errorf("a memory unrelated to the trigger came as related: %q", m.Line)
		}
	}
	snap, err = svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "cron"}, Focus: "grandma's birthday"})
	if err != nil || len(snap.Memories) == 0 || snap.Memories[0].Reason != agentcontext.ReasonRelated || !strings.Contains(snap.Memories[0].Line, "Grandma") {
		t.Errorf("a related memory: %+v %v", snap.Memories, err)
	}

	for lang, want := range map[string]string{"en": "No memories yet: nothing is known to recall.\n", "zh": "暂无记忆：还没有可回忆的内容。\n"} {
		b, err := svc.Boot(ctx, mnemo.Scope{TenantID: alice.TenantID, AgentID: "new-agent"}, agentcontext.BootQuery{Lang: lang})
		if err != nil || b.Text != want {
			t.Errorf("boot (%s) of an agent with no memories = %q, %v; want %q", lang, b.Text, err, want)
		}
	}
}
