package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/memory"
)

// seedStore fills the SQLite store in dir with two scopes of memories:
// keyed, archived, expired, with data, with vectors, and a ledger entry.
func seedStore(t *testing.T, dir string) {
	t.Helper()
	mustRun := runner(t, dir)
	lines := []string{
		`{"tenant_id":"t1","agent_id":"alice","key":"/user/editor","content":"Prefers helix as the editor","created_at":"2026-01-02T00:00:00Z"}`,
		`{"tenant_id":"t1","agent_id":"alice","content":"An archived note about the old office","archived":true,"created_at":"2026-01-03T00:00:00Z"}`,
		`{"tenant_id":"t1","agent_id":"alice","content":"The trial licence ran out","expires_at":"2026-01-10T00:00:00Z","created_at":"2026-01-04T00:00:00Z"}`,
		`{"tenant_id":"t1","agent_id":"bob","key":"/project/db","content":"The project runs on PostgreSQL","data":{"version":15},"created_at":"2026-01-05T00:00:00Z"}`,
		`{"tenant_id":"t1","agent_id":"bob","content":"Standup is at half past nine","created_at":"2026-01-06T00:00:00Z"}`,
	}
	f := filepath.Join(dir, "seed.jsonl")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun("import", "--keep-scope", f)
	mustRun("--tenant", "t1", "--agent", "alice", "remember", "The deploy pipeline runs on Fridays")
	// A duplicate: the Write Guard ledgers it.
	mustRun("--tenant", "t1", "--agent", "alice", "remember", "The deploy pipeline runs on Fridays")
}

// exported returns the scope's memories as export writes them, by id.
func exported(t *testing.T, dir string, scope mnemo.Scope, extra ...string) map[string]mnemo.Memory {
	t.Helper()
	out := runner(t, dir)(append(extra, "--tenant", scope.TenantID, "--agent", scope.AgentID, "export")...)
	ms := map[string]mnemo.Memory{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m mnemo.Memory
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		ms[m.ID] = m
	}
	return ms
}

// sameMemories fails t unless want and got hold the same memories: ids,
// scope, key, content, data, life and vectors.
func sameMemories(t *testing.T, what string, want, got map[string]mnemo.Memory) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d memories, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Fatalf("%s: %s (%q) is missing", what, id, w.Content)
		}
		if g.Key != w.Key || g.Content != w.Content || string(g.Data) != string(w.Data) || g.Archived != w.Archived ||
			!g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) || (g.ExpiresAt == nil) != (w.ExpiresAt == nil) ||
			!slices.Equal(g.Embedding, w.Embedding) || g.EmbeddingModel != w.EmbeddingModel {
			t.Fatalf("%s: %s differs:\n got %+v\nwant %+v", what, id, g, w)
		}
	}
}

var migrateScopes = []mnemo.Scope{{TenantID: "t1", AgentID: "alice"}, {TenantID: "t1", AgentID: "bob"}}

// sqlite → files → sqlite: every memory of every scope comes back the
// same (archived, expired, keyed, with data and vectors), the ledger too,
// and copying again changes nothing.
func TestMigrateStoreSQLiteFilesSQLite(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a, b, c := t.TempDir(), filepath.Join(t.TempDir(), "files"), t.TempDir()
	seedStore(t, a)
	mustRun := runner(t, t.TempDir())
	out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "files:"+b)
	if !strings.Contains(out, "t1/alice: 4 memories, 1 ledger entry") || !strings.Contains(out, "t1/bob: 2 memories") ||
		!strings.Contains(out, "copied 6 memories of 2 scopes and 1 ledger entry; counts match") {
		t.Fatalf("sqlite → files: %q", out)
	}
	if out := mustRun("migrate-store", "--from", "files:"+b, "--to", "sqlite:"+filepath.Join(c, "mnemo.db")); !strings.Contains(out, "counts match") {
		t.Fatalf("files → sqlite: %q", out)
	}
	for _, sc := range migrateScopes {
		want := exported(t, a, sc)
		for _, m := range want {
			if sc.AgentID == "alice" && strings.Contains(m.Content, "deploy") && len(m.Embedding) == 0 {
				t.Fatalf("the source has no vector to copy: %+v", m)
			}
		}
		sameMemories(t, "files "+sc.AgentID, want, exported(t, b, sc, "--store", "files", "--config", writeConfig(t, "store:\n  files:\n    root: "+b+"\n")))
		sameMemories(t, "sqlite "+sc.AgentID, want, exported(t, c, sc))
	}
	var es []mnemo.LedgerEntry
	if err := json.Unmarshal([]byte(runner(t, c)("--json", "--tenant", "t1", "--agent", "alice", "ledger")), &es); err != nil || len(es) != 1 || !strings.Contains(es[0].Reason, "duplicate") {
		t.Fatalf("ledger after the round trip: %+v %v", es, err)
	}
	// Again: nothing changes, the counts still match.
	if out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "files:"+b); !strings.Contains(out, "counts match") || !strings.Contains(out, "t1/alice: 4 memories, 0 ledger entries") {
		t.Fatalf("a second copy: %q", out)
	}
	sameMemories(t, "files after a second copy", exported(t, a, migrateScopes[0]), exported(t, b, migrateScopes[0], "--store", "files", "--config", writeConfig(t, "store:\n  files:\n    root: "+b+"\n")))
}

