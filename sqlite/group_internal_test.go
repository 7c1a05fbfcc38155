package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	sqlitedriver "modernc.org/sqlite"
)

// countCommits counts the transactions the writer's connection commits
// from now on.
func countCommits(t *testing.T, db *DB) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	conn, err := db.writer.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		h, ok := dc.(interface {
			RegisterCommitHook(sqlitedriver.CommitHookFn)
		})
		if !ok {
			return fmt.Errorf("%T has no commit hook", dc)
		}
		h.RegisterCommitHook(func() int32 { n.Add(1); return 0 })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return &n
}

// TestWriteGroup checks group commit (MEM-16): Writes that wait for the
// writer together are committed in one transaction, each in its own
// scope, and one that fails (an id already stored, a context ended while
// it waited) fails alone, its neighbours committed and its vector revs
// left to the next write. One that fails the whole transaction (a trigger
// raising ROLLBACK) leaves the others to commit alone.
func TestWriteGroup(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	vs := mnemo.VectorSpace{Model: "m", Dimension: 2}
	rec := func(id, text string) mnemo.Record {
		m := mnemo.Memory{ID: id, Content: text, Type: mnemo.TypeEvent, CreatedAt: now, UpdatedAt: now,
			Embedding: []float32{1, 0}, EmbeddingModel: vs.Model}
		return mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text}, Embed: text}
	}
	type write struct {
		tenant   string
		recs     []mnemo.Record
		canceled bool   // its context ends while it waits
		wantErr  string // the error code it fails with, or "canceled"
	}
	tests := []struct {
		name    string
		writes  []write
		commits int64
	}{
		{"all committed", []write{
			{tenant: "a", recs: []mnemo.Record{rec(uuidFor(1), "one")}},
			{tenant: "b", recs: []mnemo.Record{rec(uuidFor(2), "two"), rec(uuidFor(3), "three")}},
			{tenant: "a", recs: []mnemo.Record{rec(uuidFor(4), "four")}},
			{tenant: "c", recs: []mnemo.Record{rec(uuidFor(5), "five")}},
		}, 1},
		{"one conflicts", []write{
			{tenant: "a", recs: []mnemo.Record{rec(uuidFor(1), "one")}},
			// Its second record's id is stored: the first must not stay.
			{tenant: "b", recs: []mnemo.Record{rec(uuidFor(2), "two"), rec(uuidFor(0), "taken")}, wantErr: mnemo.ECONFLICT},
			{tenant: "b", recs: []mnemo.Record{rec(uuidFor(3), "three")}},
		}, 1},
		{"one canceled", []write{
			{tenant: "a", recs: []mnemo.Record{rec(uuidFor(1), "one")}},
			{tenant: "b", recs: []mnemo.Record{rec(uuidFor(2), "two")}, canceled: true, wantErr: "canceled"},
			{tenant: "c", recs: []mnemo.Record{rec(uuidFor(3), "three")}},
		}, 1},
		{"one rolls the transaction back", []write{
			{tenant: "a", recs: []mnemo.Record{rec(uuidFor(1), "one")}},
			{tenant: "b", recs: []mnemo.Record{rec(uuidFor(2), "poison")}, wantErr: mnemo.EINTERNAL},
			{tenant: "c", recs: []mnemo.Record{rec(uuidFor(3), "three")}},
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.SetVectorSpace(ctx, vs, false); err != nil {
				t.Fatal(err)
			}
			taken := mnemo.Scope{TenantID: "b", AgentID: "x"}
			if _, err := db.Write(ctx, taken, []mnemo.Record{rec(uuidFor(0), "zero")}); err != nil {
				t.Fatal(err)
			}
			// A write of "poison" ends the whole transaction, savepoints
			// and all.
			if _, err := db.writer.ExecContext(ctx, `CREATE TEMP TRIGGER poison BEFORE INSERT ON memories
				WHEN NEW.content = 'poison' BEGIN SELECT RAISE(ROLLBACK, 'poisoned'); END`); err != nil {
				t.Fatal(err)
			}
			commits := countCommits(t, db)

			// Hold the lead, so that every write queues, then let go.
			db.group.lead <- struct{}{}
			errs := make([]error, len(tt.writes))
			var wg sync.WaitGroup
			queued := 0
			for i, w := range tt.writes {
				wctx, cancel := context.WithCancel(ctx)
				defer cancel()
				done := make(chan struct{})
				wg.Go(func() {
					defer close(done)
					_, errs[i] = db.Write(wctx, mnemo.Scope{TenantID: w.tenant, AgentID: "x"}, w.recs)
				})
				queued++
				waitQueued(t, db, queued)
				if w.canceled {
					cancel()
					<-done // it has left the queue
					queued--
				}
			}
			<-db.group.lead
			wg.Wait()

			if n := commits.Load(); n != tt.commits {
				t.Errorf("%d commits, want %d", n, tt.commits)
			}
			for i, w := range tt.writes {
				switch {
				case w.wantErr == "canceled" && !errors.Is(errs[i], context.Canceled):
					t.Errorf("write %d: %v, want it canceled", i, errs[i])
				case w.wantErr != "" && w.wantErr != "canceled" && mnemo.ErrorCode(errs[i]) != w.wantErr:
					t.Errorf("write %d: %v, want %s", i, errs[i], w.wantErr)
				case w.wantErr == "" && errs[i] != nil:
					t.Errorf("write %d: %v", i, errs[i])
				}
				for _, r := range w.recs {
					if r.Memory.ID == uuidFor(0) {
						continue
					}
					m, err := db.Get(ctx, mnemo.Scope{TenantID: w.tenant, AgentID: "x"}, r.Memory.ID)
					switch {
					case w.wantErr == "" && err != nil:
						t.Errorf("write %d: Get %s: %v", i, r.Memory.Content, err)
					case w.wantErr == "" && m.Content != r.Memory.Content:
						t.Errorf("write %d: Get %s = %q", i, r.Memory.Content, m.Content)
					case w.wantErr != "" && mnemo.ErrorCode(err) != mnemo.ENOTFOUND:
						t.Errorf("write %d failed, but Get %s = %+v, %v", i, r.Memory.Content, m, err)
					}
				}
			}
			// The revs of the vectors stored run on from the store's
			// without a gap: a failed write's were taken by the next.
			var revs, maxRev, rev int64
			err = db.reader.QueryRowContext(ctx, `SELECT count(vector_rev), max(vector_rev), (SELECT rev FROM vector_space)
				FROM memories`).Scan(&revs, &maxRev, &rev)
			if err != nil {
				t.Fatal(err)
			}
			if maxRev != rev || revs != rev-1 {
				t.Errorf("%d vectors, revs up to %d, store's rev %d; want revs 2…%d", revs, maxRev, rev, revs+1)
			}
		})
	}
}

// waitQueued waits until n writes wait for the writer.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		db.group.mu.Lock()
		q := len(db.group.queue)
		db.group.mu.Unlock()
		if q == n {
			return
		}
	}
	t.Fatalf("%d writes never queued", n)
}
