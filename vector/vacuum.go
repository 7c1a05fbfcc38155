package vector

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
)

// vacuumDue reports whether deleted nodes make up 1/32 of the graph. The
// fraction trades the vacuum's linear scan (about 30 ms per million nodes)
// against how long dead nodes dilute searches; the relinking work itself is
// proportional to the number of deletes whatever the fraction. The caller
// holds mu.
func (x *Index) vacuumDue() bool {
	return !x.inserting && x.dead > 0 && x.dead*32 >= x.live+x.dead
}

// maybeVacuum vacuums when one is due, while searches go on: the repair of
// live nodes, the long part, runs under the read lock with every link block
// written under its striped lock, as a batch is linked in, so that no
// search waits for a vacuum (PERF-11). The caller
// holds insertMu, so that no batch, Delete's vacuum or WriteTo runs beside
// it, and not mu.
func (x *Index) maybeVacuum() {
	x.mu.Lock()
	if !x.vacuumDue() {
		x.mu.Unlock()
		return
	}
	var gone []uint32
	for d := range x.state {
		if x.state[d] == dead {
			gone = append(gone, uint32(d))
		}
	}
	x.inserting = true
	x.mu.Unlock()

	x.mu.RLock()
	if x.repairing != nil {
		x.repairing()
	}
	x.repairAll()
	x.mu.RUnlock()

	x.mu.Lock()
	x.free(gone)
	x.inserting = false
	x.mu.Unlock()
}

// repairAll replaces every live node's links to dead nodes. Dead nodes'
// own links are read but not written until every live node has been
// repaired, so live nodes are repaired in parallel. The caller holds the
// read lock and has set inserting.
func (x *Index) repairAll() {
	n := len(x.ids)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/50000))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			s := x.searcher()
			defer x.pool.Put(s)
			for u := w; u < n; u += workers {
				if x.state[u] == live {
					x.repair(s, uint32(u))
				}
			}
		})
	}
	wg.Wait()
}

// free makes the dead nodes, every live link to which was repaired, free
// slots for later inserts. A node deleted since the repair began is left
// for the next vacuum. The caller holds the write lock.
func (x *Index) free(gone []uint32) {
	for _, d := range gone {
		x.state[d] = free
		for l := 0; l <= int(x.levels[d]); l++ {
			x.links(d, l)[0] = 0
		}
		x.freed = append(x.freed, d)
	}
	x.dead -= len(gone)
	slices.Sort(x.freed) // the same order a reload rebuilds
	if x.entry != noNode && x.state[x.entry] == free {
		x.entry, x.top = noNode, 0
		for u := range x.state {
			if x.state[u] == live && (x.entry == noNode || int(x.levels[u]) > x.top) {
				x.entry, x.top = uint32(u), int(x.levels[u])
			}
		}
	}
	if x.live == 0 && x.dead == 0 {
		// Nothing links anywhere: start the next graph from scratch.
		x.ids, x.scales, x.codes, x.levels = x.ids[:0], x.scales[:0], x.codes[:0], x.levels[:0]
		x.fineSc, x.fine = x.fineSc[:0], x.fine[:0]
		x.state, x.links0, x.upOff, x.upper = x.state[:0], x.links0[:0], x.upOff[:0], x.upper[:0]
		x.freed = x.freed[:0]
	}
}

// repair replaces u's links to dead nodes, on every layer, under u's
// striped lock: searches read the block beside it.
func (x *Index) repair(s *searcher, u uint32) {
	mu := x.lockFor(u)
	mu.Lock()
	defer mu.Unlock()
	for l := 0; l <= int(x.levels[u]); l++ {
		blk := x.links(u, l)
		nbrs := blk[1 : 1+blk[0]]
		if !slices.ContainsFunc(nbrs, func(v uint32) bool { return x.state[v] != live }) {
			continue
		}
		want := len(nbrs)
		s.newEpoch()
		s.visit(u)
		keep := s.nbuf[:0]
		for _, v := range nbrs {
			if x.state[v] == live {
				keep = append(keep, v)
				s.visit(v)
			}
		}
		cands := s.sel[:0]
		for _, d := range nbrs {
			if x.state[d] == live {
				continue
			}
			dblk := x.links(d, l)
			for _, v := range dblk[1 : 1+dblk[0]] {
				if x.state[v] == live && s.visit(v) {
					cands = append(cands, item{s: x.sim(u, v), n: v})
				}
			}
		}
		slices.SortFunc(cands, func(a, b item) int { return cmp.Compare(b.s, a.s) })
		for _, c := range cands {
			if len(keep) >= want {
				break
			}
			keep = append(keep, c.n)
		}
		blk[0] = uint32(copy(blk[1:], keep))
		s.nbuf, s.sel = keep, cands
	}
}