func writeConfig(t *testing.T, yml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mnemo.yml")
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A destination with more memories than the source fails the count check
// with exit 1, naming the scope.
func TestMigrateStoreCountMismatch(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a, d := t.TempDir(), t.TempDir()
	seedStore(t, a)
	runner(t, d)("--tenant", "t1", "--agent", "bob", "remember", "Only the destination has this")
	code, out, errs := run(t, t.TempDir(), "", "migrate-store", "--from", "sqlite:"+a, "--to", "sqlite:"+d)
	if code != 1 || !strings.Contains(errs, "count check failed: t1/bob has 2 memories in the source and 3 in the destination") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}

// Bad endpoints are usage errors.
func TestMigrateStoreBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"migrate-store", "--from", "sqlite:/x"},
		{"migrate-store", "--from", "mysql:x", "--to", "files:/tmp/x"},
		{"migrate-store", "--from", "sqlite:" + filepath.Join(t.TempDir(), "none"), "--to", "files:" + t.TempDir()},
		{"migrate-store", "--from", "nothing", "--to", "files:" + t.TempDir()},
	} {
		if code, _, errs := run(t, t.TempDir(), "", args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d %s", args, code, errs)
		}
	}
}

// sqlite → PostgreSQL 15 (no pgvector) through the CLI, then the CLI on
// the postgres store: the copied memories are there, a new one is written
// without a vector, and recall answers by full text, degraded (PG-2).
func TestMigrateStoreSQLiteToPostgres(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a := t.TempDir()
	seedStore(t, a)
	// The source, read before MNEMO_STORE points the CLI at PostgreSQL.
	want := map[string]map[string]mnemo.Memory{}
	for _, sc := range migrateScopes {
		want[sc.AgentID] = exported(t, a, sc)
	}
	dsn := pgtest.Native(t)
	mustRun := runner(t, t.TempDir())
	if out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "postgres:"+dsn); !strings.Contains(out, "copied 6 memories of 2 scopes and 1 ledger entry; counts match") {
		t.Fatalf("sqlite → postgres: %q", out)
	}

	setenv(t, "MNEMO_STORE", "postgres")
	setenv(t, "MNEMO_POSTGRES_DSN", dsn)
	pg := t.TempDir() // the spool's data directory
	setenv(t, "MNEMO_SPOOL_DIR", filepath.Join(pg, "spool"))
	if out := runner(t, pg)("migrate"); !strings.Contains(out, "schema version") {
		t.Fatalf("migrate: %q", out)
	}
	for _, sc := range migrateScopes {
		// Vectors too: without pgvector they are kept, not indexed.
		sameMemories(t, "postgres "+sc.AgentID, want[sc.AgentID], exported(t, pg, sc))
	}

	// PG-2: no pgvector.
	pgRun := runner(t, pg)
	id := strings.TrimSpace(pgRun("remember", "some content"))
	var m mnemo.Memory
	if err := json.Unmarshal([]byte(pgRun("--json", "get", id)), &m); err != nil || len(m.Embedding) != 0 {
		t.Fatalf("written with a vector: %+v %v", m, err)
	}
	var res memory.Result
	if err := json.Unmarshal([]byte(pgRun("--json", "recall", "content")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].ID != id || !res.Degraded || !strings.Contains(res.Reason, "no vector index") {
		t.Fatalf("recall on PostgreSQL without pgvector: %+v", res)
	}
	// The postgres → sqlite way back.
	back := t.TempDir()
	if out := mustRun("migrate-store", "--from", "postgres:"+dsn, "--to", "sqlite:"+back); !strings.Contains(out, "copied 7 memories of 3 scopes") {
		t.Fatalf("postgres → sqlite: %q", out)
	}
}

// migrate on SQLite opens (and so migrates) the file and says its version.
func TestMigrateSQLite(t *testing.T) {
	t.Parallel()
	out := runner(t, t.TempDir())("migrate")
	if !strings.Contains(out, "mnemo.db: schema version") || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate: %q", out)
	}
	if code, _, errs := run(t, t.TempDir(), "", "--store", "files", "migrate"); code != 2 || !strings.Contains(errs, "no schema") {
		t.Fatalf("migrate on files: %d %s", code, errs)
	}
}

