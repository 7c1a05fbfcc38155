package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sync/atomic"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// entry returns the scope's annIndex, registering it if new, and drops
// every index when the store's vector space is no longer vs.
func (a *annIndexes) entry(scope int64, vs mnemo.VectorSpace) *annIndex {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.space != vs {
		// Another process reindexed: every index is of the old space.
		a.space = vs
		a.clearScopes()
	}
	x := a.scopes[scope]
	if x == nil {
		// A scope's buffer is replaced (drop, reset) only under pub, so
		// no record misses the new one.
		x = &annIndex{scope: scope, pending: newPendingBuffer(&a.pendingUsed)}
		a.scopes[scope] = x
	}
	return x
}

// record keeps vecs, which the commit that took the store's vector rev from
// r0 to r1 stored, in their scopes' pending buffers. The caller holds pub
// and has committed.
func (a *annIndexes) record(vs mnemo.VectorSpace, r0, r1 int64, vecs []storedVec) {
	for len(vecs) > 0 {
		// vecs are by scope (a Write has one); take each run.
		scope := vecs[0].seq >> scopeBits
		n := 1
		for n < len(vecs) && vecs[n].seq>>scopeBits == scope {
			n++
		}
		x := a.entry(scope, vs)
		x.pending.add(vecs[:n], x.current(), a.pendingScan, a.pendingBudget)
		vecs = vecs[n:]
	}
	// Last: a search that finds the store's rev within known finds its
	// vectors recorded.
	a.mu.Lock()
	if r0 != a.known {
		a.gapAt = r0 // (known, r0] were stored by another process
	}
	a.known = r1
	a.mu.Unlock()
}

// scorePending is DB.scorePending from x's pending buffer, when it holds
// what the rows would give: the store's rev was rev when the search
// began, and x held every vector up to at. ok false sends the caller to
// the rows.
func (a *annIndexes) scorePending(x *annIndex, at, rev int64, q []float32) (_ []vector.Result, more, ok bool) {
	a.mu.Lock()
	trusted := rev <= a.known && at >= a.gapAt
	a.mu.Unlock()
	if !trusted {
		return nil, false, false
	}
	return x.pending.score(unit(q), at, a.pendingScan)
}

// open returns the loaded index of the scope whose seqs are sp, and the
// store's vector rev: the index holds the vectors up to x.rev, and the
// indexer has been woken to insert the rest. Loading the file is the only
// work open may do; it never inserts. It returns nil when the store has no
// vector space yet.
func (a *annIndexes) open(ctx context.Context, db *DB, sp span) (*annIndex, int64, error) {
	vs, rev, err := vectorSpace(ctx, db.readStmts)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: %w", err)
	}
	if vs.Model == "" {
		return nil, 0, nil
	}
	x := a.entry(sp.lo>>scopeBits, vs)
	if x.ix.Load() == nil {
		x.mu.Lock()
		a.ensureLoaded(x, vs)
		x.mu.Unlock()
	}
	if x.current() < rev {
		a.wake(db)
	}
	return x, rev, nil
}

// ensureLoaded reads x's file, or starts x empty. The caller holds x.mu.
func (a *annIndexes) ensureLoaded(x *annIndex, vs mnemo.VectorSpace) {
	if x.ix.Load() != nil {
		return
	}
	old, err := x.load(a.path(x.scope), vs, a.effort)
	if err == nil && old {
		// A file of the first header version is read by copying; written
		// again, it is mapped on the next open (PERF-13).
		a.saveLater(x, vs)
	}
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			a.logger.Warn("vector index unreadable, rebuilding it from the database", "scope", x.scope, "err", err)
		}
		x.rev.Store(0)
		x.upTo.Store(0)
		opts := a.opts
		opts.EfSearch = a.effort(0)
		x.ix.Store(vector.New(vs.Dimension, opts))
	}
}

// effort is the efSearch of an index of n vectors.
func (a *annIndexes) effort(n int) int {
	if !a.bySize {
		return a.opts.EfSearch
	}
	return min(a.opts.EfSearch, searchEffort(n))
}

