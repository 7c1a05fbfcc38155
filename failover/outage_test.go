package failover_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
)

// writeBound is what the outage tests allow one write in quiet-machine
// time (a wait divided by the machine's slowdown as it ends, QUAL-3):
// FailoverAfter (2 s by default) and slack. The point is that no write
// waits for a driver's or a client's timeout (30 s), or for the replay.
const writeBound = 5 * time.Second

// writeLog keeps what writers were acknowledged and how long they waited.
type writeLog struct {
	mu     sync.Mutex
	acked  []mnemo.Memory
	last   map[string]mnemo.Memory // key → its last acknowledged write
	failed []error
	worst  time.Duration // the longest wait, in quiet-machine time
}

// waited counts a write's wait of d; l.mu is held.
func (l *writeLog) waited(d time.Duration) {
	l.worst = max(l.worst, time.Duration(float64(d)/testwait.Scale()))
}

// remember writes d through svc, timing it, and logs the outcome.
func (l *writeLog) remember(ctx context.Context, svc *service.Mnemo, scope mnemo.Scope, d mnemo.Draft) (mnemo.Memory, error) {
	start := time.Now()
	m, err := svc.Remember(ctx, scope, d)
	took := time.Since(start)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waited(took)
	if err != nil {
		l.failed = append(l.failed, err)
		return m, err
	}
	l.acked = append(l.acked, m)
	if d.Key != "" {
		l.last[d.Key] = m
	}
	return m, nil
}

func (l *writeLog) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.acked) }

// PG-9: with writers running before, throughout and after
// an outage of PostgreSQL (connections reset, or swallowed by a black
// hole), and a spool of thousands of records replayed when it is back:
// no write fails or waits longer than writeBound (those in flight at the
// cut included), none acknowledged is lost, a key ends with its newest
// value whether it was written before, during or after the outage or while
// the spool was replayed, reads answer during the replay, and the spool is
// emptied.
func TestOutageWritersNeverWait(t *testing.T) {
	for _, mode := range []string{"reset", "blackhole"} {
		t.Run(mode, func(t *testing.T) { testOutage(t, mode) })
	}
}

func testOutage(t *testing.T, mode string) {
	ctx := context.Background()
	direct := pgtest.Native(t)
	px, dsn := newProxy(t, direct)
	fs, err := failover.New(ctx, opener(dsn), filepath.Join(t.TempDir(), "spool"),
		failover.Options{ProbeEvery: 50 * time.Millisecond, ReplayBatch: 50})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(fs, service.Options{}) // the Write Guard on: it reads before each write
	defer svc.Close()
	log := &writeLog{last: map[string]mnemo.Memory{}}

	// Writers, each with keys of its own, so that its last write of a key
	// is the key's newest.
	const writers = 3
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				d := mnemo.Draft{Content: str(fmt.Sprintf("writer %d took note %d of the ongoing migration", w, i))}
				if i%2 == 0 {
					d.Key = fmt.Sprintf("/writer/%d/topic/%d", w, i/2%4)
					d.Content = str(fmt.Sprintf("writer %d set topic %d for the %d-th time", w, i/2%4, i/2))
				}
				log.remember(ctx, svc, alice, d)
			}
		}()
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		testwait.Until(t, time.Minute, what, cond)
	}
	n0 := 30
	waitFor("writes before the outage", func() bool { return log.count() >= n0 })

	cut := time.Now()
	if mode == "reset" {
		px.down()
	} else {
		px.blackhole()
	}
	// A spool of thousands: keyed records whose keys are written again
	// while it is replayed, and keyless ones.
	bulk, bulkKeys := 1500, 100
	if raceEnabled {
		bulk = 300 // make unit runs it at full size without -race too
	}
	var spooledID string
	for j := 0; j < bulk; j += 50 {
		drafts := make([]mnemo.Draft, 50)
		for k := range drafts {
			drafts[k] = mnemo.Draft{Content: str(fmt.Sprintf("outage record %d: service %d deployed to region %d", j+k, (j+k)%37, (j+k)%11))}
			if k%2 == 0 {
				drafts[k].Key = fmt.Sprintf("/bulk/%d", (j+k)%bulkKeys)
			}
		}
		start := time.Now()
		res, err := svc.Write(ctx, alice, drafts)
		log.mu.Lock()
		log.waited(time.Since(start))
		log.mu.Unlock()
		if err != nil {
			t.Fatalf("bulk write during the outage: %v", err)
		}
		log.mu.Lock()
		for k, r := range res {
			log.acked = append(log.acked, r.Memory)
			if drafts[k].Key != "" {
				log.last[drafts[k].Key] = r.Memory
			} else if spooledID == "" {
				spooledID = r.Memory.ID
			}
		}
		log.mu.Unlock()
	}
	if fs.Up() || fs.Spooled() < bulk {
		t.Fatalf("during the outage: up %v, %d spooled", fs.Up(), fs.Spooled())
	}
	time.Sleep(time.Until(cut.Add(3 * time.Second))) // the writers keep writing
	n1 := log.count()

	// The replay's first pass waits for the first rewrites below, so that
	// some land before it applies anything and the rest beside its passes
	// however the machine schedules them.
	const heldFor = 10
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	defer release()
	var held sync.Once
	fs.SetBeforePass(func() { held.Do(func() { <-hold }) })
	px.up()
	waitFor("the replay to start", fs.Replaying)
	// Keys of the spool written again while it is replayed, and reads.
	var duringReplay int
	for j := 0; j < bulkKeys && fs.Replaying(); j++ {
		if j == heldFor {
			release()
		}
		d := mnemo.Draft{Key: fmt.Sprintf("/bulk/%d", j), Content: str(fmt.Sprintf("bulk key %d rewritten while the spool was replayed", j))}
		if _, err := log.remember(ctx, svc, alice, d); err == nil {
			duringReplay++
		}
		if j == 0 {
			if m, err := svc.Get(ctx, alice, spooledID); err != nil || m.ID != spooledID {
				t.Errorf("a spooled memory read during the replay: %+v %v", m, err)
			}
			if _, err := svc.Recall(ctx, alice, memory.Query{Text: "outage record service deployed"}); err != nil {
				t.Errorf("recall during the replay: %v", err)
			}
		}
	}
	release()
	waitUp(t, fs)
	n2 := log.count()
	waitFor("writes after the replay", func() bool { return log.count() >= n2+30 })
	close(stop)
	wg.Wait()

	log.mu.Lock()
	defer log.mu.Unlock()
	t.Logf("%s: %d writes acknowledged (%d before the cut, %d during the outage, %d while replaying, %d after), worst wait %v of quiet-machine time",
		mode, len(log.acked), n0, n1-n0, duringReplay, len(log.acked)-n2, log.worst)
	if len(log.failed) > 0 {
		t.Errorf("%d writes failed, the first: %v", len(log.failed), log.failed[0])
	}
	if log.worst > writeBound {
		t.Errorf("a write waited %v of quiet-machine time (bound %v)", log.worst, writeBound)
	}
	if duringReplay == 0 {
		t.Errorf("no write landed while the spool was replayed: the test proved nothing of last-write-wins across it")
	}
	if fs.Spooled() != 0 {
		t.Errorf("%d records left in the spool", fs.Spooled())
	}

	db, err := postgres.Open(ctx, direct, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range log.acked {
		if m.Key != "" {
			continue
		}
		if got, err := db.Get(ctx, alice, m.ID); err != nil || got.Content != m.Content {
			t.Fatalf("acknowledged %s (%q) is missing: %v", m.ID, m.Content, err)
		}
	}
	for key, m := range log.last {
		if got, err := db.GetByKey(ctx, alice, key); err != nil || got.Content != m.Content {
			t.Errorf("key %s: %q, want its last write %q (%v)", key, got.Content, m.Content, err)
		}
	}
}

