package vector

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Default parameters; see doc.go for the measurements behind them.
const (
	DefaultM              = 16
	DefaultEfConstruction = 128
	DefaultEfSearch       = 128
	DefaultExactBelow     = 5000
)

const (
	maxM      = 127       // so that 2*M fits the per-block count and the header stays small
	maxDim    = 1 << 16   // bounds allocations on Read
	maxLevel  = 24        // with M >= 2 a level above this is unreachable in practice
	maxNodes  = 1<<31 - 1 // node numbers are uint32, noNode is reserved
	noNode    = math.MaxUint32
	lockShift = 12 // 4096 striped link locks for parallel insertion

	// The per-node arrays that grow with the index (codes, fine codes,
	// layer-0 links: 1.5 KB a node at 612 dimensions) are kept in chunks
	// of chunkNodes nodes, so that growing never copies them and leaves no
	// old array behind for the collector: a build's peak memory is the
	// index, not the index and its previous copy (issue 20).
	chunkShift = 12
	chunkNodes = 1 << chunkShift
	chunkMask  = chunkNodes - 1
)

// Node states, stored one byte per node.
const (
	live uint8 = iota // searchable
	dead              // deleted: still routes searches until vacuumed
	free              // vacuumed: nothing links to it; the slot awaits reuse
)

// Options tune an Index; zero values mean defaults.
type Options struct {
	M              int   // max links per node per layer (default 16; layer 0 gets 2*M)
	EfConstruction int   // candidate list size while inserting (default 128)
	EfSearch       int   // candidate list size while searching (default 128)
	ExactBelow     int   // below this many live vectors, Search scans exactly (default 5000)
	Seed           int64 // level generator seed, for reproducible builds

	// Workers bounds the goroutines AddBatch inserts with; 0 means
	// GOMAXPROCS. A parallel build gives a slightly different graph on each
	// run; Workers 1 with a fixed Seed builds the same graph every time.
	// It is not persisted.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.M <= 0 {
		o.M = DefaultM
	}
	o.M = max(2, min(maxM, o.M))
	if o.EfConstruction <= 0 {
		o.EfConstruction = DefaultEfConstruction
	}
	o.EfConstruction = max(o.EfConstruction, o.M)
	if o.EfSearch <= 0 {
		o.EfSearch = DefaultEfSearch
	}
	if o.ExactBelow <= 0 {
		o.ExactBelow = DefaultExactBelow
	}
	return o
}

// Result is one search hit.
type Result struct {
	ID    uint64
	Score float32 // cosine similarity in [-1, 1]
}

// An Index is an HNSW graph over int8-quantised unit vectors, searched by
// cosine similarity. It is safe for concurrent use: searches share a read
// lock and run in parallel; Add, AddBatch and Delete take the write lock.
type Index struct {
	mu   sync.RWMutex
	dim  int
	opts Options
	m0   int     // layer-0 capacity, 2*M
	mult float64 // level multiplier, 1/ln(M)
	rng  uint64  // splitmix64 state for levels; persisted so reloads continue it

	// Per node, indexed by node number. Node numbers are dense and stable
	// until the node is vacuumed; ids map to them through byID.
	ids    []uint64
	scales []float32 // v ≈ scale*code + fineScale*fine
	codes  [][]int8  // dim per node, in chunks of chunkNodes nodes
	fineSc []float32
	fine   [][]int8 // dim per node, chunked as codes
	levels []uint8
	state  []uint8
	links0 [][]uint32 // (m0+1) per node, chunked as codes: count, then neighbours
	upOff  []uint32   // start of the node's layer-1 block in upper
	upper  []uint32   // (M+1) per node per layer above 0, layers 1..level back to back

	byID  map[uint64]uint32 // live ids only
	freed []uint32          // free node numbers, reused by inserts
	entry uint32
	top   int // level of entry
	live  int
	dead  int

	entryMu sync.Mutex // guards entry and top while a batch is linked in

	// A bulk build (BeginBulk, or one large AddBatch) walks the graph
	// with compact codes (bulk.go) once it has seen fitAt vectors to fit
	// their projection on; they are freed when it ends. Guarded by
	// insertMu.
	bulk       bool
	bulkTried  bool        // a fit was tried in this bulk build
	bulkBase   int         // nodes held when the bulk build began
	bulkAdded  int         // vectors it has added
	proj       *projection // nil: the walk uses the full codes
	small      [][]int8    // proj.k per node, chunked as codes
	compactDim int         // the compact codes' dimension (defaultCompactDim); tests change it
	pruneFull  bool        // prune on the full codes even when walking compactly; benchmarks set it
	fitFrom    int         // vectors held before the fit (fitAt); tests lower it

	// insertMu is held by a batch from start to end, and by WriteTo: one
	// batch at a time, and no file written while links change.
	insertMu sync.Mutex
	// inserting is set, under the write lock, while a batch is linked in
	// under the read lock: searches then read links under their locks.
	inserting bool
	linking   func()                 // tests: called as a batch starts linking, read lock held
	repairing func()                 // tests: called as a vacuum starts repairing, read lock held
	yield     atomic.Pointer[func()] // called before each insert of a batch; see SetYield
	locks     [1 << lockShift]sync.Mutex
	pool      sync.Pool // *searcher
}

