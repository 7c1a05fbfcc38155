package failover

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
)

// spoolReason is what a degraded answer says while the spool answers.
const spoolReason = "database unreachable: answered from the local spool, which holds only what was written since"

// needsPrimary is the error of a call that only the primary can answer.
func needsPrimary(op string) error {
	return mnemo.Errorf(mnemo.EUNAVAILABLE, "%s needs the database, which is unreachable (writes are kept in the local spool meanwhile)", op)
}

// replayingReason is what a degraded answer says while the spool is
// replayed.
func (s *Store) replayingReason() string {
	return fmt.Sprintf("database back after an outage: %d writes kept in the local spool are still being replayed into it and may be missing from this answer", s.spooled.Load())
}

// call runs fn on the primary; while it is down, or when fn finds it
// unreachable, it returns false and the caller answers otherwise. With
// bounded, fn gets at most FailoverAfter: a primary that does not answer
// in time is taken for unreachable.
func (s *Store) call(ctx context.Context, bounded bool, fn func(context.Context, Primary) error) (bool, error) {
	p := s.primaryOf()
	if p == nil {
		return false, nil
	}
	actx := ctx
	if bounded {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, s.opts.FailoverAfter)
		defer cancel()
	}
	err := fn(actx, p)
	if err == nil || ctx.Err() != nil {
		return true, err // the caller gave up: not the primary's fault
	}
	if unreachable(err) || actx.Err() != nil {
		s.setDown(err)
		return false, nil
	}
	return true, err
}

// fromSpool runs fn on the spool, for a read the primary could not answer.
func (s *Store) fromSpool(fn func(*files.Store) error) error {
	s.m.reads.Inc()
	return s.withSpool(fn)
}

// primaryOnly runs fn on the primary, or fails with EUNAVAILABLE while it
// is down.
func (s *Store) primaryOnly(ctx context.Context, op string, bounded bool, fn func(context.Context, Primary) error) error {
	ok, err := s.call(ctx, bounded, fn)
	if !ok {
		return needsPrimary(op)
	}
	return err
}

// vectorOp runs fn on the primary, or fails with EUNAVAILABLE while it is
// down. Its unavailable errors never mark the primary down: there it may
// mean a database without a vector index (PostgreSQL without pgvector),
// which answers everything else; no answer within FailoverAfter (when
// bounded) does.
func (s *Store) vectorOp(ctx context.Context, bounded bool, fn func(context.Context, Primary) error) error {
	p := s.primaryOf()
	if p == nil {
		return needsPrimary("the vector index")
	}
	actx := ctx
	if bounded {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, s.opts.FailoverAfter)
		defer cancel()
	}
	err := fn(actx, p)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		s.setDown(err)
		return needsPrimary("the vector index")
	}
	return err
}

// Write stores recs in the primary or, while it is unreachable, in the
// spool, durably, to be replayed when it is back. A write the primary
// does not answer within FailoverAfter goes to the spool.
func (s *Store) Write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	var ms []mnemo.Memory
	if ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) (err error) { ms, err = p.Write(ctx, scope, recs); return }); ok {
		return ms, err
	}
	err := s.withSpool(func(sp *files.Store) (err error) {
		if ms, err = sp.Write(ctx, scope, recs); err != nil {
			return err
		}
		s.noteSpooled(ctx, sp, scope)
		s.spooled.Add(int64(len(recs)))
		s.dirty.Store(true)
		s.writes.Add(1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.m.writes.Add(float64(len(recs)))
	s.m.pending.Set(float64(s.spooled.Load()))
	return ms, nil
}

// Get returns a memory from the primary or, while it is down, from the
// spool; one the spool does not have is ENOTFOUND, with a message saying
// the database may have it. While the spool is replayed, a memory the
// primary does not have yet is looked for in the spool.
func (s *Store) Get(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Memory, error) {
	var m mnemo.Memory
	ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) (err error) { m, err = p.Get(ctx, scope, id); return })
	if ok {
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND && s.dirty.Load() {
			var sm mnemo.Memory
			if s.withSpool(func(sp *files.Store) (err error) { sm, err = sp.Get(ctx, scope, id); return }) == nil {
				return sm, nil
			}
		}
		return m, err
	}
	return s.spoolGet(func(sp *files.Store) (mnemo.Memory, error) { return sp.Get(ctx, scope, id) })
}

