package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/storetest"
)

// The tests run against Debian's PostgreSQL 15 (no pgvector: the degraded
// path) and against PGlite with pgvector, served over the wire protocol,
// each test in a schema of its own.
// TestMain stops the PGlite server this binary may have started.
func TestMain(m *testing.M) { pgtest.Main(m) }

// pgDSN is PostgreSQL 15's DSN, the server (re)started if it was down.
func pgDSN(t testing.TB) string { return pgtest.Native(t) }

// pgvectorDSN is the DSN of a server with pgvector (PGlite), started if
// need be; a test that writes to it holds it with serialize.
func pgvectorDSN(t testing.TB) string { return pgtest.VectorServer(t) }

// connect opens a plain connection to dsn, closed when t ends.
func connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// newSchema returns the name of a fresh schema, dropped when t ends.
func newSchema(t testing.TB, dsn string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "mnemo_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Errorf("drop schema: %v", err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+name+` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	return name
}

// open opens a store in a fresh schema of dsn, closed when t ends.
func open(t testing.TB, dsn string, opts postgres.Options) *postgres.DB {
	t.Helper()
	if opts.Schema == "" {
		opts.Schema = newSchema(t, dsn)
	}
	db, err := postgres.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// vectorReady makes sure the vector extension is installed where every
// test schema sees it (public), once per server.
var vectorReady sync.Map

func ensureVector(t testing.TB, dsn string) {
	t.Helper()
	if _, ok := vectorReady.Load(dsn); ok {
		return
	}
	conn := connect(t, dsn)
	if _, err := conn.Exec(context.Background(), `CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public`); err != nil {
		t.Fatalf("the pgvector server has no vector extension: %v", err)
	}
	vectorReady.Store(dsn, true)
}

// serialize waits until no other test uses the pgvector server, and holds
// it until t ends.
func serialize(t testing.TB) { pgtest.Vector(t) }

// TestStore runs the conformance suite on PostgreSQL 15, which has no
// pgvector: the vector cases check the degraded contract.
func TestStore(t *testing.T) {
	dsn := pgDSN(t)
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		db := open(t, dsn, postgres.Options{MaxConns: 4})
		if err := db.VectorIndex(); !errors.Is(err, postgres.ErrNoVectorIndex) {
			t.Fatalf("VectorIndex on a server without pgvector = %v, want ErrNoVectorIndex", err)
		}
		return db
	})
}

// TestStorePgvector runs the conformance suite on a server with pgvector,
// through the simple protocol as PGlite needs.
func TestStorePgvector(t *testing.T) {
	dsn := pgvectorDSN(t)
	ensureVector(t, dsn)
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		serialize(t)
		db := open(t, dsn, postgres.Options{MaxConns: 1})
		if err := db.VectorIndex(); err != nil {
			t.Fatalf("VectorIndex: %v", err)
		}
		return db
	})
}

// TestStorePartitioned runs the conformance suite on stores partitioned by
// tenant (Options.Partitions) on PostgreSQL 15, and its vector cases on
// PGlite with pgvector, every vector search walking the partitions' HNSW
// indexes.
//
// It checks the layout's SQL, not Go's concurrency, which TestStore covers
// under the race detector: there it is skipped, and make test runs it once
// more without the detector (Makefile, PGFULLSIZE), where it costs a third.
func TestStorePartitioned(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race (make test's unit step, PGFULLSIZE)")
	}
	t.Run("PG15", func(t *testing.T) {
		dsn := pgDSN(t)
		storetest.Run(t, func(t *testing.T) mnemo.Store {
			db := open(t, dsn, postgres.Options{MaxConns: 4, Partitions: 4})
			checkPartitioned(t, db, 4)
			return db
		})
	})
	// The rest of the suite runs on pgvector unpartitioned (TestStorePgvector)
	// and partitioned on PG15 above: here, the vector cases, whose columns
	// and indexes are what pgvector adds to each partition.
	t.Run("Pgvector", func(t *testing.T) {
		dsn := pgvectorDSN(t)
		ensureVector(t, dsn)
		storetest.RunVectors(t, func(t *testing.T) mnemo.Store {
			serialize(t)
			db := open(t, dsn, postgres.Options{MaxConns: 1, Partitions: 3, ExactSearchBelow: -1})
			checkPartitioned(t, db, 3)
			return db
		})
	})
}

