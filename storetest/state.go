package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testState checks state documents: create once, update by version,
// conflicts, delete, list and idle, all within their scope. Clear leaves
// state alone.
func testState(t *testing.T, s mnemo.Store) {
	st, ok := s.(mnemo.StateStore)
	if !ok {
		t.Skip("not a StateStore")
	}
	ctx := t.Context()
	doc := mnemo.StateDoc{Kind: mnemo.StateRun, ID: "r1", Body: []byte(`{"n":1}`), UpdatedAt: at(0)}
	v, err := st.PutState(ctx, scopeAX, doc)
	if err != nil || v != 1 {
		t.Fatalf("create: %d, %v", v, err)
	}
	if _, err := st.PutState(ctx, scopeAX, doc); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("create twice: %v, want conflict", err)
	}
	// The same id in another scope, or of another kind, is another document.
	if _, err := st.PutState(ctx, scopeAY, doc); err != nil {
		t.Fatalf("same id, other agent: %v", err)
	}
	other := doc
	other.Kind = mnemo.StateSession
	if _, err := st.PutState(ctx, scopeAX, other); err != nil {
		t.Fatalf("same id, other kind: %v", err)
	}
	got, err := st.GetState(ctx, scopeAX, mnemo.StateRun, "r1")
	if err != nil || got.Version != 1 || string(got.Body) != `{"n":1}` || !got.UpdatedAt.Equal(at(0)) || got.Scope != scopeAX {
		t.Fatalf("get: %+v, %v", got, err)
	}
	upd := got
	upd.Body, upd.UpdatedAt = []byte(`{"n":2}`), at(time.Minute)
	if v, err := st.PutState(ctx, scopeAX, upd); err != nil || v != 2 {
		t.Fatalf("update: %d, %v", v, err)
	}
	stale := got // still version 1
	stale.Body = []byte(`{"n":99}`)
	if _, err := st.PutState(ctx, scopeAX, stale); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("stale update: %v, want conflict", err)
	}
	if got, _ := st.GetState(ctx, scopeAX, mnemo.StateRun, "r1"); string(got.Body) != `{"n":2}` || got.Version != 2 {
		t.Fatalf("after the stale update: %+v", got)
	}
	if _, err := st.GetState(ctx, scopeBX, mnemo.StateRun, "r1"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("other tenant: %v, want not found", err)
	}

	// List and idle.
	st.PutState(ctx, scopeAX, mnemo.StateDoc{Kind: mnemo.StateRun, ID: "r2", Body: []byte(`{}`), UpdatedAt: at(time.Hour)})
	docs, err := st.ListState(ctx, scopeAX, mnemo.StateRun)
	if err != nil || len(docs) != 2 || docs[0].ID != "r2" || docs[1].ID != "r1" {
		t.Fatalf("list: %+v, %v", docs, err)
	}
	idle, err := st.IdleState(ctx, mnemo.StateRun, at(30*time.Minute), 0)
	if err != nil || len(idle) != 2 || idle[0].ID != "r1" || idle[0].Scope != scopeAY && idle[0].Scope != scopeAX {
		t.Fatalf("idle: %+v, %v", idle, err) // r1 of agent-y (at 0) and r1 of agent-x (at 1m)
	}
	if idle, _ := st.IdleState(ctx, mnemo.StateRun, at(30*time.Minute), 1); len(idle) != 1 || !idle[0].UpdatedAt.Equal(at(0)) {
		t.Fatalf("idle, first only: %+v", idle)
	}

	// Clear keeps state (API-9: working memory outlives clearing).
	if _, err := s.Clear(ctx, scopeAX); err != nil {
		t.Fatal(err)
	}
	// Delete: by version, or any.
	if _, err := st.DeleteState(ctx, scopeAX, mnemo.StateRun, "r1", 1); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("delete a changed document: %v, want conflict", err)
	}
	if ok, err := st.DeleteState(ctx, scopeAX, mnemo.StateRun, "r1", 2); !ok || err != nil {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	if ok, err := st.DeleteState(ctx, scopeAX, mnemo.StateRun, "r1", 0); ok || err != nil {
		t.Fatalf("delete again: %v, %v", ok, err)
	}
	if ok, _ := st.DeleteState(ctx, scopeAX, mnemo.StateRun, "r2", 0); !ok {
		t.Fatal("delete any version")
	}
	if _, err := st.GetState(ctx, scopeAY, mnemo.StateRun, "r1"); err != nil {
		t.Fatalf("another agent's document went too: %v", err)
	}
}

