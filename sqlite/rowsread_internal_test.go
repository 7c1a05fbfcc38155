package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// TestSearchReadsOnlyWhatItReturns: when the filter drops none of the
// best matches, a search reads no more rows than it returns; the rows a
// search reads are most of its cost (PERF-10).
func TestSearchReadsOnlyWhatItReturns(t *testing.T) {
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
	for i := range 400 {
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
	tests := []struct {
		name   string
		search func(limit int) (int, error)
	}{
		{"vector", func(limit int) (int, error) {
			hits, err := db.SearchVectors(ctx, filterScope, mnemo.VectorQuery{Vector: filterMemory(5).Embedding, Limit: limit})
			return len(hits), err
		}},
		{"lexical", func(limit int) (int, error) {
			res, err := db.Search(ctx, filterScope, mnemo.TextQuery{Terms: []string{"memory"}, Limit: limit})
			return len(res.Hits), err
		}},
	}
	for _, tt := range tests {
		for _, limit := range []int{5, 20, 60} {
			before := db.rowsRead.Load()
			n, err := tt.search(limit)
			if err != nil {
				t.Fatal(err)
			}
			if n != limit {
				t.Fatalf("%s, limit %d: %d hits", tt.name, limit, n)
			}
			if got := db.rowsRead.Load() - before; got > int64(limit) {
				t.Errorf("%s, limit %d: read %d rows", tt.name, limit, got)
			}
		}
	}
}
