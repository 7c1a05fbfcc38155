// Package failover keeps mnemo answering while its database is unreachable
// (seed 000 FR-8.3): a Store over a primary store (PostgreSQL) and a local
// spool (a files.Store in a directory of its own).
//
// While the primary answers, every call goes to it. When a call finds it
// unreachable (error code unavailable), acknowledged writes go to the spool,
// durably (fsync, as files.Store does by default), and reads answer from
// what the spool holds, flagged degraded. A background loop probes the
// primary; once it answers again the spool is replayed into it in the order
// it was written, idempotently (the same ids; a record the primary already
// has, or has a later write of, is skipped, so a replay done twice changes
// nothing), the spool's ledger entries follow, and the spool is emptied.
// Nothing acknowledged is lost: a record leaves the spool only after the
// primary has stored it.
//
// While down, forgets, clears, lifecycle changes and state documents need
// the primary and fail with unavailable; accesses (Touch) are not recorded.
package failover

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
)

// Primary is the store failover protects: a database with every ability
// the Service uses.
type Primary interface {
	mnemo.LifecycleStore
	mnemo.StateStore
	mnemo.VectorStore
}

// Pinger is a Primary that can say cheaply whether it is reachable. Others
// are probed with Stats of a scope of no one.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Options configure a Store.
type Options struct {
	// ProbeEvery is how often an unreachable primary is tried again
	// (DefaultProbeEvery when zero).
	ProbeEvery time.Duration
	// ReplayBatch is how many spooled records are written to the primary
	// in one batch (DefaultReplayBatch when zero).
	ReplayBatch int
	// NoSync skips the spool's fsync after each write: for tests and
	// benchmarks only, since an acknowledged write could then be lost.
	NoSync bool
	Logger *slog.Logger
	// Registerer, when set, gets the failover's metrics.
	Registerer prometheus.Registerer
	Now        func() time.Time
}

// Defaults.
const (
	DefaultProbeEvery  = 5 * time.Second
	DefaultReplayBatch = 256
)

// Store is a mnemo.Store (and LifecycleStore, StateStore, VectorStore) over
// a primary and a spool. It is safe for concurrent use.
type Store struct {
	open     func(context.Context) (Primary, error)
	spoolDir string
	opts     Options
	log      *slog.Logger
	m        *metrics

	// gate is held shared by every call and exclusively by the end of a
	// replay, which flips the store back up with nothing in flight.
	gate    sync.RWMutex
	down    atomic.Bool
	primary atomic.Pointer[primaryBox] // nil until the primary opens

	// replayMu serialises replays (the probe loop's and Replay's).
	// Nothing but writes changes the spool (forgets and clears need the
	// primary), so a replay's first pass stays a prefix of the spool.
	replayMu sync.Mutex
	spoolMu  sync.Mutex   // guards spool (swapped when emptied) and touched
	spool    *files.Store // nil after Close
	touched  map[mnemo.Scope]bool
	spooled  atomic.Int64 // records in the spool: written while down, until a replay empties it

	stop context.CancelFunc
	done chan struct{}
}

type primaryBox struct{ p Primary }

var (
	_ mnemo.Store          = (*Store)(nil)
	_ mnemo.LifecycleStore = (*Store)(nil)
	_ mnemo.StateStore     = (*Store)(nil)
	_ mnemo.VectorStore    = (*Store)(nil)
)