// New returns an empty index for vectors of dimension dim.
func New(dim int, opts Options) *Index {
	if dim <= 0 || dim > maxDim {
		panic(fmt.Sprintf("vector: dimension %d out of range [1, %d]", dim, maxDim))
	}
	opts = opts.withDefaults()
	return &Index{
		dim:   dim,
		opts:  opts,
		m0:    2 * opts.M,
		mult:  1 / math.Log(float64(opts.M)),
		rng:   uint64(opts.Seed),
		byID:  make(map[uint64]uint32),
		entry: noNode,
	}
}

// Dim returns the dimension of the vectors.
func (x *Index) Dim() int { return x.dim }

// Len returns the number of live (not deleted) vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Has reports whether id has a live vector.
func (x *Index) Has(id uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.byID[id]
	return ok
}

// Options returns the options in effect, defaults filled in.
func (x *Index) Options() Options {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.opts
}

// SetEfSearch changes the candidate list size of later searches, trading
// latency for recall without rebuilding; it is persisted by WriteTo.
// Values below 1 restore the default.
func (x *Index) SetEfSearch(ef int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if ef <= 0 {
		ef = DefaultEfSearch
	}
	x.opts.EfSearch = ef
}

// Add inserts v under id, replacing the vector id had. The index keeps its
// own normalised, quantised copy of v. It fails on a vector of the wrong
// dimension or one without a direction (zero, NaN or infinite).
// SetYield sets a function AddBatch calls before each insert, in every
// inserting goroutine: an owner whose batches are background work waits
// there while requests it serves first are in flight (PERF-2). Searches
// go on during the wait; other batches and Delete wait for the batch. Nil
// removes it.
func (x *Index) SetYield(f func()) {
	if f == nil {
		x.yield.Store(nil)
		return
	}
	x.yield.Store(&f)
}

// pause calls the yield function, if any.
func (x *Index) pause() {
	if f := x.yield.Load(); f != nil {
		(*f)()
	}
}

func (x *Index) Add(id uint64, v []float32) error {
	return x.AddBatch([]uint64{id}, [][]float32{v})
}

