package failover

import (
	"context"
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

// onPrimary runs fn on the primary; while it is down, or when fn finds it
// unreachable, it returns false and the caller answers otherwise.
func (s *Store) onPrimary(fn func(Primary) error) (bool, error) {
	p := s.primaryOf()
	if p == nil {
		return false, nil
	}
	err := fn(p)
	if unreachable(err) {
		s.setDown(err)
		return false, nil
	}
	return true, err
}

// fromSpool runs fn on the spool, for a read the primary could not answer.
func (s *Store) fromSpool(fn func(*files.Store) error) error {
	sp := s.spoolStore()
	if sp == nil {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	s.m.reads.Inc()
	return fn(sp)
}

// primaryOnly runs fn on the primary, or fails with EUNAVAILABLE while it
// is down.
func (s *Store) primaryOnly(op string, fn func(Primary) error) error {
	s.gate.RLock()
	defer s.gate.RUnlock()
	p := s.primaryOf()
	if p == nil {
		return needsPrimary(op)
	}
	err := fn(p)
	if unreachable(err) {
		s.setDown(err)
	}
	return err
}

// vectorOp runs fn on the primary, or fails with EUNAVAILABLE while it is
// down. Its errors never mark the primary down: unavailable there may
// mean a database without a vector index (PostgreSQL without pgvector),
// which answers everything else.
func (s *Store) vectorOp(fn func(Primary) error) error {
	s.gate.RLock()
	defer s.gate.RUnlock()
	p := s.primaryOf()
	if p == nil {
		return needsPrimary("the vector index")
	}
	return fn(p)
}

// Write stores recs in the primary or, while it is unreachable, in the
// spool, durably, to be replayed when it is back.
func (s *Store) Write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var ms []mnemo.Memory
	if ok, err := s.onPrimary(func(p Primary) (err error) { ms, err = p.Write(ctx, scope, recs); return }); ok {
		return ms, err
	}
	sp := s.spoolStore()
	if sp == nil {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	ms, err := sp.Write(ctx, scope, recs)
	if err != nil {
		return nil, err
	}
	s.spooled.Add(int64(len(recs)))
	s.m.writes.Add(float64(len(recs)))
	s.m.pending.Set(float64(s.spooled.Load()))
	s.noteSpooled(ctx, sp, scope)
	return ms, nil
}

// Get returns a memory from the primary or, while it is down, from the
// spool; one the spool does not have is ENOTFOUND, with a message saying
// the database may have it.
func (s *Store) Get(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Memory, error) {
	return s.get(ctx, func(st mnemo.Store) (mnemo.Memory, error) { return st.Get(ctx, scope, id) })
}

// GetByKey is Get by key.
func (s *Store) GetByKey(ctx context.Context, scope mnemo.Scope, key string) (mnemo.Memory, error) {
	return s.get(ctx, func(st mnemo.Store) (mnemo.Memory, error) { return st.GetByKey(ctx, scope, key) })
}

func (s *Store) get(ctx context.Context, fn func(mnemo.Store) (mnemo.Memory, error)) (mnemo.Memory, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var m mnemo.Memory
	if ok, err := s.onPrimary(func(p Primary) (err error) { m, err = fn(p); return }); ok {
		return m, err
	}
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
	s.gate.RLock()
	defer s.gate.RUnlock()
	var (
		ms    []mnemo.Memory
		total int
	)
	fn := func(st mnemo.Store) (err error) { ms, total, err = st.List(ctx, scope, q); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return ms, total, err
	}
	s.log.Debug("database unreachable: listing what the local spool holds")
	err := s.fromSpool(func(sp *files.Store) error { return fn(sp) })
	return ms, total, err
}

// Search searches the primary or, while it is down, the spool, flagged
// degraded with cause mnemo.DegradedStore.
func (s *Store) Search(ctx context.Context, scope mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var sr mnemo.SearchResult
	fn := func(st mnemo.Store) (err error) { sr, err = st.Search(ctx, scope, q); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return sr, err
	}
	if err := s.fromSpool(func(sp *files.Store) error { return fn(sp) }); err != nil {
		return sr, err
	}
	reason := spoolReason
	if sr.Degraded {
		reason += "; " + sr.Reason
	}
	sr.Degraded, sr.Reason, sr.Cause = true, reason, mnemo.DegradedStore
	return sr, nil
}

// Touch records accesses in the primary; while it is down they are not
// recorded (an access count is not worth failing a recall).
func (s *Store) Touch(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	s.gate.RLock()
	defer s.gate.RUnlock()
	_, err := s.onPrimary(func(p Primary) error { return p.Touch(ctx, scope, ids, at) })
	return err
}

// Forget deletes in the primary; while it is down it fails with
// EUNAVAILABLE, since what it deletes may be there.
func (s *Store) Forget(ctx context.Context, scope mnemo.Scope, ids, keys []string) (n int, err error) {
	err = s.primaryOnly("forget", func(p Primary) (err error) { n, err = p.Forget(ctx, scope, ids, keys); return })
	return n, err
}

// Clear clears the scope in the primary; while it is down it fails with
// EUNAVAILABLE.
func (s *Store) Clear(ctx context.Context, scope mnemo.Scope) (n int, err error) {
	err = s.primaryOnly("clear", func(p Primary) (err error) { n, err = p.Clear(ctx, scope); return })
	return n, err
}

// History returns a key's revisions from the primary or, while it is
// down, those the spool has.
func (s *Store) History(ctx context.Context, scope mnemo.Scope, key string) ([]mnemo.Revision, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var revs []mnemo.Revision
	fn := func(st mnemo.Store) (err error) { revs, err = st.History(ctx, scope, key); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return revs, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(sp) })
	return revs, err
}

// Stats describes the scope in the primary or, while it is down, in the
// spool, flagged degraded.
func (s *Store) Stats(ctx context.Context, scope mnemo.Scope) (mnemo.Stats, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var st mnemo.Stats
	fn := func(x mnemo.Store) (err error) { st, err = x.Stats(ctx, scope); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return st, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(sp) })
	st.Degraded = true
	return st, err
}

