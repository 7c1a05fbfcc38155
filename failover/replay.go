package failover

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/mnemo-dev/mnemo"
)

// replayLookups is how many records are looked up in the primary at once.
const replayLookups = 4

// spooled is one record of the spool with its scope.
type spooled struct {
	scope mnemo.Scope
	rec   mnemo.Record
}

// Replay writes what the spool holds into the primary, in the order it was
// written, then its ledger entries, empties the spool and marks the store
// up. It is idempotent: a record the primary already has (the same id, or
// a write of the same key at the same time or later) is skipped, so that a
// replay interrupted and done again, or done twice, changes nothing. It
// returns how many records the primary took. The probe loop calls it when
// the primary answers again.
func (s *Store) Replay(ctx context.Context) (int, error) {
	if s.primary.Load() == nil {
		if err := s.ping(ctx); err != nil {
			return 0, err
		}
	}
	b := s.primary.Load()
	s.replayMu.Lock()
	defer s.replayMu.Unlock()
	first, err := s.collect(ctx)
	var n1 int
	perScope := map[mnemo.Scope]int{}
	if err == nil {
		n1, err = s.apply(ctx, b.p, first, perScope)
	}
	if err != nil {
		s.m.replays.WithLabelValues("failed").Inc()
		return n1, err
	}

	// The records spooled meanwhile, with nothing in flight.
	s.gate.Lock()
	defer s.gate.Unlock()
	rest, err := s.collect(ctx)
	if err == nil && len(rest) >= len(first) {
		rest = rest[len(first):] // the spool only grew: the head is replayed
	}
	var n2 int
	if err == nil {
		n2, err = s.apply(ctx, b.p, rest, perScope)
	}
	if err == nil {
		err = s.replayLedger(ctx, b.p, perScope)
	}
	if err != nil {
		s.m.replays.WithLabelValues("failed").Inc()
		return n1 + n2, err
	}
	if err := s.removeSpool(ctx); err != nil {
		// Replayed all the same; a later replay skips what is there.
		s.log.Error("emptying the replayed spool failed", "spool", s.spoolDir, "err", err)
	}
	s.spooled.Store(0)
	s.m.pending.Set(0)
	s.m.replays.WithLabelValues("ok").Inc()
	s.down.Store(false)
	s.m.up.Set(1)
	s.log.Info("spool replayed: the database is in use again", "records", n1+n2)
	return n1 + n2, nil
}

// collect reads every record of the spool, in order.
func (s *Store) collect(ctx context.Context) ([]spooled, error) {
	sp := s.spoolStore()
	if sp == nil {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "the spool is closed")
	}
	var out []spooled
	err := sp.Replay(ctx, func(sc mnemo.Scope, rec mnemo.Record) error {
		out = append(out, spooled{sc, rec})
		return nil
	})
	return out, err
}

// apply writes recs into p, in order, in batches of one scope, skipping
// the records p already has; it counts the written ones per scope.
func (s *Store) apply(ctx context.Context, p Primary, recs []spooled, perScope map[mnemo.Scope]int) (int, error) {
	done := 0
	for len(recs) > 0 {
		n := 1
		for n < len(recs) && n < s.opts.ReplayBatch && recs[n].scope == recs[0].scope {
			n++
		}
		scope := recs[0].scope
		// A keyed record the primary has is skipped (applied again, it
		// would add a revision): those are looked up first. Keyless ones
		// are written as they are; an id the primary has fails the batch
		// with ECONFLICT, and the whole batch is then looked up.
		batch, err := s.missing(ctx, p, scope, recs[:n], true)
		if err != nil {
			return done, err
		}
		if len(batch) > 0 {
			_, err = p.Write(ctx, scope, batch)
			if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
				if batch, err = s.missing(ctx, p, scope, recs[:n], false); err == nil && len(batch) > 0 {
					_, err = p.Write(ctx, scope, batch)
				}
			}
			if err != nil {
				return done, fmt.Errorf("failover: replay into the database: %w", err)
			}
		}
		done += len(batch)
		perScope[scope] += len(batch)
		s.m.replayed.Add(float64(len(batch)))
		recs = recs[n:]
	}
	return done, nil
}

// missing returns the records of recs that p does not have, looking them
// up a few at a time; with keyedOnly, keyless records are kept unlooked.
func (s *Store) missing(ctx context.Context, p Primary, scope mnemo.Scope, recs []spooled, keyedOnly bool) ([]mnemo.Record, error) {
	has := make([]bool, len(recs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(replayLookups)
	for i, r := range recs {
		if keyedOnly && r.rec.Memory.Key == "" {
			continue
		}
		g.Go(func() (err error) {
			has[i], err = hasRecord(gctx, p, scope, r.rec)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]mnemo.Record, 0, len(recs))
	for i, r := range recs {
		if !has[i] {
			out = append(out, r.rec)
		}
	}
	return out, nil
}

// hasRecord says whether p already has rec: the memory of its id for a
// record without a key; for a keyed one, a write of the key at the same
// time or later, or, for a tombstone, no such key at all.
func hasRecord(ctx context.Context, p Primary, scope mnemo.Scope, rec mnemo.Record) (bool, error) {
	m := rec.Memory
	if m.Key == "" {
		_, err := p.Get(ctx, scope, m.ID)
		return absent(err)
	}
	cur, err := p.GetByKey(ctx, scope, m.Key)
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		return rec.Tombstone, nil
	} else if err != nil {
		return false, err
	}
	return !cur.UpdatedAt.Before(m.UpdatedAt), nil
}

// absent turns a Get's error into "has it".
func absent(err error) (bool, error) {
	switch mnemo.ErrorCode(err) {
	case "":
		return true, nil
	case mnemo.ENOTFOUND:
		return false, nil
	}
	return false, err
}

// replayLedger appends the spool's ledger entries to the primary, oldest
// first, and one entry per scope saying what the replay did.
func (s *Store) replayLedger(ctx context.Context, p Primary, perScope map[mnemo.Scope]int) error {
	sp := s.spoolStore()
	scopes, err := sp.Scopes(ctx)
	if err != nil {
		return err
	}
	s.spoolMu.Lock()
	for sc := range s.touched {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	s.spoolMu.Unlock()
	for sc := range perScope {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	const page = 1000
	for _, sc := range scopes {
		var entries []mnemo.LedgerEntry
		for off := 0; ; off += page {
			es, total, err := sp.Ledger(ctx, sc, mnemo.LedgerQuery{Limit: page, Offset: off})
			if err != nil {
				return err
			}
			entries = append(entries, es...)
			if len(es) < page || off+len(es) >= total {
				break
			}
		}
		slices.Reverse(entries) // oldest first
		for i := range entries {
			entries[i].Seq = 0
		}
		entries = append(entries, mnemo.LedgerEntry{
			At: s.opts.Now().UTC(), Action: mnemo.ActionDegrade, Actor: "system",
			Reason: fmt.Sprintf("database reachable again: %d memories replayed from the local spool", perScope[sc]),
		})
		if err := p.AppendLedger(ctx, sc, entries); err != nil {
			return err
		}
	}
	return nil
}
