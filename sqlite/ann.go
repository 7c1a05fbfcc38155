package sqlite

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/cpugate"
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
//
// This file holds the options and the two types; ann_cache.go the indexes
// in memory and the heap bound of a long build, ann_indexer.go the
// background indexer that catches them up with the table, ann_persist.go
// their files.

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
// efConstruction each, and 200 misses PERF-12 at 1M; 100 builds in about
// half the CPU and keeps recall@10 over PERF-14's 0.95 at the efSearch of
// each size, where M 24 costs as much and finds less and efConstruction
// 64 falls near the floor (docs/BENCHMARKS.md, "ANN recall"). An index
// file keeps the efConstruction it was built with.
var annOptions = vector.Options{M: 32, EfConstruction: 100, EfSearch: 1024}

// searchEffort is the efSearch of an index of n vectors when the store's
// SearchEffort is left 0 (PERF-2, PERF-14). The walk costs about
// efSearch, and a larger index needs a larger one for the same recall: 512
// keeps a margin over 0.95 at 100k for half the walk of 1024
// (docs/BENCHMARKS.md, "ANN recall"). From 200k
// it grows as √n, to 1024 from 800k up, where nothing measured shows that
// less holds; a multiple of 64, so that it changes seldom.
func searchEffort(n int) int {
	const small, full, from = 512, 1024, 200_000
	ef := small * math.Sqrt(float64(n)/from)
	return int(max(small, min(full, math.Round(ef/64)*64)))
}

// annIndexes holds the loaded indexes of a DB, and the background indexer
// that keeps them caught up with the table.
//
// Inserting into an HNSW graph is the expensive part of a vector (about a
// millisecond at 612 dimensions): a search that caught the index up itself
// made the first recall after a bulk load pay for every vector loaded
// (PERF-9). So only the indexer inserts. Writes wake it; it finds the
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
	gate atomic.Pointer[cpugate.Gate]

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
	// whose catch-up query then read the scope's rows, and scored pending
	// vectors it did not have (PERF-11).
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