// serve on PostgreSQL 15 without pgvector: a degraded recall says so, and
// /metrics counts it by cause beside the failover's gauges.
func TestServePostgresMetrics(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	setenv(t, "MNEMO_STORE", "postgres")
	setenv(t, "MNEMO_POSTGRES_DSN", pgtest.Native(t))
	dir := t.TempDir()
	base := startServe(t, "--data", dir)
	resp, err := http.Post(base+"/v1/memories", "application/json", strings.NewReader(`{"agent_id":"a","content":"some content"}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("remember: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Post(base+"/v1/recall", "application/json", strings.NewReader(`{"agent_id":"a","query":"content"}`))
	if err != nil {
		t.Fatal(err)
	}
	var res memory.Result
	json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if len(res.Results) != 1 || !res.Degraded || !strings.Contains(res.Reason, "no vector index") {
		t.Fatalf("recall: %+v", res)
	}
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"mnemo_store_up 1", `mnemo_recall_degraded_total{op="recall"} 1`, "mnemo_spool_pending 0"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if !regexp.MustCompile(`mnemo_degraded_total\{cause="vector_index"\} [1-9]`).Match(b) {
		t.Errorf("/metrics does not count the degradation by cause")
	}
}

func TestParseEndpoint(t *testing.T) {
	for _, c := range []struct{ spec, kind, arg string }{
		{"sqlite:./data", BackendSQLite, "./data"},
		{"files:/srv/memory", BackendFiles, "/srv/memory"},
		{"postgres:postgres://u@h/db", BackendPostgres, "postgres://u@h/db"},
		{"postgresql://u@h/db", BackendPostgres, "postgresql://u@h/db"},
		{"postgres:host=h dbname=d", BackendPostgres, "host=h dbname=d"},
		{"sqlite:", "", ""},
		{"memory:x", "", ""},
		{"./data", "", ""},
	} {
		kind, arg, err := parseEndpoint(c.spec)
		if kind != c.kind || arg != c.arg || (err == nil) != (c.kind != "") {
			t.Errorf("parseEndpoint(%q) = %q, %q, %v", c.spec, kind, arg, err)
		}
	}
}

// TestFilesStoreConfig: the CLI serves from a files memory root that
// compacts by size with the log rotated into archive/ (store.files.history
// rotate), and reads every memory back after it, from a new process.
func TestFilesStoreConfig(t *testing.T) {
	dir, root := t.TempDir(), filepath.Join(t.TempDir(), "memory")
	cfg := writeConfig(t, "store:\n  backend: files\n  files:\n    root: "+root+"\n    history: rotate\n    compact_every: 3\n")
	for i := range 5 {
		if code, _, errs := run(t, dir, "", "--config", cfg, "remember", "--key", fmt.Sprintf("/notes/n%d", i), fmt.Sprintf("note number %d", i)); code != 0 {
			t.Fatalf("remember %d: exit %d: %s", i, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "state.jsonl")); err != nil {
		t.Errorf("no state.jsonl after more lines than compact_every: %v", err)
	}
	if archived, _ := filepath.Glob(filepath.Join(root, "archive", "log_*.jsonl")); len(archived) == 0 {
		t.Error("history rotate left no log in archive/")
	}
	code, out, errs := run(t, dir, "", "--config", cfg, "list")
	if code != 0 || strings.Count(out, "note number") != 5 {
		t.Fatalf("list after compaction: exit %d: %s %s", code, out, errs)
	}
}

// An existing PostgreSQL store moves to a partitioned layout by a copy into
// a new schema (PG-6): sqlite → an ordinary schema → a schema partitioned
// by tenant, every memory the same on each side.
func TestMigrateStoreIntoPartitions(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a := t.TempDir()
	seedStore(t, a)
	want := map[string]map[string]mnemo.Memory{}
	for _, sc := range migrateScopes {
		want[sc.AgentID] = exported(t, a, sc)
	}
	plain, parted := pgtest.Native(t), pgtest.Native(t)
	mustRun := runner(t, t.TempDir())
	mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "postgres:"+plain)
	if out := mustRun("migrate-store", "--from", "postgres:"+plain, "--to", "postgres:"+parted, "--partitions", "4"); !strings.Contains(out, "copied 6 memories of 2 scopes and 1 ledger entry; counts match") {
		t.Fatalf("postgres → partitioned postgres: %q", out)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, parted)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var kind string
	var n int
	if err := conn.QueryRow(ctx, `SELECT c.relkind::text, (SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid)
		FROM pg_class c WHERE c.oid = 'memory_entries'::regclass`).Scan(&kind, &n); err != nil || kind != "p" || n != 4 {
		t.Fatalf("memory_entries of the copy: relkind %q, %d partitions, %v; want p, 4", kind, n, err)
	}
	setenv(t, "MNEMO_STORE", "postgres")
	setenv(t, "MNEMO_POSTGRES_DSN", parted)
	pg := t.TempDir()
	setenv(t, "MNEMO_SPOOL_DIR", filepath.Join(pg, "spool"))
	for _, sc := range migrateScopes {
		sameMemories(t, "partitioned "+sc.AgentID, want[sc.AgentID], exported(t, pg, sc))
	}
}
