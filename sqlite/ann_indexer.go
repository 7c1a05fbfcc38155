package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/cpugate"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/vector"
)

// registerUnbuilt registers the scopes that have no index file and
// vectors enough for a bulk build (a store imported, migrated, or whose
// files were lost), so that the indexer's pass after preload builds their
// indexes at open rather than on their first search; smaller ones wait
// for it, as their files do under preloadFrom.
func (a *annIndexes) registerUnbuilt(db *DB, vs mnemo.VectorSpace) {
	ctx := context.Background()
	rows, err := db.reader.QueryContext(ctx, `SELECT id FROM scopes`)
	if err != nil {
		return
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if rows.Scan(&id) == nil {
			ids = append(ids, id)
		}
	}
	rows.Close()
	for _, id := range ids {
		a.mu.Lock()
		_, known := a.scopes[id]
		closed := a.closed
		a.mu.Unlock()
		if closed {
			return
		}
		if known {
			continue
		}
		if _, err := os.Stat(a.path(id)); err == nil {
			continue
		}
		sp := spanOf(id)
		var n int
		if err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM memories
			WHERE seq >= ? AND seq < ? AND vector_rev > 0 AND tombstone = 0 LIMIT ?)`,
			sp.lo, sp.hi, a.bulkBacklog).Scan(&n); err != nil {
			return
		}
		if n >= a.bulkBacklog {
			a.entry(id, vs)
		}
	}
}

// looked closes firstLook, if preload made it: the indexer's pass has
// found what it has to insert, and a bulk build it is to do has begun
// (bulkRunning).
func (a *annIndexes) looked() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.firstLook != nil && !a.lookDone {
		close(a.firstLook)
		a.lookDone = true
	}
}

// awaitBulk waits, until ctx ends, for the indexer's first pass after
// preload to say whether it builds an index in bulk, and for such a build
// to end. The in-memory full-text index is built after it: on two cores
// the two builds slow each other, and at 1M memories together they hold
// the index, its compact codes (until the build ends) and the full-text
// index at once, past PERF-12's 2 GB; the full-text index ranks meanwhile.
func (a *annIndexes) awaitBulk(ctx context.Context) {
	a.mu.Lock()
	first := a.firstLook
	a.mu.Unlock()
	if first != nil {
		select {
		case <-first:
		case <-ctx.Done():
			return
		}
	}
	a.mu.Lock()
	running := a.bulkRunning
	a.mu.Unlock()
	if running != nil {
		select {
		case <-running:
		case <-ctx.Done():
		}
	}
}

// indexerCoalesce is how long the indexer waits after a wake for more
// writes to wake it, so that one pass inserts their vectors together.
const indexerCoalesce = 10 * time.Millisecond

// wake asks the indexer to look for new vectors, starting it if needed.
func (a *annIndexes) wake(db *DB) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	if !a.started {
		a.started = true
		ctx, stop := context.WithCancel(context.Background())
		a.stop, a.done = stop, make(chan struct{})
		go a.run(ctx, db)
	}
	a.mu.Unlock()
	select {
	case a.wakeC <- struct{}{}:
	default: // a wake is pending already
	}
}

// run is the indexer: it catches the indexes up each time it is woken,
// until ctx is cancelled.
func (a *annIndexes) run(ctx context.Context, db *DB) {
	defer close(a.done)
	// A panic stops the indexer, logged, not the process: searches score
	// what the index lacks exactly, and say so.
	defer panics.Recover(a.logger, "the vector indexer", nil)
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.wakeC:
		}
		// The commits right behind this one land first: a pass costs
		// its queries whatever it inserts, and a conversation's writes
		// woke it once a turn (PERF-16). Searches score what the index
		// lacks meanwhile from the pending buffers.
		select {
		case <-ctx.Done():
			return
		case <-time.After(indexerCoalesce):
		}
		a.work.Lock()
		err := a.catchUpAll(ctx, db)
		a.work.Unlock()
		if err != nil && ctx.Err() == nil {
			// The table is the truth: searches score what the index
			// lacks exactly, and the next write wakes the indexer again.
			db.logger.Warn("vector index catch-up failed", "err", err)
		}
	}
}

// IndexVectors inserts into the ANN indexes every vector they lack, as the
// background indexer does after writes, and returns when they hold every
// vector stored: for benchmarks, tests, and callers that want to wait for
// the indexer after a bulk load. Searches never need it.
func (db *DB) IndexVectors(ctx context.Context) error {
	// The indexer may be in the middle of a long catch-up (an index built
	// from the table): the wait for it ends with ctx, so a caller told to
	// stop is not held for minutes.
	if err := db.vectors.work.lockContext(ctx); err != nil {
		return err
	}
	defer db.vectors.work.Unlock()
	return db.vectors.catchUpAll(ctx, db)
}

// indexedNow returns how many vectors the index of the scope whose seqs
// are sp holds: when this process has not loaded it yet (a one-shot
// command beside a server), it is loaded and caught up with the table
// first, as the first search would, so that every process reports the
// index the store has rather than nothing.
func (db *DB) indexedNow(ctx context.Context, sp span) (int, error) {
	if n := db.vectors.indexed(sp); n >= 0 {
		return n, nil
	}
	x, rev, err := db.vectors.open(ctx, db, sp)
	if err != nil || x == nil {
		return 0, err
	}
	vs, _, err := vectorSpace(ctx, db.reader)
	if err != nil {
		return 0, fmt.Errorf("sqlite: %w", err)
	}
	if err := db.vectors.work.lockContext(ctx); err != nil {
		return 0, err
	}
	defer db.vectors.work.Unlock()
	if err := db.vectors.catchUp(ctx, db, x, vs, rev); err != nil {
		return 0, err
	}
	return db.vectors.indexed(sp), nil
}

// workLock is a mutex whose wait can end with a context.
type workLock chan struct{}

func (l workLock) Lock()   { l <- struct{}{} }
func (l workLock) Unlock() { <-l }

func (l workLock) lockContext(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// catchUpAll registers the scopes that got vectors since the indexer last
// looked, then inserts every registered scope's missing vectors.
func (a *annIndexes) catchUpAll(ctx context.Context, db *DB) error {
	defer a.looked() // on every return; once the todo list is known below
	vs, rev, err := vectorSpace(ctx, db.readStmts)
	if err != nil || vs.Model == "" {
		return err
	}
	if rev > a.seen {
		rows, err := db.reader.QueryContext(ctx, `SELECT DISTINCT seq >> ? FROM memories
			WHERE vector_rev > ? AND vector_rev <= ?`, scopeBits, a.seen, rev)
		if err != nil {
			return fmt.Errorf("sqlite: vector index: %w", err)
		}
		var scopes []int64
		for rows.Next() {
			var s int64
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: vector index: %w", err)
			}
			scopes = append(scopes, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sqlite: vector index: %w", err)
		}
		for _, s := range scopes {
			a.entry(s, vs)
		}
		a.seen = rev
	}
	a.mu.Lock()
	todo := make([]*annIndex, 0, len(a.scopes))
	for _, x := range a.scopes {
		if x.ix.Load() == nil || x.current() < rev {
			todo = append(todo, x)
		}
	}
	a.mu.Unlock()
	// A scope not loaded yet builds in bulk if it has no file (catchUp
	// decides once it is loaded).
	bulkDue := func(x *annIndex) bool {
		if x.ix.Load() == nil && a.dir != "" {
			if _, err := os.Stat(a.path(x.scope)); err == nil {
				return false
			}
		}
		return rev-x.current() >= int64(a.bulkBacklog)
	}
	if slices.ContainsFunc(todo, bulkDue) {
		running := make(chan struct{})
		a.mu.Lock()
		a.bulkRunning = running
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.bulkRunning = nil
			a.mu.Unlock()
			close(running)
		}()
	}
	a.looked()
	for _, x := range todo {
		if err := a.catchUp(ctx, db, x, vs, rev); err != nil {
			return err
		}
	}
	return nil
}

// catchUpBatch is how many vectors the indexer inserts at once. A batch
// holds the index's write lock, so a search waits for one batch at most:
// 32 inserts, which AddBatch spreads over two cores (from 16 vectors a
// worker; PERF-11, PERF-12).
const catchUpBatch = 32

// bulkBatch is how many vectors a bulk build inserts at once, the next
// batch read from the table while one is linked in: batches of 32 each
// wait for their slowest insert and for the read of the next, which
// leaves cores idle (PERF-12). Searches do not wait for a batch (AddBatch
// links under the read lock); a forget of the scope waits for one.
const bulkBatch = 256

// bulkBacklog is the backlog from which a catch-up is a bulk build for
// the index (vector.Index.BeginBulk): its inserts walk the graph on
// compact codes once it has added enough to pay for them, as the first
// build of a large store does (PERF-12).
const bulkBacklog = 10_000

// catchUp inserts the scope's vectors stored after x.rev, a batch at a
// time, releasing x between batches.
//
// rev is the store's vector rev read before: once a batch comes back short,
// the scope has no vector up to rev the index lacks (x.upTo).
func (a *annIndexes) catchUp(ctx context.Context, db *DB, x *annIndex, vs mnemo.VectorSpace, rev int64) error {
	sp := spanOf(x.scope)
	var (
		bulk     *vector.Index
		next     chan vectorBatch // the bulk build's read of the next batch, in flight
		spare    []float32        // a buffer for the next batch's vectors
		inserted int
	)
	defer func() {
		if next != nil {
			<-next
		}
		if bulk != nil {
			bulk.EndBulk()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		g := a.gate.Load()
		g.Yield(ctx)
		x.mu.Lock()
		if x.dropped {
			x.mu.Unlock()
			return nil
		}
		a.ensureLoaded(x, vs)
		ix := x.ix.Load()
		ix.SetYield(func() { g.Yield(ctx) })
		if bulk == nil && rev-x.current() >= int64(a.bulkBacklog) {
			bulk = ix
			bulk.BeginBulk()
		}
		limit := catchUpBatch
		if bulk != nil {
			limit = bulkBatch
		}
		var b vectorBatch
		if next != nil {
			b, next = <-next, nil
			// A forget since the read began may have deleted a vector
			// it read from the index before it was added (forget).
			if b.after != x.current() || b.forgets != x.forgets.Load() || b.limit != limit {
				b = x.readBatch(ctx, db, sp, x.current(), limit, ix.Dim(), b.buf)
			}
		} else {
			b, spare = x.readBatch(ctx, db, sp, x.current(), limit, ix.Dim(), spare), nil
		}
		if bulk != nil && b.err == nil && b.n == limit {
			next = make(chan vectorBatch, 1)
			go func(after int64, buf []float32) {
				next <- x.readBatch(ctx, db, sp, after, limit, ix.Dim(), buf)
			}(b.rev, spare)
		}
		n, err := x.addBatch(db, b)
		spare = b.buf
		if n > 0 {
			x.unsaved += n
			if saveDue(ix.Len(), x.unsaved, bulk != nil) {
				a.saveLater(x, vs)
			}
		}
		if err == nil && n < limit && x.upTo.Load() < rev {
			x.upTo.Store(rev)
		}
		x.pending.trim(x.current())
		x.mu.Unlock()
		if err != nil || n < limit {
			return err
		}
		if a.readAhead != nil && next != nil {
			b := <-next
			next <- b
			a.readAhead(b.ids)
		}
		if inserted += n; inserted >= boundFrom {
			a.bound.check()
		}
	}
}

// UseGate makes the background indexer yield to the requests in flight on
// g: recall goes first on the CPU (PERF-2).
func (db *DB) UseGate(g *cpugate.Gate) { db.vectors.gate.Store(g) }

// catchUpQuery reads the scope's next vectors for the index: those stored
// after a rev, oldest first. INDEXED BY: given the scope's seq range, the
// planner would rather read the whole scope, blobs and all, and sort it by
// vector_rev, once a batch (0.3 s a batch at 100k: an index build of 16
// minutes); along the vector_rev index it reads the batch's rows alone,
// and checks the seq range on the index's rowid (TestVectorRevQueryPlans).
const catchUpQuery = `SELECT seq, embedding, vector_rev FROM memories INDEXED BY memories_vector_rev
	WHERE vector_rev > ? AND seq >= ? AND seq < ? AND tombstone = 0 ORDER BY vector_rev LIMIT ?`

// A vectorBatch is a batch of a scope's vectors read for its index.
type vectorBatch struct {
	after, rev int64 // the vector rev the read began after, and the highest it read (0: none)
	limit      int   // the most rows it asked for
	n          int   // rows read
	forgets    int64 // the scope's forgets when the read began
	ids        []uint64
	vecs       [][]float32 // slices of buf
	none       []uint64    // rows whose vector has no direction
	buf        []float32
	err        error
}

// readBatch reads up to limit of the scope's vectors stored after the
// vector rev after, decoded into buf, which it may grow: the index keeps
// its own quantised copy, and a build from the table then leaves only the
// driver's copy of each row behind, not a float copy too (PERF-12). It does
// not touch the index, so that a bulk build reads the next batch while one
// is linked in.
func (x *annIndex) readBatch(ctx context.Context, db *DB, sp span, after int64, limit, dim int, buf []float32) vectorBatch {
	b := vectorBatch{after: after, limit: limit, forgets: x.forgets.Load()}
	if cap(buf) < limit*dim {
		buf = make([]float32, 0, limit*dim)
	}
	b.buf = buf[:0]
	rows, err := db.readStmts.QueryContext(ctx, catchUpQuery, after, sp.lo, sp.hi, limit)
	if err != nil {
		b.err = fmt.Errorf("sqlite: vector index: %w", err)
		return b
	}
	defer rows.Close()
	for rows.Next() {
		var seq, r int64
		// The vector goes to the end of buf, with room kept for a whole
		// one, so that vecs' slices of buf never move.
		dst := floatsDest{buf: b.buf[len(b.buf):len(b.buf):min(cap(b.buf), len(b.buf)+dim)]}
		if err := rows.Scan(&seq, &dst, &r); err != nil {
			b.err = fmt.Errorf("sqlite: vector index: %w", err)
			return b
		}
		b.rev = max(b.rev, r)
		b.n++
		if v := dst.buf; dst.ok && len(v) == dim && hasDirection(v) {
			b.buf = b.buf[:len(b.buf)+dim]
			b.ids, b.vecs = append(b.ids, uint64(seq)), append(b.vecs, v)
		} else {
			// A zero vector (a text of stop words only) has no direction:
			// the memory is found lexically or not at all.
			b.none = append(b.none, uint64(seq))
		}
	}
	if err := rows.Err(); err != nil {
		b.err = fmt.Errorf("sqlite: vector index: %w", err)
	}
	return b
}

// addBatch adds a batch read by readBatch to the index, and returns how
// many rows it read. The caller holds x.mu.
func (x *annIndex) addBatch(db *DB, b vectorBatch) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	ix := x.ix.Load()
	for _, seq := range b.none {
		ix.Delete(seq)
	}
	if err := ix.AddBatch(b.ids, b.vecs); err != nil {
		return 0, fmt.Errorf("sqlite: vector index: %w", err)
	}
	db.vectors.followSize(ix)
	x.inserted.Add(int64(len(b.ids)))
	x.rev.Store(max(x.rev.Load(), b.rev)) // only what the index holds
	return b.n, nil
}

// insertBatch adds up to catchUpBatch of the scope's vectors stored after
// x.current(), and returns how many rows it read, and buf, grown, for the
// next batch. The caller holds x.mu.
func (x *annIndex) insertBatch(ctx context.Context, db *DB, sp span, buf []float32) (int, []float32, error) {
	b := x.readBatch(ctx, db, sp, x.current(), catchUpBatch, x.ix.Load().Dim(), buf)
	n, err := x.addBatch(db, b)
	return n, b.buf, err
}

// floatsDest scans an embedding column into buf, which holds room for the
// vector, without a copy of the driver's bytes; ok is false when the column
// is not a vector that fits.
type floatsDest struct {
	buf []float32
	ok  bool
}

func (d *floatsDest) Scan(src any) error {
	b, _ := src.([]byte)
	if len(b) == 0 || len(b)%4 != 0 || len(b)/4 > cap(d.buf) {
		d.buf, d.ok = d.buf[:0], false
		return nil
	}
	d.buf, d.ok = d.buf[:len(b)/4], true
	for i := range d.buf {
		d.buf[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// hasDirection reports whether v can be normalised.
func hasDirection(v []float32) bool {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return s > 0 && !math.IsInf(s, 0) && !math.IsNaN(s)
}