// A call that finds the primary unreachable while the spool is replayed
// (a pooled connection the outage reset, say) marks the store down again,
// and writes go back to the spool. The replay must try the primary again
// rather than chase those writes pass after pass: with writers that never
// pause, it otherwise never ends, and the store is never up again (seen as
// TestOutageWritersNeverWait's "the spool was never replayed" on a loaded
// machine).
func TestReplayEndsWhileWritersSpool(t *testing.T) {
	ctx := context.Background()
	// No probe rounds after the first: the test calls Replay itself.
	fs, err := failover.New(ctx, opener(pgtest.Native(t)), filepath.Join(t.TempDir(), "spool"),
		failover.Options{ProbeEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu    sync.Mutex
		acked []string
	)
	svc := service.New(fs, service.Options{})
	defer svc.Close()
	write := func(i int) error {
		m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(fmt.Sprintf("note %d written while the spool is replayed", i))})
		if err == nil {
			mu.Lock()
			acked = append(acked, m.ID)
			mu.Unlock()
		}
		return err
	}
	// The probe's first round, which may come after SetDown, finds the
	// primary answering and sends calls to it: mark it down until the
	// spool holds what was written.
	first := 0
	for ; fs.Spooled() < 20; first++ {
		fs.SetDown(errors.New("test: a call found the database unreachable"))
		if err := write(first); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		injected := false
		for i := first; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if !injected && fs.Replaying() {
				// The replay has begun: one call now fails.
				fs.SetDown(errors.New("test: a call found the database unreachable"))
				injected = true
			}
			if err := write(i); err != nil {
				t.Errorf("write %d: %v", i, err)
				return
			}
		}
	})
	replayed := make(chan error, 1)
	go func() { _, err := fs.Replay(ctx); replayed <- err }()
	select {
	case err := <-replayed:
		if err != nil {
			t.Errorf("replay: %v", err)
		}
	case <-testwait.After(t, time.Minute):
		t.Errorf("the replay went on for a minute of quiet-machine time beside a writer (%d records wait)", fs.Spooled())
	}
	close(stop)
	wg.Wait()
	if !fs.Up() {
		// The failing call may come after the replay's last pass, while
		// it still counts as replaying: the store is down again with what
		// was written since in the spool, for the probe's next round.
		// Do that round here.
		if _, err := fs.Replay(ctx); err != nil {
			t.Fatalf("the second replay: %v", err)
		}
	}
	if !fs.Up() {
		t.Fatalf("after the replay the store is not up: %d records wait", fs.Spooled())
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range acked {
		if _, err := fs.Get(ctx, alice, id); err != nil {
			t.Fatalf("acknowledged %s is missing after the replay: %v", id, err)
		}
	}
	t.Logf("%d writes acknowledged, all in the database", len(acked))
}
