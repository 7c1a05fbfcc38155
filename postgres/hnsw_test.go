package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
)

// The HNSW index is built with the configured m and ef_construction, and
// out-of-range values are refused at Open.
func TestHNSWParameters(t *testing.T) {
	ctx := t.Context()
	dsn := pgvectorDSN(t)
	ensureVector(t, dsn)
	serialize(t)
	db := open(t, dsn, postgres.Options{MaxConns: 1, HNSWM: 8, HNSWEfConstruction: 40})
	if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "m", Dimension: 4}, false); err != nil {
		t.Fatal(err)
	}
	var opts []string
	if err := db.Pool().QueryRow(ctx, `SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = 'memory_entries_vec'::regclass`).Scan(&opts); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(opts, ","); got != "m=8,ef_construction=40" {
		t.Errorf("HNSW index options %q, want m=8,ef_construction=40", got)
	}
	for _, bad := range []postgres.Options{{HNSWM: 1}, {HNSWM: 101}, {HNSWEfConstruction: 2000}, {HNSWM: 32, HNSWEfConstruction: 40}} {
		if _, err := postgres.Open(context.Background(), dsn, bad); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("Open with %+v: %v, want invalid_input", bad, err)
		}
	}
}

// BulkLoad drops the full-text and HNSW indexes of an empty store and
// builds them again at finish; a store with memories keeps them.
func TestBulkLoad(t *testing.T) {
	ctx := t.Context()
	dsn := pgvectorDSN(t)
	ensureVector(t, dsn)
	serialize(t)
	db := open(t, dsn, postgres.Options{MaxConns: 1, HNSWM: 8})
	if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "m", Dimension: 4}, false); err != nil {
		t.Fatal(err)
	}
	indexes := func() string {
		var s string
		if err := db.Pool().QueryRow(ctx, `SELECT coalesce(string_agg(indexname || coalesce(' ' || (SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = indexname AND relnamespace = to_regnamespace(current_schema())), ''), ';' ORDER BY indexname), '')
			FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN ('memory_entries_vec', 'memory_entries_tsv')`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	const both = "memory_entries_tsv;memory_entries_vec m=8"
	if got := indexes(); got != both {
		t.Fatalf("indexes before: %q", got)
	}
	finish, err := db.BulkLoad(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := indexes(); got != "" {
		t.Errorf("indexes during the load: %q, want none", got)
	}
	rec := put("/k", "bulk words", 0)
	rec.Memory.Embedding, rec.Memory.EmbeddingModel, rec.Embed = []float32{1, 0, 0, 0}, "m", "bulk words"
	if _, err := db.Write(ctx, scope, []mnemo.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if err := finish(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexes(); got != both {
		t.Errorf("indexes after the load: %q, want %q", got, both)
	}
	// The planner has the loaded tables' statistics (reltuples is -1
	// until a table is analysed), PGlite running no autovacuum.
	var unanalysed []string
	if err := db.Pool().QueryRow(ctx, `SELECT coalesce(array_agg(relname::text ORDER BY relname), '{}') FROM pg_class
		WHERE relnamespace = to_regnamespace(current_schema()) AND relkind = 'r' AND reltuples < 0
		AND relname IN ('memory_entries', 'history', 'ledger', 'scope_stats', 'term_stats')`).Scan(&unanalysed); err != nil {
		t.Fatal(err)
	}
	if len(unanalysed) > 0 {
		t.Errorf("tables not analysed after the load: %v", unanalysed)
	}
	res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"bulk"}})
	if err != nil || len(res.Hits) != 1 {
		t.Errorf("search after the load: %+v, %v", res, err)
	}
	// Not empty now: nothing is dropped.
	if finish, err = db.BulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexes(); got != both {
		t.Errorf("indexes of a store with memories during a load: %q", got)
	}
	if err := finish(ctx); err != nil {
		t.Fatal(err)
	}
}

// A search that the store sends to the HNSW index walks it, whatever the
// planner would choose by its costs: here a table never analysed, of 40
// rows, which it would scan and sort (PGlite runs no autovacuum, and
// pgvector's cost of a walk exceeds a scan's up to tens of thousands of
// rows).
func TestHNSWWalked(t *testing.T) {
	ctx := t.Context()
	dsn := pgvectorDSN(t)
	ensureVector(t, dsn)
	serialize(t)
	db := open(t, dsn, postgres.Options{MaxConns: 1, ExactSearchBelow: -1})
	if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "m", Dimension: 4}, false); err != nil {
		t.Fatal(err)
	}
	var recs []mnemo.Record
	for i := range 40 {
		rec := put(fmt.Sprintf("/k%d", i), "words", 0)
		rec.Memory.Embedding, rec.Memory.EmbeddingModel, rec.Embed = []float32{1, float32(i), 0, 1}, "m", "words"
		recs = append(recs, rec)
	}
	if _, err := db.Write(ctx, scope, recs); err != nil {
		t.Fatal(err)
	}
	scans := func() int64 {
		var n int64
		if err := db.Pool().QueryRow(ctx, `SELECT pg_stat_force_next_flush()`).Scan(new(any)); err != nil {
			t.Fatal(err)
		}
		if err := db.Pool().QueryRow(ctx, `SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes
			WHERE schemaname = current_schema() AND indexrelname = 'memory_entries_vec'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := scans()
	hits, err := db.SearchVectors(ctx, scope, mnemo.VectorQuery{Vector: []float32{1, 3, 0, 1}, Limit: 5})
	if err != nil || len(hits) != 5 {
		t.Fatalf("search: %d hits, %v", len(hits), err)
	}
	if after := scans(); after <= before {
		t.Errorf("the HNSW index was not walked (idx_scan %d before the search, %d after)", before, after)
	}
}
