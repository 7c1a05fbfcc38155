package sqlite

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/safe"
	"github.com/mnemo-dev/mnemo/priority"
	"github.com/mnemo-dev/mnemo/vector"
)

// The ANN index of each scope is kept in memory and persisted beside the
// database, in <db>-vectors/<scope number>.ann, so that a large store opens
// without re-indexing. The memories table stays the truth: a file records
// the highest vector_rev it holds, and on open the index catches up with
// the vectors stored since; a missing, torn or foreign file is rebuilt from
// the table. Deletions that the index missed (another process forgot a
// memory) are harmless: every neighbour is checked against the table before
// it is returned.

// annOptions shape the ANN indexes. Memories on one topic are many
// near-equal vectors (bench/scale), and finding their true ten nearest
// takes a denser graph and a wider search than the vector package's
// defaults, which are tuned on well-separated clusters: at 100k generated
// memories, M 16 / ef 128 found 0.70 of the true ten, M 32 / ef 512 0.94
// and M 32 / ef 1024 0.97, within the latency target (docs/BENCHMARKS.md).
// EfSearch is the most a search walks: Options.SearchEffort overrides it;
// left 0, each index walks searchEffort of its size.
//
// EfConstruction 100, not 200: the build's cost is its walks, about
// efConstruction each, and at 1M (1.15 ms a vector at 200) it is the
// figure issue 20 most misses. On 100k of the built-in embedder's
// memories (vector's BenchmarkIndexFileBuild, 1,000 queries) 100 built in
// 0.57 of the CPU of 200, for recall@10 0.977 against 0.987 at the
// efSearch of that size (512), 0.989 against 0.995 at 1024; M 24 cost as
// much and found less (0.969 at 512), efConstruction 64 0.38 of the CPU
// and 0.961. At 1M: 652 s against 1,154 s, recall@10 0.975 against 0.994
// at the efSearch of that size, over issue 20's 0.95. An index file keeps
// the efConstruction it was built with.
var annOptions = vector.Options{M: 32, EfConstruction: 100, EfSearch: 1024}

// searchEffort is the efSearch of an index of n vectors when the store's
// SearchEffort is left 0 (issue 20, PERF-2). The walk costs about
// efSearch, and a larger index needs a larger one for the same recall. On
// the built-in embedder's memories at 100k (bench scale's, 1,000 queries)
// ef 256, 384, 512, 1024 found 0.966, 0.981, 0.987, 0.995 of the true
// ten: 512 keeps a margin over 0.95 for half the walk of 1024. From 200k
// it grows as √n, to 1024 from 800k up, where nothing measured shows that
// less holds; a multiple of 64, so that it changes seldom.
func searchEffort(n int) int {
	const small, full, from = 512, 1024, 200_000
	ef := small * math.Sqrt(float64(n)/from)
	return int(max(small, min(full, math.Round(ef/64)*64)))
}

// annSaveEvery is the fewest changes since the last save that make a
// scope's index worth writing again in the background (besides on Close);
// a larger index waits for more (saveDue).
const annSaveEvery = 20000

// saveDue reports whether an index of n vectors, unsaved changes since its
// file was written, is worth writing again. Every 20,000 changes, a build
// of 1M vectors rewrote its file (1.4 GB at the end) 50 times, 38 GB in
// all, each write holding the index from the indexer (issue 20); once a
// quarter of the index has changed, the writes come to about five times
// the final file, and a crash costs the indexer at most a quarter of the
// index to insert again from the table.
//
// A bulk build writes its index again only once it has doubled: at 1M
// memories the quarter steps wrote 5.9 GB, each write holding the build
// (issue 20), where doubling writes about 1.8 GB before the last; a
// crash then costs at most half of a build, which the table restarts.
func saveDue(n, unsaved int, bulk bool) bool {
	if bulk {
		return unsaved >= max(annSaveEvery, n/2)
	}
	return unsaved >= max(annSaveEvery, n/4)
}

