package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/service"
)

func TestVitality(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name string
		m    mnemo.Memory
		want float64
	}{
		{"P0 never decays", mnemo.Memory{Priority: 0, Stability: 0, CreatedAt: now.Add(-1000 * day)}, 1},
		{"pinned never decays", mnemo.Memory{Priority: 3, Stability: 14, Pinned: true, CreatedAt: now.Add(-1000 * day)}, 1},
		{"P3 after 14 days", mnemo.Memory{Priority: 3, Stability: 14, CreatedAt: now.Add(-14 * day)}, math.Exp(-1)},
		{"P1 after 365 days", mnemo.Memory{Priority: 1, Stability: 365, CreatedAt: now.Add(-365 * day)}, math.Exp(-1)},
		{"recall resets the clock", mnemo.Memory{Priority: 3, Stability: 14, CreatedAt: now.Add(-100 * day), AccessedAt: now}, 1},
		{"recall grows stability", mnemo.Memory{Priority: 3, Stability: 14, CreatedAt: now.Add(-14 * day), AccessedAt: now.Add(-14 * day), AccessCount: 3},
			math.Exp(-1 / (1 + math.Log(4)))},
	}
	for _, tt := range tests {
		if got := mnemo.Vitality(&tt.m, now); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestReflect(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { return tptr(c.T.Add(-d)) }
	p := func(n int) *int { return &n }
	drafts := []mnemo.Draft{
		{Content: str("I am Noa, the family's assistant."), Type: "identity", Priority: p(0), CreatedAt: at(400 * day)},
		{Content: str("Tested the webhook connection."), Type: "event", Priority: p(3), CreatedAt: at(40 * day)},
		{Content: str("Deployed new-api to kitty."), Type: "event", Priority: p(3), CreatedAt: at(10 * day)},
		{Content: str("Tavily API setup: key in the vault."), Type: "knowledge", Priority: p(2), CreatedAt: at(30 * day)},
		{Content: str("A year-old note nobody reads."), Type: "knowledge", Priority: p(1), CreatedAt: at(400 * day)},
		{Content: str("Never deploy on Fridays."), Pinned: true, Priority: p(3), CreatedAt: at(400 * day)},
		{Key: "/empty", Data: []byte(`{}`), CreatedAt: at(day)},
	}
	if _, err := svc.RememberBatch(ctx, alice, drafts); err != nil {
		t.Fatal(err)
	}
	dry, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "reflect_dry_run.md", dry.Text)
	if st, _ := svc.Stats(ctx, alice); st.Archived != 0 {
		t.Fatalf("a dry run archived %d", st.Archived)
	}
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Actor: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	archived := map[string]string{}
	for _, a := range rep.Archived {
		archived[a.Text] = a.Phase
	}
	want := map[string]string{
		"Tested the webhook connection.": lifecycle.PhaseTidy,      // P3, 40 days: 0.06
		"A year-old note nobody reads.":  lifecycle.PhaseRetention, // P1 at 400 days is 0.33, but 400 > 365 days and never recalled
		"{}":                             lifecycle.PhaseGovern,    // /empty
	}
	if fmt.Sprint(archived) != fmt.Sprint(want) {
		t.Fatalf("archived = %v, want %v", archived, want)
	}
	if rep.Before.Active != 7 || rep.After.Active != 4 {
		t.Fatalf("totals = %+v -> %+v", rep.Before, rep.After)
	}
	// Stored: vitality, archiving, and the ledger.
	ms, _, _ := svc.List(ctx, alice, mnemo.ListQuery{})
	for _, m := range ms {
		if m.Content == "Deployed new-api to kitty." && math.Abs(m.Vitality-math.Round(math.Exp(-10.0/14)*1e4)/1e4) > 1e-9 {
			t.Fatalf("stored vitality %v", m.Vitality)
		}
	}
	entries, total, err := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionArchive})
	if err != nil || total != 2 || entries[0].Actor != "cli" || len(entries[0].MemoryIDs) != 1 {
		t.Fatalf("ledger = %+v (%d), %v", entries, total, err)
	}
	// Retention's archive is its own action: erased after the grace period.
	if ret, n, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionRetention}); n != 1 || len(ret[0].MemoryIDs) != 1 {
		t.Fatalf("retention ledger = %+v", ret)
	}
	res, _ := svc.Recall(ctx, alice, memory.Query{Text: "webhook connection"})
	if len(res.Results) != 0 {
		t.Fatalf("an archived memory was recalled: %+v", res.Results)
	}
	// Run again: nothing more to do.
	if again, _ := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{}); len(again.Archived) != 0 || len(again.Decayed) != 0 {
		t.Fatalf("second run: %+v", again)
	}
	_, err = svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{"dream"}})
	wantCode(t, "unknown phase", err, mnemo.EINVALID)
}