// AddBatch adds vs[i] under ids[i] for every i, as Add would, but inserts
// them concurrently with Options.Workers goroutines. A later duplicate id in
// the batch wins. If any vector is invalid, nothing is added.
func (x *Index) AddBatch(ids []uint64, vs [][]float32) error {
	if len(ids) != len(vs) {
		return fmt.Errorf("vector: %d ids for %d vectors", len(ids), len(vs))
	}
	norms := make([]float64, len(vs))
	for i, v := range vs {
		if len(v) != x.dim {
			return fmt.Errorf("vector: id %d: dimension %d, want %d", ids[i], len(v), x.dim)
		}
		if norms[i] = norm(v); norms[i] == 0 {
			return fmt.Errorf("vector: id %d: %w", ids[i], ErrNoDirection)
		}
	}
	// Keep only the last occurrence of each id.
	keep := make([]int, 0, len(ids))
	if len(ids) == 1 {
		keep = append(keep, 0)
	} else {
		last := make(map[uint64]int, len(ids))
		for i, id := range ids {
			last[id] = i
		}
		for i, id := range ids {
			if last[id] == i {
				keep = append(keep, i)
			}
		}
	}

	// Three steps, so that searches go on while the batch is linked in
	// (issue 20: a search waited for a whole batch of inserts, ~1 ms each
	// at 612 dimensions). Under the write lock the nodes are allocated and
	// made live; under the read lock, shared with searches, they are
	// linked into the graph, every link read and written under its striped
	// lock (searches read links that way while x.inserting is set); under
	// the write lock again the batch ends, with a vacuum if one is due.
	// insertMu keeps batches and WriteTo apart from each other.
	x.insertMu.Lock()
	defer x.insertMu.Unlock()
	if !x.bulk && len(keep) >= bulkBatch {
		x.beginBulk()
		defer x.endBulk() // before insertMu is released
	}
	x.maybeFit(vs, norms, keep)
	enc := x.encodeBatch(vs, norms, keep)
	x.mu.Lock()
	nodes, err := x.allocBatch(ids, enc, keep)
	if err != nil || len(nodes) == 0 {
		x.mu.Unlock()
		return err
	}
	x.inserting = true
	x.mu.Unlock()

	x.mu.RLock()
	if x.linking != nil {
		x.linking()
	}
	x.insertAll(nodes)
	x.mu.RUnlock()

	x.mu.Lock()
	x.inserting = false
	x.mu.Unlock()
	x.maybeVacuum()
	return nil
}

// encodedBatch holds a batch's codes, made before the write lock is taken.
type encodedBatch struct {
	codes, fine, small []int8 // dim, dim and the projection's k bytes a vector
	scales, fineSc     []float32
	k                  int // bytes of a compact code; 0 without a projection
}

// encodeBatch encodes the kept vectors of a batch, on the index's workers
// from 16 vectors each. It runs before allocBatch takes the write lock, so
// that searches do not wait for the encoding (about 17 µs a vector at 612
// dimensions, most of it the compact code's projection) and a bulk build
// encodes on every core (issue 20). The caller holds insertMu, which keeps
// the projection from changing.
func (x *Index) encodeBatch(vs [][]float32, norms []float64, keep []int) *encodedBatch {
	e := &encodedBatch{
		codes:  make([]int8, len(keep)*x.dim),
		fine:   make([]int8, len(keep)*x.dim),
		scales: make([]float32, len(keep)),
		fineSc: make([]float32, len(keep)),
	}
	if x.proj != nil {
		e.k = x.proj.k
		e.small = make([]int8, len(keep)*e.k)
	}
	one := func(j int) {
		i, d := keep[j], x.dim
		e.scales[j], e.fineSc[j] = encode(e.codes[j*d:(j+1)*d], e.fine[j*d:(j+1)*d], vs[i], norms[i])
		if e.k > 0 {
			x.proj.encodeFloat(e.small[j*e.k:(j+1)*e.k], vs[i], norms[i])
		}
	}
	workers := x.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(keep)/16)
	if workers <= 1 {
		for j := range keep {
			one(j)
		}
		return e
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= len(keep) {
					return
				}
				one(j)
			}
		})
	}
	wg.Wait()
	return e
}

