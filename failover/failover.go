// Package failover keeps mnemo answering while its database is unreachable
// (PG-4, PG-7): a Store over a primary store (PostgreSQL) and a local
// spool (a files.Store in a directory of its own).
//
// The store is in one of three states:
//
//   - up: every call goes to the primary. A call a request waits on (writes,
//     ledger and lifecycle appends, Get, GetByKey, Search, Touch, state
//     documents, the vector space and vector search) gets one attempt of at
//     most Options.FailoverAfter (2 s by default): when the primary fails it
//     as unreachable (error code unavailable) or does not answer in time
//     (a connection reset, or a network that swallows packets), the store
//     goes down and the call is answered otherwise — a write lands in the
//     spool and is acknowledged, so a write in flight at the cut waits at
//     most FailoverAfter (plus the spool's fsync), never the driver's or the
//     client's timeout.
//   - down: no call waits on the primary. Acknowledged writes go to the
//     spool, durably (fsync, as files.Store does by default); reads answer
//     from what the spool holds, flagged degraded; forgets, clears,
//     lifecycle changes and state documents fail with unavailable; accesses
//     (Touch) are not recorded. A background loop probes the primary every
//     Options.ProbeEvery (1 s by default).
//   - replaying: the probe found the primary answering and the spool is not
//     empty. New writes go to the primary at once; the spool is replayed into
//     it in the background, in the order it was written, in batches
//     (Options.ReplayBatch records of one scope: one transaction each, which
//     looks up what the primary has and writes the rest), several at a time on a connection pool of the
//     replay's own (a key's records always in the same lane, in order). No
//     write waits on the replay, nor for a connection it holds.
//
// Last-write-wins stays right across spooled and new writes because a
// replayed record keeps the UpdatedAt its write was stamped with, and the
// primary decides every keyed write by UpdatedAt (mnemo.Store.Write): a
// record spooled during the outage is older than a write of the same key
// made after the primary answered again, so when the replay brings it, it
// loses, whichever of the two reaches the database first. A write that
// loses is not dropped: the primary keeps it in the key's history,
// unapplied, at the time it was acknowledged (PG-7). The replay is
// idempotent (Replayer): the primary skips, in the batch's own
// transaction, a record it has seen (its id, or its key's revision of the
// same time), and one of a key deleted since, so a replay cut and done
// again, or done twice, by this server or another, changes nothing.
//
// While replaying, reads go to the primary, which has everything but the
// spooled records not yet replayed (a few seconds' worth: the replay takes
// thousands of records a second). So that a client finds what it wrote
// during the outage, and the Write Guard compares a new write of a key with
// the key's newest value: Get falls back to the spool for an id the primary
// lacks, and GetByKey answers with the newer of the primary's and the
// spool's revision of the key (a tombstone included). Search and Stats
// answer from the primary, flagged degraded with cause mnemo.DegradedStore
// and the number of records still to replay. Forget and Clear fail with
// unavailable until the replay ends (the replay would bring back a spooled
// record of what they delete).
//
// The replay ends with a short exclusive section: once a pass over the
// spool finds nothing it has not replayed and no spool write happened
// since, the spool's ledger entries have followed, the spool is emptied
// (renamed away, then removed) and the store is up. Only a write being
// spooled at that instant (the primary failed it) waits for it, for a
// rename. Nothing acknowledged is lost: a record leaves the spool only
// after the primary has stored it, and a spool left by a process that
// stopped is replayed by the next one.
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
	"github.com/mnemo-dev/mnemo/internal/panics"
)

// Primary is the store failover protects: a database with every ability
// the Service uses, a batched lookup, and the replay's idempotent write.
type Primary interface {
	mnemo.LifecycleStore
	mnemo.StateStore
	mnemo.VectorStore
	mnemo.ContextIndexer
	BatchLookup
	Replayer
}

// Replayer writes a batch of spooled records, as acknowledged while the
// primary was out of reach, so that writing them again changes nothing
// (PG-7, PG-10): in one transaction, it skips a record the scope has seen
// (a keyless one by its id, a keyed one by its key's revision of the same
// UpdatedAt and op) and a keyed one whose key was deleted (forgotten,
// cleared) at or after its UpdatedAt; it keeps a keyed record older than
// its key's stored write in the key's history, unapplied, at its
// UpdatedAt, the memory unchanged; it writes the others as Write does. It
// returns how many records it stored, applied or kept in history.
type Replayer interface {
	ReplayWrites(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) (int, error)
}