// annIndexes holds the loaded indexes of a DB, and the background indexer
// that keeps them caught up with the table.
//
// Inserting into an HNSW graph is the expensive part of a vector (about a
// millisecond at 612 dimensions): a search that caught the index up itself
// made the first recall after a bulk load pay for every vector loaded (0.9
// ms a memory). So only the indexer inserts. Writes wake it; it finds the
// scopes with vectors stored since it last looked and inserts them in
// small batches, so that a search waits for at most one batch. A search
// never waits for it: it asks the index, and scores the vectors the index
// does not hold yet exactly (the newest pendingScan of them), and says so.
type annIndexes struct {
	dir         string // where index files live; "" keeps indexes in memory only
	opts        vector.Options
	bySize      bool // efSearch follows each index's size (searchEffort), at most opts.EfSearch
	logger      *slog.Logger
	exactBelow  int // see the constant; tests lower it
	bulkBacklog int // see the constant; tests lower it
	// readAhead, when set, is called with the seqs a bulk build read
	// ahead, once the read is done and the batch before it is in: for
	// tests, to forget them meanwhile.
	readAhead   func(seqs []uint64)
	pendingScan int // see the constant; tests lower it
	// preloadFrom is the smallest index file preload loads (preloadBytes;
	// tests lower it).
	preloadFrom int64
	// pendingBudget bounds the bytes of the pending buffers together
	// (pendingBytes; tests lower it), pendingUsed counts them.
	pendingBudget int64
	pendingUsed   atomic.Int64
	// bound keeps a long catch-up's garbage from doubling the heap
	// (buildHeadroom; tests lower it).
	bound heapBound

	mu      sync.Mutex
	space   mnemo.VectorSpace
	scopes  map[int64]*annIndex // by scope number
	saving  sync.WaitGroup
	loading sync.WaitGroup // preload
	closed  bool

	// The indexer: started by the first wake, stopped by close.
	wakeC   chan struct{} // buffered: one pending wake is enough
	stop    context.CancelFunc
	done    chan struct{}
	started bool
	seen    int64 // the vector rev up to which new vectors' scopes were found; indexer only

	// firstLook, made by preload, is closed by the indexer's first pass
	// once it has begun any bulk build due (looked); bulkRunning is open
	// while a pass builds in bulk. Under mu; see awaitBulk.
	firstLook   chan struct{}
	lookDone    bool
	bulkRunning chan struct{}

	// gate, when set, is the process's: the indexer yields to recalls on
	// it between inserts (PERF-2).
	gate atomic.Pointer[priority.Gate]

	// work serialises catching up, by the indexer or IndexVectors; a test
	// holding it keeps the indexer from inserting.
	work workLock

	// pub orders the commits that store vectors with their recording in
	// the pending buffers (record): a write holds it from before its
	// commit until its vectors are recorded.
	pub sync.Mutex
	// known and gapAt, under mu: every live vector of a rev in (gapAt,
	// known] was stored by this process and is in its scope's pending
	// buffer; known is -1 until the first record, unless the store held
	// no vector (DB.trustEmpty). A rev above known is another process's
	// write (or one being recorded), and gapAt moves to the last rev such
	// a write left unrecorded.
	known, gapAt int64
}

// annIndex is one scope's index.
type annIndex struct {
	scope int64
	ix    atomic.Pointer[vector.Index] // nil until loaded

	// rev is the highest vector_rev the index holds; vectors stored after
	// it are searched exactly until the indexer inserts them.
	rev atomic.Int64
	// upTo is a vector rev of the store up to which the scope has no
	// vector the index lacks: the store's rev when a catch-up last found
	// nothing more to insert. Other scopes' writes raise the store's rev
	// past rev; without upTo every search of this scope woke the indexer,
	// whose catch-up query then read the scope's rows (44% of a recall
	// benchmark's CPU beside another agent's writes, issue 20), and scored
	// pending vectors it did not have.
	upTo atomic.Int64

	// pending holds the vectors of the scope that this process stored
	// and the index lacks, for searches to score without reading rows.
	pending *pendingBuffer

	// mu serialises loading, inserting and saving; searches do not take it
	// once the index is loaded.
	mu      sync.Mutex
	unsaved int  // changes since the file was written
	dropped bool // the scope was cleared: nothing more to insert or save

	inserted atomic.Int64 // vectors inserted, for tests: only the indexer inserts
	// forgets counts forget's calls, under mu: a bulk build's read ahead
	// of the next batch (readBatch) is read again if one came after it.
	forgets atomic.Int64
}