// followSize gives ix the effort of its size, if that changed.
func (a *annIndexes) followSize(ix *vector.Index) {
	if ef := a.effort(ix.Len()); ef != ix.Options().EfSearch {
		ix.SetEfSearch(ef)
	}
}

// boundFrom is how many vectors one catch-up inserts before it bounds the
// heap (heapBound): an index built or rebuilt from the table, or a bulk
// load caught up, not the indexer's usual few batches after writes.
const boundFrom = 4096

// buildHeadroom is how far a long build (a catch-up of many vectors, the
// in-memory full-text index's) lets the Go heap grow past what the last
// collection found live. The collector's default
// (GOGC 100) lets it reach twice the live heap, most of which is the index
// being built: at 1M memories the index and the full-text index would
// peak near twice what is live, past PERF-12's 2 GB. The index's slabs
// hold no pointers, so a collection costs little however large it is, and
// a small headroom costs a few collections more for a lower peak.
const buildHeadroom = 32 << 20

// A heapBound collects garbage when the heap has grown more than headroom
// past what the last collection found live, without changing the
// process's collector settings (GOGC, GOMEMLIMIT), which are its owner's.
// Zero headroom bounds nothing.
type heapBound struct {
	headroom uint64
	// collections counts the collections it started, for tests.
	collections atomic.Int64
}

func (h *heapBound) check() {
	if h.headroom == 0 {
		return
	}
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}, // live, and dead not yet swept
	}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	if s[1].Value.Uint64() > s[0].Value.Uint64()+h.headroom {
		h.collections.Add(1)
		runtime.GC()
	}
}

// current is the store's vector rev up to which x lacks nothing of its
// scope.
func (x *annIndex) current() int64 { return max(x.rev.Load(), x.upTo.Load()) }

// forget drops seqs from the scope's index, if it is loaded: their vectors
// were deleted or replaced by none.
func (a *annIndexes) forget(sp span, seqs []int64) {
	if len(seqs) == 0 {
		return
	}
	a.mu.Lock()
	x := a.scopes[sp.lo>>scopeBits]
	a.mu.Unlock()
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.forgets.Add(1)
	ix := x.ix.Load()
	at := x.current()
	for _, s := range seqs {
		in := ix != nil && ix.Delete(uint64(s))
		if in {
			x.unsaved++
		}
		x.pending.remove(s, in, at)
	}
}

// drop forgets the scope's index and its file: the scope was cleared. The
// caller holds pub.
func (a *annIndexes) drop(sp span) {
	scope := sp.lo >> scopeBits
	a.mu.Lock()
	x := a.scopes[scope]
	delete(a.scopes, scope)
	a.mu.Unlock()
	if x != nil {
		// The indexer may hold x: it must neither insert into it nor
		// write its file again.
		x.mu.Lock()
		x.dropped = true
		x.mu.Unlock()
		x.pending.clear()
	}
	if a.dir != "" {
		os.Remove(a.path(scope))
	}
}

// reset forgets every index: the vector space changed, every vector was
// dropped and the store's rev is now rev. The caller holds pub.
func (a *annIndexes) reset(vs mnemo.VectorSpace, rev int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.space = vs
	a.clearScopes()
	a.known, a.gapAt = rev, 0 // no vector is left to miss
	if a.dir != "" {
		os.RemoveAll(a.dir)
	}
}

// clearScopes forgets every scope's index, and empties their pending
// buffers, which searches may still hold. The caller holds mu.
func (a *annIndexes) clearScopes() {
	for _, x := range a.scopes {
		x.pending.clear()
	}
	a.scopes = make(map[int64]*annIndex)
}

// indexed returns how many vectors the scope's index holds, or -1 when it
// is not loaded.
func (a *annIndexes) indexed(sp span) int {
	a.mu.Lock()
	x := a.scopes[sp.lo>>scopeBits]
	a.mu.Unlock()
	if x == nil {
		return -1
	}
	ix := x.ix.Load()
	if ix == nil {
		return -1
	}
	return ix.Len()
}