// allocBatch allocates the nodes of a batch, copies in their codes (e, by
// position in keep) and makes them live, and makes the first node of an
// empty graph its entry. The caller holds the write lock.
func (x *Index) allocBatch(ids []uint64, e *encodedBatch, keep []int) ([]uint32, error) {
	if len(x.ids)-len(x.freed)+len(keep) > maxNodes {
		return nil, errors.New("vector: index full")
	}
	nodes := make([]uint32, len(keep))
	d := x.dim
	for j, i := range keep {
		if old, ok := x.byID[ids[i]]; ok {
			x.state[old] = dead
			x.live--
			x.dead++
		}
		n := x.alloc(x.randomLevel())
		x.ids[n] = ids[i]
		copy(x.code(n), e.codes[j*d:(j+1)*d])
		copy(x.fineCode(n), e.fine[j*d:(j+1)*d])
		x.scales[n], x.fineSc[n] = e.scales[j], e.fineSc[j]
		if e.k > 0 {
			x.growSmall()
			copy(x.smallCode(n), e.small[j*e.k:(j+1)*e.k])
		}
		x.state[n] = live
		x.byID[ids[i]] = n
		x.live++
		nodes[j] = n
	}
	if x.entry == noNode && len(nodes) > 0 {
		x.entry, x.top = nodes[0], int(x.levels[nodes[0]])
		nodes = nodes[1:]
	}
	return nodes, nil
}

// ErrNoDirection is returned for a vector that cannot be normalised.
var ErrNoDirection = errors.New("zero, NaN or infinite vector")

// Delete removes id and reports whether it was present. The node stays in
// the graph as a routing point until enough deletes accumulate for a vacuum,
// which relinks its neighbours and frees the slot for reuse.
func (x *Index) Delete(id uint64) bool {
	x.mu.Lock()
	n, ok := x.byID[id]
	if !ok {
		x.mu.Unlock()
		return false
	}
	delete(x.byID, id)
	x.state[n] = dead
	x.live--
	x.dead++
	due := x.vacuumDue()
	x.mu.Unlock()
	if due {
		// Deletes that come while a batch is linked in leave the vacuum
		// to that batch's end: insertMu would wait for the whole batch.
		if x.insertMu.TryLock() {
			x.maybeVacuum()
			x.insertMu.Unlock()
		}
	}
	return true
}

func (x *Index) code(n uint32) []int8 {
	off := int(n&chunkMask) * x.dim
	return x.codes[n>>chunkShift][off : off+x.dim : off+x.dim]
}

func (x *Index) fineCode(n uint32) []int8 {
	off := int(n&chunkMask) * x.dim
	return x.fine[n>>chunkShift][off : off+x.dim : off+x.dim]
}

// links returns the block of n at layer: its count followed by capacity
// slots. The caller must have checked layer <= levels[n].
func (x *Index) links(n uint32, layer int) []uint32 {
	if layer == 0 {
		off := int(n&chunkMask) * (x.m0 + 1)
		return x.links0[n>>chunkShift][off : off+x.m0+1 : off+x.m0+1]
	}
	w := x.opts.M + 1
	off := int(x.upOff[n]) + (layer-1)*w
	return x.upper[off : off+w : off+w]
}

func (x *Index) randomLevel() int {
	// splitmix64
	x.rng += 0x9e3779b97f4a7c15
	z := x.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	u := (float64(z>>11) + 1) / (1 << 53) // (0, 1]
	return min(maxLevel, int(-math.Log(u)*x.mult))
}