func newANNIndexes(dbPath string, efSearch int, logger *slog.Logger) *annIndexes {
	opts := annOptions
	if efSearch > 0 {
		opts.EfSearch = efSearch
	}
	return &annIndexes{
		dir: dbPath + "-vectors", opts: opts, bySize: efSearch <= 0, logger: logger,
		exactBelow: exactBelow, bulkBacklog: bulkBacklog, pendingScan: pendingScan, pendingBudget: pendingBytes,
		preloadFrom: preloadBytes,
		bound:       heapBound{headroom: buildHeadroom},
		scopes:      make(map[int64]*annIndex),
		wakeC:       make(chan struct{}, 1),
		work:        make(workLock, 1),
		known:       -1,
	}
}

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
	vs, rev, err := vectorSpace(ctx, db.reader)
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

// preloadBytes is the smallest index file preload loads: a smaller one
// (under about 20,000 vectors at 612 dimensions) loads on its scope's first
// search in tens of milliseconds, and a store of many small, idle scopes
// keeps them out of memory until they are searched.
const preloadBytes = 32 << 20

// preload loads, in the background, every scope's index file of at least
// preloadFrom bytes, as the first search of each would
// (Options.PreloadVectors). A search that comes meanwhile waits on the
// scope's mu for the load under way. then, if not nil, is called once the
// loads are done.
func (a *annIndexes) preload(db *DB, then func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.dir == "" {
		if then != nil {
			then()
		}
		return
	}
	a.loading.Go(func() {
		if then != nil {
			defer then()
		}
		defer safe.Recover(a.logger, "loading the vector indexes", nil)
		vs, _, err := vectorSpace(context.Background(), db.reader)
		if err != nil || vs.Model == "" {
			return
		}
		files, _ := os.ReadDir(a.dir) // none yet: nothing to load
		for _, f := range files {
			name, ok := strings.CutSuffix(f.Name(), ".ann")
			scope, err := strconv.ParseInt(name, 10, 64)
			if !ok || err != nil || scope <= 0 {
				continue // a temporary file of a save
			}
			if fi, err := f.Info(); err != nil || fi.Size() < a.preloadFrom {
				continue
			}
			a.mu.Lock()
			closed := a.closed
			a.mu.Unlock()
			if closed {
				return
			}
			x := a.entry(scope, vs)
			x.mu.Lock()
			if !x.dropped {
				a.ensureLoaded(x, vs)
			}
			x.mu.Unlock()
		}
		a.registerUnbuilt(db, vs)
		// The indexer catches up now, not on the first search, and then
		// tells whether it builds an index in bulk, which the in-memory
		// full-text index, started next, waits for (awaitBulk).
		a.mu.Lock()
		if !a.closed {
			a.firstLook = make(chan struct{})
		}
		a.mu.Unlock()
		a.wake(db)
	})
}

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
// the two builds slowed each other, and at 1M memories they held the
// index, its compact codes (until the build ends) and the full-text
// index's 277 MB at once, past issue 20's 2 GB (2,095 MiB); FTS5 ranks
// meanwhile.
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

