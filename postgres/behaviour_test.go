package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
)

var scope = mnemo.Scope{TenantID: "tenant-1", AgentID: "agent-1"}

var t0 = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// put returns a record of a memory whose content and index text are text,
// updated at t0 plus d.
func put(key, text string, d time.Duration) mnemo.Record {
	return mnemo.Record{
		Memory: mnemo.Memory{Key: key, Content: text, Type: mnemo.TypeFact, CreatedAt: t0, UpdatedAt: t0.Add(d)},
		Index:  mnemo.IndexText{Text: text},
	}
}

func TestMigrate(t *testing.T) {
	ctx := t.Context()
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	opts := postgres.Options{Schema: schema}

	// A store that may not migrate refuses an empty schema.
	_, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, NoMigrate: true})
	if mnemo.ErrorCode(err) != mnemo.ECONFLICT || !strings.Contains(err.Error(), "mnemo migrate") {
		t.Fatalf("Open without migrating an empty schema: %v, want conflict and the command to run", err)
	}
	var log bytes.Buffer
	logged := opts
	logged.Logger = slog.New(slog.NewTextHandler(&log, nil))
	from, to, err := postgres.Migrate(ctx, dsn, logged)
	if err != nil || from != 0 || to < 1 {
		t.Fatalf("Migrate from empty = %d → %d, %v", from, to, err)
	}
	if n := strings.Count(log.String(), "migrated database"); n != 1 || !strings.Contains(log.String(), "from=0") {
		t.Errorf("migrating an empty schema logged %d 'migrated database' lines, want one from version 0:\n%s", n, log.String())
	}
	latest := to
	if from, to, err := postgres.Migrate(ctx, dsn, opts); err != nil || from != latest || to != latest {
		t.Fatalf("Migrate again = %d → %d, %v; want %d → %d", from, to, err, latest, latest)
	}
	db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, NoMigrate: true})
	if err != nil {
		t.Fatalf("Open a migrated schema: %v", err)
	}
	if _, err := db.Write(ctx, scope, []mnemo.Record{put("/kept", "kept words", 0)}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// A schema from a newer build is refused, and left as it is.
	conn := connect(t, dsn)
	if _, err := conn.Exec(ctx, fmt.Sprintf(`INSERT INTO %s.schema_migrations (version) VALUES (%d)`, schema, latest+1)); err != nil {
		t.Fatal(err)
	}
	for _, o := range []postgres.Options{opts, {Schema: schema, NoMigrate: true}} {
		_, err := postgres.Open(ctx, dsn, o)
		if mnemo.ErrorCode(err) != mnemo.ECONFLICT {
			t.Errorf("Open(NoMigrate=%v) of a newer schema: %v, want conflict", o.NoMigrate, err)
		}
	}
	if _, _, err := postgres.Migrate(ctx, dsn, opts); err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Errorf("Migrate of a newer schema: %v, want a refusal", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+schema+`.memory_entries`).Scan(&n); err != nil || n != 1 {
		t.Errorf("memories after the refusals = %d, %v; want 1", n, err)
	}
}

