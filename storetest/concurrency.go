package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testConcurrent has several writers write at once, each its own memories
// and all of them one shared key, while a reader keeps listing and
// searching. Nothing acknowledged may be lost, the key must hold the write
// with the latest UpdatedAt, its history must have one revision per
// acknowledged write, and the reader must never fail. A write a store
// refuses with ECONFLICT was not acknowledged: the writer retries it, as a
// caller would.
func testConcurrent(t *testing.T, s mnemo.Store) {
	const writers, each = 6, 8
	ctx := t.Context()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		failed  []error
		latestN = -1
		acked   int
	)
	fail := func(err error) {
		mu.Lock()
		failed = append(failed, err)
		mu.Unlock()
	}
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := s.List(ctx, scopeAX, mnemo.ListQuery{Limit: 10}); err != nil {
				fail(fmt.Errorf("s.List during writes: %w", err))
				return
			}
			if _, err := s.Search(ctx, scopeAX, mnemo.TextQuery{Terms: []string{"note"}, Limit: 5}); err != nil {
				fail(fmt.Errorf("s.Search during writes: %w", err))
				return
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := 100 + w*each + i
				own := newMemory(scopeAX, n, "", fmt.Sprintf("writer%d note %d", w, i))
				shared := newMemory(scopeAX, 1000+n, "/shared/counter", fmt.Sprintf("value from writer%d step %d", w, i))
				// Distinct times: the winner is the largest n, whatever the
				// order the writes land in.
				shared.UpdatedAt = at(time.Duration(n) * time.Second)
				var err error
				for range 50 {
					if _, err = s.Write(ctx, scopeAX, []mnemo.Record{put(own), put(shared)}); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
						break
					}
				}
				if err != nil {
					fail(fmt.Errorf("writer %d step %d: %w", w, i, err))
					return
				}
				mu.Lock()
				acked++
				latestN = max(latestN, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-readerDone
	if len(failed) > 0 {
		t.Fatal(failed[0])
	}

	for w := range writers {
		for i := range each {
			n := 100 + w*each + i
			if m := get(t, s, scopeAX, id(n)); m.Content != fmt.Sprintf("writer%d note %d", w, i) {
				t.Fatalf("memory %d: %q", n, m.Content)
			}
		}
	}
	_, total := list(t, s, scopeAX, mnemo.ListQuery{})
	if total != acked+1 {
		t.Fatalf("%d memories after %d acknowledged batches, want %d", total, acked, acked+1)
	}
	m := getByKey(t, s, scopeAX, "/shared/counter")
	w, i := (latestN-100)/each, (latestN-100)%each
	if want := fmt.Sprintf("value from writer%d step %d", w, i); m.Content != want {
		t.Fatalf("shared key holds %q, want the latest write %q", m.Content, want)
	}
	puts := 0
	for _, r := range history(t, s, scopeAX, "/shared/counter") {
		if r.Op == mnemo.OpPut {
			puts++
		}
	}
	if puts != acked {
		t.Fatalf("history of the shared key has %d puts, want one per acknowledged write (%d)", puts, acked)
	}
}