// QUAL-1, LIFE-1 (scenario 6): 12,000 memories, over the default 10,000: the
// oldest and least accessed 2,000 are archived, the ledger has it, and
// recall never returns them.
func TestReflectScenario6(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	// 12,000 memories over the cap of 10,000. Under the race
	// detector a tenth of it, cap included, runs the same code at a tenth of
	// the cost; `make unit` runs the full size without the detector.
	div, lc := 1, lifecycle.Options{}
	if raceEnabled {
		div, lc = 10, lifecycle.Options{MaxEntries: 1000}
	}
	total, capacity, recalled := 12000/div, 10000/div, 500/div
	// Loaded past the Write Guard, as an import is.
	svc := service.New(newService(t, c).Store(), service.Options{Now: c.Now, Guard: memory.GuardOptions{Off: true}, Lifecycle: lc})
	start := c.T.Add(-100 * 24 * time.Hour)
	for i := 0; i < total; i += 1000 {
		drafts := make([]mnemo.Draft, min(1000, total-i))
		for j := range drafts {
			k := i + j
			at := start.Add(time.Duration(k) * 10 * time.Minute)
			drafts[j] = mnemo.Draft{Content: str(fmt.Sprintf("Ticket t%05d about invoice %d", k, k%97)), CreatedAt: &at}
		}
		if _, err := svc.RememberBatch(ctx, alice, drafts); err != nil {
			t.Fatal(err)
		}
	}
	// The oldest (500 of 12,000) were recalled yesterday: they stay.
	ms, _, _ := svc.List(ctx, alice, mnemo.ListQuery{Order: mnemo.OrderOldest, Limit: recalled, NoVectors: true})
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	if err := svc.Store().Touch(ctx, alice, ids, c.T.Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseCapacity}})
	if err != nil {
		t.Fatal(err)
	}
	over := total - capacity
	if len(rep.Archived) != over || rep.After.Active != capacity {
		t.Fatalf("archived %d, active after %d; want %d, %d", len(rep.Archived), rep.After.Active, over, capacity)
	}
	// The oldest never recalled: tickets 500 to 2,499.
	for _, a := range rep.Archived {
		var n int
		fmt.Sscanf(a.Text, "Ticket t%05d", &n)
		if n < recalled || n >= recalled+over || a.Phase != lifecycle.PhaseCapacity {
			t.Fatalf("archived %q (%s)", a.Text, a.Phase)
		}
	}
	entries, n, err := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionArchive})
	if err != nil || n != 1 || len(entries[0].MemoryIDs) != over || !strings.Contains(entries[0].Reason, "capacity") {
		t.Fatalf("ledger: %d entries, %v", n, err)
	}
	if byID, _, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{MemoryID: entries[0].MemoryIDs[7]}); len(byID) != 1 {
		t.Fatalf("ledger by memory: %+v", byID)
	}
	for _, k := range []int{recalled + 100/div, recalled + over - 1} {
		q := fmt.Sprintf("t%05d", k)
		if res, _ := svc.Recall(ctx, alice, memory.Query{Text: q}); len(res.Results) != 0 {
			t.Fatalf("recall %s returned archived %q", q, res.Results[0].Content)
		}
	}
	if res, _ := svc.Recall(ctx, alice, memory.Query{Text: fmt.Sprintf("t%05d", 100/div)}); len(res.Results) != 1 {
		t.Fatalf("a recalled old memory was archived")
	}
}

