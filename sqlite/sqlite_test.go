package sqlite_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

// open opens a database at path, closed when the test ends.
func open(t *testing.T, path string, opts sqlite.Options) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// raw opens path with the bare driver, to do what the store never would.
func raw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var scope = mnemo.Scope{TenantID: "tenant-1", AgentID: "agent-1"}

// schemaVersion is the number of migrations this build has: a new
// migration must not need every test that checks the version edited.
var schemaVersion = func() int {
	ms, err := filepath.Glob(filepath.Join("migrations", "*.sql"))
	if err != nil || len(ms) == 0 {
		panic(fmt.Sprintf("no migrations found: %v", err))
	}
	return len(ms)
}()

// put returns a record of a memory of scope whose content and index text
// are text.
func put(id, key, text string) mnemo.Record {
	return mnemo.Record{
		Memory: mnemo.Memory{ID: id, Key: key, Content: text, Type: mnemo.TypeFact,
			CreatedAt: time.Unix(1741964966, 0), UpdatedAt: time.Unix(1741964966, 0)},
		Index: mnemo.IndexText{Text: text},
	}
}

func TestMigrateFromV1(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v1.db")
	fixture, err := os.ReadFile("testdata/schema_v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	old := raw(t, path)
	if _, err := old.ExecContext(ctx, string(fixture)); err != nil {
		t.Fatalf("build v1 database: %v", err)
	}
	old.Close()

	db := open(t, path, sqlite.Options{})
	if v, err := db.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, schemaVersion)
	}

	m, err := db.GetByKey(ctx, scope, "/user/preference/style")
	if err != nil {
		t.Fatalf("GetByKey: %v", err)
	}
	created := time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)
	if m.ID != "01959581-0000-7000-8000-000000000001" || m.Content != "Prefers concise answers" ||
		!m.CreatedAt.Equal(created) || m.AccessCount != 2 || !m.Pinned ||
		strings.Join(m.Tags, ",") != "style,ux" || string(m.Data) != `{"style":"concise"}` ||
		fmt.Sprint(m.Embedding) != "[0.5 -2]" {
		t.Errorf("old memory = %+v", m)
	}
	if _, err := db.GetByKey(ctx, scope, "/gone"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("old tombstone: GetByKey = %v, want not found", err)
	}

	// The back-fill indexed the old rows, each in its own scope.
	res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"concis", "tuesday"}})
	if err != nil || res.Degraded || len(res.Hits) != 2 {
		t.Fatalf("Search = %+v, %v; want both old memories of agent-1", res, err)
	}
	other := mnemo.Scope{TenantID: "tenant-1", AgentID: "agent-2"}
	res, err = db.Search(ctx, other, mnemo.TextQuery{Prefixes: []string{"conc"}})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Memory.ID != "01959581-0000-7000-8000-000000000004" {
		t.Errorf("Search of agent-2 = %+v, %v; want its one memory", res, err)
	}
	ms, total, err := db.List(ctx, scope, mnemo.ListQuery{Filter: mnemo.Filter{Tags: []string{"ux"}}})
	if err != nil || total != 1 || ms[0].Key != "/user/preference/style" {
		t.Errorf("List by tag = %v (total %d), %v", ms, total, err)
	}

	// The old history goes on, and new writes join it.
	if _, err := db.Write(ctx, scope, []mnemo.Record{{Memory: mnemo.Memory{Key: "/gone"}, Tombstone: true}}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	revs, err := db.History(ctx, scope, "/gone")
	if err != nil || len(revs) != 3 || revs[2].Seq != 6 || revs[1].Op != mnemo.OpTombstone {
		t.Errorf("History(/gone) = %+v, %v; want put, tombstone and the new tombstone (seq 6)", revs, err)
	}
}

func TestOpenNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	open(t, path, sqlite.Options{}).Close()
	if _, err := raw(t, path).Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (99, 0)`); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(t.Context(), path, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this build knows") {
		t.Fatalf("Open of a newer schema: %v, want a clear error", err)
	}
}

func TestSearchFallback(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	var log bytes.Buffer
	db := open(t, path, sqlite.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if _, err := db.Write(ctx, scope, []mnemo.Record{
		put("01959581-0000-7000-8000-000000000001", "/a", "apple banana cherry"),
		put("01959581-0000-7000-8000-000000000002", "", "apple pie"),
		put("01959581-0000-7000-8000-000000000003", "", "100% pure_juice"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := raw(t, path).Exec(`DROP TABLE memories_fts`); err != nil {
		t.Fatal(err)
	}

	q := mnemo.TextQuery{Terms: []string{"apple"}, Prefixes: []string{"ban"}}
	res, err := db.Search(ctx, scope, q)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if !res.Degraded || res.Reason == "" {
		t.Errorf("Search = %+v, want degraded with a reason", res)
	}
	if len(res.Hits) != 2 || res.Hits[0].Memory.Key != "/a" || res.Hits[0].Lexical != 1 || res.Hits[1].Lexical != 0.5 {
		t.Errorf("degraded hits = %+v, want /a (2 of 2 found) then the pie (1 of 2)", res.Hits)
	}
	// LIKE wildcards in a term match only themselves.
	for term, want := range map[string]int{"_": 0, "%": 0, "pure_": 1, "100%": 1, "pure%": 0} {
		res, err := db.Search(ctx, scope, mnemo.TextQuery{Prefixes: []string{term}})
		if err != nil || len(res.Hits) != want {
			t.Errorf("Search(%q*) = %d hits, %v; want %d", term, len(res.Hits), err, want)
		}
	}
	if n := strings.Count(log.String(), "falling back"); n != 1 {
		t.Errorf("logged the fallback %d times, want once:\n%s", n, log.String())
	}
	if st, err := db.Stats(ctx, scope); err != nil || !st.Degraded || st.Memories != 3 {
		t.Errorf("Stats = %+v, %v; want degraded, 3 memories", st, err)
	}

	// Writes go on without the index; the rebuild indexes them too.
	if _, err := db.Write(ctx, scope, []mnemo.Record{put("01959581-0000-7000-8000-000000000004", "/a", "apple durian")}); err != nil {
		t.Fatalf("Write without the index: %v", err)
	}
	if n, err := db.Forget(ctx, scope, []string{"01959581-0000-7000-8000-000000000002"}, nil); err != nil || n != 1 {
		t.Fatalf("Forget without the index = %d, %v", n, err)
	}
	if err := db.RebuildIndex(ctx); err != nil {
		t.Fatalf("RebuildIndex: %v", err)
	}
	res, err = db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"apple", "durian"}})
	if err != nil || res.Degraded || len(res.Hits) != 1 || res.Hits[0].Memory.Key != "/a" {
		t.Errorf("Search after rebuild = %+v, %v; want /a from the index", res, err)
	}

	// Open rebuilds an index that went missing while closed.
	db.Close()
	if _, err := raw(t, path).Exec(`DROP TABLE memories_fts`); err != nil {
		t.Fatal(err)
	}
	db = open(t, path, sqlite.Options{})
	res, err = db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"durian"}})
	if err != nil || res.Degraded || len(res.Hits) != 1 {
		t.Errorf("Search after reopen = %+v, %v; want one hit from the index", res, err)
	}
}

func TestConcurrent(t *testing.T) {
	const writers, keys = 8, 20
	// Under the race detector (make test) readers spin through every write at
	// a twentieth of the speed: 40 writes a writer still interleave them all
	// (writes/2 stays a multiple of keys, which the counts below assume).
	writes := 200
	if raceEnabled {
		writes = 40
	}
	ctx := t.Context()
	db := open(t, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})

	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"shared", "word3"}, Limit: 10})
				if err != nil || res.Degraded {
					t.Errorf("Search: %+v, %v", res, err)
					return
				}
				if _, _, err := db.List(ctx, scope, mnemo.ListQuery{Limit: 10}); err != nil {
					t.Errorf("List: %v", err)
					return
				}
			}
		})
	}
	var ws sync.WaitGroup
	for w := range writers {
		ws.Go(func() {
			for i := range writes {
				// Half the writes race on shared keys, half are new memories.
				key := ""
				if i%2 == 0 {
					key = fmt.Sprintf("/shared/%d", i/2%keys)
				}
				rec := put("", key, fmt.Sprintf("shared word%d writer%d", i%10, w))
				rec.Memory.UpdatedAt = time.Unix(0, int64(i))
				if _, err := db.Write(ctx, scope, []mnemo.Record{rec}); err != nil {
					t.Errorf("Write: %v", err)
					return
				}
			}
		})
	}
	ws.Wait()
	close(done)
	readers.Wait()

	st, err := db.Stats(ctx, scope)
	if want := writers*writes/2 + keys; err != nil || st.Memories != want || st.Keys != keys {
		t.Errorf("Stats = %+v, %v; want %d memories, %d keys", st, err, want, keys)
	}
	revs, err := db.History(ctx, scope, "/shared/0")
	if want := writers * writes / 2 / keys; err != nil || len(revs) != want {
		t.Errorf("History has %d revisions, %v; want %d", len(revs), err, want)
	}
}

func TestReopen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "deep", "er", "mnemo.db")
	db := open(t, path, sqlite.Options{Synchronous: "normal"})
	if db.Path() != path {
		t.Errorf("Path = %s, want %s", db.Path(), path)
	}
	if _, err := db.Write(ctx, scope, []mnemo.Record{put("01959581-0000-7000-8000-000000000001", "/kept", "kept words")}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	db = open(t, path, sqlite.Options{})
	if m, err := db.GetByKey(ctx, scope, "/kept"); err != nil || m.Content != "kept words" {
		t.Errorf("GetByKey after reopen = %+v, %v", m, err)
	}
	if res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"kept"}}); err != nil || len(res.Hits) != 1 {
		t.Errorf("Search after reopen = %+v, %v", res, err)
	}
	var migrations int
	if err := raw(t, path).QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&migrations); err != nil || migrations != schemaVersion {
		t.Errorf("schema_migrations has %d rows, %v; want %d", migrations, err, schemaVersion)
	}
}

func TestWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mnemo.db")
	open(t, path, sqlite.Options{})
	var mode string
	if err := raw(t, path).QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestOpenOptions(t *testing.T) {
	_, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Synchronous: "OFF"})
	if err == nil {
		t.Error("Open with synchronous OFF succeeded, want an error")
	}
}

// TestClock checks that the store's clock fills what a record leaves out
// and judges expiry when the filter does not say when.
func TestClock(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	db := open(t, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: func() time.Time { return now }})

	expires := now.Add(time.Hour)
	ms, err := db.Write(ctx, scope, []mnemo.Record{{Memory: mnemo.Memory{Content: "x", ExpiresAt: &expires}, Index: mnemo.IndexText{Text: "clock"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	if len(m.ID) != 36 || m.ID[14] != '7' || !m.CreatedAt.Equal(now) || !m.UpdatedAt.Equal(now) ||
		m.TenantID != scope.TenantID || m.AgentID != scope.AgentID {
		t.Errorf("defaults = id %s created %v updated %v scope %s/%s; want a UUIDv7, the clock's time and the scope",
			m.ID, m.CreatedAt, m.UpdatedAt, m.TenantID, m.AgentID)
	}
	if _, total, _ := db.List(ctx, scope, mnemo.ListQuery{}); total != 1 {
		t.Errorf("List before expiry: total %d, want 1", total)
	}
	now = expires
	if _, total, _ := db.List(ctx, scope, mnemo.ListQuery{}); total != 0 {
		t.Errorf("List at expiry: total %d, want 0", total)
	}
	if res, _ := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"clock"}}); len(res.Hits) != 0 {
		t.Errorf("Search at expiry: %d hits, want 0", len(res.Hits))
	}
}

// TestInvalid checks values the table cannot hold faithfully.
func TestInvalid(t *testing.T) {
	ctx := t.Context()
	db := open(t, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		m    mnemo.Memory
	}{
		{"data not JSON", mnemo.Memory{Data: []byte("{nope")}},
		{"source not JSON", mnemo.Memory{Source: []byte("nope")}},
		{"time out of range", mnemo.Memory{CreatedAt: far}},
		{"expiry out of range", mnemo.Memory{ExpiresAt: &far}},
	}
	for _, tt := range tests {
		_, err := db.Write(ctx, scope, []mnemo.Record{{Memory: tt.m}})
		if mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: Write = %v, want invalid_input", tt.name, err)
		}
	}
	_, _, err := db.List(ctx, scope, mnemo.ListQuery{Limit: -1})
	if mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("List with a negative limit = %v, want invalid_input", err)
	}
}

// TestOpenConcurrently checks that processes opening a new file at once
// migrate it once.
func TestOpenConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mnemo.db")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			db, err := sqlite.Open(t.Context(), path, sqlite.Options{})
			if err != nil {
				t.Errorf("Open: %v", err)
				return
			}
			db.Close()
		})
	}
	wg.Wait()
	var n int
	if err := raw(t, path).QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != schemaVersion {
		t.Errorf("schema_migrations has %d rows, %v; want %d", n, err, schemaVersion)
	}
}

// TestMigrationLogsOneLine checks that a new store's migrations, all of
// them at once, are one log line saying from which version to which.
func TestMigrationLogsOneLine(t *testing.T) {
	var log bytes.Buffer
	open(t, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if n := strings.Count(log.String(), "migrated database"); n != 1 || !strings.Contains(log.String(), "from=0") {
		t.Errorf("a new store logged %d 'migrated database' lines, want one from version 0:\n%s", n, log.String())
	}
}

// TestSearchFindsOtherHandlesWrites checks that a memory another process
// wrote (the CLI beside a server, on the same file) is found by the
// server's very next full-text search, as is one it forgot gone, while
// the in-memory index catches up behind them.
func TestSearchFindsOtherHandlesWrites(t *testing.T) {
	ctx := t.Context()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	path := filepath.Join(t.TempDir(), "mnemo.db")
	server := open(t, path, sqlite.Options{})
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	found := func(word string) int {
		t.Helper()
		sr, err := server.Search(ctx, scope, mnemo.TextQuery{Terms: []string{word}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(sr.Hits)
	}
	write(t, server, scope, mnemo.Memory{Content: "the user likes apples", CreatedAt: at}, "the user likes apples")
	// Until its in-memory index is built and answers.
	for i := 0; found("apples") != 1 || i < 50; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	cli := open(t, path, sqlite.Options{})
	for i, word := range []string{"zebras", "giraffes", "okapis"} {
		id := write(t, cli, scope, mnemo.Memory{Content: "the user likes " + word, CreatedAt: at}, "the user likes "+word)
		if n := found(word); n != 1 {
			t.Fatalf("write %d of another handle: the server's search found %d memories with %q, want 1", i, n, word)
		}
		write(t, server, scope, mnemo.Memory{Content: "the user met " + word, CreatedAt: at}, "the user met "+word)
		if n := found(word); n != 2 {
			t.Fatalf("write %d of the server after another handle's: its search found %d memories with %q, want 2", i, n, word)
		}
		if _, err := cli.Forget(ctx, scope, []string{id}, nil); err != nil {
			t.Fatal(err)
		}
		if n := found(word); n != 1 {
			t.Fatalf("forget %d of another handle: the server's search found %d memories with %q, want 1", i, n, word)
		}
	}
}

// A memory forgotten for good leaves no bytes of its text in the file
// (API-12): what the forgetting frees is zeroed (secure_delete), and the
// full-text index's segments, which keep a deleted row's terms until
// they are merged, keep none once merged.
func TestForgottenTextLeavesTheFile(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	const secret = "qzxwvutsecret"
	var recs []mnemo.Record
	for i := range 50 {
		text := fmt.Sprintf("note %d about the weather and the lake", i)
		if i == 20 {
			text = "my password is " + secret + " keep it"
		}
		m := mnemo.Memory{ID: fmt.Sprintf("01959581-0000-7000-8000-%012d", i+1), Content: text, Type: mnemo.TypeEvent,
			CreatedAt: time.Unix(1700000000+int64(i), 0).UTC()}
		m.UpdatedAt = m.CreatedAt
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text}, Embed: text})
	}
	if _, err := db.Write(ctx, sc, recs); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Forget(ctx, sc, []string{recs[20].Memory.ID}, nil); err != nil || n != 1 {
		t.Fatalf("Forget = %d, %v", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{
		`PRAGMA secure_delete = ON`,
		`INSERT INTO memories_fts (memories_fts) VALUES ('optimize')`, // as the background merge does
		`PRAGMA wal_checkpoint(TRUNCATE)`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, name := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(name)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte(secret)); n > 0 {
			t.Errorf("%s holds the forgotten text %d times", filepath.Base(name), n)
		}
	}
}
