package inmem_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// The in-memory index scores as the sqlite store's FTS5 does: the same
// candidates, in the same order, with the same BM25 scores, for terms,
// prefixes, any and all of them, over text, context and meta.
func TestSearchMatchesSQLite(t *testing.T) {
	ctx := t.Context()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mem := inmem.New(inmem.Options{})
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"apple", "apricot", "banana", "cherry", "date", "elder", "fig", "grape", "guava", "kiwi", "lemon", "lime", "mango", "melon"}
	pick := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[min(r.IntN(len(words)), r.IntN(len(words)))] // skewed
		}
		return strings.Join(ws, " ")
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []mnemo.Record
	for i := range 300 {
		m := mnemo.Memory{ID: fmt.Sprintf("01959581-0000-7000-8000-%012d", i), Content: "x", Type: "fact",
			CreatedAt: t0.Add(time.Duration(i) * time.Second), UpdatedAt: t0.Add(time.Duration(i) * time.Second)}
		idx := mnemo.IndexText{Text: pick(3 + r.IntN(12))}
		if i%3 == 0 {
			idx.Context = pick(2 + r.IntN(6))
		}
		if i%4 == 0 {
			idx.Meta = pick(1 + r.IntN(3))
		}
		recs = append(recs, mnemo.Record{Memory: m, Index: idx})
	}
	for _, s := range []mnemo.Store{db, mem} {
		if _, err := s.Write(ctx, scope, recs); err != nil {
			t.Fatal(err)
		}
	}
	queries := []mnemo.TextQuery{
		{Terms: []string{"kiwi"}},
		{Terms: []string{"melon", "guava"}},
		{Terms: []string{"apple", "lime"}, MatchAll: true},
		{Prefixes: []string{"ap"}},
		{Terms: []string{"mango"}, Prefixes: []string{"gu", "li"}},
		{Terms: []string{"elder", "fig"}, Prefixes: []string{"me"}, MatchAll: true},
	}
	for _, q := range queries {
		q.Limit = 15
		q.Filter.Now = t0
		want, err := db.Search(ctx, scope, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Search(ctx, scope, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Hits) == 0 {
			t.Fatalf("%+v: no hits to compare", q)
		}
		if len(got.Hits) != len(want.Hits) {
			t.Fatalf("%+v: %d hits, sqlite %d", q, len(got.Hits), len(want.Hits))
		}
		for i := range want.Hits {
			g, w := got.Hits[i], want.Hits[i]
			if math.Abs(g.Lexical-w.Lexical) > 1e-6*math.Abs(w.Lexical)+1e-9 {
				t.Errorf("%+v: hit %d scores %v, sqlite %v", q, i, g.Lexical, w.Lexical)
			}
			if g.Memory.ID != w.Memory.ID && math.Abs(g.Lexical-w.Lexical) > 1e-9 {
				t.Errorf("%+v: hit %d is %s, sqlite %s", q, i, g.Memory.ID, w.Memory.ID)
			}
		}
	}
}