// GetByKey returns the live memory of a key from the primary or, while it
// is down, from the spool. While the spool is replayed, it answers with
// the newer of the primary's and the spool's last write of the key, so
// that the Write Guard compares a new write with the key's newest value.
func (s *Store) GetByKey(ctx context.Context, scope mnemo.Scope, key string) (mnemo.Memory, error) {
	var m mnemo.Memory
	ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) (err error) { m, err = p.GetByKey(ctx, scope, key); return })
	if !ok {
		return s.spoolGet(func(sp *files.Store) (mnemo.Memory, error) { return sp.GetByKey(ctx, scope, key) })
	}
	if !s.dirty.Load() || err != nil && mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		return m, err
	}
	sm, at, tomb, found := s.spoolLatest(ctx, scope, key)
	if !found {
		return m, err
	}
	pat, pfound := m.UpdatedAt, err == nil
	if !pfound {
		// Absent, or a tombstone, which may be newer than the spool's.
		var times map[string]time.Time
		ok, lerr := s.call(ctx, true, func(ctx context.Context, p Primary) (err error) {
			_, times, err = p.Lookup(ctx, scope, nil, []string{key})
			return err
		})
		if ok && lerr != nil {
			return m, lerr
		}
		pat, pfound = times[key]
	}
	if pfound && !at.After(pat) {
		return m, err
	}
	if tomb {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "key %s not found", key)
	}
	return sm, nil
}

// spoolLatest returns the spool's last write of key: the live memory, or
// that it is a tombstone, and the UpdatedAt it was written with.
func (s *Store) spoolLatest(ctx context.Context, scope mnemo.Scope, key string) (m mnemo.Memory, at time.Time, tomb, found bool) {
	s.withSpool(func(sp *files.Store) error {
		revs, err := sp.History(ctx, scope, key)
		if err != nil {
			return err
		}
		for i := len(revs) - 1; i >= 0; i-- {
			r := revs[i]
			if !r.Applied || r.Memory == nil {
				continue
			}
			at, tomb, found = r.Memory.UpdatedAt, r.Op == mnemo.OpTombstone, true
			break
		}
		if found && !tomb {
			m, err = sp.GetByKey(ctx, scope, key)
			found = err == nil
		}
		return nil
	})
	return m, at, tomb, found
}

func (s *Store) spoolGet(fn func(*files.Store) (mnemo.Memory, error)) (mnemo.Memory, error) {
	var m mnemo.Memory
	err := s.fromSpool(func(sp *files.Store) (err error) { m, err = fn(sp); return })
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		// Still not found (the Write Guard and upserts rely on the code),
		// but said to be a partial answer.
		return m, mnemo.Errorf(mnemo.ENOTFOUND, "not in the local spool; the database, which may have it, is unreachable")
	}
	return m, err
}

// List lists from the primary or, while it is down, from the spool.
func (s *Store) List(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	var (
		ms    []mnemo.Memory
		total int
	)
	fn := func(ctx context.Context, st mnemo.Store) (err error) { ms, total, err = st.List(ctx, scope, q); return }
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		return ms, total, err
	}
	s.log.Debug("database unreachable: listing what the local spool holds")
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	return ms, total, err
}

