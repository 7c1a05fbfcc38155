package scale

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/pgtest"
)

// The same generated store, measured on PGlite with pgvector (PG-1): the
// copy keeps ids and vectors, so its vector search is compared with the
// SQLite file's exact top 10.
func TestRunPostgres(t *testing.T) {
	dsn := pgtest.Vector(t)
	rep, err := Run(context.Background(), Config{N: 300, Dir: t.TempDir(), Queries: 10, Exact: 5, WriteBatch: -1, Embedder: EmbedderGloVe, Postgres: dsn})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Store != "postgres" || rep.PostgresLoad <= 0 || rep.PostgresIndex <= 0 || rep.RecallP95 <= 0 || rep.ANNRecall10 < 0.8 ||
		rep.BulkSync.Memories != 0 || rep.BulkAsync.Memories != 0 { // the bulk loads are SQLite's
		t.Fatalf("report %+v", rep)
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "copy, without its indexes") || strings.Contains(b.String(), "reopen") {
		t.Fatalf("text:\n%s", b.String())
	}
}
