package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

func TestWriteGuard(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	write := func(d mnemo.Draft) memory.WriteResult {
		t.Helper()
		res, err := svc.Write(ctx, alice, []mnemo.Draft{d})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	first := write(draft("The staging database runs on port 5432"))
	if first.Guard.Action != memory.GuardAdd {
		t.Fatalf("first write: %+v", first.Guard)
	}
	// The same text again: nothing written, the stored memory returned.
	dup := write(draft("the staging  database runs on port 5432"))
	if dup.Guard.Action != memory.GuardDuplicate || dup.ID != first.ID || dup.Guard.ExistingID != first.ID {
		t.Fatalf("duplicate: %+v", dup.Guard)
	}
	// Nearly the same words: the new one replaces the old, archived.
	near := write(draft("The staging database runs on port 5432 today"))
	if near.Guard.Action != memory.GuardMerge || near.Guard.ExistingID != first.ID || near.ID == first.ID {
		t.Fatalf("merge: %+v", near.Guard)
	}
	if old, _ := svc.Get(ctx, alice, first.ID); !old.Archived {
		t.Fatal("the merged memory was not archived")
	}
	// Saying otherwise about the same thing: both kept, the old one ranks lower.
	conflict := write(draft("The staging database runs on port 6543 today"))
	if conflict.Guard.Action != memory.GuardConflict || len(conflict.Guard.ConflictsWith) != 1 || conflict.Guard.ConflictsWith[0] != near.ID {
		t.Fatalf("conflict: %+v", conflict.Guard)
	}
	if old, _ := svc.Get(ctx, alice, near.ID); old.Archived || old.Vitality != 0.5 {
		t.Fatalf("the contradicted memory: archived %v, vitality %v", old.Archived, old.Vitality)
	}
	res, _ := svc.Recall(ctx, alice, memory.Query{Text: "staging database port"})
	if len(res.Results) < 2 || res.Results[0].ID != conflict.ID {
		t.Fatalf("the newest does not win: %+v", res.Results)
	}
	// A negation conflicts too.
	svc.Remember(ctx, alice, draft("Ana likes spicy food very much"))
	if neg := write(draft("Ana does not like spicy food very much")); neg.Guard.Action != memory.GuardConflict {
		t.Fatalf("negation: %+v", neg.Guard)
	}
	// Keys change by their key.
	k1 := write(mnemo.Draft{Key: "/user/city", Content: str("Lives in Lisbon")})
	k2 := write(mnemo.Draft{Key: "/user/city", Content: str("Lives in Porto")})
	if k1.Guard.Action != memory.GuardAdd || k2.Guard.Action != memory.GuardUpdate || k2.Guard.ExistingID != k1.ID {
		t.Fatalf("keyed: %+v, %+v", k1.Guard, k2.Guard)
	}
	// Too short, or empty: refused, with the reason, and nothing stored.
	before, _ := svc.Stats(ctx, alice)
	for _, d := range []mnemo.Draft{draft("ok"), draft("?!"), {Content: str("{}")}} {
		_, err := svc.Write(ctx, alice, []mnemo.Draft{d})
		if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "write guard rejected") {
			t.Fatalf("%q: %v", *d.Content, err)
		}
	}
	_, err := svc.Write(ctx, alice, []mnemo.Draft{draft("A fine memory"), draft("no")})
	if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "memories[1]") {
		t.Fatalf("batch with a rejected memory: %v", err)
	}
	if after, _ := svc.Stats(ctx, alice); after.Memories != before.Memories {
		t.Fatalf("a rejected write stored something: %d -> %d", before.Memories, after.Memories)
	}
	// Every decision but add and update is in the ledger.
	es, _, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionGuard})
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, strings.SplitN(e.Reason, ":", 2)[0])
	}
	if got := strings.Join(kinds, " "); got != "rejected rejected rejected rejected conflict conflict merge duplicate" {
		t.Fatalf("ledger: %s", got)
	}
}

func TestWriteGuardOff(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := service.New(newService(t, c).Store(), service.Options{Now: c.Now, Guard: memory.GuardOptions{Off: true}})
	for range 2 {
		if _, err := svc.Remember(ctx, alice, draft("ok")); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := svc.Stats(ctx, alice); st.Memories != 2 {
		t.Fatalf("guard off stored %d, want 2", st.Memories)
	}
}

// extractor is a MemoryExtractor that answers, or fails.
type extractor struct{ fail bool }

func (e extractor) ExtractMemories(_ context.Context, msgs []memory.Message) ([]memory.Extracted, error) {
	if e.fail {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "model down")
	}
	return []memory.Extracted{
		{Category: "preference", Key: "drink", Content: "Prefers green tea in the afternoon", Confidence: 0.7, Source: "user_stated"},
		{Category: "weird", Content: "Works from Lisbon on Mondays", Confidence: 0.6, Source: "inferred"},
		{Category: "fact", Content: "ok", Confidence: 1, Source: "user_stated"}, // the Write Guard refuses it
	}, nil
}