// Search searches the primary or, while it is down, the spool, flagged
// degraded with cause mnemo.DegradedStore; while the spool is replayed,
// the primary, flagged degraded.
func (s *Store) Search(ctx context.Context, scope mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	var sr mnemo.SearchResult
	fn := func(ctx context.Context, st mnemo.Store) (err error) { sr, err = st.Search(ctx, scope, q); return }
	ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) error { return fn(ctx, p) })
	reason := s.replayingReason()
	if !ok {
		if err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) }); err != nil {
			return sr, err
		}
		reason = spoolReason
	} else if err != nil || !s.dirty.Load() {
		return sr, err
	}
	if sr.Degraded {
		reason += "; " + sr.Reason
	}
	sr.Degraded, sr.Reason, sr.Cause = true, reason, mnemo.DegradedStore
	return sr, nil
}

// Touch records accesses in the primary; while it is down they are not
// recorded (an access count is not worth failing a recall).
func (s *Store) Touch(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	_, err := s.call(ctx, true, func(ctx context.Context, p Primary) error { return p.Touch(ctx, scope, ids, at) })
	return err
}

// WriteContexts writes recs as Write does, and sets the index contexts
// in the primary (REC-36); while it is down, recs go to the spool and the
// contexts are left: they are a help, and the messages they belong to may
// be in the spool, which replays them as written.
func (s *Store) WriteContexts(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	var ms []mnemo.Memory
	if ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) (err error) {
		ms, err = p.WriteContexts(ctx, scope, recs, updates)
		return
	}); ok {
		return ms, err
	}
	return s.Write(ctx, scope, recs)
}

// primaryAndReplayed runs fn on the primary once the spool is replayed:
// while it is down or the spool is replayed it fails with EUNAVAILABLE,
// since what fn deletes may be in the spool.
func (s *Store) primaryAndReplayed(ctx context.Context, op string, fn func(context.Context, Primary) error) error {
	if s.dirty.Load() && !s.down.Load() {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "%s waits for the writes kept in the local spool during the database's outage to be replayed (%d left); try again in a few seconds", op, s.spooled.Load())
	}
	return s.primaryOnly(ctx, op, false, fn)
}

// Replace changes a keyless memory in place in the primary (API-14); while
// it is down, or the spool is replayed, it fails with EUNAVAILABLE: the
// memory may be in the spool, whose replay writes memories, never changes
// them.
func (s *Store) Replace(ctx context.Context, scope mnemo.Scope, rec mnemo.Record) (mnemo.Memory, error) {
	var m mnemo.Memory
	err := s.primaryAndReplayed(ctx, "changing a memory without a key in place", func(ctx context.Context, p Primary) error {
		var err error
		m, err = p.Replace(ctx, scope, rec)
		return err
	})
	return m, err
}

// Forget deletes in the primary; while it is down, or the spool is
// replayed, it fails with EUNAVAILABLE, since what it deletes may be in
// the spool.
func (s *Store) Forget(ctx context.Context, scope mnemo.Scope, ids, keys []string) (n int, err error) {
	err = s.primaryAndReplayed(ctx, "forget", func(ctx context.Context, p Primary) (err error) { n, err = p.Forget(ctx, scope, ids, keys); return })
	return n, err
}

// Clear clears the scope in the primary; while it is down, or the spool is
// replayed, it fails with EUNAVAILABLE.
func (s *Store) Clear(ctx context.Context, scope mnemo.Scope) (n int, err error) {
	err = s.primaryAndReplayed(ctx, "clear", func(ctx context.Context, p Primary) (err error) { n, err = p.Clear(ctx, scope); return })
	return n, err
}

// History returns a key's revisions from the primary or, while it is
// down, those the spool has.
func (s *Store) History(ctx context.Context, scope mnemo.Scope, key string) ([]mnemo.Revision, error) {
	var revs []mnemo.Revision
	fn := func(ctx context.Context, st mnemo.Store) (err error) { revs, err = st.History(ctx, scope, key); return }
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		return revs, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	return revs, err
}

// DeletedAfter returns the history of the keys tombstoned after t from the
// primary or, while it is down, from the spool.
func (s *Store) DeletedAfter(ctx context.Context, scope mnemo.Scope, t time.Time, limit int) ([]mnemo.Revision, error) {
	var revs []mnemo.Revision
	fn := func(ctx context.Context, st mnemo.Store) (err error) {
		revs, err = st.DeletedAfter(ctx, scope, t, limit)
		return
	}
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		return revs, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	return revs, err
}