// CountTypes counts from the primary or, while it is down, the spool.
func (s *Store) CountTypes(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var tc []mnemo.TypeCount
	fn := func(st mnemo.Store) (err error) { tc, err = st.CountTypes(ctx, scope, f); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return tc, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(sp) })
	return tc, err
}

// ApplyLife applies lifecycle changes in the primary. While it is down,
// ledger entries alone are kept in the spool (and replayed); changes fail
// with EUNAVAILABLE.
func (s *Store) ApplyLife(ctx context.Context, scope mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var n int
	if ok, err := s.onPrimary(func(p Primary) (err error) { n, err = p.ApplyLife(ctx, scope, changes, entries); return }); ok {
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
	s.gate.RLock()
	defer s.gate.RUnlock()
	if ok, err := s.onPrimary(func(p Primary) error { return p.AppendLedger(ctx, scope, entries) }); ok {
		return err
	}
	return s.spoolLedger(ctx, scope, entries)
}

func (s *Store) spoolLedger(ctx context.Context, scope mnemo.Scope, entries []mnemo.LedgerEntry) error {
	sp := s.spoolStore()
	if sp == nil {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	s.spoolMu.Lock()
	s.touched[scope] = true
	s.spoolMu.Unlock()
	return sp.AppendLedger(ctx, scope, entries)
}

// Ledger reads the primary's ledger or, while it is down, the spool's.
func (s *Store) Ledger(ctx context.Context, scope mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var (
		es []mnemo.LedgerEntry
		n  int
	)
	fn := func(st mnemo.LifecycleStore) (err error) { es, n, err = st.Ledger(ctx, scope, q); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return es, n, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(sp) })
	return es, n, err
}

// Scopes lists the primary's scopes or, while it is down, the spool's.
func (s *Store) Scopes(ctx context.Context) ([]mnemo.Scope, error) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	var scs []mnemo.Scope
	fn := func(st mnemo.LifecycleStore) (err error) { scs, err = st.Scopes(ctx); return }
	if ok, err := s.onPrimary(func(p Primary) error { return fn(p) }); ok {
		return scs, err
	}
	err := s.fromSpool(func(sp *files.Store) error { return fn(sp) })
	return scs, err
}

