package postgres_test

import (
	"context"
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
