package vector

import "slices"

// item is a node with its similarity to the current query.
type item struct {
	s float32
	n uint32
}

// heap is a binary heap of items; max-first if max is set, else min-first.
// It is hand-written rather than container/heap to avoid interface calls on
// the hot path.
type heap struct {
	items []item
	max   bool
}

func (h *heap) reset()       { h.items = h.items[:0] }
func (h *heap) len() int     { return len(h.items) }
func (h *heap) min() item    { return h.items[0] }
func (h *heap) popMax() item { return h.pop() }
func (h *heap) popMin() item { return h.pop() }

func (h *heap) less(a, b item) bool {
	if h.max {
		return a.s > b.s
	}
	return a.s < b.s
}

func (h *heap) push(it item) {
	h.items = append(h.items, it)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *heap) pop() item {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		c := l
		if r := l + 1; r < last && h.less(h.items[r], h.items[l]) {
			c = r
		}
		if !h.less(h.items[c], h.items[i]) {
			break
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		i = c
	}
	return top
}

// A searcher holds the scratch space of one search or insert, pooled so
// that steady-state searches allocate only their results.
type searcher struct {
	// visited holds a bit a node: at 100k nodes 12.5 KB, which stays in
	// cache while a search streams codes through it; the 16-bit epoch marks
	// they replace (200 KB) missed it (PERF-2). touched lists the words
	// set, for newEpoch to clear.
	visited []uint64
	touched []uint32
	cand    heap
	res     heap
	q8      []int8
	qu      []uint8 // q8 offset by 128, for the VNNI kernel
	qscale  float32
	compact bool // the walk scores compact codes (a bulk build's inserts)
	nbuf    []uint32
	todo    []uint32
	sel     []item
	tmp     []item
	prune   []item
	prune2  []item
}

func (x *Index) searcher() *searcher {
	s, _ := x.pool.Get().(*searcher)
	if s == nil {
		s = &searcher{cand: heap{max: true}}
	}
	s.compact = false
	s.prepare(len(x.ids))
	return s
}

// prepare sizes the visited marks for n nodes.
func (s *searcher) prepare(n int) {
	if len(s.visited)*64 < n {
		s.visited = make([]uint64, (n+n/4)/64+1)
		s.touched = s.touched[:0]
	}
}

// newEpoch forgets all visits, clearing only the words marked since the
// last time, or all of them when that is most.
func (s *searcher) newEpoch() {
	if len(s.touched) > len(s.visited)/8 {
		clear(s.visited)
	} else {
		for _, w := range s.touched {
			s.visited[w] = 0
		}
	}
	s.touched = s.touched[:0]
}

// visit marks n and reports whether it was unvisited.
func (s *searcher) visit(n uint32) bool {
	w := &s.visited[n>>6]
	b := uint64(1) << (n & 63)
	if *w&b != 0 {
		return false
	}
	if *w == 0 {
		s.touched = append(s.touched, n>>6)
	}
	*w |= b
	return true
}

func (s *searcher) setQueryCode(c []int8, scale float32) {
	s.q8 = append(s.q8[:0], c...)
	s.qscale = scale
	s.offsetQuery()
}

// offsetQuery keeps q8 offset by 128 in qu, the unsigned operand of the
// VNNI and AVX-VNNI kernels: once a query rather than once a code.
func (s *searcher) offsetQuery() {
	if !useVNNI && !useAVXVNNI {
		return
	}
	s.qu = slices.Grow(s.qu[:0], len(s.q8))[:len(s.q8)]
	for i, c := range s.q8 {
		s.qu[i] = uint8(c) ^ 0x80
	}
}

// dot is the dot product of the query code with c.
func (s *searcher) dot(c []int8) int32 {
	if useVNNI && len(s.qu) > 0 {
		return dotUint8Int8VNNI(&s.qu[0], &c[:len(s.qu)][0], len(s.qu))
	}
	if useAVXVNNI && len(s.qu) > 0 {
		return dotUint8Int8AVXVNNIGo(s.qu, c)
	}
	return dotInt8(s.q8, c)
}

func (s *searcher) simTo(x *Index, n uint32) float32 {
	if s.compact {
		// One step for every compact code: qscale is step².
		return float32(s.dot(x.smallCode(n))) * s.qscale
	}
	return float32(s.dot(x.code(n))) * s.qscale * x.scales[n]
}

// normalized returns q scaled to unit length, or nil if q has the wrong
// dimension or no direction.
func (x *Index) normalized(q []float32) []float32 {
	if len(q) != x.dim {
		return nil
	}
	n := norm(q)
	if n == 0 {
		return nil
	}
	out := make([]float32, len(q))
	for i, f := range q {
		out[i] = float32(float64(f) / n)
	}
	return out
}

