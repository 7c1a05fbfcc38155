package lifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
)

// Prune, reset and soft forget archive (hidden from recall, kept); the
// ledger restores them within the grace period; reflect's purge erases
// what prune and reset archived after it.
func TestPruneResetRestorePurge(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	old := c.T.Add(-48 * time.Hour)
	ms, err := svc.RememberBatch(ctx, alice, []mnemo.Draft{
		{Content: str("Old scratch note about the build"), Tags: []string{"scratch"}, CreatedAt: &old},
		{Content: str("Card on file 4111 1111 1111 1111")}, // restricted by classification
		{Content: str("The build runs on Tuesdays"), Key: "/build/day"},
		{Content: str("Keep this one about the build")},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Prune(ctx, alice, lifecycle.PruneQuery{})
	wantCode(t, "prune without a criterion", err, mnemo.EINVALID)
	_, err = svc.Prune(ctx, alice, lifecycle.PruneQuery{SecurityLevels: []string{"secret"}})
	wantCode(t, "prune by an unknown level", err, mnemo.EINVALID)

	dry, err := svc.Prune(ctx, alice, lifecycle.PruneQuery{Tags: []string{"scratch"}, DryRun: true})
	if err != nil || len(dry.Archived) != 1 || !dry.DryRun {
		t.Fatalf("dry prune = %+v, %v", dry, err)
	}
	if m, _ := svc.Get(ctx, alice, ms[0].ID); m.Archived {
		t.Fatal("a dry run archived")
	}
	pruned, err := svc.Prune(ctx, alice, lifecycle.PruneQuery{SecurityLevels: []string{mnemo.SecurityRestricted}, Actor: "cli"})
	if err != nil || len(pruned.Archived) != 1 || pruned.Archived[0] != ms[1].ID || pruned.LedgerSeq == 0 {
		t.Fatalf("prune = %+v, %v", pruned, err)
	}
	before := c.T.Add(-24 * time.Hour)
	if p, _ := svc.Prune(ctx, alice, lifecycle.PruneQuery{Before: &before}); len(p.Archived) != 1 || p.Archived[0] != ms[0].ID {
		t.Fatalf("prune by time = %+v", p)
	}
	soft, err := svc.SoftForget(ctx, alice, nil, []string{"/build/day"}, "mcp")
	if err != nil || len(soft.Archived) != 1 {
		t.Fatalf("soft forget = %+v, %v", soft, err)
	}
	if res, _ := svc.Recall(ctx, alice, memory.Query{Text: "build"}); len(res.Results) != 1 || res.Results[0].ID != ms[3].ID {
		t.Fatalf("recall after archiving: %+v", res.Results)
	}

	// Restore the soft forget: back in recall.
	if ids, err := svc.Restore(ctx, alice, soft.LedgerSeq, "cli"); err != nil || len(ids) != 1 {
		t.Fatalf("restore = %v, %v", ids, err)
	}
	if res, _ := svc.Recall(ctx, alice, memory.Query{Text: "tuesdays"}); len(res.Results) != 1 {
		t.Fatalf("restored memory not recalled: %+v", res)
	}
	_, err = svc.Restore(ctx, alice, 9999, "")
	wantCode(t, "restore an unknown entry", err, mnemo.ENOTFOUND)

	// Reset: everything archived, restorable.
	reset, err := svc.Reset(ctx, alice, "cli")
	if err != nil || len(reset.Archived) != 2 {
		t.Fatalf("reset = %+v, %v", reset, err)
	}
	if st, _ := svc.Stats(ctx, alice); st.Archived != 4 {
		t.Fatalf("archived after reset: %d", st.Archived)
	}

	// Within the grace period purge erases nothing; past it, what prune and
	// reset archived is erased — not what was restored.
	if rep, _ := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhasePurge}}); len(rep.Purged) != 0 {
		t.Fatalf("purged within the grace period: %+v", rep.Purged)
	}
	c.Advance(31 * 24 * time.Hour)
	_, err = svc.Restore(ctx, alice, reset.LedgerSeq, "")
	wantCode(t, "restore past the grace period", err, mnemo.EINVALID)
	dryPurge, _ := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhasePurge}, DryRun: true})
	if len(dryPurge.Purged) != 4 {
		t.Fatalf("dry purge = %+v", dryPurge.Purged)
	}
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhasePurge}})
	if err != nil || len(rep.Purged) != 4 {
		t.Fatalf("purge = %+v, %v", rep.Purged, err)
	}
	if st, _ := svc.Stats(ctx, alice); st.Memories != 0 {
		t.Fatalf("%d memories left after the purge", st.Memories)
	}
	if es, n, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionDelete}); n != 1 || len(es[0].MemoryIDs) != 4 {
		t.Fatalf("purge ledger = %+v", es)
	}
}

// A conversation message that reflect's purge erases leaves none of its
// words in the messages around it (REC-37): a card number pasted into a
// chat, pruned by its level and purged past the grace period.
func TestPurgedMessageLeavesNeighbours(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	_, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{
		{Role: "user", Name: "Caroline", Content: "Can you book the ferry for Friday?"},
		{Role: "assistant", Name: "Melanie", Content: "Sure, which card?"},
		{Role: "user", Name: "Caroline", Content: "The zeppelin card, 4111 1111 1111 1111."},
		{Role: "assistant", Name: "Melanie", Content: "Booked the ferry."},
	})
	if err != nil {
		t.Fatal(err)
	}
	found := func() int {
		t.Helper()
		res, err := svc.Recall(ctx, alice, memory.Query{Text: "zeppelin", Profile: "lexical"})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Results)
	}
	if n := found(); n != 4 { // the message and those around it
		t.Fatalf("before: %d found", n)
	}
	if p, err := svc.Prune(ctx, alice, lifecycle.PruneQuery{SecurityLevels: []string{mnemo.SecurityRestricted}}); err != nil || len(p.Archived) != 1 {
		t.Fatalf("prune = %+v, %v", p, err)
	}
	c.Advance(31 * 24 * time.Hour)
	if rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhasePurge}}); err != nil || len(rep.Purged) != 1 {
		t.Fatalf("purge = %+v, %v", rep.Purged, err)
	}
	if n := found(); n != 0 {
		t.Fatalf("after the purge: %d found", n)
	}
}
