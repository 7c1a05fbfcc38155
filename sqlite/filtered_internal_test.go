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

// TestDatedSearchFollowsWrites: the in-memory index keeps to the dated
// memories (REC-29, PERF-10) as writes date and undate them, and as a
// reopen rebuilds it from the table; FTS5 filtering every match holds the
// answers.
func TestDatedSearchFollowsWrites(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	// write stores 300 memories, or replaces them with a later version,
	// dating those dated picks by source.
	write := func(version int, dated func(i int) string) {
		t.Helper()
		rng := rand.New(rand.NewPCG(5, 6))
		var recs []mnemo.Record
		for i := range 300 {
			r := lexRecord(rng, i, "")
			r.Memory.UpdatedAt = r.Memory.UpdatedAt.Add(time.Duration(version) * time.Hour)
			if src := dated(i); src != "" {
				r.Memory.Occurred = &mnemo.Occurred{Start: at, End: at.Add(24 * time.Hour), Source: src}
			}
			recs = append(recs, r)
		}
		if version == 0 {
			if _, err := db.Write(ctx, sc, recs); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range recs[:min(version, 1)*len(recs)] {
			if _, err := db.Replace(ctx, sc, r); err != nil {
				t.Fatal(err)
			}
		}
		waitLex(t, db)
	}
	check := func(when string) {
		t.Helper()
		q := mnemo.TextQuery{Filter: mnemo.Filter{Dated: true}, Terms: []string{"apple", "weather", "fig"}, Limit: 10}
		mem, err := db.Search(ctx, sc, q)
		if err != nil {
			t.Fatal(err)
		}
		var fts mnemo.SearchResult
		withoutLex(db, func() { fts, err = db.Search(ctx, sc, q) })
		if err != nil {
			t.Fatal(err)
		}
		if len(mem.Hits) == 0 || len(mem.Hits) != len(fts.Hits) {
			t.Fatalf("%s: %d hits in memory, %d from FTS5", when, len(mem.Hits), len(fts.Hits))
		}
		for k := range mem.Hits {
			if m, f := mem.Hits[k], fts.Hits[k]; m.Memory.ID != f.Memory.ID || m.Lexical != f.Lexical {
				t.Errorf("%s: hit %d: %s %v in memory, %s %v from FTS5", when, k, m.Memory.ID, m.Lexical, f.Memory.ID, f.Lexical)
			}
		}
	}
	tests := []struct {
		name  string
		dated func(i int) string
	}{
		{"text", func(i int) string {
			if i%5 == 0 {
				return mnemo.OccurredText
			}
			return ""
		}},
		{"redated", func(i int) string {
			switch {
			case i%7 == 0:
				return mnemo.OccurredWriter
			case i%5 == 0:
				return "" // no longer dated
			}
			return ""
		}},
		{"none but a few", func(i int) string {
			if i%50 == 3 {
				return mnemo.OccurredText
			}
			return ""
		}},
	}
	for v, tt := range tests {
		write(v, tt.dated)
		check(tt.name)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(ctx, path, Options{Synchronous: "NORMAL"}); err != nil {
		t.Fatal(err)
	}
	waitLex(t, db)
	check("reopened")
}