// TestSearchPathInDSN opens a store whose schema comes from the DSN's
// search_path, through pgx's simple protocol, and finds every table there.
func TestSearchPathInDSN(t *testing.T) {
	ctx := t.Context()
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	conn := connect(t, dsn)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, withParams(dsn, "search_path="+schema, "default_query_exec_mode=simple_protocol"), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Write(ctx, scope, []mnemo.Record{put("/a", "alpha words", 0)}); err != nil {
		t.Fatal(err)
	}
	res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"alpha"}, Prefixes: []string{"wor"}})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("Search = %+v, %v", res, err)
	}
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename IN ('memory_entries', 'history', 'ledger', 'state', 'scopes', 'vector_space', 'schema_migrations')`, schema).Scan(&n)
	if err != nil || n != 7 {
		t.Errorf("tables in %s = %d, %v; want 7", schema, n, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'memory_entries'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("memory_entries in public: %d, %v", n, err)
	}
}

// TestUnavailable checks that a database out of reach is EUNAVAILABLE: at
// Open, and when the server goes away under an open store.
func TestUnavailable(t *testing.T) {
	ctx := t.Context()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = postgres.Open(ctx, "postgres://postgres@"+addr+"/test?sslmode=disable&connect_timeout=5", postgres.Options{})
	if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Fatalf("Open of a closed port: %v (code %q), want unavailable", err, mnemo.ErrorCode(err))
	}

	// A proxy in front of PostgreSQL 15, cut while the store is open.
	cfg, err := pgx.ParseConfig(pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port)))
	host, port, _ := net.SplitHostPort(p.addr())
	dsn := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", host, port, cfg.User, cfg.Database)
	db := open(t, dsn, postgres.Options{MaxConns: 2, Schema: newSchema(t, pgDSN(t))})
	if _, err := db.Write(ctx, scope, []mnemo.Record{put("/a", "before the cut", 0)}); err != nil {
		t.Fatal(err)
	}
	p.cut()
	checks := map[string]func() error{
		"Write": func() error {
			_, err := db.Write(ctx, scope, []mnemo.Record{put("/b", "after the cut", 0)})
			return err
		},
		"Get": func() error { _, err := db.GetByKey(ctx, scope, "/a"); return err },
		"Search": func() error {
			_, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"cut"}})
			return err
		},
	}
	for name, call := range checks {
		if err := call(); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
			t.Errorf("%s with the server gone: %v (code %q), want unavailable", name, err, mnemo.ErrorCode(err))
		}
	}
}

// proxy forwards TCP connections to a server until cut.
type proxy struct {
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
	down  bool
}

func newProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.down {
				c.Close()
				s.Close()
			}
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) addr() string { return p.l.Addr().String() }

// cut closes the listener and every connection.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.l.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

// TestConcurrentWriters has writers race on one key with updates of
// distinct times: every write is acknowledged, last-write-wins holds (the
// latest acknowledged write is the memory), and history holds each
// acknowledged write once; BM25's statistics stay those of the rows.
func TestConcurrentWriters(t *testing.T) {
	ctx := t.Context()
	db := open(t, pgDSN(t), postgres.Options{MaxConns: 8, WriteAttempts: 100})
	const writers, each = 8, 15
	perm := rand.Perm(writers * each)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		acked = map[string]time.Duration{}
		fails []error
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := perm[w*each+i]
				text := fmt.Sprintf("writer %d write %d", w, n)
				_, err := db.Write(ctx, scope, []mnemo.Record{put("/contended", text, time.Duration(n)*time.Second)})
				mu.Lock()
				if err != nil {
					fails = append(fails, err)
				} else {
					acked[text] = time.Duration(n) * time.Second
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range fails {
		t.Errorf("a write failed: %v", err)
	}
	var latest string
	for text, d := range acked {
		if latest == "" || d > acked[latest] {
			latest = text
		}
	}
	m, err := db.GetByKey(ctx, scope, "/contended")
	if err != nil || m.Content != latest {
		t.Fatalf("the key holds %q, %v; want the latest acknowledged write %q", m.Content, err, latest)
	}
	revs, err := db.History(ctx, scope, "/contended")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range revs {
		seen[r.Memory.Content]++
	}
	for text := range acked {
		if seen[text] != 1 {
			t.Errorf("history holds %q %d times, want once", text, seen[text])
		}
	}
	if len(revs) != len(acked) {
		t.Errorf("history has %d revisions for %d acknowledged writes", len(revs), len(acked))
	}
	checkStats(t, db) // BM25's, kept by triggers under the same races
}

// TestVersionConflict changes a memory's row behind a write's back, between
// the write's read and its update: the write's revision check fails, and
// with one attempt allowed it is ECONFLICT, with the default it tries again
// and wins.
func TestVersionConflict(t *testing.T) {
	for _, tt := range []struct {
		name     string
		attempts int
		code     string
	}{
		{"one attempt", 1, mnemo.ECONFLICT},
		{"retried", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			dsn := pgDSN(t)
			schema := newSchema(t, dsn)
			db := open(t, dsn, postgres.Options{Schema: schema, WriteAttempts: tt.attempts})
			if _, err := db.Write(ctx, scope, []mnemo.Record{put("/k", "first", 0)}); err != nil {
				t.Fatal(err)
			}
			other := connect(t, dsn)
			tx, err := other.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(context.Background())
			if _, err := tx.Exec(ctx, `UPDATE `+schema+`.memory_entries SET revision = revision + 1, vitality = 0.5 WHERE key = '/k'`); err != nil {
				t.Fatal(err)
			}
			var otherPID uint32
			if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&otherPID); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := db.Write(ctx, scope, []mnemo.Record{put("/k", "second", time.Hour)})
				done <- err
			}()
			// Wait until the write is blocked on the row the other
			// transaction holds, having read it before.
			probe := connect(t, dsn)
			for {
				var n int
				if err := probe.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, otherPID).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("the write finished before blocking: %v", err)
				case <-time.After(5 * time.Millisecond):
				}
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			err = <-done
			if got := mnemo.ErrorCode(err); got != tt.code {
				t.Fatalf("Write = %v (code %q), want code %q", err, got, tt.code)
			}
			if tt.code != "" && !strings.Contains(mnemo.ErrorMessage(err), "concurrent writes") {
				t.Errorf("conflict message %q does not say what happened", mnemo.ErrorMessage(err))
			}
			m, err := db.GetByKey(ctx, scope, "/k")
			if err != nil {
				t.Fatal(err)
			}
			want := "first"
			if tt.code == "" {
				want = "second"
			}
			if m.Content != want || m.Vitality != 0.5 && tt.code != "" {
				t.Errorf("after the race: %q vitality %v, want %q", m.Content, m.Vitality, want)
			}
		})
	}
}

// TestBadValues checks that values PostgreSQL cannot hold are refused as
// invalid input, and store nothing.
func TestBadValues(t *testing.T) {
	ctx := t.Context()
	db := open(t, pgDSN(t), postgres.Options{})
	bad := put("/nul", "a NUL \x00 in text", 0)
	_, err := db.Write(ctx, scope, []mnemo.Record{put("/good", "good", 0), bad})
	if mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("Write of a NUL: %v, want invalid input", err)
	}
	if _, err := db.GetByKey(ctx, scope, "/good"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("the batch's good record was stored: %v", err)
	}
}

// TestCommonTerms checks the common-terms rule: once a word is in more
// than 1,000 memories of the scope (term_stats), a query with a
// rarer word ranks only the memories with the rarer word, and a query of
// common words only takes those with all of them when there are enough.
func TestCommonTerms(t *testing.T) {
	ctx := t.Context()
	db := open(t, pgDSN(t), postgres.Options{})
	var recs []mnemo.Record
	for i := range 1500 {
		text := "often"
		if i%5 != 0 {
			text += " usual"
		}
		recs = append(recs, put("", text, 0))
	}
	recs = append(recs, put("", "often seldom", 0), put("", "seldom alone", 0))
	if _, err := db.Write(ctx, scope, recs); err != nil {
		t.Fatal(err)
	}
	res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"often", "seldom"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || !strings.Contains(res.Hits[0].Memory.Content, "seldom") || !strings.Contains(res.Hits[1].Memory.Content, "seldom") {
		t.Errorf("often OR seldom = %d hits, want the two with seldom", len(res.Hits))
	}
	res, err = db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"often", "usual"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Memory.Content != "often usual" {
			t.Errorf("often OR usual: hit %q, want only memories with both", h.Memory.Content)
		}
	}
	if len(res.Hits) != 10 {
		t.Errorf("often OR usual: %d hits, want 10", len(res.Hits))
	}
}

// TestOddText writes keys, tags and text that array literals and the
// simple protocol must quote, and reads them back by every path.
func TestOddText(t *testing.T) {
	for _, mode := range []string{"", "default_query_exec_mode=simple_protocol"} {
		t.Run("mode="+mode, func(t *testing.T) {
			ctx := t.Context()
			dsn := pgDSN(t)
			if mode != "" {
				dsn = withParams(dsn, mode)
			}
			db := open(t, dsn, postgres.Options{})
			odd := []string{`/q"uote`, `/com,ma`, `/{brace}`, `/back\slash`, `/NULL`, `/ spaced `, `/日本語`, `/it's`, `/$1`}
			var recs []mnemo.Record
			for _, k := range odd {
				r := put(k, "odd "+k, 0)
				r.Memory.Tags = []string{k, "plain"}
				recs = append(recs, r)
			}
			if _, err := db.Write(ctx, scope, recs); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Write(ctx, scope, recs); err != nil { // upserts look the keys up
				t.Fatal(err)
			}
			for _, k := range odd {
				m, err := db.GetByKey(ctx, scope, k)
				if err != nil || m.Content != "odd "+k || m.Tags[0] != k {
					t.Errorf("GetByKey(%q) = %q %v, %v", k, m.Content, m.Tags, err)
				}
				ms, _, err := db.List(ctx, scope, mnemo.ListQuery{Filter: mnemo.Filter{Tags: []string{k}}})
				if err != nil || len(ms) != 1 || ms[0].Key != k {
					t.Errorf("List by tag %q = %d memories, %v", k, len(ms), err)
				}
				if n, err := db.Forget(ctx, scope, nil, []string{k}); err != nil || n != 1 {
					t.Errorf("Forget(%q) = %d, %v", k, n, err)
				}
			}
		})
	}
}