// Search returns up to k results, best first. accept, when non-nil, filters
// ids: only accepted ids are returned, and the graph search keeps expanding
// past rejected nodes until it holds EfSearch accepted candidates, the graph
// is exhausted, or it has expanded max(32*ef, nodes/64) nodes. If that leaves
// fewer than k results while more could exist, Search falls back to an exact
// scan over every accepted id, so a restrictive filter still returns its
// true nearest ids; for filters that select only a few ids, SearchIDs is
// cheaper. Search returns nil if q has the wrong dimension or no direction.
// Below ExactBelow live vectors it always scans exactly.
func (x *Index) Search(q []float32, k int, accept func(id uint64) bool) []Result {
	qn := x.normalized(q)
	if qn == nil || k <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil
	}
	if x.live < x.opts.ExactBelow {
		return x.exact(qn, k, accept)
	}
	s := x.searcher()
	defer x.pool.Put(s)
	s.q8 = slices.Grow(s.q8[:0], x.dim)[:x.dim]
	s.qscale = quantize(s.q8, qn, 1)
	s.offsetQuery()
	locked := x.inserting // a batch is being linked in beside this search
	x.entryMu.Lock()
	cur, level := x.entry, x.top
	x.entryMu.Unlock()
	curSim := s.simTo(x, cur)
	for l := level; l > 0; l-- {
		cur, curSim = x.greedy(s, cur, curSim, l, locked)
	}
	ef := max(x.opts.EfSearch, k)
	// Without a filter, deleted nodes or freed slots every node the walk
	// reaches is a result, and the walk need not ask (a call for each of
	// thousands of candidates at ef 1024).
	var ok func(uint32) bool
	if accept != nil || x.dead > 0 || len(x.freed) > 0 {
		ok = func(n uint32) bool {
			return x.state[n] == live && (accept == nil || accept(x.ids[n]))
		}
	}
	budget := max(32*ef, len(x.ids)/64)
	s.newEpoch()
	x.searchLayer(s, cur, curSim, ef, 0, ok, budget, locked)
	if s.res.len() < min(k, x.live) {
		// Too few accepted nodes were reachable within the budget.
		return x.exact(qn, k, accept)
	}
	// Rerank the candidates with the float query against the stored codes:
	// this removes the query's own quantisation error from the order.
	// All ef of them: reranking only the walk's best 4k kept the true top
	// 62 on the built-in embedder's memories (612 d) but lost true
	// neighbours at 16 d, where the int8 error of the walk's score is
	// larger than the gaps between them.
	// The fine codes were not read by the walk: ask for them, and for the
	// codes, two candidates ahead, as the walk does.
	top := heap{items: s.tmp[:0]}
	res := s.res.items
	for i, it := range res {
		if i+2 < len(res) {
			n := res[i+2].n
			c, f := x.code(n), x.fineCode(n)
			prefetchLines(&c[0], len(c))
			prefetchLines(&f[0], len(f))
		}
		top.pushTop(k, item{s: x.score(qn, it.n), n: it.n})
	}
	s.tmp = top.items
	return x.results(&top)
}

// score is the cosine similarity of the unit query q with node n under its
// quantised vector, clamped to [-1, 1].
func (x *Index) score(q []float32, n uint32) float32 {
	c, f := dotFloatInt8x2(q, x.code(n), x.fineCode(n))
	s := c*x.scales[n] + f*x.fineSc[n]
	return max(-1, min(1, s))
}

// pushTop keeps the k best items in a min-heap.
func (h *heap) pushTop(k int, it item) {
	if h.len() < k {
		h.push(it)
	} else if it.s > h.items[0].s {
		h.items[0] = it
		h.push(h.pop()) // restore order; k is small
	}
}

// results drains a min-heap of at most k items into results, best first.
func (x *Index) results(h *heap) []Result {
	out := make([]Result, h.len())
	for i := len(out) - 1; i >= 0; i-- {
		it := h.pop()
		out[i] = Result{ID: x.ids[it.n], Score: it.s}
	}
	return out
}

// exact scans every live node that accept allows.
func (x *Index) exact(q []float32, k int, accept func(uint64) bool) []Result {
	top := heap{items: make([]item, 0, k+1)}
	for n := range x.state {
		if x.state[n] != live || (accept != nil && !accept(x.ids[n])) {
			continue
		}
		top.pushTop(k, item{s: x.score(q, uint32(n)), n: uint32(n)})
	}
	return x.results(&top)
}

// SearchIDs returns up to k of the given ids nearest to q, best first, by an
// exact scan over those ids only. Ids without a live vector and repeated ids
// are skipped. It returns nil if q has the wrong dimension or no direction.
func (x *Index) SearchIDs(q []float32, k int, ids []uint64) []Result {
	qn := x.normalized(q)
	if qn == nil || k <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.searcher()
	defer x.pool.Put(s)
	s.newEpoch()
	top := heap{items: make([]item, 0, min(k, len(ids))+1)}
	for _, id := range ids {
		n, ok := x.byID[id]
		if !ok || !s.visit(n) {
			continue
		}
		top.pushTop(k, item{s: x.score(qn, n), n: n})
	}
	return x.results(&top)
}
