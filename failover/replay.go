package failover

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/internal/panics"
)

// replayLanes is how many batches a replay writes at once, each on a
// connection of the replay's own pool.
const replayLanes = 4

// replayChunk is how many spooled records one pass of a replay holds in
// memory; a longer spool takes several passes.
const replayChunk = 50_000

// batchTimeout bounds one batch of a replay (a write transaction of up to
// ReplayBatch records): past it the primary is taken for unreachable and
// the replay is tried again at the next probe.
const batchTimeout = 30 * time.Second

// spooled is one record of the spool with its scope.
type spooled struct {
	scope mnemo.Scope
	rec   mnemo.Record
}

// replayState is how far replays got into the spool, kept from one replay
// to the next until the spool is emptied.
type replayState struct {
	records  int                   // records replayed, from the spool's start
	ledger   map[mnemo.Scope]int64 // per scope, the last ledger entry replayed (its Seq)
	perScope map[mnemo.Scope]int   // records the primary took, per scope
}

// errChunkFull stops a pass over the spool once it holds replayChunk records.
var errChunkFull = errors.New("failover: replay chunk full")

// Replay writes what the spool holds into the primary, in the order it was
// written, in batches, then its ledger entries; empties the spool and marks
// the store up. It is idempotent (Replayer): a record the primary has
// seen, or one of a key deleted since, is skipped, and one that loses
// last-write-wins is kept in history only, so that a replay interrupted
// and done again, or done twice, changes nothing. It returns how many
// records the primary took, applied or kept in history.
//
// The probe loop calls it in the background when the primary answers
// again; calls go to the primary meanwhile and never wait for it.
func (s *Store) Replay(ctx context.Context) (int, error) {
	if err := s.reconnect(ctx); err != nil {
		return 0, err
	}
	s.replayMu.Lock()
	defer s.replayMu.Unlock()
	s.busy.Store(true)
	defer s.busy.Store(false)
	// A connection pool of its own, so that requests never wait for a
	// connection the replay holds; the shared one if it cannot be had.
	p := s.primary.Load().p
	octx, cancel := context.WithTimeout(ctx, openTimeout)
	own, err := s.open(octx)
	cancel()
	if err == nil {
		defer own.Close()
		p = own
	} else if ctx.Err() == nil {
		s.log.Warn("replaying through the shared connections", "err", err)
	}
	if s.replay.ledger == nil {
		s.replay.ledger, s.replay.perScope = map[mnemo.Scope]int64{}, map[mnemo.Scope]int{}
	}
	took := 0
	for {
		// A call that failed on the shared connections while this replay
		// ran (one reset by the outage, say) marked the store down again,
		// and the writes since went to the spool: until the primary is
		// tried again they keep coming faster than a pass empties them,
		// and the replay, which the probe loop waits on, never ends.
		if err := s.reconnect(ctx); err != nil {
			s.m.replays.WithLabelValues("failed").Inc()
			return took, err
		}
		if f := s.beforePass.Load(); f != nil {
			(*f)()
		}
		// Every spool write counted before the pass is in it.
		gen := s.writes.Load()
		recs, more, err := s.collect(ctx, s.replay.records)
		var n int
		if err == nil {
			n, err = s.apply(ctx, p, recs)
			took += n
		}
		if err == nil && !more {
			err = s.replayLedger(ctx, p)
		}
		if err != nil {
			s.m.replays.WithLabelValues("failed").Inc()
			return took, err
		}
		if more {
			continue
		}
		done, err := s.finish(ctx, gen)
		if err != nil {
			// Replayed all the same; a later replay skips what is there.
			s.log.Error("emptying the replayed spool failed", "spool", s.spoolDir, "err", err)
		}
		if done {
			break
		}
	}
	summary := s.replay.perScope
	s.replay = replayState{}
	for sc, n := range summary {
		if n == 0 {
			continue // nothing replayed (a spool replayed again): nothing to say
		}
		// Through the store: into the spool, replayed later, if the
		// primary has gone again.
		err := s.AppendLedger(ctx, sc, []mnemo.LedgerEntry{{
			At: s.opts.Now().UTC(), Action: mnemo.ActionDegrade, Actor: "system",
			Reason: fmt.Sprintf("database reachable again: %d memories replayed from the local spool", n),
		}})
		if err != nil {
			s.log.Warn("ledger entry lost", "err", err)
		}
	}
	s.m.replays.WithLabelValues("ok").Inc()
	s.m.up.Set(boolFloat(!s.down.Load() && !s.dirty.Load()))
	s.log.Info("spool replayed: the database has everything again", "records", took)
	return took, nil
}