// Stats describes the scope in the primary or, while it is down, in the
// spool; flagged degraded then and while the spool is replayed.
func (s *Store) Stats(ctx context.Context, scope mnemo.Scope) (mnemo.Stats, error) {
	var st mnemo.Stats
	fn := func(ctx context.Context, x mnemo.Store) (err error) { st, err = x.Stats(ctx, scope); return }
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		st.Degraded = st.Degraded || s.dirty.Load()
		return st, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	st.Degraded = true
	return st, err
}

// CountTypes counts from the primary or, while it is down, the spool.
func (s *Store) CountTypes(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	var tc []mnemo.TypeCount
	fn := func(ctx context.Context, st mnemo.Store) (err error) { tc, err = st.CountTypes(ctx, scope, f); return }
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		return tc, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	return tc, err
}

// ApplyLife applies lifecycle changes in the primary. While it is down,
// ledger entries alone are kept in the spool (and replayed); changes fail
// with EUNAVAILABLE.
func (s *Store) ApplyLife(ctx context.Context, scope mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	var n int
	if ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) (err error) {
		n, err = p.ApplyLife(ctx, scope, changes, entries)
		return
	}); ok {
		return n, err
	}
	if len(changes) > 0 {
		return 0, needsPrimary("a lifecycle change")
	}
	return 0, s.spoolLedger(ctx, scope, entries)
}

// AppendLedger appends to the primary's ledger or, while it is down, to
// the spool's, replayed with it.
func (s *Store) AppendLedger(ctx context.Context, scope mnemo.Scope, entries []mnemo.LedgerEntry) error {
	if ok, err := s.call(ctx, true, func(ctx context.Context, p Primary) error { return p.AppendLedger(ctx, scope, entries) }); ok {
		return err
	}
	return s.spoolLedger(ctx, scope, entries)
}

func (s *Store) spoolLedger(ctx context.Context, scope mnemo.Scope, entries []mnemo.LedgerEntry) error {
	if len(entries) == 0 {
		return nil
	}
	return s.withSpool(func(sp *files.Store) error {
		if err := sp.AppendLedger(ctx, scope, entries); err != nil {
			return err
		}
		s.touchedMu.Lock()
		s.touched[scope] = true
		s.touchedMu.Unlock()
		s.dirty.Store(true)
		s.writes.Add(1)
		return nil
	})
}

// Ledger reads the primary's ledger or, while it is down, the spool's.
func (s *Store) Ledger(ctx context.Context, scope mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	var (
		es []mnemo.LedgerEntry
		n  int
	)
	fn := func(ctx context.Context, st mnemo.LifecycleStore) (err error) {
		es, n, err = st.Ledger(ctx, scope, q)
		return
	}
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		return es, n, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	return es, n, err
}

// Scopes lists the primary's scopes or, while it is down, the spool's.
func (s *Store) Scopes(ctx context.Context) ([]mnemo.Scope, error) {
	var scs []mnemo.Scope
	fn := func(ctx context.Context, st mnemo.LifecycleStore) (err error) { scs, err = st.Scopes(ctx); return }
	if ok, err := s.call(ctx, false, func(ctx context.Context, p Primary) error { return fn(ctx, p) }); ok {
		return scs, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(ctx, sp) })
	return scs, err
}

// State documents live in the primary only: while it is down, runs and
// sessions fail with EUNAVAILABLE.

const stateOp = "a run or session"

// GetState reads a state document from the primary.
func (s *Store) GetState(ctx context.Context, scope mnemo.Scope, kind, id string) (doc mnemo.StateDoc, err error) {
	err = s.primaryOnly(ctx, stateOp, true, func(ctx context.Context, p Primary) (err error) { doc, err = p.GetState(ctx, scope, kind, id); return })
	return doc, err
}

