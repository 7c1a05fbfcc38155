package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// bm25 is FTS5's ranking with Search's column weights (lexWeights):
// lower is better, as FTS5 sorts it.
const bm25 = `bm25(memories_fts, 1.0, 0.35, 0.6)`

// matchExpr returns the FTS5 query for q, for tests that ask FTS5 itself: `"term" OR "pre"*`.
func matchExpr(q *mnemo.TextQuery) string { return matchExprJoin(q, " OR ") }

// matchExprJoin returns q's terms and prefixes joined by op.
func matchExprJoin(q *mnemo.TextQuery, op string) string {
	parts := make([]string, 0, len(q.Terms)+len(q.Prefixes))
	for _, t := range q.Terms {
		parts = append(parts, quote(t))
	}
	for _, p := range q.Prefixes {
		parts = append(parts, quote(p)+"*")
	}
	return strings.Join(parts, op)
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		terms, prefixes []string
		want            string
	}{
		{[]string{"apple"}, nil, `"apple"`},
		{[]string{"apple", "pie"}, []string{"ban"}, `"apple" OR "pie" OR "ban"*`},
		{nil, []string{"ban", "ch"}, `"ban"* OR "ch"*`},
		{[]string{`a"b`, "or"}, nil, `"a""b" OR "or"`},
	}
	for _, tt := range tests {
		if got := matchExpr(&mnemo.TextQuery{Terms: tt.terms, Prefixes: tt.prefixes}); got != tt.want {
			t.Errorf("matchExpr(%q, %q) = %s, want %s", tt.terms, tt.prefixes, got, tt.want)
		}
	}
}

func TestEscapeLike(t *testing.T) {
	for in, want := range map[string]string{`a`: `a`, `a_b`: `a\_b`, `100%`: `100\%`, `c:\x`: `c:\\x`} {
		if got := escapeLike(in); got != want {
			t.Errorf("escapeLike(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSynchronous(t *testing.T) {
	for _, tt := range []struct {
		option string
		want   int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{"", 2}, {"FULL", 2}, {"normal", 1}} {
		db, err := Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), Options{Synchronous: tt.option})
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := db.writer.QueryRow(`PRAGMA synchronous`).Scan(&got); err != nil || got != tt.want {
			t.Errorf("Synchronous %q: PRAGMA synchronous = %d, %v; want %d", tt.option, got, err, tt.want)
		}
		db.Close()
	}
}

// TestTouchKeepsWritesDurable checks that recording an access, which skips
// the fsync, leaves the writer at synchronous=FULL for the writes after it.
func TestTouchKeepsWritesDurable(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	if err := db.Touch(ctx, scope, []string{"nope"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var level int
	if err := db.writer.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&level); err != nil {
		t.Fatal(err)
	}
	if level != 2 { // FULL
		t.Fatalf("writer synchronous = %d after Touch, want 2 (FULL)", level)
	}
}

// TestCommonTermsDropped checks the common-terms rule: with a word in more
// than commonTermMatches memories, a query that also has a rare word ranks
// only the memories with the rare word; a query of common words alone still
// finds them.
func TestCommonTermsDropped(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []mnemo.Record
	for i := 0; i < commonTermMatches+50; i++ {
		text := "weather report"
		if i%(commonTermMatches/4) == 0 {
			text = "weather report with a rare zebra"
		}
		m := mnemo.Memory{ID: uuidFor(i), Content: text, Type: "fact", CreatedAt: now, UpdatedAt: now, AccessedAt: now}
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text}})
		if len(recs) == 1000 {
			if _, err := db.Write(ctx, scope, recs); err != nil {
				t.Fatal(err)
			}
			recs = nil
		}
	}
	if _, err := db.Write(ctx, scope, recs); err != nil {
		t.Fatal(err)
	}
	res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"weather", "zebra"}, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 5 {
		t.Fatalf("%d hits, want the 5 memories with the rare word", len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.Memory.Content != "weather report with a rare zebra" {
			t.Fatalf("hit %q has no rare word", h.Memory.Content)
		}
	}
	res, err = db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"weather", "report"}, Limit: 20})
	if err != nil || len(res.Hits) != 20 {
		t.Fatalf("common words alone: %d hits, %v", len(res.Hits), err)
	}
}

