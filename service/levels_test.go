package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/security"
)

// The levels of the records that are not memories (SEC-11) and of what is
// built from records (SEC-12), at the Service.

const (
	cardNumber = "4111 1111 1111 1111"
	address    = "dana.okafor@example.com"
)

// TestEventLevels: an event is classified on append unless its writer
// gives a level, which is kept; a bad level is refused; an event stored
// without a level (before levels were kept) is classified when read, by
// every read.
func TestEventLevels(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, db := newEventService(t, c, events.Options{})
	t0 := c.T.Add(-time.Hour)
	got := mustAppend(t, svc, alice,
		ev("note", "s", t0, `{"text":"my card is `+cardNumber+`"}`),
		ev("note", "s", t0.Add(time.Second), `{"text":"mail `+address+`"}`),
		ev("note", "s", t0.Add(2*time.Second), `{"text":"nothing"}`),
		func() mnemo.Event {
			e := ev("note", "s", t0.Add(3*time.Second), `{"text":"my card is `+cardNumber+`"}`)
			e.SecurityLevel = mnemo.SecurityPublic // the writer's word stands
			return e
		}(),
	)
	want := []string{mnemo.SecurityRestricted, mnemo.SecurityConfidential, mnemo.SecurityInternal, mnemo.SecurityPublic}
	for i, e := range got {
		if e.SecurityLevel != want[i] {
			t.Errorf("appended %s: level %q, want %q", e.Data, e.SecurityLevel, want[i])
		}
	}
	bad := ev("note", "s", t0, "")
	bad.SecurityLevel = "secret"
	_, err := svc.AppendEvents(ctx, alice, []mnemo.Event{bad})
	wantCode(t, "an unknown level", err, mnemo.EINVALID)

	// Stored as an older mnemo stored it: no level.
	legacy := ev("note", "s", t0.Add(4*time.Second), `{"token":"Bearer abcdefghijklmnopqrstuvwxyz0123"}`)
	legacy.ID = "legacy"
	if _, err := db.AppendEvents(ctx, alice, []mnemo.Event{legacy}, nil); err != nil {
		t.Fatal(err)
	}
	e, err := svc.GetEvent(ctx, alice, "legacy")
	if err != nil || e.SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("get of an event stored without a level: %q, %v; want restricted", e.SecurityLevel, err)
	}
	p, err := svc.QueryEvents(ctx, alice, mnemo.EventQuery{})
	if err != nil || len(p.Events) != 5 || p.Events[4].SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("query: %+v, %v; want the legacy event restricted", p.Events, err)
	}
	// Cold, the same.
	if _, err := svc.ArchiveEvents(ctx, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	p, err = svc.QueryEvents(ctx, alice, mnemo.EventQuery{})
	for i, e := range p.Events[:4] {
		if e.SecurityLevel != want[i] {
			t.Errorf("cold %s: level %q, want %q (%v)", e.Data, e.SecurityLevel, want[i], err)
		}
	}
	if p.Events[4].SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("the legacy event, cold: %q", p.Events[4].SecurityLevel)
	}
	// Masked: data and metadata say what they were, not what they hold.
	m := got[0]
	m.Metadata = json.RawMessage(`{"card":"` + cardNumber + `"}`)
	security.Masked.Event(&m)
	if strings.Contains(string(m.Data)+string(m.Metadata), "4111") || !json.Valid(m.Data) || !strings.HasPrefix(string(m.Data), `"[RESTRICTED]`) {
		t.Errorf("masked: data %s metadata %s", m.Data, m.Metadata)
	}
}

