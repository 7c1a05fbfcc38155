package postgres_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
)

// TestRunJobOncePerPeriod checks PG-10 on two stores (two servers) over
// one schema: a period's job runs on one of them, once, and again in the
// next period; a run in progress keeps the other out; a failed run counts
// for nothing; a holder whose connection dies mid-run loses its lease to
// the next server that asks, in the same period.
func TestRunJobOncePerPeriod(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	a := open(t, dsn, postgres.Options{Schema: schema})
	b := open(t, dsn, postgres.Options{Schema: schema})
	p1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p2 := p1.Add(time.Minute)

	var runs atomic.Int32
	count := func(context.Context) error { runs.Add(1); return nil }
	var wg sync.WaitGroup
	for i := range 8 { // eight servers asking at once
		wg.Go(func() {
			db := a
			if i%2 == 1 {
				db = b
			}
			if _, err := db.RunJob(ctx, "sweep", p1, "s", count); err != nil {
				t.Errorf("run job: %v", err)
			}
		})
	}
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("period 1 ran %d times on two servers, want once", n)
	}
	if ran, err := a.RunJob(ctx, "sweep", p1, "a", count); err != nil || ran {
		t.Fatalf("period 1 asked again: ran %v, %v; want it skipped", ran, err)
	}
	if ran, err := b.RunJob(ctx, "reflect", p1, "b", count); err != nil || !ran {
		t.Fatalf("another job in period 1: ran %v, %v; want it run", ran, err)
	}

	// A run in progress holds the lease; a failed one leaves the period open.
	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := a.RunJob(ctx, "sweep", p2, "a", func(context.Context) error {
			close(inside)
			<-release
			return errors.New("the run failed")
		})
		done <- err
	}()
	<-inside
	if ran, err := b.RunJob(ctx, "sweep", p2, "b", count); err != nil || ran {
		t.Fatalf("while a holds the lease: ran %v, %v; want it skipped", ran, err)
	}
	close(release)
	if err := <-done; err == nil {
		t.Fatal("a failed run reported no error")
	}
	if ran, err := b.RunJob(ctx, "sweep", p2, "b", count); err != nil || !ran {
		t.Fatalf("after a failed run: ran %v, %v; want it run again", ran, err)
	}

	// A holder that dies: its backend is terminated, as PostgreSQL ends
	// the session of a process killed with kill -9.
	p3 := p2.Add(time.Minute)
	inside = make(chan struct{})
	release = make(chan struct{})
	go func() {
		_, err := a.RunJob(ctx, "sweep", p3, "a", func(ctx context.Context) error {
			close(inside)
			<-release
			return nil
		})
		done <- err
	}()
	<-inside
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the stores close
	conn := connect(t, dsn)
	var killed int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(l.pid)) FROM pg_locks l, hashtextextended($1::text || '.mnemo.job.sweep', 0) AS k
		WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.classid::bigint = (k >> 32) & 4294967295 AND l.objid::bigint = k & 4294967295`,
		schema).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminating the holder: %d backends, %v", killed, err)
	}
	ran, err := b.RunJob(ctx, "sweep", p3, "b", count)
	for deadline := time.Now().Add(10 * time.Second); err == nil && !ran && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond) // the backend's exit frees the lock
		ran, err = b.RunJob(ctx, "sweep", p3, "b", count)
	}
	if err != nil || !ran {
		t.Fatalf("after the holder died: ran %v, %v; want the lease taken over", ran, err)
	}
	releaseOnce.Do(func() { close(release) })
	if err := <-done; err == nil {
		t.Fatal("the dead holder's run reported no error")
	}

	got, err := b.JobRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sweep@" + p1.String(): "", "reflect@" + p1.String(): "b", "sweep@" + p2.String(): "b", "sweep@" + p3.String(): "b"}
	if len(got) != len(want) {
		t.Fatalf("job runs: %+v, want %d", got, len(want))
	}
	for _, r := range got {
		h, ok := want[r.Job+"@"+r.Period.UTC().String()]
		if !ok || (h != "" && r.Holder != h) {
			t.Errorf("unexpected run %+v", r)
		}
	}
}

// The lease is a transaction's, so it holds behind PgBouncer in
// transaction mode (PG-7, PG-10), where a session advisory lock could be
// taken on one server connection and released on another.
func TestRunJobPgBouncer(t *testing.T) {
	dsn := pgtest.PgBouncer(t)
	schema := newSchema(t, dsn)
	opts := postgres.Options{MaxConns: 4, Pooler: postgres.PoolerTransaction, Schema: schema}
	a, b := open(t, dsn, opts), open(t, dsn, opts)
	period := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var runs atomic.Int32
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			db := a
			if i%2 == 1 {
				db = b
			}
			if _, err := db.RunJob(t.Context(), "reflect", period, "s", func(context.Context) error {
				runs.Add(1)
				time.Sleep(50 * time.Millisecond) // the others ask meanwhile
				return nil
			}); err != nil {
				t.Errorf("run job: %v", err)
			}
		})
	}
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("the period ran %d times through PgBouncer, want once", n)
	}
}
