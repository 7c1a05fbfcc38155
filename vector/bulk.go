package vector

// Bulk builds (PERF-12). An insert's cost is its walk, and on a large
// index of full-size vectors the walk waits on memory: each node it scores
// is a code of several cache lines that misses every cache. A bulk build
// walks with compact codes of compactDim dimensions instead, then rescores
// the walk's candidates on the full codes, and chooses the links from them
// as before; a neighbour whose link list overflows is pruned on the
// compact codes too. The compact walk costs a little ANN recall for much
// less CPU; 192 dimensions keep most of the built-in embedder's vectors'
// energy and recall above PERF-14's floor. Figures: docs/BENCHMARKS.md
// ("ANN index build"), from vector's BenchmarkIndexFileBuild.
const (
	defaultCompactDim = 192
	// compactFrom is the least dimension walked compactly: below it a
	// compact code would save too little to pay for the rescoring.
	compactFrom = 384
	// fitAt is how many vectors the build holds before its projection is
	// fitted on them (up to fitSample of them); the first fitAt are
	// inserted with the full codes.
	fitAt = fitSample
	// minKept is the least share of the sample's energy the projection
	// must keep for the build to walk with it: vectors with no dominant
	// directions (random ones keep compactDim/dim) walk on full codes.
	minKept = 0.8
	// bulkBatch is the size from which one AddBatch is a bulk build by
	// itself.
	bulkBatch = 2 * fitAt
)

// BeginBulk tells the index that many AddBatch calls follow, as when an
// index is built or caught up from a table. Until EndBulk, once the bulk
// build has added a quarter as many vectors as the index held when it
// began, and the index holds fitAt, inserts walk the graph with compact
// codes fitted to the vectors; the links are still chosen on the full
// codes. (Giving every node of a large index its compact code would cost
// more than a few batches save.) The compact codes take compactDim bytes a node until
// EndBulk frees them. An AddBatch of bulkBatch vectors or more is a bulk
// build by itself.
func (x *Index) BeginBulk() {
	x.insertMu.Lock()
	defer x.insertMu.Unlock()
	x.beginBulk()
}

// EndBulk ends a bulk build and frees its compact codes.
func (x *Index) EndBulk() {
	x.insertMu.Lock()
	defer x.insertMu.Unlock()
	x.endBulk()
}

// beginBulk and endBulk do BeginBulk's and EndBulk's work under insertMu.
func (x *Index) beginBulk() {
	x.endBulk()
	x.bulk = true
	x.bulkBase = len(x.ids) - len(x.freed)
}

func (x *Index) endBulk() {
	x.bulk, x.bulkTried, x.bulkBase, x.bulkAdded = false, false, 0, 0
	x.proj, x.small = nil, nil
}

// smallCode is n's compact code.
func (x *Index) smallCode(n uint32) []int8 {
	k := x.proj.k
	off := int(n&chunkMask) * k
	return x.small[n>>chunkShift][off : off+k : off+k]
}

// growSmall gives every chunk of codes its chunk of compact codes.
func (x *Index) growSmall() {
	for len(x.small) < len(x.codes) {
		x.small = append(x.small, make([]int8, chunkNodes*x.proj.k))
	}
}

// maybeFit fits the bulk build's projection once the index and the batch
// about to be added, vs, hold fitAt vectors and the build has added a
// quarter of what the index held when it began, and gives every node its
// compact code. The caller holds insertMu, not mu: only inserts, which
// insertMu keeps out, write the codes it reads.
func (x *Index) maybeFit(vs [][]float32, norms []float64, keep []int) {
	k := x.compactDim
	if k <= 0 {
		k = defaultCompactDim
	}
	if !x.bulk || x.bulkTried || x.dim < compactFrom || x.dim < 2*k {
		return
	}
	at := x.fitFrom
	if at <= 0 {
		at = fitAt
	}
	x.bulkAdded += len(keep)
	have := len(x.ids) - len(x.freed)
	if have+len(keep) < at || x.bulkAdded < x.bulkBase/4 {
		return
	}
	x.bulkTried = true
	// A sample spread evenly over the nodes and the batch, decoded from
	// the codes as a walk sees them.
	total := have + len(keep)
	stride := max(1, total/fitSample)
	sample := make([][]float32, 0, min(total, fitSample))
	i := 0
	x.mu.RLock() // Delete writes states
	for n := range x.ids {
		if x.state[n] == free {
			continue
		}
		if i%stride == 0 && len(sample) < fitSample {
			sample = append(sample, x.decode(uint32(n)))
		}
		i++
	}
	x.mu.RUnlock()
	for _, j := range keep {
		if i%stride == 0 && len(sample) < fitSample {
			v := make([]float32, x.dim)
			for t, f := range vs[j] {
				v[t] = float32(float64(f) / norms[j])
			}
			sample = append(sample, v)
		}
		i++
	}
	p := fitProjection(sample, k, uint64(x.opts.Seed))
	if p.kept < minKept {
		return
	}
	x.proj = p
	x.growSmall()
	// Every node, free ones too (cheaper than skipping them, and a free
	// slot is rewritten when reused), on every core.
	nodes := len(x.ids)
	parallelRows((nodes+255)/256, func(b int) {
		for n := uint32(b * 256); n < uint32(min(nodes, b*256+256)); n++ {
			p.encode(x.smallCode(n), x.code(n), x.fineCode(n), x.scales[n], x.fineSc[n])
		}
	})
}

// decode returns n's stored unit vector, as both its codes give it.
func (x *Index) decode(n uint32) []float32 {
	v := make([]float32, x.dim)
	c, f := x.code(n), x.fineCode(n)
	for i := range v {
		v[i] = x.scales[n]*float32(c[i]) + x.fineSc[n]*float32(f[i])
	}
	return v
}

// rescore replaces the compact similarities of the walk's candidates to n
// with full-code ones, asking for the codes two candidates ahead as the
// walk does.
func (x *Index) rescore(n uint32, cands []item) {
	for i := range cands {
		if i+2 < len(cands) {
			c := x.code(cands[i+2].n)
			prefetchLines(&c[0], len(c))
		}
		cands[i].s = x.sim(n, cands[i].n)
	}
}

// walkCode is the code the walk of s scores n by.
func (x *Index) walkCode(s *searcher, n uint32) []int8 {
	if s.compact {
		return x.smallCode(n)
	}
	return x.code(n)
}