// PutState writes a state document to the primary.
func (s *Store) PutState(ctx context.Context, scope mnemo.Scope, doc mnemo.StateDoc) (v int64, err error) {
	err = s.primaryOnly(ctx, stateOp, true, func(ctx context.Context, p Primary) (err error) { v, err = p.PutState(ctx, scope, doc); return })
	return v, err
}

// DeleteState deletes a state document from the primary.
func (s *Store) DeleteState(ctx context.Context, scope mnemo.Scope, kind, id string, version int64) (ok bool, err error) {
	err = s.primaryOnly(ctx, stateOp, true, func(ctx context.Context, p Primary) (err error) {
		ok, err = p.DeleteState(ctx, scope, kind, id, version)
		return
	})
	return ok, err
}

// ListState lists state documents from the primary.
func (s *Store) ListState(ctx context.Context, scope mnemo.Scope, kind string) (docs []mnemo.StateDoc, err error) {
	err = s.primaryOnly(ctx, stateOp, true, func(ctx context.Context, p Primary) (err error) { docs, err = p.ListState(ctx, scope, kind); return })
	return docs, err
}

// IdleState lists idle state documents from the primary.
func (s *Store) IdleState(ctx context.Context, kind string, before time.Time, n int) (docs []mnemo.StateDoc, err error) {
	err = s.primaryOnly(ctx, stateOp, false, func(ctx context.Context, p Primary) (err error) {
		docs, err = p.IdleState(ctx, kind, before, n)
		return
	})
	return docs, err
}

// Vectors live in the primary only: while it is down, semantic search
// fails with EUNAVAILABLE and recall answers lexically from the spool.
// The calls a request waits on are bounded by FailoverAfter; the
// embedding worker's are not.

// VectorSpace returns the primary's vector space.
func (s *Store) VectorSpace(ctx context.Context) (vs mnemo.VectorSpace, err error) {
	err = s.vectorOp(ctx, true, func(ctx context.Context, p Primary) (err error) { vs, err = p.VectorSpace(ctx); return })
	return vs, err
}

// SetVectorSpace sets the primary's vector space; a reset, which may
// rebuild the index, is not bounded.
func (s *Store) SetVectorSpace(ctx context.Context, vs mnemo.VectorSpace, reset bool) error {
	return s.vectorOp(ctx, !reset, func(ctx context.Context, p Primary) error { return p.SetVectorSpace(ctx, vs, reset) })
}

// Unembedded lists the primary's memories waiting for a vector.
func (s *Store) Unembedded(ctx context.Context, n int) (jobs []mnemo.EmbedJob, err error) {
	err = s.vectorOp(ctx, false, func(ctx context.Context, p Primary) (err error) { jobs, err = p.Unembedded(ctx, n); return })
	return jobs, err
}

// CountUnembedded counts the primary's memories waiting for a vector.
func (s *Store) CountUnembedded(ctx context.Context) (n int, err error) {
	err = s.vectorOp(ctx, false, func(ctx context.Context, p Primary) (err error) { n, err = p.CountUnembedded(ctx); return })
	return n, err
}

// SetVectors stores vectors in the primary.
func (s *Store) SetVectors(ctx context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	return s.vectorOp(ctx, false, func(ctx context.Context, p Primary) error { return p.SetVectors(ctx, jobs, vecs) })
}

// SearchVectors searches the primary's vectors.
func (s *Store) SearchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) (hits []mnemo.VectorHit, err error) {
	err = s.vectorOp(ctx, true, func(ctx context.Context, p Primary) (err error) { hits, err = p.SearchVectors(ctx, scope, q); return })
	return hits, err
}

// VectorIndex says why the primary has no vector index (nil when it has
// one), for a primary that tells (postgres.DB.VectorIndex).
func (s *Store) VectorIndex() error {
	return s.vectorOp(context.Background(), false, func(_ context.Context, p Primary) error {
		if vi, ok := p.(interface{ VectorIndex() error }); ok {
			return vi.VectorIndex()
		}
		return nil
	})
}