// ensureLoaded reads x's file, or starts x empty. The caller holds x.mu.
func (a *annIndexes) ensureLoaded(x *annIndex, vs mnemo.VectorSpace) {
	if x.ix.Load() != nil {
		return
	}
	old, err := x.load(a.path(x.scope), vs, a.effort)
	if err == nil && old {
		// A file of the first header version is read by copying; written
		// again, it is mapped on the next open (issue 20: reopen at 1M).
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
	defer safe.Recover(a.logger, "the vector indexer", nil)
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.wakeC:
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
	vs, rev, err := vectorSpace(ctx, db.reader)
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
// 32 inserts, about 30 ms of CPU at 612 dimensions, which AddBatch spreads
// over two cores (from 16 vectors a worker; issue 20).
const catchUpBatch = 32

// bulkBatch is how many vectors a bulk build inserts at once, the next
// batch read from the table while one is linked in: at 1M memories the
// build's 31,250 batches of 32 each waited for their slowest insert and
// for the read of the next, and used 1.44 of the two cores (issue 20).
// Searches do not wait for a batch (AddBatch links under the read lock);
// a forget of the scope waits for one, about 70 ms on two cores.
const bulkBatch = 256

// bulkBacklog is the backlog from which a catch-up is a bulk build for
// the index (vector.Index.BeginBulk): its inserts walk the graph on
// compact codes once it has added enough to pay for them, as the first
// build of a large store does (issue 20).
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

// boundFrom is how many vectors one catch-up inserts before it bounds the
// heap (heapBound): an index built or rebuilt from the table, or a bulk
// load caught up, not the indexer's usual few batches after writes.
const boundFrom = 4096

// buildHeadroom is how far a long build (a catch-up of many vectors, the
// in-memory full-text index's) lets the Go heap grow past what the last
// collection found live. The collector's default
// (GOGC 100) lets it reach twice the live heap, most of which is the index
// being built: at 1M memories 1.5 GB of index and 0.3 GB of full-text
// index would peak near 3.6 GB, where issue 20 asks for a build under 2
// GB (1.80 GiB of it live). The index's slabs hold no pointers, so a
// collection costs little however large it is: at 100k, 32 MB made 24-25
// collections of 0.19-0.20 s of CPU in all, 64 MB 18 of 0.14 s, for a
// peak 10 MB higher.
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

// UseGate makes the background indexer yield to the requests in flight on
// g: recall goes first on the CPU (PERF-2).
func (db *DB) UseGate(g *priority.Gate) { db.vectors.gate.Store(g) }

// current is the store's vector rev up to which x lacks nothing of its
// scope.
func (x *annIndex) current() int64 { return max(x.rev.Load(), x.upTo.Load()) }

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
// driver's copy of each row behind (issue 20: 2.6 KB a vector at 612
// dimensions, not 8). It does not touch the index, so that a bulk build
// reads the next batch while one is linked in.
func (x *annIndex) readBatch(ctx context.Context, db *DB, sp span, after int64, limit, dim int, buf []float32) vectorBatch {
	b := vectorBatch{after: after, limit: limit, forgets: x.forgets.Load()}
	if cap(buf) < limit*dim {
		buf = make([]float32, 0, limit*dim)
	}
	b.buf = buf[:0]
	rows, err := db.reader.QueryContext(ctx, catchUpQuery, after, sp.lo, sp.hi, limit)
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

func (a *annIndexes) path(scope int64) string {
	return filepath.Join(a.dir, strconv.FormatInt(scope, 10)+".ann")
}

// saveLater writes x in the background. The caller holds x.mu.
func (a *annIndexes) saveLater(x *annIndex, vs mnemo.VectorSpace) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.dir == "" {
		return
	}
	x.unsaved = 0 // a failed save is retried after as many changes again
	a.saving.Add(1)
	go func() {
		defer a.saving.Done()
		defer safe.Recover(a.logger, "saving a vector index", nil)
		x.mu.Lock()
		defer x.mu.Unlock()
		if !x.dropped {
			x.save(a.path(x.scope), vs) // best effort: the table is the truth
		}
	}()
}

// close stops the indexer, waits for background saves and writes every
// index with unsaved changes. Vectors the indexer had not inserted yet are
// inserted on the next run from the table.
func (a *annIndexes) close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.loading.Wait() // a preload stops before its next file
	a.mu.Lock()
	if a.started {
		a.stop()
		a.mu.Unlock()
		<-a.done
		a.mu.Lock()
	}
	scopes := make([]*annIndex, 0, len(a.scopes))
	for _, x := range a.scopes {
		scopes = append(scopes, x)
	}
	vs := a.space
	a.mu.Unlock()
	a.saving.Wait()
	var errs []error
	for _, x := range scopes {
		x.mu.Lock()
		if x.ix.Load() != nil && x.unsaved > 0 && !x.dropped && a.dir != "" {
			if err := x.save(a.path(x.scope), vs); err != nil {
				errs = append(errs, err)
			} else {
				x.unsaved = 0
			}
		}
		x.mu.Unlock()
	}
	return errors.Join(errs...)
}

// annMagic starts every index file; the number is the header's version.
// Version 2 pads the header with zeros to a multiple of annAlign bytes, so
// that the index after it can be mapped in place (vector.Read, issue 20:
// reopen at 1M); version 1 files are still read, by copying.
const (
	annMagic   = "mnemo-ann-2\n"
	annMagicV1 = "mnemo-ann-1\n"
	annAlign   = 64
)

// save writes x to path atomically: a temporary file, synced, then renamed,
// so that a crash leaves the old file or the new one, never half of one.
// The caller holds x.mu.
func (x *annIndex) save(path string, vs mnemo.VectorSpace) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sqlite: save vector index: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".ann-*")
	if err != nil {
		return fmt.Errorf("sqlite: save vector index: %w", err)
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing to remove
	// Writes of 4 MB at multiples of 4 MB leave the file in the page cache
	// in 2 MB folios, which the next open's mapping of it maps with huge
	// pages (vector.Read; searches read the index at random). Written 1 MB
	// at a time, a search at 1M cost 1.26 times the CPU (issue 20).
	w := bufio.NewWriterSize(f, 4<<20)
	err = writeANN(w, annHeader(vs, x.rev.Load()), x.ix.Load())
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("sqlite: save vector index: %w", err)
	}
	return nil
}