// MEM-7: a model's should_store memories from a conversation become
// long-term memories, user-stated ones at confidence 0.9 or more; a model
// that fails costs the extraction, not the conversation.
func TestExtraction(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	store := newService(t, c).Store()
	svc := service.New(store, service.Options{Now: c.Now, Extractor: extractor{}})
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{{Role: "user", Content: "I like green tea in the afternoon"}}); err != nil {
		t.Fatal(err)
	}
	m, err := svc.GetByKey(ctx, alice, "/preference/drink")
	if err != nil || m.Confidence != 0.9 || m.Category != "preference" || string(m.Source) != `"user_stated"` || m.SessionID != "s1" {
		t.Fatalf("user-stated: %+v, %v", m, err)
	}
	ms, _, _ := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{Tags: []string{"extracted"}}})
	if len(ms) != 2 {
		t.Fatalf("extracted memories: %d, want 2", len(ms))
	}
	if es, _, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionExtract}); len(es) != 1 || len(es[0].MemoryIDs) != 2 {
		t.Fatalf("ledger: %+v", es)
	}
	down := service.New(store, service.Options{Now: c.Now, Extractor: extractor{fail: true}})
	if _, err := down.AddMessages(ctx, bob, "s2", []memory.Message{{Role: "user", Content: "hello there"}}); err != nil {
		t.Fatalf("a failing model failed the conversation: %v", err)
	}
	if es, _, _ := down.Ledger(ctx, bob, mnemo.LedgerQuery{Action: mnemo.ActionExtract}); len(es) != 1 || !strings.Contains(es[0].Reason, "degraded") {
		t.Fatalf("failure not in the ledger: %+v", es)
	}
}

// SEC-12: what a model extracts from messages is at least as secret as the
// most secret of them, whatever its own text says.
func TestExtractionKeepsLevel(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := service.New(newService(t, c).Store(), service.Options{Now: c.Now, Extractor: extractor{}})
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{{Role: "user", Content: "I like green tea in the afternoon"},
		{Role: "user", Content: "and mail me at dana.okafor@example.com"}}); err != nil {
		t.Fatal(err)
	}
	m, err := svc.GetByKey(ctx, alice, "/preference/drink")
	if err != nil || m.SecurityLevel != mnemo.SecurityConfidential {
		t.Fatalf("extracted beside a confidential message: %q, %v; want confidential", m.SecurityLevel, err)
	}
}

// TestWriteGuardPrefixOnly is defect 1 of issue 15: a text of nothing but
// words ending in '*' panicked the guard, which read it as a query (all
// prefixes, no terms). It is text to index: stored, and its repeat found.
func TestWriteGuardPrefixOnly(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	for _, text := range []string{"Python*", "foo*bar*", "Deploys* Tuesdays*", "**", "Lisb* *"} {
		res, err := svc.Write(ctx, alice, []mnemo.Draft{draft(text)})
		if err != nil {
			if mnemo.ErrorCode(err) == mnemo.EINVALID { // too short is a fine answer
				continue
			}
			t.Fatalf("%q: %v", text, err)
		}
		again, err := svc.Write(ctx, alice, []mnemo.Draft{draft(text)})
		if err != nil || again[0].Guard.Action != memory.GuardDuplicate || again[0].ID != res[0].ID {
			t.Fatalf("%q again: %+v, %v", text, again, err)
		}
	}
}

// TestWriteGuardLongText covers the lookups of a text of five or more
// search words, whose first lookup has only the words past the three
// longest (MEM-10): each decision must be what the full lookups make.
func TestWriteGuardLongText(t *testing.T) {
	const stored = "Marguerite reconfigured the replication coordinator after yesterday's outage in Frankfurt region 42"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"same text", "marguerite reconfigured the replication coordinator after  yesterday's outage in Frankfurt region 42", memory.GuardDuplicate},
		{"a long word changed", "Marguerite reconfigured the replication supervisor after yesterday's outage in Frankfurt region 42", memory.GuardMerge},
		{"the longest word changed", "Marguerite reconfigured the synchronisation coordinator after yesterday's outage in Frankfurt region 42", memory.GuardMerge},
		{"a number changed", "Marguerite reconfigured the replication coordinator after yesterday's outage in Frankfurt region 43", memory.GuardConflict},
		{"negated", "Marguerite never reconfigured the replication coordinator after yesterday's outage in Frankfurt region 42", memory.GuardConflict},
		// Only a change among the three longest words is looked past.
		{"a short word changed", "Marguerite reconfigured the replication coordinator after yesterday's outage in Hamburg region 42", memory.GuardAdd},
		{"new", "Bartholomew documented the certificate rotation procedure for the payments gateway cluster", memory.GuardAdd},
		{"new, sharing the longest words", "Marguerite reconfigured the replication coordinator before lunch on Tuesday morning quickly", memory.GuardAdd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			svc := newService(t, newClock())
			first, err := svc.Write(ctx, alice, []mnemo.Draft{draft(stored)})
			if err != nil || first[0].Guard.Action != memory.GuardAdd {
				t.Fatalf("first write: %+v, %v", first, err)
			}
			res, err := svc.Write(ctx, alice, []mnemo.Draft{draft(tc.text)})
			if err != nil {
				t.Fatal(err)
			}
			if got := res[0].Guard; got.Action != tc.want {
				t.Fatalf("%s, want %s", got.Action, tc.want)
			}
		})
	}
}
