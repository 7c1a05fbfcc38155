package sqlite

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestFilteredSearchInMemory: once the in-memory index is built, a
// search with a selective filter (a type, the dated memories of a "when"
// question) is ranked there, not by FTS5 scoring and filtering every
// match (PERF-10); TestLexIndexMatchesFTS5 holds the answers to FTS5's.
func TestFilteredSearchInMemory(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	rng := rand.New(rand.NewPCG(3, 4))
	var recs []mnemo.Record
	for i := range 500 {
		r := lexRecord(rng, i, "")
		if i%5 == 0 {
			at := time.Date(2025, 3, 1+i%28, 0, 0, 0, 0, time.UTC)
			r.Memory.Occurred = &mnemo.Occurred{Start: at, End: at.Add(24 * time.Hour), Source: mnemo.OccurredText}
		}
		recs = append(recs, r)
	}
	if _, err := db.Write(ctx, sc, recs); err != nil {
		t.Fatal(err)
	}
	waitLex(t, db)
	tests := []struct {
		name   string
		filter mnemo.Filter
	}{
		{"type", mnemo.Filter{Types: []string{mnemo.TypeEvent}}},
		{"dated", mnemo.Filter{Dated: true}},
		{"session", mnemo.Filter{SessionID: "none"}},
	}
	for _, tt := range tests {
		q := mnemo.TextQuery{Filter: tt.filter, Terms: []string{"apple", "weather", "fig"}, Limit: 10}
		before := db.ftsFiltered.Load()
		mem, err := db.Search(ctx, sc, q)
		if err != nil {
			t.Fatal(err)
		}
		if n := db.ftsFiltered.Load() - before; n != 0 {
			t.Errorf("%s: FTS5 ranked %d filtered searches", tt.name, n)
		}
		var fts mnemo.SearchResult
		withoutLex(db, func() { fts, err = db.Search(ctx, sc, q) })
		if err != nil {
			t.Fatal(err)
		}
		if len(mem.Hits) != len(fts.Hits) {
			t.Fatalf("%s: %d hits in memory, %d from FTS5", tt.name, len(mem.Hits), len(fts.Hits))
		}
		for k := range mem.Hits {
			if m, f := mem.Hits[k], fts.Hits[k]; m.Memory.ID != f.Memory.ID || m.Lexical != f.Lexical {
				t.Errorf("%s: hit %d: %s %v in memory, %s %v from FTS5", tt.name, k, m.Memory.ID, m.Lexical, f.Memory.ID, f.Lexical)
			}
		}
	}
}