// alloc returns a node with room for level, reusing a freed slot if any.
func (x *Index) alloc(level int) uint32 {
	var n uint32
	if k := len(x.freed); k > 0 {
		n = x.freed[k-1]
		x.freed = x.freed[:k-1]
		if level > int(x.levels[n]) {
			x.upOff[n] = x.growUpper(level)
		}
	} else {
		n = uint32(len(x.ids))
		if int(n>>chunkShift) == len(x.codes) {
			x.codes = append(x.codes, make([]int8, chunkNodes*x.dim))
			x.fine = append(x.fine, make([]int8, chunkNodes*x.dim))
			x.links0 = append(x.links0, make([]uint32, chunkNodes*(x.m0+1)))
		}
		x.ids = append(x.ids, 0)
		x.scales = append(x.scales, 0)
		x.fineSc = append(x.fineSc, 0)
		x.levels = append(x.levels, 0)
		x.state = append(x.state, live)
		x.upOff = append(x.upOff, 0)
		if level > 0 {
			x.upOff[n] = x.growUpper(level)
		}
	}
	x.levels[n] = uint8(level)
	x.links(n, 0)[0] = 0
	for l := 1; l <= level; l++ {
		x.links(n, l)[0] = 0
	}
	return n
}

func (x *Index) growUpper(level int) uint32 {
	off := len(x.upper)
	x.upper = append(x.upper, make([]uint32, level*(x.opts.M+1))...)
	return uint32(off)
}

// insertAll links the given allocated nodes into the graph. The caller
// holds the read lock: searches may run beside it, so every link is read
// and written under its striped lock.
func (x *Index) insertAll(nodes []uint32) {
	if len(nodes) == 0 {
		return
	}
	workers := x.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// From 16 nodes a worker: the SQLite store's indexer inserts batches of
	// 32 (sqlite/ann_indexer.go), which then use two cores (issue 20).
	workers = min(workers, len(nodes)/16)
	if workers <= 1 {
		s := x.searcher()
		for _, n := range nodes {
			x.pause()
			x.insert(s, n, true)
		}
		x.pool.Put(s)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			s := x.searcher()
			defer x.pool.Put(s)
			for {
				i := next.Add(1) - 1
				if i >= int64(len(nodes)) {
					return
				}
				x.pause()
				x.insert(s, nodes[i], true)
			}
		})
	}
	wg.Wait()
}

// lockFor returns the striped lock guarding the links of n while a batch
// inserts in parallel.
func (x *Index) lockFor(n uint32) *sync.Mutex {
	return &x.locks[n&(1<<lockShift-1)]
}

// sim returns the approximate cosine similarity of two stored vectors.
func (x *Index) sim(a, b uint32) float32 {
	return float32(dotInt8(x.code(a), x.code(b))) * x.scales[a] * x.scales[b]
}

// pairSim is sim, or with compact set the similarity of the two nodes'
// compact codes (a bulk build's, while it has them).
func (x *Index) pairSim(a, b uint32, compact bool) float32 {
	if compact {
		return float32(dotInt8(x.smallCode(a), x.smallCode(b))) * x.proj.step * x.proj.step
	}
	return x.sim(a, b)
}

// insert links node n into every layer up to its level. With locked set,
// other goroutines are inserting too: every read or write of a link block
// happens under the block owner's striped lock, and the entry point under
// entryMu.
func (x *Index) insert(s *searcher, n uint32, locked bool) {
	level := int(x.levels[n])
	if locked {
		x.entryMu.Lock()
	}
	ep, top := x.entry, x.top
	if locked {
		x.entryMu.Unlock()
	}
	cur, curSim := x.startWalk(s, n, ep)
	for l := top; l > level; l-- {
		cur, curSim = x.greedy(s, cur, curSim, l, locked)
	}
	for l := min(level, top); l >= 0; l-- {
		cands := x.layerCandidates(s, n, cur, curSim, l, locked)
		if len(cands) == 0 {
			continue
		}
		cur, curSim = cands[0].n, cands[0].s
		if s.compact {
			curSim = s.simTo(x, cur)
		}
		// Prefer live neighbours; dead ones will be vacuumed.
		isDead := func(it item) bool { return x.state[it.n] != live }
		if slices.ContainsFunc(cands, isDead) && !all(cands, isDead) {
			cands = slices.DeleteFunc(cands, isDead)
		}
		chosen := x.heuristic(cands, x.opts.M, &s.tmp, false)
		s.sel = cands[:0]
		capacity := x.opts.M
		if l == 0 {
			capacity = x.m0
		}
		x.addLinks(n, l, chosen, capacity, locked, s)
		for _, c := range chosen {
			x.addLinks(c.n, l, []item{{s: c.s, n: n}}, capacity, locked, s)
		}
	}
	if level > top {
		if locked {
			x.entryMu.Lock()
		}
		if level > x.top {
			x.entry, x.top = n, level
		}
		if locked {
			x.entryMu.Unlock()
		}
	}
}

