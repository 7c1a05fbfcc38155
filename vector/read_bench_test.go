package vector

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// synthetic returns an index of n random nodes of dim with random but
// valid links, as a graph of that size would have them: for timing Read
// at sizes whose real build takes far longer than the load (PERF-13).
// One node in fifty is dead.
func synthetic(n, dim, m int, seed uint64) *Index {
	x := New(dim, Options{M: m, EfConstruction: 200, EfSearch: 1024})
	rng := rand.New(rand.NewPCG(seed, 2))
	for i := range n {
		u := x.alloc(x.randomLevel())
		x.ids[u] = uint64(i)*7 + 1
		code, fine := x.code(u), x.fineCode(u)
		for j := range code {
			code[j], fine[j] = int8(rng.Uint32()), int8(rng.Uint32())
		}
		x.scales[u], x.fineSc[u] = 1.0/(127*float32(dim)), 1.0/(127*127*float32(dim))
		if i%50 == 49 {
			x.state[u] = dead
			x.dead++
		} else {
			x.byID[x.ids[u]] = u
			x.live++
		}
		if int(x.levels[u]) > x.top || x.entry == noNode {
			x.entry, x.top = u, int(x.levels[u])
		}
	}
	// Links: at each layer, to random nodes that reach it.
	byLevel := make([][]uint32, x.top+1)
	for u := range uint32(n) {
		for l := 0; l <= int(x.levels[u]); l++ {
			byLevel[l] = append(byLevel[l], u)
		}
	}
	for u := range uint32(n) {
		for l := 0; l <= int(x.levels[u]); l++ {
			blk := x.links(u, l)
			pool := byLevel[l]
			c := min(len(blk)-1, len(pool)-1)
			if l > 0 {
				c = min(c, m)
			}
			for i := range c {
				v := pool[rng.IntN(len(pool))]
				for v == u {
					v = pool[rng.IntN(len(pool))]
				}
				blk[1+i] = v
			}
			blk[0] = uint32(c)
		}
	}
	return x
}

// syntheticFile writes synthetic(n, dim, 32, 1) to path unless a file is
// there already.
func syntheticFile(b testing.TB, path string, n, dim int) {
	if _, err := os.Stat(path); err == nil {
		return
	}
	x := synthetic(n, dim, 32, 1)
	if err := writeFile(path, x.WriteTo); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRead loads an index file as a store's reopen does (PERF-13). The
// file is a synthetic index of $MNEMO_BENCH_READ_N nodes (default 20,000)
// of 612 dimensions, M 32, written to $MNEMO_BENCH_READ if set and absent
// (kept there for later runs), else to a temporary directory.
//
//	MNEMO_BENCH_READ=/tmp/x/1m.vec MNEMO_BENCH_READ_N=1000000 \
//	go test -run '^$' -bench '^BenchmarkRead$' -benchtime 3x ./vector
func BenchmarkRead(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_READ_N")); err == nil && v > 0 {
		n = v
	}
	path := os.Getenv("MNEMO_BENCH_READ")
	if path == "" {
		path = filepath.Join(b.TempDir(), "index.vec")
	}
	syntheticFile(b, path, n, 612)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		x, err := Read(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if x.Len() == 0 {
			b.Fatal("empty index")
		}
	}
}