// Every index leads with tenant_id but for the listed ones, which are
// global by design (docs/POSTGRES.md, "Scale-out"): a new index that does
// not lead with the tenant must be added here with its reason.
func TestIndexesLeadWithTenant(t *testing.T) {
	// The indexes that do not lead with tenant_id, and why. None is
	// unique but the two one-row tables' keys: every unique key leads with
	// the tenant, as a table partitioned (Options.Partitions) or
	// distributed (Citus) by tenant_id requires.
	global := map[string]string{
		"memory_entries_tsv":        "GIN: no btree column without the btree_gin extension; searches AND it with the scope",
		"memory_entries_tags":       "GIN, as memory_entries_tsv",
		"memory_entries_unembedded": "the embedding queue, across tenants in seq order",
		"memory_entries_vec":        "HNSW, one graph (per partition when partitioned); filters apply during the walk",
		"state_idle":                "the idle sweep, across tenants",
		"vector_space_pkey":         "one row for the store (a reference table on Citus)",
		"schema_migrations_pkey":    "the schema's version (a reference table on Citus)",
		"job_runs_pkey":             "the periodic jobs' runs, for the store (PG-10; a reference table on Citus)",
	}
	for _, partitions := range []int{0, 3} {
		t.Run(fmt.Sprintf("Partitions%d", partitions), func(t *testing.T) {
			ctx := t.Context()
			db := open(t, pgDSN(t), postgres.Options{Partitions: partitions})
			// The tables' own indexes and keys; a partition's are copies of
			// its parent's.
			rows, err := db.Pool().Query(ctx, `SELECT c.relname::text, a.attname::text, i.indisunique OR i.indisprimary,
					EXISTS (SELECT FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u'))
				FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
				JOIN pg_class tb ON tb.oid = i.indrelid AND tb.relnamespace = to_regnamespace(current_schema()) AND NOT tb.relispartition
				LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
				ORDER BY 1`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var name string
				var first *string
				var unique, constraint bool
				if err := rows.Scan(&name, &first, &unique, &constraint); err != nil {
					t.Fatal(err)
				}
				n++
				leads := first != nil && *first == "tenant_id"
				switch {
				case !leads && global[name] == "":
					t.Errorf("index %s does not lead with tenant_id (first column %v)", name, first)
				case !leads && (unique || constraint) && !strings.HasPrefix(name, "vector_space") && !strings.HasPrefix(name, "schema_migrations") && !strings.HasPrefix(name, "job_runs"):
					t.Errorf("unique index %s does not lead with tenant_id", name)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n < 30 {
				t.Errorf("%d indexes read: the query missed some", n)
			}
		})
	}
}

// The number of partitions is chosen when a store is created: an empty
// schema is partitioned at Open, a store with memories keeps its layout,
// and Open refuses another number (ECONFLICT, naming migrate-store).
func TestPartitionsChosenAtCreation(t *testing.T) {
	ctx := t.Context()
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	db := open(t, dsn, postgres.Options{Schema: schema})
	if _, err := db.Write(ctx, scope, []mnemo.Record{put("/a", "words", 0)}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, -1, 2000} {
		_, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, Partitions: n})
		want := mnemo.ECONFLICT
		if n != 2 {
			want = mnemo.EINVALID
		}
		if mnemo.ErrorCode(err) != want || (want == mnemo.ECONFLICT && !strings.Contains(err.Error(), "migrate-store")) {
			t.Errorf("Open of a store with memories with %d partitions: %v, want %s", n, err, want)
		}
	}
	// Partitioned with 2: the same number opens it, and so does 0; another
	// does not.
	parted := newSchema(t, dsn)
	open(t, dsn, postgres.Options{Schema: parted, Partitions: 2})
	for n, want := range map[int]string{0: "", 2: "", 3: mnemo.ECONFLICT} {
		db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: parted, Partitions: n})
		if mnemo.ErrorCode(err) != want && !(want == "" && err == nil) {
			t.Errorf("Open of a store of 2 partitions with %d: %v, want %q", n, err, want)
		}
		if err == nil {
			db.Close()
		}
	}
}