// startWalk makes node n the query of s and returns the entry point with
// its similarity. In a bulk build the walk scores compact codes, and
// layerCandidates rescores its candidates on the full codes, so that the
// links are chosen as without them (issue 20).
func (x *Index) startWalk(s *searcher, n, ep uint32) (uint32, float32) {
	s.prepare(len(x.ids))
	s.compact = x.proj != nil
	if s.compact {
		s.setQueryCode(x.smallCode(n), x.proj.step*x.proj.step)
	} else {
		s.setQueryCode(x.code(n), x.scales[n])
	}
	return ep, s.simTo(x, ep)
}

// layerCandidates walks layer from cur for node n, the query of s, and
// returns the nodes found but n, best first by their full-code
// similarity to n.
func (x *Index) layerCandidates(s *searcher, n, cur uint32, curSim float32, layer int, locked bool) []item {
	s.newEpoch()
	x.searchLayer(s, cur, curSim, x.opts.EfConstruction, layer, nil, 0, locked)
	cands := append(s.sel[:0], s.res.items...)
	// Never link to self (a concurrent insert may have linked n already).
	cands = slices.DeleteFunc(cands, func(it item) bool { return it.n == n })
	if s.compact {
		x.rescore(n, cands)
	}
	slices.SortFunc(cands, func(a, b item) int { return cmp.Compare(b.s, a.s) })
	s.sel = cands
	return cands
}

// heuristic picks up to m of cands (sorted best first) by the HNSW
// neighbour-selection heuristic: a candidate is kept only if it is closer to
// the base than to every candidate already kept, which spreads links across
// directions and keeps clusters connected to each other.
//
// With compact set, the similarities between candidates are compact ones,
// as those of cands to the base must be.
func (x *Index) heuristic(cands []item, m int, buf *[]item, compact bool) []item {
	out := (*buf)[:0]
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		good := true
		for _, o := range out {
			if x.pairSim(c.n, o.n, compact) > c.s {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
		}
	}
	*buf = out
	return out
}

// addLinks adds links from n to add at layer, pruning n's list with the
// heuristic when it would overflow capacity.
func (x *Index) addLinks(n uint32, layer int, add []item, capacity int, locked bool, s *searcher) {
	if locked {
		mu := x.lockFor(n)
		mu.Lock()
		defer mu.Unlock()
	}
	blk := x.links(n, layer)
	cnt := int(blk[0])
	for _, a := range add {
		if a.n == n || slices.Contains(blk[1:1+cnt], a.n) {
			continue
		}
		if cnt < capacity {
			blk[1+cnt] = a.n
			cnt++
			continue
		}
		// Full: choose capacity links among the old ones and a. In a
		// bulk build walking compact codes, on those codes: a prune
		// scores a whole list and its pairs, and the full codes of a
		// neighbour's neighbours are rarely in cache (issue 20).
		compact := s.compact && !x.pruneFull
		all := s.prune[:0]
		for _, o := range blk[1 : 1+cnt] {
			all = append(all, item{s: x.pairSim(n, o, compact), n: o})
		}
		all = append(all, item{s: x.pairSim(n, a.n, compact), n: a.n})
		slices.SortFunc(all, func(p, q item) int { return cmp.Compare(q.s, p.s) })
		kept := x.heuristic(all, capacity, &s.prune2, compact)
		s.prune = all
		cnt = len(kept)
		for i, k := range kept {
			blk[1+i] = k.n
		}
	}
	blk[0] = uint32(cnt)
}