// writeANN writes an index file's header, then the index, to w, and
// returns the first error: a file cut short must never be renamed over a
// good one.
func writeANN(w io.Writer, header []byte, ix io.WriterTo) error {
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err := ix.WriteTo(w)
	return err
}

// annHeader is the magic, then the model, dimension and rev, then a CRC-32
// of all that: a header that does not check out is not trusted, since a
// wrong rev would hide vectors from the catch-up.
func annHeader(vs mnemo.VectorSpace, rev int64) []byte {
	b := []byte(annMagic)
	b = binary.AppendUvarint(b, uint64(len(vs.Model)))
	b = append(b, vs.Model...)
	b = binary.AppendUvarint(b, uint64(vs.Dimension))
	b = binary.AppendUvarint(b, uint64(rev))
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return append(b, make([]byte, -len(b)&(annAlign-1))...)
}

// errStale marks an index file of another vector space.
var errStale = errors.New("index file is of another model")

// load reads the index file at path, if it is of space vs, and reports
// whether the file's header is of the first version. The caller holds x.mu.
func (x *annIndex) load(path string, vs mnemo.VectorSpace, effort func(n int) int) (old bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// The header is read a byte at a time, so that the file is positioned
	// at the index itself: vector.Read loads from an *os.File in bulk.
	r := fileBytes{f}
	// The header's length depends on the rev; read field by field.
	magic := make([]byte, len(annMagic))
	if _, err := io.ReadFull(r, magic); err != nil || (string(magic) != annMagic && string(magic) != annMagicV1) {
		return false, fmt.Errorf("%s: not an index file", path)
	}
	var hdr []byte
	hdr = append(hdr, magic...)
	readUvarint := func() (uint64, error) {
		v, err := binary.ReadUvarint(r)
		hdr = binary.AppendUvarint(hdr, v)
		return v, err
	}
	n, err := readUvarint()
	if err != nil || n > 1<<10 {
		return false, fmt.Errorf("%s: bad header", path)
	}
	model := make([]byte, n)
	if _, err := io.ReadFull(r, model); err != nil {
		return false, fmt.Errorf("%s: bad header", path)
	}
	hdr = append(hdr, model...)
	dim, err1 := readUvarint()
	rev, err2 := readUvarint()
	var sum [4]byte
	_, err3 := io.ReadFull(r, sum[:])
	if err := errors.Join(err1, err2, err3); err != nil {
		return false, fmt.Errorf("%s: bad header", path)
	}
	if binary.LittleEndian.Uint32(sum[:]) != crc32.ChecksumIEEE(hdr) {
		return false, fmt.Errorf("%s: header checksum mismatch", path)
	}
	if string(magic) == annMagic {
		pad := make([]byte, -(len(hdr)+len(sum))&(annAlign-1))
		if _, err := io.ReadFull(r, pad); err != nil || slices.ContainsFunc(pad, func(c byte) bool { return c != 0 }) {
			return false, fmt.Errorf("%s: bad header", path)
		}
	}
	if string(model) != vs.Model || int(dim) != vs.Dimension {
		return false, fmt.Errorf("%s: %w", path, errStale)
	}
	ix, err := vector.Read(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	ix.SetEfSearch(effort(ix.Len())) // the file keeps the effort it was built with; use today's
	if ix.Dim() != vs.Dimension {
		return false, fmt.Errorf("%s: %w", path, errStale)
	}
	x.rev.Store(int64(rev))
	x.ix.Store(ix)
	x.unsaved = 0
	return string(magic) == annMagicV1, nil
}

// fileBytes reads a file one byte at a time, for the few bytes of a header.
type fileBytes struct{ f *os.File }

func (b fileBytes) Read(p []byte) (int, error) { return b.f.Read(p) }

func (b fileBytes) ReadByte() (byte, error) {
	var c [1]byte
	_, err := io.ReadFull(b.f, c[:])
	return c[0], err
}
