package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/tenantroute"
)

// writeTenantsConfig writes a config of two PostgreSQL databases, the
// default (a) and "b", with tenants routed as given.
func writeTenantsConfig(t *testing.T, path, a, b, tenants string) {
	t.Helper()
	cfg := "store:\n  backend: postgres\n  postgres:\n" +
		"    dsn: " + a + "\n" +
		"    spool_dir: " + filepath.Join(filepath.Dir(path), "spool") + "\n" +
		"    databases:\n      b: " + b + "\n" +
		"    tenants: " + tenants + "\n"
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A tenant moves from the default database to another (PG-12): the
// CLI writes it through the tenant map, migrate-store --tenant copies it
// with every memory, its key history and its events, and once the map
// routes it to the new database the CLI reads it from there; the other
// tenant stays where it was.
func TestMigrateStoreMovesTenant(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	dsnA, dsnB := pgtest.Native(t), pgtest.Native(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	writeTenantsConfig(t, cfg, dsnA, dsnB, "{}")
	mustRun := runner(t, dir)
	// migrate brings every database's schema up to date.
	if out := mustRun("--config", cfg, "migrate"); !strings.Contains(out, "(b): schema version") || strings.Count(out, "schema version") != 2 {
		t.Fatalf("migrate: %q", out)
	}
	cli := func(tenant string, args ...string) string {
		t.Helper()
		return mustRun(append([]string{"--config", cfg, "--tenant", tenant, "--agent", "ag"}, args...)...)
	}
	for _, v := range []string{"vim", "helix"} {
		cli("acme", "remember", "--key", "/user/editor", "Prefers "+v+" as the editor")
	}
	cli("acme", "remember", "The deploy pipeline runs on Fridays")
	cli("acme", "events", "append", "--type", "Deployed", "--source", "ci")
	cli("globex", "remember", "Standup is at half past nine")

	// Bad input: a tenant the source does not hold.
	if code, _, errs := run(t, dir, "", "--config", cfg, "migrate-store", "--from", "postgres:"+dsnA, "--to", "postgres:"+dsnB, "--tenant", "acmee"); code != 2 || !strings.Contains(errs, "--tenant acmee") {
		t.Fatalf("unknown tenant: exit %d: %s", code, errs)
	}

	out := mustRun("--config", cfg, "migrate-store", "--from", "postgres:"+dsnA, "--to", "postgres:"+dsnB, "--tenant", "acme")
	if !strings.Contains(out, "copied 2 memories of 1 scope") {
		t.Fatalf("migrate-store --tenant acme: %q", out)
	}

	ctx := t.Context()
	b, err := postgres.Open(ctx, dsnB, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	acme, globex := mnemo.Scope{TenantID: "acme", AgentID: "ag"}, mnemo.Scope{TenantID: "globex", AgentID: "ag"}
	if st, err := b.Stats(ctx, acme); err != nil || st.Memories != 2 {
		t.Fatalf("acme in b: %+v, %v", st, err)
	}
	a, err := postgres.Open(ctx, dsnA, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// Every revision of the source, with its time; the copy's own write
	// is the latest (as every migrate-store's).
	wantRevs, err := a.History(ctx, acme, "/user/editor")
	if err != nil || len(wantRevs) != 2 {
		t.Fatalf("acme's key history in a: %d revisions, %v", len(wantRevs), err)
	}
	revs, err := b.History(ctx, acme, "/user/editor")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wantRevs {
		if !slices.ContainsFunc(revs, func(r mnemo.Revision) bool {
			return r.MemoryID == w.MemoryID && r.Op == w.Op && r.At.Equal(w.At) && r.Memory != nil && r.Memory.Content == w.Memory.Content
		}) {
			t.Fatalf("acme's revision of %v (%q) is not in b", w.At, w.Memory.Content)
		}
	}
	if page, err := b.QueryEvents(ctx, acme, mnemo.EventQuery{}); err != nil || len(page.Events) != 1 {
		t.Fatalf("acme's events in b: %d, %v", len(page.Events), err)
	}
	if st, err := b.Stats(ctx, globex); err != nil || st.Memories != 0 {
		t.Fatalf("globex copied to b: %+v, %v", st, err)
	}

	// The map switched: acme is read from b.
	writeTenantsConfig(t, cfg, dsnA, dsnB, "{acme: b}")
	cli("acme", "remember", "Lunch is at noon")
	if st, err := b.Stats(ctx, acme); err != nil || st.Memories != 3 {
		t.Fatalf("acme's new memory not in b: %+v, %v", st, err)
	}
	var hist []mnemo.Revision
	if err := json.Unmarshal([]byte(cli("acme", "--json", "history", "/user/editor")), &hist); err != nil || len(hist) != len(revs) {
		t.Fatalf("acme's history through the map: %d, %v", len(hist), err)
	}
	var res memory.Result
	if err := json.Unmarshal([]byte(cli("acme", "--json", "recall", "deploy pipeline")), &res); err != nil || len(res.Results) == 0 || !strings.Contains(res.Results[0].Content, "deploy") {
		t.Fatalf("acme's recall through the map: %+v, %v", res.Results, err)
	}
	if out := cli("globex", "list"); !strings.Contains(out, "Standup") {
		t.Fatalf("globex's list through the map: %q", out)
	}

	// Last step of the procedure: the tenant's rows leave the old database.
	if _, err := a.Pool().Exec(ctx, dropTenantSQL); err != nil {
		t.Fatalf("deleting acme from a: %v", err)
	}
	rows, err := a.Pool().Query(ctx, `SELECT c.table_name FROM information_schema.columns c
		JOIN pg_tables p ON p.schemaname = c.table_schema AND p.tablename = c.table_name
		WHERE c.column_name = 'tenant_id' AND c.table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 5 {
		t.Fatalf("tables with tenant_id: %v, %v", tables, err)
	}
	for _, table := range tables {
		var left int
		if err := a.Pool().QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()+` WHERE tenant_id = 'acme'`).Scan(&left); err != nil || left != 0 {
			t.Errorf("acme's rows left in a's %s: %d, %v", table, left, err)
		}
	}
	if page, err := a.QueryEvents(ctx, acme, mnemo.EventQuery{}); err != nil || len(page.Events) != 0 {
		t.Fatalf("acme's events left in a: %d, %v", len(page.Events), err)
	}
	if out := cli("globex", "list"); !strings.Contains(out, "Standup") {
		t.Fatalf("globex after acme left a: %q", out)
	}
	if out := cli("acme", "list"); !strings.Contains(out, "Lunch") {
		t.Fatalf("acme after it left a: %q", out)
	}
}

// dropTenantSQL is docs/POSTGRES-DEPLOY.md's statement that deletes a
// tenant, here acme, from the database it moved out of.
const dropTenantSQL = `DO $$
DECLARE t text;
BEGIN
  ALTER TABLE events DISABLE TRIGGER events_append_only;
  ALTER TABLE event_segments DISABLE TRIGGER event_segments_grow;
  FOR t IN SELECT c.table_name FROM information_schema.columns c
      JOIN pg_tables p ON p.schemaname = c.table_schema AND p.tablename = c.table_name
      WHERE c.column_name = 'tenant_id' AND c.table_schema = current_schema()
      ORDER BY c.table_name <> 'memory_entries' -- first: its triggers update the stats
  LOOP
    EXECUTE format('DELETE FROM %I WHERE tenant_id = %L', t, 'acme');
  END LOOP;
  ALTER TABLE events ENABLE TRIGGER events_append_only;
  ALTER TABLE event_segments ENABLE TRIGGER event_segments_grow;
END $$`

// With store.postgres.hash, the tenants the map does not list are spread
// over the databases named, each where tenantroute.Place says (PG-12).
func TestHashedTenantsCLI(t *testing.T) {
	t.Parallel()
	dsnA, dsnB := pgtest.Native(t), pgtest.Native(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	writeTenantsConfig(t, cfg, dsnA, dsnB, "{}\n    hash: [default, b]")
	mustRun := runner(t, dir)
	ctx := t.Context()
	dbs := make([]*postgres.DB, 2)
	for i, dsn := range []string{dsnA, dsnB} {
		db, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	placed := [2]int{}
	for i := range 8 {
		tenant := fmt.Sprintf("t%d", i)
		mustRun("--config", cfg, "--tenant", tenant, "--agent", "ag", "remember", "a note of "+tenant)
		at := tenantroute.Place(tenant, []string{"default", "b"})
		placed[at]++
		sc := mnemo.Scope{TenantID: tenant, AgentID: "ag"}
		if st, err := dbs[at].Stats(ctx, sc); err != nil || st.Memories != 1 {
			t.Fatalf("%s: %d memories in its database, %v", tenant, st.Memories, err)
		}
		if st, err := dbs[1-at].Stats(ctx, sc); err != nil || st.Memories != 0 {
			t.Fatalf("%s: %d memories in the other database, %v", tenant, st.Memories, err)
		}
	}
	if placed[0] == 0 || placed[1] == 0 {
		t.Fatalf("placed %v: want tenants in both", placed)
	}
}