// Forget and clear are in the ledger too.
func TestLedgerOfDeletes(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	m, _ := svc.Remember(ctx, alice, draft("to forget"))
	svc.Remember(ctx, alice, mnemo.Draft{Key: "/k", Content: str("keyed")})
	if n, err := svc.Forget(ctx, alice, []string{m.ID}, []string{"/k"}); err != nil || n != 2 {
		t.Fatalf("forget = %d, %v", n, err)
	}
	svc.Remember(ctx, alice, draft("then cleared"))
	svc.Clear(ctx, alice)
	entries, total, err := svc.Ledger(ctx, alice, mnemo.LedgerQuery{})
	if err != nil || total != 2 || entries[0].Action != mnemo.ActionClear || entries[1].Action != mnemo.ActionForget || entries[1].MemoryIDs[0] != m.ID {
		t.Fatalf("ledger = %+v, %v", entries, err)
	}
	if other, n, _ := svc.Ledger(ctx, bob, mnemo.LedgerQuery{}); n != 0 || len(other) != 0 {
		t.Fatalf("another agent sees the ledger: %+v", other)
	}
}

// LIFE-5: a tag holding more memories than the threshold is
// merged into one summary memory; the originals are archived, the ledger
// has it, and a second run leaves the summary alone.
func TestReflectCompact(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	db := newService(t, c).Store()
	svc := service.New(db, service.Options{Now: c.Now, Lifecycle: lifecycle.Options{CompactOver: 5}})
	for i := range 8 {
		at := c.T.Add(-time.Duration(8-i) * time.Hour)
		if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(fmt.Sprintf("Standup %d: shipped item %d. Details follow.", i, i)), Tags: []string{"standup"}, CreatedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	svc.Remember(ctx, alice, mnemo.Draft{Content: str("Pinned standup rule"), Tags: []string{"standup"}, Pinned: true})
	dry, _ := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseCompact}, DryRun: true})
	if len(dry.Compacted) != 1 || len(dry.Compacted[0].Merged) != 8 || dry.Compacted[0].SummaryID != "" {
		t.Fatalf("dry run: %+v", dry.Compacted)
	}
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseCompact}})
	if err != nil || len(rep.Compacted) != 1 {
		t.Fatalf("compact: %+v, %v", rep.Compacted, err)
	}
	cp := rep.Compacted[0]
	sum, err := svc.Get(ctx, alice, cp.SummaryID)
	if err != nil || cp.By != "extractive" || !strings.HasPrefix(sum.Content, `Summary of 8 memories tagged "standup"`) ||
		!strings.Contains(sum.Content, "Standup 7: shipped item 7") || !strings.Contains(sum.Content, "Standup 0: shipped item 0") {
		t.Fatalf("summary = %+v, %v", sum, err)
	}
	if st, _ := svc.Stats(ctx, alice); st.Archived != 8 || st.Memories != 10 {
		t.Fatalf("stats after compaction: %+v", st)
	}
	if es, n, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionCompact}); n != 1 || len(es[0].MemoryIDs) != 8 || !strings.Contains(string(es[0].Details), cp.SummaryID) {
		t.Fatalf("ledger: %+v", es)
	}
	if again, _ := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseCompact}}); len(again.Compacted) != 0 {
		t.Fatalf("compacted again: %+v", again.Compacted)
	}
	// Undone from the ledger: the originals back, the summary archived.
	es, _, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionCompact})
	if ids, err := svc.Restore(ctx, alice, es[0].Seq, "cli"); err != nil || len(ids) != 8 {
		t.Fatalf("restore a compaction: %v, %v", ids, err)
	}
	if s, _ := svc.Get(ctx, alice, cp.SummaryID); !s.Archived {
		t.Fatal("the summary of an undone compaction is still active")
	}
}

