package pgtest_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// nativeBase is the server Native uses, outside any test schema.
var nativeBase = cmp.Or(os.Getenv(pgtest.NativeEnv), pgtest.DefaultNativeDSN)

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func currentSchema(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var schema string
	if err := conn.QueryRow(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// schemaExists asks a connection outside any test schema.
func schemaExists(t *testing.T, dsn, schema string) bool {
	t.Helper()
	var n int
	err := connect(t, dsn).QueryRow(t.Context(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestNativeSchemaPerCall: two calls in one test get two schemas, an
// unqualified table lands in each call's own schema and stays invisible
// to the other, and each schema is gone once its test has ended.
func TestNativeSchemaPerCall(t *testing.T) {
	var schemas []string
	t.Run("calls", func(t *testing.T) {
		for i := range 2 {
			conn := connect(t, pgtest.Native(t))
			schemas = append(schemas, currentSchema(t, conn))
			exec(t, conn, "CREATE TABLE memory(n int)")
			exec(t, conn, fmt.Sprintf("INSERT INTO memory VALUES (%d)", i))
		}
		if schemas[0] == schemas[1] || !strings.HasPrefix(schemas[0], "mnemo_t_") {
			t.Fatalf("schemas %q, want two distinct mnemo_t_*", schemas)
		}
		for i, schema := range schemas {
			var n, rows int
			q := fmt.Sprintf("SELECT min(n), count(*) FROM %s.memory", schema)
			if err := connect(t, nativeBase).QueryRow(t.Context(), q).Scan(&n, &rows); err != nil {
				t.Fatal(err)
			}
			if n != i || rows != 1 {
				t.Errorf("%s.memory holds %d rows starting at %d, want 1 row %d", schema, rows, n, i)
			}
		}
	})
	for _, schema := range schemas {
		if schemaExists(t, nativeBase, schema) {
			t.Errorf("schema %s outlived its test", schema)
		}
	}
}

func TestNativeAnswers(t *testing.T) {
	conn := connect(t, pgtest.Native(t))
	var version string
	if err := conn.QueryRow(t.Context(), "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "PostgreSQL ") || strings.Contains(version, "PGlite") {
		t.Errorf("version %q, want a native PostgreSQL", version)
	}
	var similar bool
	if err := conn.QueryRow(t.Context(), "SELECT similarity('remember', 'remembers') > 0.5").Scan(&similar); err != nil {
		t.Fatalf("pg_trgm: %v", err)
	}
	if !similar {
		t.Error("pg_trgm similarity too low")
	}
}

// TestVectorSchemaPerCall: each call gets its own schema, dropped when its
// test ends, and on PGlite's shared session nothing a test SETs reaches the
// next one.
func TestVectorSchemaPerCall(t *testing.T) {
	var schemas []string
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			dsn := pgtest.Vector(t)
			conn := connect(t, dsn)
			schemas = append(schemas, currentSchema(t, conn))
			exec(t, conn, "CREATE TABLE memory(n int)")
			var where string
			err := conn.QueryRow(t.Context(), "SELECT schemaname FROM pg_tables WHERE tablename = 'memory'").Scan(&where)
			if err != nil {
				t.Fatalf("the table of this call only: %v", err)
			}
			if where != schemas[i] {
				t.Errorf("table created in %s, want %s", where, schemas[i])
			}
			var ef string
			if err := conn.QueryRow(t.Context(), "SELECT current_setting('hnsw.ef_search')").Scan(&ef); err != nil {
				t.Fatal(err)
			}
			if ef != "40" {
				t.Errorf("hnsw.ef_search = %s at the start, want the default 40", ef)
			}
			exec(t, conn, "SET hnsw.ef_search = 77")
		})
	}
	if len(schemas) != 2 || schemas[0] == schemas[1] {
		t.Fatalf("schemas %q, want two distinct", schemas)
	}
	t.Run("dropped", func(t *testing.T) {
		dsn := pgtest.Vector(t)
		for _, schema := range schemas {
			if schemaExists(t, dsn, schema) {
				t.Errorf("schema %s outlived its test", schema)
			}
		}
	})
}

// TestVectorPgvector: the vector server has pgvector: an HNSW cosine index
// is built and used by a `<=>` query that ranks the nearest rows first.
func TestVectorPgvector(t *testing.T) {
	conn := connect(t, pgtest.Vector(t))
	exec(t, conn, "CREATE TABLE items(id int PRIMARY KEY, embedding vector(3))")
	rows := map[int]string{1: "[1,0,0]", 2: "[0.9,0.1,0]", 3: "[0,1,0]", 4: "[0,0,1]", 5: "[-1,0,0]"}
	for id, v := range rows {
		exec(t, conn, "INSERT INTO items VALUES ($1, $2::vector)", id, v)
	}
	exec(t, conn, "CREATE INDEX items_hnsw ON items USING hnsw (embedding vector_cosine_ops)")

	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	const nearest = "SELECT id FROM items ORDER BY embedding <=> $1::vector LIMIT 2"
	var plan strings.Builder
	r, err := tx.Query(t.Context(), "EXPLAIN "+nearest, "[1,0.05,0]")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var line string
		r.Scan(&line)
		plan.WriteString(line + "\n")
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), "items_hnsw") {
		t.Errorf("the nearest-neighbour query does not use the HNSW index:\n%s", plan.String())
	}
	r, err = tx.Query(t.Context(), nearest, "[1,0.05,0]")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(r, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[1 2]" {
		t.Errorf("nearest to [1,0.05,0]: %v, want [1 2]", got)
	}
	var version string
	if err := tx.QueryRow(t.Context(), "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("pgvector %s", version)
}

// TestVectorSeveralConnections: a pool of several connections works
// concurrently with the DSN as given (on PGlite that needs the simple
// protocol the DSN carries), transactions included.
func TestVectorSeveralConnections(t *testing.T) {
	dsn := pgtest.Vector(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), "CREATE TABLE hits(worker int, n int)"); err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for n := range each {
				err := pgx.BeginFunc(t.Context(), pool, func(tx pgx.Tx) error {
					_, err := tx.Exec(t.Context(), "INSERT INTO hits VALUES ($1, $2)", w, n)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM hits").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != workers*each {
		t.Errorf("%d rows, want %d", n, workers*each)
	}
}

// fatalRecorder stands in for a test whose Fatalf is to be observed: it
// records the message and ends the goroutine, as testing.T does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestVectorTwiceOnPGlite: on PGlite, whose one session a test holds, a
// second Vector call in the same test fails at once with the reason
// instead of waiting for itself.
func TestVectorTwiceOnPGlite(t *testing.T) {
	conn := connect(t, pgtest.Vector(t))
	var version string
	if err := conn.QueryRow(t.Context(), "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "PGlite") {
		t.Logf("not PGlite (%s): a second schema is allowed there", version)
		return
	}
	f := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		pgtest.Vector(f)
	}()
	<-done
	if !strings.Contains(f.msg, "one Vector schema at a time") {
		t.Errorf("second Vector call: %q, want a failure naming the one-session limit", f.msg)
	}
}

// TestVectorServer: the server's own DSN answers and has the extensions.
func TestVectorServer(t *testing.T) {
	conn := connect(t, pgtest.VectorServer(t))
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_extension WHERE extname IN ('vector', 'pg_trgm')").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d of vector and pg_trgm installed, want both", n)
	}
}