// greedy walks layer from cur to a local best, as HNSW does above layer 0.
func (x *Index) greedy(s *searcher, cur uint32, curSim float32, layer int, locked bool) (uint32, float32) {
	for changed := true; changed; {
		changed = false
		for _, nb := range x.neighbours(s, cur, layer, locked) {
			if sim := s.simTo(x, nb); sim > curSim {
				cur, curSim, changed = nb, sim, true
			}
		}
	}
	return cur, curSim
}

// neighbours returns the links of n at layer, copied under n's lock when
// other goroutines may be writing them.
func (x *Index) neighbours(s *searcher, n uint32, layer int, locked bool) []uint32 {
	if int(x.levels[n]) < layer {
		return nil
	}
	if !locked {
		blk := x.links(n, layer)
		return blk[1 : 1+blk[0]]
	}
	mu := x.lockFor(n)
	mu.Lock()
	blk := x.links(n, layer)
	s.nbuf = append(s.nbuf[:0], blk[1:1+blk[0]]...)
	mu.Unlock()
	return s.nbuf
}

// searchLayer runs the HNSW beam search on layer from ep, leaving up to ef
// results in s.res. With ok set, only nodes it accepts enter the results,
// while every node still routes. budget, when positive, bounds the number of
// nodes expanded; searchLayer reports whether it stopped for that reason.
func (x *Index) searchLayer(s *searcher, ep uint32, epSim float32, ef, layer int, ok func(uint32) bool, budget int, locked bool) (cut bool) {
	s.cand.reset()
	s.res.reset()
	s.visit(ep)
	s.cand.push(item{s: epSim, n: ep})
	if ok == nil || ok(ep) {
		s.res.push(item{s: epSim, n: ep})
	}
	expanded := 0
	for s.cand.len() > 0 {
		c := s.cand.popMax()
		if s.res.len() >= ef && c.s < s.res.min().s {
			break
		}
		if layer == 0 && s.cand.len() > 0 {
			// Ask for the link block of the likely next candidate
			// while this one's neighbours are scored: its read was a
			// cache miss of its own before each expansion (PERF-2).
			blk := x.links(s.cand.items[0].n, 0)
			prefetchLines((*int8)(unsafe.Pointer(&blk[0])), 4*len(blk))
		}
		if budget > 0 {
			if expanded >= budget {
				return true
			}
			expanded++
		}
		// Mark the unvisited neighbours and ask for the first line of
		// their codes, then, while scoring each, for all the lines of the
		// one two places on, so that the memory loads overlap instead of
		// each waiting in turn: from 100k vectors the codes are out of
		// cache, and at 612 dimensions one spans ten lines. (Asking for
		// every line of every neighbour at once was slower: 64 neighbours
		// are more lines than the core has loads in flight.) The scale is
		// asked for too: scales are as scattered, and waiting on them
		// was 14% of a search at 100k×612.
		todo := s.todo[:0]
		for _, nb := range x.neighbours(s, c.n, layer, locked) {
			if s.visit(nb) {
				todo = append(todo, nb)
				if s.compact {
					prefetch(&x.smallCode(nb)[0])
				} else {
					prefetch2(&x.code(nb)[0], (*int8)(unsafe.Pointer(&x.scales[nb])))
				}
			}
		}
		s.todo = todo
		for i, nb := range todo {
			if i+2 < len(todo) {
				c := x.walkCode(s, todo[i+2])
				prefetchLines(&c[0], len(c))
			}
			sim := s.simTo(x, nb)
			if s.res.len() < ef || sim > s.res.min().s {
				s.cand.push(item{s: sim, n: nb})
				if ok == nil || ok(nb) {
					s.res.push(item{s: sim, n: nb})
					if s.res.len() > ef {
						s.res.popMin()
					}
				}
			}
		}
	}
	return false
}

func all(items []item, f func(item) bool) bool {
	for _, it := range items {
		if !f(it) {
			return false
		}
	}
	return true
}