// LIFE-8's typed priorities: identity never decays unless told otherwise.
func TestDefaultPriorityByType(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	for _, tt := range []struct {
		typ  string
		want int
	}{{"identity", 0}, {"emotion", 1}, {"knowledge", 2}, {"event", 2}} {
		m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("a memory of type " + tt.typ), Type: tt.typ})
		if err != nil || m.Priority != tt.want {
			t.Errorf("%s: priority %d, %v; want %d", tt.typ, m.Priority, err, tt.want)
		}
		if tt.want == 0 && mnemo.Vitality(&m, c.T.AddDate(10, 0, 0)) != 1 {
			t.Errorf("identity decays")
		}
	}
}

// govern archives the faded and oldest over a type's quota.
func TestReflectTypeQuota(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	store := newService(t, c).Store()
	svc := service.New(store, service.Options{Now: c.Now, Lifecycle: lifecycle.Options{TypeQuota: map[string]int{"event": 2}}})
	for i := range 4 {
		at := c.T.Add(-time.Duration(4-i) * time.Hour)
		svc.Remember(ctx, alice, mnemo.Draft{Content: str(fmt.Sprintf("Event number %d happened in the lab", i)), Type: "event", CreatedAt: &at})
	}
	svc.Remember(ctx, alice, mnemo.Draft{Content: str("A piece of knowledge about the lab"), Type: "knowledge"})
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseGovern}})
	if err != nil || len(rep.Archived) != 2 || rep.Archived[0].Text != "Event number 0 happened in the lab" || !strings.Contains(rep.Archived[0].Reason, "quota of 2 event") {
		t.Fatalf("govern: %+v, %v", rep.Archived, err)
	}
}

// TestReflectReportMasked checks reflect's report for a caller that reads
// masked (SEC-8): the texts of what decays and is archived, and a
// compaction's summary, are masked in the report, dry or not, while the
// summary is written whole; a caller that reads everything reads it all.
func TestReflectReportMasked(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	db := newService(t, c).Store()
	svc := service.New(db, service.Options{Now: c.Now, Lifecycle: lifecycle.Options{CompactOver: 5}})
	old := c.T.AddDate(0, -1, 0) // a month: faded a little, not archived
	for i := range 6 {
		if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(fmt.Sprintf("Standup %d: shipped item %d.", i, i)), Tags: []string{"standup"}, CreatedAt: &old}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("Standup: the deploy password is Zircon77"), Tags: []string{"standup"}, CreatedAt: &old}); err != nil {
		t.Fatal(err)
	}
	o := lifecycle.ReflectOptions{DryRun: true}
	if rep, err := svc.Reflect(ctx, alice, o); err != nil || len(rep.Compacted) != 1 || !strings.Contains(rep.Compacted[0].Summary, "Zircon77") || !strings.Contains(rep.Text, "Zircon77") {
		t.Fatalf("as the owner: %+v, %v", rep, err)
	}
	masked := security.WithClearance(ctx, security.Masked)
	for _, dry := range []bool{true, false} {
		o.DryRun = dry
		rep, err := svc.Reflect(masked, alice, o)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rep)
		if strings.Contains(string(b), "Zircon77") || len(rep.Compacted) != 1 || rep.Compacted[0].SecurityLevel != mnemo.SecurityRestricted ||
			!strings.HasPrefix(rep.Compacted[0].Summary, "[RESTRICTED] ******") || len(rep.Decayed) == 0 {
			t.Fatalf("dry %v, as a masked caller: %s", dry, b)
		}
	}
	// The summary was written whole, as what it merged said.
	ms, _, err := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{KeyPrefix: "/compacted/"}})
	if err != nil || len(ms) != 1 || !strings.Contains(ms[0].Content, "Zircon77") {
		t.Fatalf("the summary as stored: %+v, %v", ms, err)
	}
}