// testLifecycle checks ApplyLife, the ledger and Scopes of a
// LifecycleStore: changes apply to the scope's memories only, together with
// their entries, and the ledger is per scope, newest first, filtered and
// paged.
func testLifecycle(t *testing.T, store mnemo.Store) {
	s, ok := store.(mnemo.LifecycleStore)
	if !ok {
		t.Skip("not a LifecycleStore")
	}
	ctx := t.Context()
	write(t, s, scopeAX, put(newMemory(scopeAX, 1, "", "first")), put(newMemory(scopeAX, 2, "", "second")), put(newMemory(scopeAX, 3, "", "third")))
	write(t, s, scopeBX, put(newMemory(scopeBX, 4, "", "other tenant")))

	half, yes := 0.5, true
	entry := mnemo.LedgerEntry{At: at(time.Hour), Action: mnemo.ActionArchive, MemoryIDs: []string{id(2)}, Reason: "faded", Actor: "reflect"}
	n, err := s.ApplyLife(ctx, scopeAX, []mnemo.LifeChange{
		{ID: id(1), Vitality: &half},
		{ID: id(2), Archived: &yes},
		{ID: id(4), Archived: &yes}, // another scope's: skipped
	}, []mnemo.LedgerEntry{entry})
	if err != nil {
		t.Fatalf("ApplyLife: %v", err)
	}
	if n != 2 {
		t.Errorf("ApplyLife changed %d memories, want 2", n)
	}
	if m := get(t, s, scopeAX, id(1)); m.Vitality != 0.5 || m.Archived {
		t.Errorf("memory 1 after ApplyLife: vitality %v archived %v", m.Vitality, m.Archived)
	}
	if m := get(t, s, scopeAX, id(2)); !m.Archived {
		t.Error("memory 2 not archived")
	}
	if m := get(t, s, scopeBX, id(4)); m.Archived {
		t.Error("ApplyLife in one scope archived another scope's memory")
	}
	if ms, _ := list(t, s, scopeAX, mnemo.ListQuery{}); !sameSet(ids(ms), []string{id(1), id(3)}) {
		t.Errorf("List after archiving: %v", ids(ms))
	}

	for i, a := range []string{mnemo.ActionDecay, mnemo.ActionRestore} {
		e := mnemo.LedgerEntry{At: at(time.Duration(2+i) * time.Hour), Action: a, MemoryIDs: []string{id(2)}, Actor: "api"}
		if err := s.AppendLedger(ctx, scopeAX, []mnemo.LedgerEntry{e}); err != nil {
			t.Fatalf("AppendLedger: %v", err)
		}
	}
	all, total, err := s.Ledger(ctx, scopeAX, mnemo.LedgerQuery{})
	if err != nil {
		t.Fatalf("Ledger: %v", err)
	}
	var actions []string
	for _, e := range all {
		actions = append(actions, e.Action)
		if e.TenantID != scopeAX.TenantID || e.AgentID != scopeAX.AgentID {
			t.Errorf("entry %d of scope %s/%s", e.Seq, e.TenantID, e.AgentID)
		}
	}
	if want := []string{mnemo.ActionRestore, mnemo.ActionDecay, mnemo.ActionArchive}; total != 3 || !slices.Equal(actions, want) {
		t.Fatalf("Ledger: %v (total %d), want %v newest first", actions, total, want)
	}
	if all[2].Reason != "faded" || !slices.Equal(all[2].MemoryIDs, []string{id(2)}) || !all[2].At.Equal(entry.At) {
		t.Errorf("archive entry came back as %+v", all[2])
	}
	page, total, err := s.Ledger(ctx, scopeAX, mnemo.LedgerQuery{Limit: 1, Offset: 1})
	if err != nil || total != 3 || len(page) != 1 || page[0].Action != mnemo.ActionDecay {
		t.Errorf("Ledger page 2 of 1: %+v, total %d, %v", page, total, err)
	}
	only, total, err := s.Ledger(ctx, scopeAX, mnemo.LedgerQuery{Action: mnemo.ActionArchive})
	if err != nil || total != 1 || len(only) != 1 {
		t.Errorf("Ledger by action: %+v, total %d, %v", only, total, err)
	}
	if got, _, err := s.Ledger(ctx, scopeAX, mnemo.LedgerQuery{Seq: all[1].Seq}); err != nil || len(got) != 1 || got[0].Action != mnemo.ActionDecay {
		t.Errorf("Ledger by seq: %+v, %v", got, err)
	}
	if other, total, err := s.Ledger(ctx, scopeBX, mnemo.LedgerQuery{}); err != nil || total != 0 || len(other) != 0 {
		t.Errorf("another scope's ledger: %+v, total %d, %v", other, total, err)
	}

	scopes, err := s.Scopes(ctx)
	if err != nil {
		t.Fatalf("Scopes: %v", err)
	}
	if !slices.Contains(scopes, scopeAX) || !slices.Contains(scopes, scopeBX) {
		t.Errorf("Scopes = %v, want %v and %v among them", scopes, scopeAX, scopeBX)
	}
}