// finish empties the spool and marks it clean if nothing was written to it
// since gen; it holds spoolMu exclusively, for a rename.
func (s *Store) finish(ctx context.Context, gen int64) (bool, error) {
	s.spoolMu.Lock()
	if s.writes.Load() != gen {
		s.spoolMu.Unlock()
		return false, nil
	}
	old, err := s.swapSpool(ctx)
	s.dirty.Store(false)
	s.spooled.Store(0)
	s.m.pending.Set(0)
	s.spoolMu.Unlock()
	s.touchedMu.Lock()
	s.touched = map[mnemo.Scope]bool{}
	s.touchedMu.Unlock()
	if old != "" {
		if rerr := os.RemoveAll(old); rerr != nil {
			s.log.Warn("removing the replayed spool failed", "dir", old, "err", rerr)
		}
	}
	return true, err
}

// collect reads the records of the spool after its first skip, in order,
// at most replayChunk of them; more says there are others after those.
func (s *Store) collect(ctx context.Context, skip int) (recs []spooled, more bool, err error) {
	i := 0
	err = s.withSpool(func(sp *files.Store) error {
		return sp.Replay(ctx, func(sc mnemo.Scope, rec mnemo.Record) error {
			if i++; i <= skip {
				return nil
			}
			if len(recs) == replayChunk {
				return errChunkFull
			}
			recs = append(recs, spooled{sc, rec})
			return nil
		})
	})
	if errors.Is(err, errChunkFull) {
		return recs, true, nil
	}
	return recs, false, err
}

// apply writes recs into p in waves of up to replayLanes × ReplayBatch
// records, each wave split into lanes written concurrently (the database
// works on several batches at once). A key's records all go to one lane, in
// their order; keyless records, which no later record overrides, are
// dealt out. A lane writes its records in batches of one scope, which p
// writes idempotently (Replayer). The progress is recorded in s.replay after each
// wave.
func (s *Store) apply(ctx context.Context, p Primary, recs []spooled) (int, error) {
	took := 0
	for len(recs) > 0 {
		wave := recs[:min(len(recs), replayLanes*s.opts.ReplayBatch)]
		var lanes [replayLanes][]spooled
		for i, r := range wave {
			l := i % replayLanes
			if k := r.rec.Memory.Key; k != "" {
				h := fnv.New32a()
				fmt.Fprintf(h, "%s\x00%s\x00%s", r.scope.TenantID, r.scope.AgentID, k)
				l = int(h.Sum32() % replayLanes)
			}
			lanes[l] = append(lanes[l], r)
		}
		var (
			g        errgroup.Group
			mu       sync.Mutex
			perScope = map[mnemo.Scope]int{}
		)
		for _, lane := range lanes {
			g.Go(func() error {
				return panics.Call(s.log, "failover replay", func() error {
					return s.applyLane(ctx, p, lane, func(sc mnemo.Scope, n int) {
						mu.Lock()
						perScope[sc] += n
						mu.Unlock()
					})
				})
			})
		}
		err := g.Wait()
		n := 0
		for sc, k := range perScope {
			s.replay.perScope[sc] += k
			n += k
		}
		took += n
		s.m.replayed.Add(float64(n))
		if err != nil {
			return took, err
		}
		s.replay.records += len(wave)
		s.m.pending.Set(float64(s.spooled.Add(-int64(len(wave)))))
		recs = recs[len(wave):]
	}
	return took, nil
}

