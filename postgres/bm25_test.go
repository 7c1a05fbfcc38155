package postgres_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// REC-10, PG-6: full-text search on PostgreSQL scores as the sqlite store's FTS5
// does: the same candidates, in the same order, with the same BM25 scores,
// for terms, prefixes, any and all of them, over text, context and meta,
// after rewrites, tombstones and deletions have moved the statistics. Run on
// PostgreSQL 15 and on PGlite.
func TestSearchMatchesSQLite(t *testing.T) {
	t.Run("pg15", func(t *testing.T) {
		testSearchMatchesSQLite(t, open(t, pgDSN(t), postgres.Options{}))
	})
	t.Run("pglite", func(t *testing.T) {
		dsn := pgvectorDSN(t)
		serialize(t)
		testSearchMatchesSQLite(t, open(t, dsn, postgres.Options{MaxConns: 1}))
	})
}

func testSearchMatchesSQLite(t *testing.T, pg *postgres.DB) {
	ctx := t.Context()
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
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
	record := func(i, gen int) mnemo.Record {
		at := t0.Add(time.Duration(i+gen*1000) * time.Second)
		m := mnemo.Memory{ID: fmt.Sprintf("01959581-0000-7000-8000-%06d%06d", gen, i), Key: fmt.Sprintf("/k/%d", i),
			Content: "x", Type: "fact", CreatedAt: at, UpdatedAt: at}
		idx := mnemo.IndexText{Text: pick(3 + r.IntN(12))}
		if i%3 == 0 {
			idx.Context = pick(2 + r.IntN(6))
		}
		if i%4 == 0 {
			idx.Meta = pick(1 + r.IntN(3))
		}
		return mnemo.Record{Memory: m, Index: idx}
	}
	var first, second []mnemo.Record
	for i := range 300 {
		first = append(first, record(i, 0))
	}
	for i := 0; i < 300; i += 7 { // rewrites with new text, and tombstones
		rec := record(i, 1)
		if i%3 == 0 {
			rec = mnemo.Record{Memory: mnemo.Memory{Key: rec.Memory.Key, UpdatedAt: rec.Memory.UpdatedAt}, Tombstone: true}
		}
		second = append(second, rec)
	}
	other := mnemo.Scope{TenantID: scope.TenantID, AgentID: "other"}
	for _, s := range []mnemo.Store{lite, pg} {
		for _, batch := range [][]mnemo.Record{first, second} {
			if _, err := s.Write(ctx, scope, batch); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Forget(ctx, scope, nil, []string{"/k/1", "/k/2", "/k/50"}); err != nil {
			t.Fatal(err)
		}
	}
	// Another scope's words do not count (per-scope statistics; the sqlite
	// store keeps one FTS5 index for all, so it is written there only
	// after the comparison below).
	var others []mnemo.Record
	for i := range 100 {
		others = append(others, record(i, 2))
	}
	if _, err := pg.Write(ctx, other, others); err != nil {
		t.Fatal(err)
	}
	queries := []mnemo.TextQuery{
		{Terms: []string{"kiwi"}},
		{Terms: []string{"melon", "guava"}},
		{Terms: []string{"apple", "lime"}, MatchAll: true},
		{Prefixes: []string{"ap"}},
		{Terms: []string{"mango"}, Prefixes: []string{"gu", "li"}},
		{Terms: []string{"elder", "fig"}, Prefixes: []string{"me"}, MatchAll: true},
		{Terms: []string{"apple", "banana", "cherry"}},
	}
	for _, q := range queries {
		q.Limit = 15
		q.Filter.Now = t0
		compareSearch(ctx, t, lite, pg, q)
	}
	if t.Failed() {
		return
	}
	checkStats(t, pg)
	if _, err := pg.Clear(ctx, other); err != nil {
		t.Fatal(err)
	}
	var docs int
	if err := pg.Pool().QueryRow(ctx, `SELECT coalesce(sum(docs), -1) FROM scope_stats WHERE agent_id = 'other'`).Scan(&docs); err != nil || docs != 0 {
		t.Errorf("documents of a cleared scope = %d, %v; want 0", docs, err)
	}
}

// compareSearch checks that pg answers q as the sqlite store does.
func compareSearch(ctx context.Context, t *testing.T, lite, pg mnemo.Store, q mnemo.TextQuery) {
	t.Helper()
	want, err := lite.Search(ctx, scope, q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pg.Search(ctx, scope, q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
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

// checkStats fails t unless the BM25 statistics the triggers kept are
// those of the rows.
func checkStats(t *testing.T, db *postgres.DB) {
	t.Helper()
	var bad int
	// Both ways: what the statistics hold and the rows do not, and the
	// reverse.
	if err := db.Pool().QueryRow(t.Context(), `WITH
		kept AS (SELECT tenant_id, agent_id, term, df FROM term_stats WHERE df <> 0
			UNION ALL SELECT tenant_id, agent_id, '', docs * 1000000000 + total_len FROM scope_stats WHERE docs <> 0),
		rows AS (SELECT m.tenant_id, m.agent_id, u.lexeme, count(*) FROM memory_entries m, unnest(m.tsv) u WHERE NOT m.tombstone GROUP BY 1, 2, 3
			UNION ALL SELECT tenant_id, agent_id, '', count(*) * 1000000000 + sum(mnemo_tsv_len(tsv)) FROM memory_entries WHERE NOT tombstone GROUP BY 1, 2)
		SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM rows) x) + (SELECT count(*) FROM (SELECT * FROM rows EXCEPT SELECT * FROM kept) y)`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Errorf("%d statistics differ from the rows'", bad)
	}
}