// testCountTypes checks the census by type and the filters and order boot
// and snapshots read with.
func testCountTypes(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	mk := func(n int, typ string, vitality float64, pinned bool) mnemo.Record {
		m := newMemory(scopeAX, n, "", "text")
		m.Type, m.Vitality, m.Pinned = typ, vitality, pinned
		m.UpdatedAt = at(time.Duration(n) * time.Second)
		return put(m)
	}
	archived := mk(6, "event", 0.9, false)
	archived.Memory.Archived = true
	expired := mk(7, "event", 0.9, true)
	past := at(-time.Hour)
	expired.Memory.ExpiresAt = &past
	write(t, s, scopeAX, mk(1, "event", 0.2, false), mk(2, "event", 0.8, true), mk(3, "event", 0.5, false),
		mk(4, "identity", 1, true), mk(5, "knowledge", 0.4, false), archived, expired)
	write(t, s, scopeAY, put(newMemory(scopeAY, 8, "", "other agent")))

	got, err := s.CountTypes(ctx, scopeAX, mnemo.Filter{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	want := []mnemo.TypeCount{{Type: "event", Count: 3, MeanVitality: 0.5}, {Type: "identity", Count: 1, MeanVitality: 1}, {Type: "knowledge", Count: 1, MeanVitality: 0.4}}
	if len(got) != len(want) {
		t.Fatalf("CountTypes = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Type != want[i].Type || got[i].Count != want[i].Count || abs(got[i].MeanVitality-want[i].MeanVitality) > 1e-9 {
			t.Fatalf("CountTypes = %+v, want %+v", got, want)
		}
	}
	if got, _ := s.CountTypes(ctx, scopeBX, mnemo.Filter{}); len(got) != 0 {
		t.Fatalf("empty scope: %+v", got)
	}
	// A store may keep the census apart from the rows (sqlite keeps it by
	// triggers): it must agree with a count of the rows after every kind
	// of change.
	agree := func(what string) {
		t.Helper()
		fast, err := s.CountTypes(ctx, scopeAX, mnemo.Filter{Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		slow, err := s.CountTypes(ctx, scopeAX, mnemo.Filter{Now: t0, MinVitality: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		if len(fast) != len(slow) {
			t.Fatalf("%s: census %+v, counted %+v", what, fast, slow)
		}
		for i := range fast {
			if fast[i].Type != slow[i].Type || fast[i].Count != slow[i].Count || abs(fast[i].MeanVitality-slow[i].MeanVitality) > 1e-9 {
				t.Fatalf("%s: census %+v, counted %+v", what, fast, slow)
			}
		}
	}
	agree("after the writes")
	keyed := mk(9, "emotion", 0.7, false)
	keyed.Memory.Key = "/mood"
	write(t, s, scopeAX, keyed)
	agree("a new key")
	again := mk(10, "identity", 0.3, false)
	again.Memory.Key, again.Memory.UpdatedAt = "/mood", at(time.Hour)
	write(t, s, scopeAX, again)
	agree("an upsert that changes the type")
	write(t, s, scopeAX, tombstone(scopeAX, 11, "/mood", at(2*time.Hour)))
	agree("a tombstone")
	// A new key written twice in one batch: inserted, then replaced.
	first, second := mk(12, "pattern", 0.6, false), mk(13, "knowledge", 0.2, false)
	first.Memory.Key, second.Memory.Key = "/twice", "/twice"
	second.Memory.UpdatedAt = first.Memory.UpdatedAt.Add(time.Second)
	write(t, s, scopeAX, first, second)
	agree("a key written twice in one batch")
	if _, err := s.Forget(ctx, scopeAX, []string{id(5)}, nil); err != nil {
		t.Fatal(err)
	}
	agree("a forget")

	ms, total, err := s.List(ctx, scopeAX, mnemo.ListQuery{Filter: mnemo.Filter{Types: []string{"event"}, Now: t0}, Order: mnemo.OrderVitality, NoVectors: true})
	if want := []string{id(2), id(3), id(1)}; err != nil || total != 3 || !slices.Equal(ids(ms), want) {
		t.Fatalf("by vitality: %v (%d), %v; want %v", ids(ms), total, err, want)
	}
	ms, _, err = s.List(ctx, scopeAX, mnemo.ListQuery{Filter: mnemo.Filter{Pinned: true, Now: t0}})
	if want := []string{id(4), id(2)}; err != nil || !sameSet(ids(ms), want) {
		t.Fatalf("pinned: %v, %v; want %v", ids(ms), err, want)
	}
	if _, err := s.Clear(ctx, scopeAX); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.CountTypes(ctx, scopeAX, mnemo.Filter{Now: t0}); len(got) != 0 {
		t.Fatalf("after clear: %+v", got)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