// State documents live in the primary only: while it is down, runs and
// sessions fail with EUNAVAILABLE.

// GetState reads a state document from the primary.
func (s *Store) GetState(ctx context.Context, scope mnemo.Scope, kind, id string) (doc mnemo.StateDoc, err error) {
	err = s.primaryOnly("a run or session", func(p Primary) (err error) { doc, err = p.GetState(ctx, scope, kind, id); return })
	return doc, err
}

// PutState writes a state document to the primary.
func (s *Store) PutState(ctx context.Context, scope mnemo.Scope, doc mnemo.StateDoc) (v int64, err error) {
	err = s.primaryOnly("a run or session", func(p Primary) (err error) { v, err = p.PutState(ctx, scope, doc); return })
	return v, err
}

// DeleteState deletes a state document from the primary.
func (s *Store) DeleteState(ctx context.Context, scope mnemo.Scope, kind, id string, version int64) (ok bool, err error) {
	err = s.primaryOnly("a run or session", func(p Primary) (err error) { ok, err = p.DeleteState(ctx, scope, kind, id, version); return })
	return ok, err
}

// ListState lists state documents from the primary.
func (s *Store) ListState(ctx context.Context, scope mnemo.Scope, kind string) (docs []mnemo.StateDoc, err error) {
	err = s.primaryOnly("a run or session", func(p Primary) (err error) { docs, err = p.ListState(ctx, scope, kind); return })
	return docs, err
}

// IdleState lists idle state documents from the primary.
func (s *Store) IdleState(ctx context.Context, kind string, before time.Time, n int) (docs []mnemo.StateDoc, err error) {
	err = s.primaryOnly("a run or session", func(p Primary) (err error) { docs, err = p.IdleState(ctx, kind, before, n); return })
	return docs, err
}

// Vectors live in the primary only: while it is down, semantic search
// fails with EUNAVAILABLE and recall answers lexically from the spool.

// VectorSpace returns the primary's vector space.
func (s *Store) VectorSpace(ctx context.Context) (vs mnemo.VectorSpace, err error) {
	err = s.vectorOp(func(p Primary) (err error) { vs, err = p.VectorSpace(ctx); return })
	return vs, err
}

// SetVectorSpace sets the primary's vector space.
func (s *Store) SetVectorSpace(ctx context.Context, vs mnemo.VectorSpace, reset bool) error {
	return s.vectorOp(func(p Primary) error { return p.SetVectorSpace(ctx, vs, reset) })
}

// Unembedded lists the primary's memories waiting for a vector.
func (s *Store) Unembedded(ctx context.Context, n int) (jobs []mnemo.EmbedJob, err error) {
	err = s.vectorOp(func(p Primary) (err error) { jobs, err = p.Unembedded(ctx, n); return })
	return jobs, err
}

// CountUnembedded counts the primary's memories waiting for a vector.
func (s *Store) CountUnembedded(ctx context.Context) (n int, err error) {
	err = s.vectorOp(func(p Primary) (err error) { n, err = p.CountUnembedded(ctx); return })
	return n, err
}

// SetVectors stores vectors in the primary.
func (s *Store) SetVectors(ctx context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	return s.vectorOp(func(p Primary) error { return p.SetVectors(ctx, jobs, vecs) })
}

// SearchVectors searches the primary's vectors.
func (s *Store) SearchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) (hits []mnemo.VectorHit, err error) {
	err = s.vectorOp(func(p Primary) (err error) { hits, err = p.SearchVectors(ctx, scope, q); return })
	return hits, err
}

// VectorIndex says why the primary has no vector index (nil when it has
// one), for a primary that tells (postgres.DB.VectorIndex).
func (s *Store) VectorIndex() error {
	return s.vectorOp(func(p Primary) error {
		if vi, ok := p.(interface{ VectorIndex() error }); ok {
			return vi.VectorIndex()
		}
		return nil
	})
}