// TestSummaryAndCapabilityLevels: a summary and a capability are at the
// level of the most secret event they digest (SEC-12), and one stored
// without a level is classified by its own text when read.
func TestSummaryAndCapabilityLevels(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, db := newEventService(t, c, events.Options{})
	t0 := c.T.Add(-time.Hour)
	mustAppend(t, svc, alice,
		ev("DeployCompleted", "w", t0, `{"description":"paid with `+cardNumber+`"}`),
		ev("DeployCompleted", "w", t0.Add(time.Minute), `{"description":"deployed the api"}`),
		ev("DeployCompleted", "w", t0.Add(2*time.Minute), `{"description":"deployed the web"}`),
		ev("ReportCompleted", "w", t0.Add(3*time.Minute), `{"description":"reported"}`),
	)
	sum, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, t0)
	if err != nil || sum.SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("the day's summary: %q, %v; want restricted", sum.SecurityLevel, err)
	}
	caps, err := svc.ExtractCapabilities(ctx, alice)
	if err != nil || len(caps) != 1 || caps[0].SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("capabilities: %+v, %v; want deploy, restricted", caps, err)
	}
	all, _ := db.Capabilities(ctx, alice)
	for _, c := range all {
		if want := map[string]string{"Deploy": mnemo.SecurityRestricted, "Report": mnemo.SecurityInternal}[c.TaskType]; c.SecurityLevel != want {
			t.Errorf("stored capability %s: %q, want %q", c.TaskType, c.SecurityLevel, want)
		}
	}
	// Learnt as events arrive: never lower than an outcome's.
	mustAppend(t, svc, alice, ev("ReportCompleted", "w", t0.Add(4*time.Minute), `{"description":"sent to `+address+`"}`))
	all, _ = db.Capabilities(ctx, alice)
	for _, c := range all {
		if c.TaskType == "Report" && c.SecurityLevel != mnemo.SecurityConfidential {
			t.Errorf("report after a confidential outcome: %q", c.SecurityLevel)
		}
	}

	// Stored without a level, by an older mnemo.
	start, end := mnemo.PeriodMonth.Bounds(t0)
	old := mnemo.Summary{Period: mnemo.PeriodMonth, Start: start, End: end, Trends: []string{"escalate to " + address}, GeneratedAt: end}
	if err := db.PutSummary(ctx, alice, old); err != nil {
		t.Fatal(err)
	}
	sums, err := svc.Summaries(ctx, alice, mnemo.SummaryQuery{Period: mnemo.PeriodMonth})
	if err != nil || len(sums) != 1 || sums[0].SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("a summary stored without a level: %+v, %v; want confidential", sums, err)
	}
	if err := db.ReplaceCapabilities(ctx, alice, []mnemo.Capability{{TaskType: "Pay", Ready: true, Successes: 3,
		Description: "pays with " + cardNumber}}); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Capabilities(ctx, alice, events.CapabilityQuery{})
	if err != nil || len(got) != 1 || got[0].SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("a capability stored without a level: %+v, %v; want restricted", got, err)
	}
}

// TestSessionLevels: a session is at the level of the most secret turn it
// had, even when what it keeps of the turn no longer looks secret, and one
// stored without a level is classified by what it keeps.
func TestSessionLevels(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	wm, err := svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "Hello, I am planning the audit."})
	if err != nil || wm.SecurityLevel != mnemo.SecurityInternal {
		t.Fatalf("an internal turn: %q, %v", wm.SecurityLevel, err)
	}
	// The topic is read from the turn (its words), not the number itself.
	wm, err = svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "The password is hunter2, note it for the audit."})
	if err != nil || wm.SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("a turn with a password: %q, %v; want restricted", wm.SecurityLevel, err)
	}
	wm, err = svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "Thanks, that is all."})
	if err != nil || wm.SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("after it: %q, %v; want restricted still", wm.SecurityLevel, err)
	}
	wm.Conceal(security.Masked)
	if strings.Contains(wm.CurrentTopic, "hunter2") || !strings.HasPrefix(wm.CurrentTopic, "[RESTRICTED]") {
		t.Errorf("masked topic %q", wm.CurrentTopic)
	}

	// Stored without a level, by an older mnemo.
	body, _ := json.Marshal(map[string]any{"session_id": "s2", "facts": []string{"my card is " + cardNumber},
		"context_variables": map[string]string{}, "turn_count": 1, "created_at": c.T, "updated_at": c.T, "expires_at": c.T.Add(time.Hour)})
	st := svc.Store().(mnemo.StateStore)
	if _, err := st.PutState(ctx, alice, mnemo.StateDoc{Kind: mnemo.StateSession, ID: "s2", Body: body, UpdatedAt: c.T}); err != nil {
		t.Fatal(err)
	}
	wm, err = svc.GetWorkingMemory(ctx, alice, "s2")
	if err != nil || wm.SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("a session stored without a level: %q, %v; want restricted", wm.SecurityLevel, err)
	}
	ss, err := svc.ListSessions(ctx, alice)
	for _, s := range ss {
		if s.SecurityLevel != mnemo.SecurityRestricted {
			t.Errorf("listed session %s: %q, %v", s.SessionID, s.SecurityLevel, err)
		}
	}
}

