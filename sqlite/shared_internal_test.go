package sqlite

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// TestShareReads: the reads made with a context of ShareReads load each
// memory once, answer as the reads made without it do, and still apply
// each one's filter to the rows an earlier read loaded (PERF-10).
func TestShareReads(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.vectors.opts = vector.Options{M: 8, EfConstruction: 48, EfSearch: 128, ExactBelow: 100, Seed: 1}
	if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
		t.Fatal(err)
	}
	var recs []mnemo.Record
	for i := range 200 {
		m := filterMemory(i)
		m.Archived = false
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
	}
	if _, err := db.Write(ctx, filterScope, recs); err != nil {
		t.Fatal(err)
	}
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	public := mnemo.Filter{SecurityLevels: []string{"public"}}
	reads := []struct {
		name string
		read func(ctx context.Context) (any, error)
	}{
		{"lexical", func(ctx context.Context) (any, error) {
			return db.Search(ctx, filterScope, mnemo.TextQuery{Terms: []string{"memory"}, Limit: 60})
		}},
		{"vector", func(ctx context.Context) (any, error) {
			return db.SearchVectors(ctx, filterScope, mnemo.VectorQuery{Vector: filterMemory(5).Embedding, Limit: 60})
		}},
		{"lexical, public only", func(ctx context.Context) (any, error) {
			return db.Search(ctx, filterScope, mnemo.TextQuery{Terms: []string{"memory"}, Limit: 60, Filter: public})
		}},
		{"list", func(ctx context.Context) (any, error) {
			ms, _, err := db.List(ctx, filterScope, mnemo.ListQuery{Limit: 80, NoTotal: true, Order: mnemo.OrderOldest})
			return ms, err
		}},
		{"list, public only", func(ctx context.Context) (any, error) {
			ms, _, err := db.List(ctx, filterScope, mnemo.ListQuery{Limit: 80, NoTotal: true, Filter: public})
			return ms, err
		}},
	}
	want := make([]any, len(reads))
	before := db.rowsRead.Load()
	for i, r := range reads {
		if want[i], err = r.read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	unshared := db.rowsRead.Load() - before

	shared := db.ShareReads(ctx)
	before = db.rowsRead.Load()
	for range 2 {
		for i, r := range reads {
			got, err := r.read(shared)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%s: shared reads answer otherwise", r.name)
			}
		}
	}
	loaded := db.rowsRead.Load() - before
	seen := map[string]bool{}
	for _, w := range want {
		switch w := w.(type) {
		case mnemo.SearchResult:
			for _, h := range w.Hits {
				seen[h.Memory.ID] = true
			}
		case []mnemo.VectorHit:
			for _, h := range w {
				seen[h.Memory.ID] = true
			}
		case []mnemo.Memory:
			for _, m := range w {
				seen[m.ID] = true
			}
		}
	}
	// Each memory is loaded by whichever read finds it first, once.
	if loaded > int64(len(seen)) {
		t.Errorf("shared reads, twice, loaded %d rows of %d memories (%d once, unshared, lists aside)", loaded, len(seen), unshared)
	}

	// At once, as recall's searches run: each answers as alone, and a
	// memory is loaded by one of them.
	shared = db.ShareReads(ctx)
	before = db.rowsRead.Load()
	var wg sync.WaitGroup
	for range 3 {
		for i, r := range reads {
			wg.Go(func() {
				got, err := r.read(shared)
				if err != nil {
					t.Error(err)
				} else if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("%s, at once: shared reads answer otherwise", r.name)
				}
			})
		}
	}
	wg.Wait()
	if loaded := db.rowsRead.Load() - before; loaded > int64(len(seen)) {
		t.Errorf("shared reads, at once, loaded %d rows of %d memories", loaded, len(seen))
	}

	// A memory forgotten after a read loaded it is gone from the next.
	hits, err := db.SearchVectors(shared, filterScope, mnemo.VectorQuery{Vector: filterMemory(5).Embedding, Limit: 1})
	if err != nil || len(hits) != 1 {
		t.Fatal(hits, err)
	}
	if _, err := db.Forget(ctx, filterScope, []string{hits[0].Memory.ID}, nil); err != nil {
		t.Fatal(err)
	}
	again, err := db.SearchVectors(shared, filterScope, mnemo.VectorQuery{Vector: filterMemory(5).Embedding, Limit: 60})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range again {
		if h.Memory.ID == hits[0].Memory.ID {
			t.Errorf("memory %s forgotten, and still found", h.Memory.ID)
		}
	}
}