// checkPartitioned fails unless every table partitioned by tenant has n
// partitions.
func checkPartitioned(t *testing.T, db *postgres.DB, n int) {
	t.Helper()
	rows, err := db.Pool().Query(context.Background(), `SELECT c.relname::text, count(i.inhrelid)::int FROM pg_class c
		LEFT JOIN pg_inherits i ON i.inhparent = c.oid
		WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind = 'p' GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for rows.Next() {
		var name string
		var k int
		if err := rows.Scan(&name, &k); err != nil {
			t.Fatal(err)
		}
		got[name] = k
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"memory_entries", "history", "ledger", "term_stats", "events", "event_vectors", "relations"} {
		if got[tb] != n {
			t.Errorf("%s has %d partitions, want %d (all: %v)", tb, got[tb], n, got)
		}
	}
}

// TestStoreHNSW runs the conformance suite's vector cases with every vector
// search walking the HNSW index, with pgvector's iterative scan and with
// the over-fetching of older pgvector versions; the other cases are
// TestStorePgvector's, on the same server.
func TestStoreHNSW(t *testing.T) {
	dsn := pgvectorDSN(t)
	ensureVector(t, dsn)
	for _, iterative := range []bool{true, false} {
		t.Run(map[bool]string{true: "Iterative", false: "Overfetch"}[iterative], func(t *testing.T) {
			storetest.RunVectors(t, func(t *testing.T) mnemo.Store {
				serialize(t)
				db := open(t, dsn, postgres.Options{MaxConns: 1, ExactSearchBelow: -1})
				if iterative && !postgres.Iterative(db) {
					t.Fatal("pgvector 0.8 has an iterative scan; the store did not find it")
				}
				postgres.SetIterative(db, iterative)
				return db
			})
		})
	}
}

// TestStoreRowLevelSecurity runs the conformance suite with row-level
// security on, as a role that is not a superuser (superusers pass every
// policy), and checks that the policies hold outside the store.
func TestStoreRowLevelSecurity(t *testing.T) {
	dsn := pgDSN(t)
	role := rlsRole(t, dsn)
	rlsDSN := func(t *testing.T) (string, string) {
		schema := newSchema(t, dsn)
		if _, err := connect(t, dsn).Exec(t.Context(), `CREATE SCHEMA `+schema+` AUTHORIZATION `+role); err != nil {
			t.Fatal(err)
		}
		return withParams(dsn, "user="+role, "search_path="+schema), schema
	}
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		d, _ := rlsDSN(t)
		db, err := postgres.Open(t.Context(), d, postgres.Options{RowLevelSecurity: true, MaxConns: 2})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return db
	})

	t.Run("Policies", func(t *testing.T) {
		d, _ := rlsDSN(t)
		db, err := postgres.Open(t.Context(), d, postgres.Options{RowLevelSecurity: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		a := mnemo.Scope{TenantID: "tenant-a", AgentID: "agent"}
		b := mnemo.Scope{TenantID: "tenant-b", AgentID: "agent"}
		for _, sc := range []mnemo.Scope{a, b} {
			rec := mnemo.Record{Memory: mnemo.Memory{Content: "secret of " + sc.TenantID}, Index: mnemo.IndexText{Text: "secret"}}
			if _, err := db.Write(t.Context(), sc, []mnemo.Record{rec}); err != nil {
				t.Fatal(err)
			}
		}
		// A session of the same role that forgets its tenant sees nothing;
		// one of tenant a sees a's rows only, and cannot write b's.
		ctx := t.Context()
		conn := connect(t, d)
		count := func() (n int) {
			t.Helper()
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM memory_entries`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 0 {
			t.Errorf("rows seen without a tenant = %d, want 0", n)
		}
		if _, err := conn.Exec(ctx, `SELECT set_config('mnemo.tenant', 'tenant-a', false)`); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 1 {
			t.Errorf("rows seen as tenant-a = %d, want 1", n)
		}
		var content string
		if err := conn.QueryRow(ctx, `SELECT content FROM memory_entries`).Scan(&content); err != nil || content != "secret of tenant-a" {
			t.Errorf("tenant-a reads %q, %v", content, err)
		}
		_, err = conn.Exec(ctx, `UPDATE memory_entries SET tenant_id = 'tenant-b'`)
		if err == nil || !strings.Contains(err.Error(), "row-level security") {
			t.Errorf("moving a row to another tenant: %v, want a row-level security violation", err)
		}
		for _, table := range []string{"history", "scopes", "ledger", "state"} {
			var n int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE tenant_id <> 'tenant-a'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: %d rows of other tenants seen, %v", table, n, err)
			}
		}
		// Reopened without the option, the store still sets its tenant.
		db2, err := postgres.Open(ctx, d, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db2.Close()
		if m, _, err := db2.List(ctx, b, mnemo.ListQuery{}); err != nil || len(m) != 1 {
			t.Errorf("List after reopening without the option = %d memories, %v", len(m), err)
		}
	})
}

// rlsRole creates (once) a login role without superuser rights.
func rlsRole(t *testing.T, dsn string) string {
	const role = "mnemo_rls_test"
	_, err := connect(t, dsn).Exec(t.Context(), `DO $$ BEGIN
		CREATE ROLE `+role+` LOGIN NOSUPERUSER NOBYPASSRLS;
	EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
	END $$`)
	if err != nil {
		t.Fatalf("create role: %v", err)
	}
	return role
}

// withParams adds key=value parameters to a URL DSN.
func withParams(dsn string, kv ...string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + strings.Join(kv, "&")
}