// TestRunLevels: each part of a run has its level, the run the highest;
// a round's sentence keeps its round's level when its text is cut; a run
// stored without levels is classified when read.
func TestRunLevels(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	if _, err := svc.OpenRun(ctx, alice, agentcontext.RunOptions{ID: "r", Trigger: agentcontext.Trigger{Type: "message"}, TokenLimit: 200}); err != nil {
		t.Fatal(err)
	}
	// The number sits past the sentence's cut: the sentence holds none of it.
	out := strings.Repeat("all good. ", 20) + "card " + cardNumber
	r, err := svc.RecordCall(ctx, alice, "r", agentcontext.ToolCall{Name: "pay", Output: json.RawMessage(fmt.Sprintf("%q", out))})
	if err != nil || r.SecurityLevel != mnemo.SecurityRestricted || r.Rounds[0].SecurityLevel != mnemo.SecurityRestricted || r.TriggerLevel != mnemo.SecurityInternal {
		t.Fatalf("a call with a card: %+v, %v", r, err)
	}
	for range 6 {
		if r, err = svc.RecordCall(ctx, alice, "r", agentcontext.ToolCall{Name: "step", Output: json.RawMessage(`"` + strings.Repeat("step went fine. ", 8) + `"`)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.Earlier) == 0 || r.Earlier[0].N != 1 || strings.Contains(r.Earlier[0].Summary, cardNumber) || r.Earlier[0].SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("the first round compacted: %+v", r.Earlier)
	}
	r.Conceal(security.Masked)
	if !strings.HasPrefix(r.Earlier[0].Summary, "[RESTRICTED]") || !strings.Contains(string(r.Rounds[len(r.Rounds)-1].Call.Output), "step went fine") {
		t.Errorf("masked: %+v %+v", r.Earlier[0], r.Rounds)
	}

	// Stored without levels, by an older mnemo.
	body, _ := json.Marshal(map[string]any{"run_id": "old", "trigger": map[string]any{"type": "message", "payload": "from " + address},
		"rounds": []any{map[string]any{"n": 1, "responses": []string{"the pin is 1234"}}}, "token_limit": 2000, "next_round": 2})
	st := svc.Store().(mnemo.StateStore)
	if _, err := st.PutState(ctx, alice, mnemo.StateDoc{Kind: mnemo.StateRun, ID: "old", Body: body, UpdatedAt: c.T}); err != nil {
		t.Fatal(err)
	}
	r, err = svc.GetRun(ctx, alice, "old")
	if err != nil || r.TriggerLevel != mnemo.SecurityConfidential || r.Rounds[0].SecurityLevel != mnemo.SecurityRestricted || r.SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("a run stored without levels: %+v, %v", r, err)
	}
}

// TestBuiltFromMemoriesLevels: boot, the snapshot and the default read say
// the highest level of the memories they show (SEC-12), and reflect's
// report that of the memories it names; asked redacted, a compaction's
// summary is masked in the report like the memories it merges.
func TestBuiltFromMemoriesLevels(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	for _, d := range []mnemo.Draft{
		{Content: str("The audit contact is " + address), Tags: []string{"ops"}},
		{Content: str("The audit starts on Monday"), Tags: []string{"ops"}},
	} {
		if _, err := svc.Remember(ctx, alice, d); err != nil {
			t.Fatal(err)
		}
	}
	b, err := svc.Boot(ctx, alice, agentcontext.BootQuery{})
	if err != nil || b.SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("boot: %q, %v; want confidential", b.SecurityLevel, err)
	}
	snap, err := svc.Snapshot(ctx, alice, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "message", Payload: json.RawMessage(`"audit"`)}})
	if err != nil || snap.SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("snapshot: %q, %v; want confidential", snap.SecurityLevel, err)
	}
	rd, err := svc.DefaultRead(ctx, alice, agentcontext.ReadQuery{TokenLimit: 500})
	if err != nil || rd.SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("read: %q, %v; want confidential", rd.SecurityLevel, err)
	}
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{DryRun: true, Now: c.T.AddDate(0, 0, 60)})
	if err != nil || rep.SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("reflect: %q, %v; want confidential", rep.SecurityLevel, err)
	}
}

// TestCompactionLevel: a compaction's summary memory is at the highest
// level of what it merges, and never below what the classifier reads in
// its own text (SEC-12); a report to a caller that reads masked masks
// it: nothing in its text says it is restricted, only its sources do.
func TestCompactionLevel(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	var drafts []mnemo.Draft
	for i := range 55 {
		d := draft(fmt.Sprintf("Ops %d: backup done.", i), "ops")
		if i == 7 { // told restricted by its writer: nothing in its text says so
			d = draft("Ops 7: the vault moved to the east wing.", "ops")
			d.SecurityLevel = mnemo.SecurityRestricted
		}
		drafts = append(drafts, d)
	}
	if _, err := svc.RememberBatch(ctx, alice, drafts); err != nil {
		t.Fatal(err)
	}
	masked := security.WithClearance(ctx, security.Masked)
	rep, err := svc.Reflect(masked, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseCompact}, DryRun: true})
	if err != nil || len(rep.Compacted) != 1 || rep.Compacted[0].SecurityLevel != mnemo.SecurityRestricted ||
		strings.Contains(rep.Text, "east wing") || strings.Contains(rep.Compacted[0].Summary, "east wing") {
		t.Fatalf("dry run, masked: %+v, %v", rep.Compacted, err)
	}
	rep, err = svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseCompact}})
	if err != nil || len(rep.Compacted) != 1 {
		t.Fatalf("reflect: %+v, %v", rep, err)
	}
	m, err := svc.Get(ctx, alice, rep.Compacted[0].SummaryID)
	if err != nil || m.SecurityLevel != mnemo.SecurityRestricted || !strings.Contains(m.Content, "east wing") {
		t.Errorf("the summary memory: %q %q, %v; want it restricted", m.SecurityLevel, m.Content, err)
	}
}
