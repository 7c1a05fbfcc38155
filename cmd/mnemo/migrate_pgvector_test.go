package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/sqlite"

	"github.com/mnemo-dev/mnemo/internal/pgtest"
)

// sqlite → PostgreSQL with pgvector, end to end (PG-6): every memory with
// its vector, in pgvector's column and its HNSW index, which the bulk load
// builds after the copy, the ledger, and the same answers read back.
func TestMigrateStoreSQLiteToPgvector(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a := t.TempDir()
	seedStore(t, a)
	// A second revision of a key, for its history.
	runner(t, a)("--tenant", "t1", "--agent", "alice", "remember", "--key", "/user/editor", "Prefers neovim as the editor now")
	// The source as it is, read before MNEMO_STORE points the CLI at
	// PostgreSQL below.
	history := func(dir string) []mnemo.Revision {
		var revs []mnemo.Revision
		if err := json.Unmarshal([]byte(runner(t, dir)("--tenant", "t1", "--agent", "alice", "--json", "history", "/user/editor")), &revs); err != nil {
			t.Fatal(err)
		}
		return revs
	}
	srcRevs := history(a)
	// A run, a session's working memory and a profile (state documents),
	// one of them in a scope with no memories.
	docs := []mnemo.StateDoc{
		{Scope: mnemo.Scope{TenantID: "t1", AgentID: "alice"}, Kind: mnemo.StateRun, ID: "run-1", Body: []byte(`{"notes":["step one"]}`), UpdatedAt: time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC)},
		{Scope: mnemo.Scope{TenantID: "t1", AgentID: "alice"}, Kind: mnemo.StateSession, ID: "s-1", Body: []byte(`{"items":["draft"]}`), UpdatedAt: time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)},
		{Scope: mnemo.Scope{TenantID: "t1", AgentID: "bob"}, Kind: mnemo.StateSession, ID: "s-2", Body: []byte(`{}`), UpdatedAt: time.Date(2026, 1, 9, 0, 0, 0, 0, time.UTC)},
		{Scope: mnemo.Scope{TenantID: "t2", AgentID: "carol"}, Kind: mnemo.StateProfile, ID: "user", Body: []byte(`{"likes":"tea"}`), UpdatedAt: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)},
	}
	ctx := context.Background()
	sq, err := sqlite.Open(ctx, filepath.Join(a, "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := sq.PutState(ctx, d.Scope, d); err != nil {
			t.Fatal(err)
		}
	}
	// A second write: the source's version is 2, the copy's starts at 1.
	docs[0].Version = 1
	if _, err := sq.PutState(ctx, docs[0].Scope, docs[0]); err != nil {
		t.Fatal(err)
	}
	sq.Close()
	want := map[string]map[string]mnemo.Memory{}
	for _, sc := range migrateScopes {
		want[sc.AgentID] = exported(t, a, sc)
	}
	dsn := pgtest.Vector(t)
	mustRun := runner(t, t.TempDir())
	out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "postgres:"+dsn)
	for _, want := range []string{"copied 6 memories of 2 scopes and 1 ledger entry; counts match", "copied 1 run, 2 sessions and 1 profile; counts match"} {
		if !strings.Contains(out, want) {
			t.Fatalf("sqlite → postgres: %q, want %q", out, want)
		}
	}
	pgs, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		got, err := pgs.GetState(ctx, d.Scope, d.Kind, d.ID)
		if err != nil || string(got.Body) != string(d.Body) || !got.UpdatedAt.Equal(d.UpdatedAt) || got.Version != 1 {
			t.Errorf("%s %s of %v in the copy: %+v, %v; want body %s at %s, version 1", d.Kind, d.ID, d.Scope, got, err, d.Body, d.UpdatedAt)
		}
	}
	pgs.Close()

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The source embedded what was remembered; imported memories wait in
	// its queue, and wait in the destination's.
	srcVec := 0
	for _, sc := range migrateScopes {
		for _, m := range want[sc.AgentID] {
			if len(m.Embedding) > 0 {
				srcVec++
			}
		}
	}
	if srcVec == 0 {
		t.Fatal("the seeded store has no vectors to copy")
	}
	var vectored, withVec, queued, ledger int
	var indexes []string
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE vectored), count(vec),
		count(*) FILTER (WHERE NOT vectored AND embed_text <> ''), (SELECT count(*) FROM ledger),
		(SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema()
			AND indexname IN ('memory_entries_vec', 'memory_entries_tsv'))
		FROM memory_entries WHERE NOT tombstone`).Scan(&vectored, &withVec, &queued, &ledger, &indexes); err != nil {
		t.Fatal(err)
	}
	if vectored != srcVec || withVec != srcVec || queued != 6-srcVec || ledger != 1 {
		t.Errorf("after the copy: %d memories vectored, %d with a pgvector vector, %d queued, %d ledger entries; want %d, %d, %d, 1",
			vectored, withVec, queued, ledger, srcVec, srcVec, 6-srcVec)
	}
	if strings.Join(indexes, ",") != "memory_entries_tsv,memory_entries_vec" {
		t.Errorf("indexes after the bulk load: %v, want the full-text and HNSW ones built again", indexes)
	}

	setenv(t, "MNEMO_STORE", "postgres")
	setenv(t, "MNEMO_POSTGRES_DSN", dsn)
	pg := t.TempDir()
	setenv(t, "MNEMO_SPOOL_DIR", filepath.Join(pg, "spool"))
	for _, sc := range migrateScopes {
		sameMemories(t, "pgvector "+sc.AgentID, want[sc.AgentID], exported(t, pg, sc))
	}
	// The key's history came along, with its times, before the copy's own
	// write of the memory.
	dstRevs := history(pg)
	if len(srcRevs) < 2 || len(dstRevs) != len(srcRevs)+1 {
		t.Fatalf("history of /user/editor: %d revisions in the source, %d in the copy; want at least 2, and one more\n%+v\n%+v", len(srcRevs), len(dstRevs), srcRevs, dstRevs)
	}
	for i, w := range srcRevs {
		g := dstRevs[i]
		if g.MemoryID != w.MemoryID || g.Op != w.Op || !g.At.Equal(w.At) || g.Applied != w.Applied ||
			(g.Memory == nil) != (w.Memory == nil) || (g.Memory != nil && g.Memory.Content != w.Memory.Content) {
			t.Errorf("revision %d: %+v, source %+v", i, g, w)
		}
	}

	// Recall on the copy is hybrid, not degraded: the vectors are searched.
	out = runner(t, pg)("--tenant", "t1", "--agent", "alice", "--json", "recall", "when does the deploy pipeline run")
	if strings.Contains(out, `"degraded":true`) || !strings.Contains(out, "Fridays") {
		t.Errorf("recall on the copy: %s", out)
	}
	// Copying again copies no state document again (and still checks the
	// counts).
	if out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "postgres:"+dsn); strings.Contains(out, "runs, ") {
		t.Errorf("a second copy copied state documents again: %q", out)
	}
}