// applyLane writes recs into p, in order, in batches of one scope, each
// of which the primary writes idempotently (Replayer); wrote is told how
// many each batch wrote.
func (s *Store) applyLane(ctx context.Context, p Primary, recs []spooled, wrote func(mnemo.Scope, int)) error {
	for len(recs) > 0 {
		n := 1
		for n < len(recs) && n < s.opts.ReplayBatch && recs[n].scope == recs[0].scope {
			n++
		}
		scope := recs[0].scope
		batch := make([]mnemo.Record, n)
		for i, r := range recs[:n] {
			batch[i] = r.rec
		}
		var (
			took int
			err  error
		)
		// A concurrent writer may win the primary's optimistic races
		// (ECONFLICT): the batch, rolled back, is then tried again.
		for try := 0; try < 3; try++ {
			err = s.bounded(ctx, func(ctx context.Context) (err error) {
				took, err = p.ReplayWrites(ctx, scope, batch)
				return err
			})
			if mnemo.ErrorCode(err) != mnemo.ECONFLICT {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("failover: replay into the database: %w", err)
		}
		wrote(scope, took)
		recs = recs[n:]
	}
	return nil
}

// bounded runs fn with batchTimeout; a primary that does not answer in
// time, or answers unreachable, marks the store down.
func (s *Store) bounded(ctx context.Context, fn func(context.Context) error) error {
	bctx, cancel := context.WithTimeout(ctx, batchTimeout)
	defer cancel()
	err := fn(bctx)
	if err != nil && ctx.Err() == nil && (unreachable(err) || bctx.Err() != nil) {
		s.setDown(err)
	}
	return err
}

// replayLedger appends to the primary the spool's ledger entries not yet
// replayed, oldest first.
func (s *Store) replayLedger(ctx context.Context, p Primary) error {
	var scopes []mnemo.Scope
	err := s.withSpool(func(sp *files.Store) (err error) { scopes, err = sp.Scopes(ctx); return })
	if err != nil {
		return err
	}
	s.touchedMu.Lock()
	for sc := range s.touched {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	s.touchedMu.Unlock()
	for _, sc := range scopes {
		entries, err := s.newLedger(ctx, sc, s.replay.ledger[sc])
		if err != nil || len(entries) == 0 {
			if err != nil {
				return err
			}
			continue
		}
		last := entries[len(entries)-1].Seq
		if entries, err = s.unledgered(ctx, p, sc, entries); err != nil {
			return err
		}
		for i := range entries {
			entries[i].Seq = 0
		}
		if len(entries) > 0 {
			err = s.bounded(ctx, func(ctx context.Context) error { return p.AppendLedger(ctx, sc, entries) })
			if err != nil {
				return err
			}
		}
		s.replay.ledger[sc] = last
	}
	return nil
}

// unledgered returns the entries of sc's that p's ledger does not hold
// already (the same time, action, actor and reason), so that a spool
// replayed again, after a replay cut or done whole, ledgers nothing twice
// (PG-5, PG-10).
func (s *Store) unledgered(ctx context.Context, p Primary, sc mnemo.Scope, entries []mnemo.LedgerEntry) ([]mnemo.LedgerEntry, error) {
	const page = 1000
	since, until := entries[0].At, entries[0].At
	for _, e := range entries {
		since, until = minTime(since, e.At), maxTime(until, e.At)
	}
	until = until.Add(time.Nanosecond)
	have := map[string]bool{}
	for off := 0; ; off += page {
		var es []mnemo.LedgerEntry
		err := s.bounded(ctx, func(ctx context.Context) (err error) {
			es, _, err = p.Ledger(ctx, sc, mnemo.LedgerQuery{Since: &since, Until: &until, Limit: page, Offset: off})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			have[ledgerIdentity(e)] = true
		}
		if len(es) < page {
			break
		}
	}
	out := entries[:0]
	for _, e := range entries {
		if !have[ledgerIdentity(e)] {
			out = append(out, e)
		}
	}
	return out, nil
}

// ledgerIdentity is what tells a ledger entry from another across stores.
func ledgerIdentity(e mnemo.LedgerEntry) string {
	return e.At.UTC().Format(time.RFC3339Nano) + "\x00" + e.Action + "\x00" + e.Actor + "\x00" + e.Reason
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// newLedger returns the spool's ledger entries of sc after seq after,
// oldest first. The spool's ledger reads newest first; entries appended
// meanwhile only come before, and are told apart by their Seq.
func (s *Store) newLedger(ctx context.Context, sc mnemo.Scope, after int64) ([]mnemo.LedgerEntry, error) {
	const page = 1000
	seen := map[int64]bool{}
	var out []mnemo.LedgerEntry
	for off := 0; ; off += page {
		var es []mnemo.LedgerEntry
		err := s.withSpool(func(sp *files.Store) (err error) {
			es, _, err = sp.Ledger(ctx, sc, mnemo.LedgerQuery{Limit: page, Offset: off})
			return err
		})
		if err != nil {
			return nil, err
		}
		older := false
		for _, e := range es {
			if e.Seq <= after {
				older = true
				break
			}
			if !seen[e.Seq] {
				seen[e.Seq] = true
				out = append(out, e)
			}
		}
		if older || len(es) < page {
			break
		}
	}
	slices.SortFunc(out, func(a, b mnemo.LedgerEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}