// New returns a Store over the primary that open opens and the spool in
// spoolDir. A primary that cannot be reached at once is no error: the
// store starts down, spooling, and keeps trying open. Any other error of
// open is returned. A spool left non-empty by an earlier process is
// replayed as soon as the primary answers.
func New(ctx context.Context, open func(context.Context) (Primary, error), spoolDir string, opts Options) (*Store, error) {
	if opts.ProbeEvery <= 0 {
		opts.ProbeEvery = DefaultProbeEvery
	}
	if opts.ReplayBatch <= 0 {
		opts.ReplayBatch = DefaultReplayBatch
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Store{open: open, spoolDir: spoolDir, opts: opts, log: opts.Logger, touched: map[mnemo.Scope]bool{}}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	s.m = m
	if s.spool, err = s.openSpool(ctx); err != nil {
		return nil, err
	}
	n, err := s.countSpool(ctx)
	if err != nil {
		s.spool.Close()
		return nil, err
	}
	s.spooled.Store(int64(n))
	s.m.pending.Set(float64(n))

	p, err := open(ctx)
	switch {
	case err == nil:
		s.primary.Store(&primaryBox{p})
	case unreachable(err):
		s.log.Warn("database unreachable at start: writes go to the local spool until it answers", "spool", spoolDir, "err", err)
		s.setDown(err)
	default:
		s.spool.Close()
		return nil, err
	}
	if s.primary.Load() != nil && n > 0 {
		// Left by an earlier process: replay before anything is read.
		s.down.Store(true)
		if _, err := s.Replay(ctx); err != nil {
			s.log.Warn("replaying the spool left by an earlier run failed; retrying in the background", "err", err)
		}
	}
	s.m.up.Set(boolFloat(!s.down.Load()))
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = cancel, make(chan struct{})
	go s.probe(lctx)
	return s, nil
}

func (s *Store) openSpool(ctx context.Context) (*files.Store, error) {
	sp, err := files.OpenStore(ctx, s.spoolDir, files.StoreOptions{NoSync: s.opts.NoSync, Logger: s.log, Now: s.opts.Now})
	if err != nil {
		return nil, fmt.Errorf("failover: open the spool in %s: %w", s.spoolDir, err)
	}
	return sp, nil
}

// countSpool counts the records the spool holds.
func (s *Store) countSpool(ctx context.Context) (int, error) {
	n := 0
	err := s.spoolStore().Replay(ctx, func(mnemo.Scope, mnemo.Record) error { n++; return nil })
	return n, err
}

func (s *Store) spoolStore() *files.Store {
	s.spoolMu.Lock()
	defer s.spoolMu.Unlock()
	return s.spool
}

// Up reports whether the primary is answering and the spool is replayed.
func (s *Store) Up() bool { return !s.down.Load() }

// Spooled returns how many records wait in the spool.
func (s *Store) Spooled() int { return int(s.spooled.Load()) }

// Close stops probing and closes the primary and the spool. Records still
// in the spool stay there, for the next process to replay.
func (s *Store) Close() error {
	if s.stop != nil {
		s.stop()
		<-s.done
	}
	var errs []error
	if b := s.primary.Load(); b != nil {
		errs = append(errs, b.p.Close())
	}
	s.spoolMu.Lock()
	if s.spool != nil {
		errs = append(errs, s.spool.Close())
		s.spool = nil
	}
	s.spoolMu.Unlock()
	return errors.Join(errs...)
}

// unreachable says whether err means the primary cannot be reached.
func unreachable(err error) bool {
	return err != nil && mnemo.ErrorCode(err) == mnemo.EUNAVAILABLE
}

// setDown marks the primary unreachable.
func (s *Store) setDown(err error) {
	if s.down.Swap(true) {
		return
	}
	s.m.up.Set(0)
	s.m.outages.Inc()
	s.log.Warn("database unreachable: writes go to the local spool and reads answer from it until it is back", "spool", s.spoolDir, "err", err)
}

// primaryOf returns the primary, or nil while it is down or not open.
func (s *Store) primaryOf() Primary {
	if s.down.Load() {
		return nil
	}
	if b := s.primary.Load(); b != nil {
		return b.p
	}
	return nil
}

// probe tries the primary every ProbeEvery while it is down, and replays
// the spool once it answers.
func (s *Store) probe(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.opts.ProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.down.Load() {
			continue
		}
		if err := s.ping(ctx); err != nil {
			s.log.Debug("database still unreachable", "err", err)
			continue
		}
		s.log.Info("database reachable again: replaying the spool", "records", s.spooled.Load())
		if _, err := s.Replay(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("replaying the spool failed; retrying", "err", err)
		}
	}
}

// probeScope is a scope of no one, read to see whether the primary answers.
var probeScope = mnemo.Scope{TenantID: "mnemo-probe", AgentID: "mnemo-probe"}

func (s *Store) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(s.opts.ProbeEvery, time.Second))
	defer cancel()
	b := s.primary.Load()
	if b == nil {
		p, err := s.open(ctx)
		if err != nil {
			return err
		}
		b = &primaryBox{p}
		s.primary.Store(b)
	}
	if p, ok := b.p.(Pinger); ok {
		return p.Ping(ctx)
	}
	_, err := b.p.Stats(ctx, probeScope)
	return err
}

// noteSpooled ledgers, once per scope and outage, that the scope's writes
// go to the spool.
func (s *Store) noteSpooled(ctx context.Context, sp *files.Store, scope mnemo.Scope) {
	s.spoolMu.Lock()
	first := !s.touched[scope]
	s.touched[scope] = true
	s.spoolMu.Unlock()
	if !first {
		return
	}
	err := sp.AppendLedger(ctx, scope, []mnemo.LedgerEntry{{
		At: s.opts.Now().UTC(), Action: mnemo.ActionDegrade, Actor: "system",
		Reason: "database unreachable: writes kept in the local spool until it is back",
	}})
	if err != nil {
		s.log.Warn("ledger entry lost", "err", err)
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// removeSpool empties the spool by replacing its directory; it runs with
// the gate held exclusively.
func (s *Store) removeSpool(ctx context.Context) error {
	s.spoolMu.Lock()
	defer s.spoolMu.Unlock()
	if s.spool == nil {
		return nil
	}
	if err := s.spool.Close(); err != nil {
		return err
	}
	s.spool = nil
	old := s.spoolDir + ".replayed"
	os.RemoveAll(old)
	// Renamed first, so that a crash leaves either the whole spool (to
	// replay again, harmlessly) or none of it.
	if err := os.Rename(s.spoolDir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		sp, oerr := s.openSpool(ctx)
		if oerr == nil {
			s.spool = sp
		}
		return errors.Join(err, oerr)
	}
	os.RemoveAll(old)
	sp, err := s.openSpool(ctx)
	if err != nil {
		return err
	}
	s.spool = sp
	s.touched = map[mnemo.Scope]bool{}
	return nil
}