// TestCommonTermsOnly checks a query of common words only: the memories with
// all of its words rank first, and with too few of those, every match is
// ranked.
func TestCommonTermsOnly(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []mnemo.Record
	for i := 0; i < 2*commonTermMatches+100; i++ {
		text := "weather"
		switch {
		case i%2 == 1:
			text = "report"
		case i%100 == 0:
			text = "weather report"
		}
		m := mnemo.Memory{ID: uuidFor(i), Content: text, Type: "fact", CreatedAt: now, UpdatedAt: now}
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text}})
	}
	for len(recs) > 0 {
		n := min(1000, len(recs))
		if _, err := db.Write(ctx, scope, recs[:n]); err != nil {
			t.Fatal(err)
		}
		recs = recs[n:]
	}
	// 21 memories have both words: a page of 20 is all of them.
	res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"weather", "report"}, Limit: 20})
	if err != nil || len(res.Hits) != 20 {
		t.Fatalf("%d hits, %v", len(res.Hits), err)
	}
	for _, h := range res.Hits {
		if h.Memory.Content != "weather report" {
			t.Fatalf("hit %q lacks a word while memories with both were left out", h.Memory.Content)
		}
	}
	// A page larger than them: the rest come from every match.
	res, err = db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"weather", "report"}, Limit: 50})
	if err != nil || len(res.Hits) != 50 || res.Hits[0].Memory.Content != "weather report" {
		t.Fatalf("%d hits, %v", len(res.Hits), err)
	}
}

func uuidFor(i int) string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", i) }

// TestSearchFilterAfterRanking checks the candidates the index ranks before
// the filter applies: when the filter drops some of the first page, Search
// loads the next ones, and answers what ranking every match after the
// filter would.
func TestSearchFilterAfterRanking(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 60
	var recs []mnemo.Record
	for i := range n {
		// Longer texts rank lower: memory i ranks i-th.
		text := "apple" + strings.Repeat(" filler", i)
		m := mnemo.Memory{Content: text, Type: "fact", CreatedAt: now, UpdatedAt: now}
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text}})
	}
	tests := []struct {
		name  string
		low   func(i int) bool // memory i has confidence 0.1
		limit int
	}{
		{"none dropped", func(int) bool { return false }, 10},
		{"every other dropped", func(i int) bool { return i%2 == 0 }, 10},
		{"first page dropped", func(i int) bool { return i < 10 }, 10},
		{"most dropped", func(i int) bool { return i%10 != 9 }, 10},
		{"all dropped", func(int) bool { return true }, 10},
		{"one wanted", func(i int) bool { return i == 0 }, 1},
	}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scope := mnemo.Scope{TenantID: "t", AgentID: tt.name}
			var want []string
			for i := range recs {
				recs[i].Memory.ID = uuidFor(k*n + i)
				recs[i].Memory.Confidence = 0.9
				if tt.low(i) {
					recs[i].Memory.Confidence = 0.1
				} else if len(want) < tt.limit {
					want = append(want, recs[i].Memory.ID)
				}
			}
			if _, err := db.Write(ctx, scope, recs); err != nil {
				t.Fatal(err)
			}
			res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"apple"}, Limit: tt.limit, Filter: mnemo.Filter{MinConfidence: 0.5}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Memory.ID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("hits %v, want %v", got, want)
			}
		})
	}
}

// TestWriteStatementsPrepared checks that a write prepares none of its
// statements once a write of its kind has (PERF-8): each kind is written
// three times, and the third time every statement is the writer's. Writers on
// the one connection beside it (vectors set, the scope's other writes)
// must not wait on the statements being prepared for it.
func TestWriteStatementsPrepared(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "m", Dimension: 2}, false); err != nil {
		t.Fatal(err)
	}
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	rec := func(key string, vec []float32) mnemo.Record {
		n++
		m := mnemo.Memory{ID: uuidFor(n), Key: key, Content: fmt.Sprint("note ", n), Type: "fact",
			CreatedAt: now, UpdatedAt: now.Add(time.Duration(n) * time.Second), AccessedAt: now}
		if vec != nil {
			m.Embedding, m.EmbeddingModel = vec, "m"
		}
		return mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content}
	}
	for _, tt := range []struct {
		name string
		recs func() []mnemo.Record
	}{
		{"keyless", func() []mnemo.Record { return []mnemo.Record{rec("", nil)} }},
		{"with a vector", func() []mnemo.Record { return []mnemo.Record{rec("", []float32{1, 0})} }},
		{"a key rewritten", func() []mnemo.Record { return []mnemo.Record{rec("/k", []float32{0, 1})} }},
		{"a batch", func() []mnemo.Record {
			return []mnemo.Record{rec("", []float32{1, 1}), rec("/b", nil), rec("/b", []float32{1, 0})}
		}},
	} {
		for i := range 3 { // a key's first write inserts, its next ones update
			before := db.writeStmts.missed.Load()
			ms, err := db.Write(ctx, scope, tt.recs())
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got, err := db.Get(ctx, scope, ms[len(ms)-1].ID); err != nil || got.Content != ms[len(ms)-1].Content {
				t.Fatalf("%s: read back %q, %v; want %q", tt.name, got.Content, err, ms[len(ms)-1].Content)
			}
			if missed := db.writeStmts.missed.Load() - before; i == 2 && missed > 0 {
				t.Errorf("%s written again: %d statements prepared in its transaction, want 0", tt.name, missed)
			}
		}
	}
}
