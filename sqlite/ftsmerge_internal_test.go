package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/testwait"
)

func TestFTSVarint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		n    int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f, 0xff}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0x86, 0x8d, 0x20}, 100_000, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, 9},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	}
	for _, tt := range tests {
		if got, n := ftsVarint(tt.in); got != tt.want || n != tt.n {
			t.Errorf("ftsVarint(% x) = %d, %d; want %d, %d", tt.in, got, n, tt.want, tt.n)
		}
	}
}

// TestFTSMerge checks that the full-text index written in many
// transactions is merged into one segment by the merge check the quiet
// writer's timer starts, and answers as before. The test starts the check
// itself: with a short idle window a slow machine's pauses between writes
// would start it mid-way, and nothing would be left to merge.
func TestFTSMerge(t *testing.T) {
	idle, minRows := ftsMergeIdle, ftsMergeMinRows
	ftsMergeIdle, ftsMergeMinRows = time.Hour, 10
	t.Cleanup(func() { ftsMergeIdle, ftsMergeMinRows = idle, minRows })

	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 40
	for i := range n {
		text := fmt.Sprintf("apple word%d", i)
		m := mnemo.Memory{ID: uuidFor(i), Content: text, Type: "fact", CreatedAt: now, UpdatedAt: now}
		if _, err := db.Write(ctx, scope, []mnemo.Record{{Memory: m, Index: mnemo.IndexText{Text: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Forget(ctx, scope, []string{uuidFor(0)}, nil); err != nil {
		t.Fatal(err)
	}
	segments := func() int {
		var n int
		if err := db.reader.QueryRow(`SELECT count(DISTINCT segid) FROM memories_fts_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if s := segments(); s <= ftsMergeSegments {
		t.Fatalf("%d segments after %d writes: too few to merge", s, n)
	}
	db.ftsMerge.fire()
	testwait.Until(t, 10*time.Second, "the segments to be merged", func() bool { return segments() <= 1 })
	if rows, err := db.ftsRows(ctx); err != nil || rows != n-1 {
		t.Fatalf("ftsRows = %d, %v; want %d", rows, err, n-1)
	}
	for _, tt := range []struct {
		term string
		want int
	}{{"apple", n - 1}, {"word7", 1}, {"word0", 0}} {
		res, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{tt.term}, Limit: 100})
		if err != nil || len(res.Hits) != tt.want {
			t.Errorf("search %q: %d hits, %v; want %d", tt.term, len(res.Hits), err, tt.want)
		}
	}
}

// TestFTSMergeAfterForget checks that a forget makes the next merge
// rewrite the full-text index however few its segments, so that the
// forgotten row's terms, which FTS5 keeps in a segment until it is
// rewritten, leave the file (API-12; the writer's secure_delete zeroes the
// pages they were on).
func TestFTSMergeAfterForget(t *testing.T) {
	idle := ftsMergeIdle
	ftsMergeIdle = time.Hour // the test starts the check itself
	t.Cleanup(func() { ftsMergeIdle = idle })

	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const secret = "qzxwvutsecret"
	var recs []mnemo.Record
	for i := range 50 {
		text := fmt.Sprintf("note %d about the weather and the lake", i)
		if i == 20 {
			text = "my password is " + secret + " keep it"
		}
		m := mnemo.Memory{ID: uuidFor(i), Content: text, Type: "fact", CreatedAt: now, UpdatedAt: now}
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text}})
	}
	if _, err := db.Write(ctx, scope, recs); err != nil { // one segment
		t.Fatal(err)
	}
	db.ftsMerge.fire() // the merge the open made due, out of the way
	testwait.Until(t, 10*time.Second, "the open's merge", func() bool {
		db.ftsMerge.mu.Lock()
		defer db.ftsMerge.mu.Unlock()
		return !db.ftsMerge.due && !db.ftsMerge.running
	})
	if _, err := db.Forget(ctx, scope, []string{uuidFor(20)}, nil); err != nil {
		t.Fatal(err)
	}
	db.ftsMerge.fire()
	testwait.Until(t, 10*time.Second, "the forget's merge", func() bool {
		db.ftsMerge.mu.Lock()
		defer db.ftsMerge.mu.Unlock()
		return db.ftsMerge.erased == 0 && !db.ftsMerge.running
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(secret)); n > 0 {
		t.Errorf("the file holds the forgotten text %d times", n)
	}
}