// BatchLookup answers, in one call, which of ids the scope holds, and for
// each of keys that has a row (live or tombstone), the UpdatedAt of that
// row.
type BatchLookup interface {
	Lookup(ctx context.Context, scope mnemo.Scope, ids, keys []string) (map[string]bool, map[string]time.Time, error)
}

// Pinger is a Primary that can say cheaply whether it is reachable. Others
// are probed with Stats of a scope of no one.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Options configure a Store.
type Options struct {
	// FailoverAfter bounds one attempt at a call on the primary that a
	// request waits on (see the package doc): past it the primary is taken
	// for unreachable and the call is answered from the spool
	// (DefaultFailoverAfter when zero).
	FailoverAfter time.Duration
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
	DefaultFailoverAfter = 2 * time.Second
	DefaultProbeEvery    = time.Second
	DefaultReplayBatch   = 1000
)

// openTimeout bounds one attempt of the probe at opening the primary,
// which migrates its schema: longer than a call.
const openTimeout = 30 * time.Second

// Store is a mnemo.Store (and LifecycleStore, StateStore, VectorStore) over
// a primary and a spool. It is safe for concurrent use.
type Store struct {
	open     func(context.Context) (Primary, error)
	spoolDir string
	opts     Options
	log      *slog.Logger
	m        *metrics

	down    atomic.Bool
	primary atomic.Pointer[primaryBox] // nil until the primary opens

	// beforePass, when set (by tests only), is called before each pass of
	// a replay, so that a test can hold one open.
	beforePass atomic.Pointer[func()]

	// spoolMu guards spool: held shared by every call that uses the spool,
	// for the whole call, and exclusively to swap it for an empty one at
	// the end of a replay, so that nothing is written into a spool being
	// removed.
	spoolMu sync.RWMutex
	spool   *files.Store // nil after Close
	// dirty says the spool holds records or ledger entries to replay;
	// writes says how many calls wrote to it (both changed under spoolMu
	// held shared, read under it held exclusively).
	dirty   atomic.Bool
	writes  atomic.Int64
	spooled atomic.Int64 // records in the spool, not yet replayed
	// busy is set while a replay runs: the store is up only once it has
	// ledgered what it did.
	busy atomic.Bool

	touchedMu sync.Mutex
	touched   map[mnemo.Scope]bool // scopes ledgered as spooling, this outage

	// replayMu serialises replays (the probe loop's and Replay's) and
	// guards what a replay cut short leaves for the next.
	replayMu sync.Mutex
	replay   replayState

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
// replayed in the background as soon as the primary answers.
func New(ctx context.Context, open func(context.Context) (Primary, error), spoolDir string, opts Options) (*Store, error) {
	if opts.FailoverAfter <= 0 {
		opts.FailoverAfter = DefaultFailoverAfter
	}
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
	// Ledger entries alone are worth a replay too.
	scopes, err := s.spool.Scopes(ctx)
	if err != nil {
		s.spool.Close()
		return nil, err
	}
	s.dirty.Store(n > 0 || len(scopes) > 0)

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
	s.m.up.Set(boolFloat(s.Up()))
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = cancel, make(chan struct{})
	go s.probe(lctx)
	return s, nil
}

func (s *Store) openSpool(ctx context.Context) (*files.Store, error) {
	// Never compacted: the replay reads the spool as a log it has read a
	// prefix of.
	sp, err := files.OpenStore(ctx, s.spoolDir, files.StoreOptions{NoSync: s.opts.NoSync, CompactEvery: -1, Logger: s.log, Now: s.opts.Now})
	if err != nil {
		return nil, fmt.Errorf("failover: open the spool in %s: %w", s.spoolDir, err)
	}
	return sp, nil
}

// countSpool counts the records the spool holds.
func (s *Store) countSpool(ctx context.Context) (int, error) {
	n := 0
	err := s.spool.Replay(ctx, func(mnemo.Scope, mnemo.Record) error { n++; return nil })
	return n, err
}

// withSpool runs fn on the spool, held shared.
func (s *Store) withSpool(fn func(*files.Store) error) error {
	s.spoolMu.RLock()
	defer s.spoolMu.RUnlock()
	if s.spool == nil {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	return fn(s.spool)
}

// Up reports whether the primary is answering and the spool is replayed.
func (s *Store) Up() bool { return !s.down.Load() && !s.dirty.Load() && !s.busy.Load() }

// Replaying reports whether the primary answers and the spool is still
// being replayed into it.
func (s *Store) Replaying() bool { return !s.down.Load() && (s.dirty.Load() || s.busy.Load()) }

// Spooled returns how many records wait in the spool.
func (s *Store) Spooled() int { return int(s.spooled.Load()) }

// Close stops the probe loop and any replay, waits for them, and closes
// the primary and the spool. Records still in the spool stay there, for
// the next process to replay.
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
// the spool, in the background, while it answers and the spool is not
// empty.
func (s *Store) probe(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.opts.ProbeEvery)
	defer t.Stop()
	for {
		// A panic in one round is logged and the next round tries again:
		// the probe is what brings the database back.
		_ = panics.Call(s.log, "failover probe", func() error {
			if err := s.reconnect(ctx); err != nil {
				s.log.Debug("database still unreachable", "err", err)
			}
			if s.Replaying() {
				if _, err := s.Replay(ctx); err != nil && ctx.Err() == nil {
					s.log.Warn("replaying the spool failed; retrying", "err", err)
				}
			}
			return nil
		})
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reconnect pings a primary that is down or not open and, when it
// answers, sends calls to it again.
func (s *Store) reconnect(ctx context.Context) error {
	if !s.down.Load() && s.primary.Load() != nil {
		return nil
	}
	if err := s.ping(ctx); err != nil {
		return err
	}
	if s.down.Swap(false) {
		s.log.Info("database reachable again: calls go to it; replaying the spool in the background", "records", s.spooled.Load())
	}
	s.m.up.Set(boolFloat(s.Up()))
	return nil
}

// probeScope is a scope of no one, read to see whether the primary answers.
var probeScope = mnemo.Scope{TenantID: "mnemo-probe", AgentID: "mnemo-probe"}

func (s *Store) ping(ctx context.Context) error {
	b := s.primary.Load()
	if b == nil {
		octx, cancel := context.WithTimeout(ctx, openTimeout)
		p, err := s.open(octx)
		cancel()
		if err != nil {
			return err
		}
		b = &primaryBox{p}
		s.primary.Store(b)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.FailoverAfter)
	defer cancel()
	if p, ok := b.p.(Pinger); ok {
		return p.Ping(ctx)
	}
	_, err := b.p.Stats(ctx, probeScope)
	return err
}

// noteSpooled ledgers, once per scope and outage, that the scope's writes
// go to the spool.
func (s *Store) noteSpooled(ctx context.Context, sp *files.Store, scope mnemo.Scope) {
	s.touchedMu.Lock()
	first := !s.touched[scope]
	s.touched[scope] = true
	s.touchedMu.Unlock()
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

// swapSpool replaces the spool by an empty one, with spoolMu held
// exclusively, and returns the directory the old one was renamed to, for
// the caller to remove once it has let go of spoolMu.
func (s *Store) swapSpool(ctx context.Context) (string, error) {
	if s.spool == nil {
		return "", nil
	}
	if err := s.spool.Close(); err != nil {
		return "", err
	}
	s.spool = nil
	old := s.spoolDir + ".replayed"
	os.RemoveAll(old) // left by a crash
	// Renamed first, so that a crash leaves either the whole spool (to
	// replay again, harmlessly) or none of it.
	if err := os.Rename(s.spoolDir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		sp, oerr := s.openSpool(ctx)
		if oerr == nil {
			s.spool = sp
		}
		return "", errors.Join(err, oerr)
	}
	sp, err := s.openSpool(ctx)
	if err != nil {
		return old, err
	}
	s.spool = sp
	return old, nil
}
