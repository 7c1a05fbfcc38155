package vector

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// lowRank returns n vectors of dim near a subspace of rank dimensions:
// latent coordinates with a decaying spread, mapped by a random basis,
// plus a little isotropic noise, as sentence embeddings concentrate their
// energy in a few hundred of their directions.
func lowRank(n, dim, rank int, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	basis := make([]float32, rank*dim)
	for i := range basis {
		basis[i] = float32(rng.NormFloat64() / math.Sqrt(float64(dim)))
	}
	out := make([][]float32, n)
	for j := range out {
		v := make([]float32, dim)
		for r := range rank {
			c := float32(rng.NormFloat64() / math.Sqrt(1+float64(r)/4))
			for i, b := range basis[r*dim : (r+1)*dim] {
				v[i] += c * b
			}
		}
		for i := range v {
			v[i] += float32(rng.NormFloat64() * 0.01)
		}
		out[j] = v
	}
	return out
}

// bulkBuild builds an index of data as the store's indexer does in a bulk
// build (BeginBulk, batches of 32), fitting the projection from fitFrom
// vectors, and calls during(x) before EndBulk frees the compact codes.
func bulkBuild(t *testing.T, data [][]float32, opts Options, fitFrom int, during func(*Index)) *Index {
	t.Helper()
	x := New(len(data[0]), opts)
	x.fitFrom = fitFrom
	x.BeginBulk()
	for i := 0; i < len(data); i += 32 {
		var ids []uint64
		for j := i; j < min(len(data), i+32); j++ {
			ids = append(ids, uint64(j))
		}
		if err := x.AddBatch(ids, data[i:i+len(ids)]); err != nil {
			t.Fatal(err)
		}
	}
	if during != nil {
		during(x)
	}
	x.EndBulk()
	if x.proj != nil || x.small != nil {
		t.Error("EndBulk kept the compact codes")
	}
	return x
}

// walkTop returns the k nearest nodes to node n (n excluded) that an
// insert of n would choose its layer-0 links from: compactly or not.
func walkTop(x *Index, n uint32, k int, compact bool) []uint32 {
	p := x.proj
	if !compact {
		x.proj = nil
		defer func() { x.proj = p }()
	}
	s := x.searcher()
	defer x.pool.Put(s)
	cur, curSim := x.startWalk(s, n, x.entry)
	for l := x.top; l > 0; l-- {
		cur, curSim = x.greedy(s, cur, curSim, l, false)
	}
	var out []uint32
	for _, c := range x.layerCandidates(s, n, cur, curSim, 0, false)[:k] {
		out = append(out, c.n)
	}
	return out
}

// exactTop returns the k nodes nearest to n (n excluded) by full-code
// similarity, the one an insert chooses links by.
func exactTop(x *Index, n uint32, k int) []uint32 {
	all := make([]item, 0, len(x.ids))
	for m := range uint32(len(x.ids)) {
		if m != n {
			all = append(all, item{s: x.sim(n, m), n: m})
		}
	}
	slices.SortFunc(all, func(a, b item) int { return cmp.Compare(b.s, a.s) })
	out := make([]uint32, k)
	for i := range out {
		out[i] = all[i].n
	}
	return out
}

// TestCompactWalk checks that an insert's walk on compact codes, its
// candidates rescored on the full codes, finds the true nearest nodes of
// the graph as the walk on full codes does (PERF-14).
func TestCompactWalk(t *testing.T) {
	if raceEnabled {
		t.Skip("checks recall, not concurrency: run full-size without -race (Makefile FULLSIZE)")
	}
	n, dim := small(12000), 512
	for _, tt := range []struct {
		name string
		gen  func() [][]float32
	}{
		{"low rank", func() [][]float32 { return lowRank(n, dim, 320, 5) }},
		{"clustered", func() [][]float32 { return dataset(n, dim, 5) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bulkBuild(t, tt.gen(), Options{M: 16, EfConstruction: 100, Seed: 1}, 2000, func(x *Index) {
				if x.proj == nil {
					t.Fatal("the bulk build did not walk compactly")
				}
				const k, probes = 10, 200
				var compact, full float64
				for i := range probes {
					node := uint32(i * len(x.ids) / probes)
					want := exactTop(x, node, k)
					for _, m := range walkTop(x, node, k, true) {
						if slices.Contains(want, m) {
							compact++
						}
					}
					for _, m := range walkTop(x, node, k, false) {
						if slices.Contains(want, m) {
							full++
						}
					}
				}
				compact /= k * probes
				full /= k * probes
				t.Logf("kept %.3f of the energy; recall@%d of the walk: compact %.3f, full %.3f", x.proj.kept, k, compact, full)
				if compact < 0.95 || compact < full-0.02 {
					t.Errorf("compact walk recall@%d = %.3f, full %.3f: want >= 0.95 and within 0.02 of full", k, compact, full)
				}
			})
		})
	}
}

// TestBulkRecall checks that a graph built with the compact walk, in
// batches after BeginBulk or in one large AddBatch, is searched with the
// recall TestRecall requires of any build.
func TestBulkRecall(t *testing.T) {
	if raceEnabled {
		t.Skip("checks recall, not concurrency: run full-size without -race (Makefile FULLSIZE)")
	}
	n, dim := small(20000), 512
	lowRankData := func() (data, qs [][]float32) {
		all := lowRank(n+100, dim, 320, 9)
		return all[:n], all[n:]
	}
	clustered := func() (data, qs [][]float32) {
		return dataset(n, dim, 9), queries(100, n, dim, 9)
	}
	for _, tt := range []struct {
		name string
		gen  func() (data, qs [][]float32)
		one  bool // one AddBatch
	}{
		{"low rank", lowRankData, false},
		{"clustered", clustered, false},
		{"clustered, one batch", clustered, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.one && n < bulkBatch {
				t.Skip("too few vectors for one batch to be a bulk build (race detector)")
			}
			data, qs := tt.gen()
			opts := Options{ExactBelow: 1, Seed: 2}
			var x *Index
			compact := false
			if tt.one {
				x = New(dim, opts)
				x.fitFrom = 2000
				x.linking = func() { compact = x.proj != nil }
				ids := make([]uint64, n)
				for i := range ids {
					ids[i] = uint64(i)
				}
				if err := x.AddBatch(ids, data); err != nil {
					t.Fatal(err)
				}
				if x.proj != nil {
					t.Error("a large AddBatch kept its compact codes")
				}
			} else {
				x = bulkBuild(t, data, opts, 2000, func(x *Index) { compact = x.proj != nil })
			}
			if !compact {
				t.Fatal("the build did not walk compactly")
			}
			if r := meanRecall(x, data, qs, 10, nil); r < 0.95 {
				t.Errorf("recall@10 = %.3f, want >= 0.95", r)
			}
		})
	}
}

// TestBulkFallback checks that vectors without dominant directions, which
// a projection cannot keep, are walked on the full codes.
func TestBulkFallback(t *testing.T) {
	if raceEnabled {
		t.Skip("checks the projection, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a twentieth")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	data := make([][]float32, small(4000))
	for i := range data {
		data[i] = make([]float32, 512)
		for j := range data[i] {
			data[i][j] = float32(rng.NormFloat64())
		}
	}
	bulkBuild(t, data, Options{Seed: 1}, 1000, func(x *Index) {
		if x.proj != nil {
			t.Errorf("random vectors walked compactly (kept %.3f of their energy)", x.proj.kept)
		}
	})
}

// TestBulkReproducible checks that a bulk build with one worker and a
// fixed seed builds the same graph every time.
func TestBulkReproducible(t *testing.T) {
	if raceEnabled {
		t.Skip("checks a one-worker build, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a tenth")
	}
	data := lowRank(small(6000), 512, 160, 4)
	var files [2][]byte
	for i := range files {
		x := bulkBuild(t, data, Options{Seed: 5, Workers: 1}, 1000, nil)
		var buf bytes.Buffer
		if _, err := x.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		files[i] = buf.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two bulk builds of the same vectors differ")
	}
}

// TestBulkOnLargeIndex checks that a bulk build into an index that holds
// many vectors fits its projection only once it has added a quarter as
// many: a few batches would not pay for coding every node.
func TestBulkOnLargeIndex(t *testing.T) {
	if raceEnabled {
		t.Skip("checks when the projection is fitted, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a tenth")
	}
	data := lowRank(small(8000), 512, 160, 6)
	base := len(data) / 2
	x := build(t, data[:base], Options{Seed: 1})
	x.fitFrom = 1000
	add := func(lo, hi int) {
		ids := make([]uint64, 0, hi-lo)
		for i := lo; i < hi; i++ {
			ids = append(ids, uint64(i))
		}
		if err := x.AddBatch(ids, data[lo:hi]); err != nil {
			t.Fatal(err)
		}
	}
	x.BeginBulk()
	for _, tt := range []struct {
		upTo    int
		compact bool
	}{
		{base + base/8, false},
		{base + base/4, true},
		{len(data), true},
	} {
		add(x.Len(), tt.upTo)
		if got := x.proj != nil; got != tt.compact {
			t.Errorf("after adding %d to %d: compact %v, want %v", tt.upTo-base, base, got, tt.compact)
		}
	}
	x.EndBulk()
	if r := meanRecall(x, data, lowRank(len(data)+50, 512, 160, 6)[len(data):], 10, nil); r < 0.95 {
		t.Errorf("recall@10 = %.3f, want >= 0.95", r)
	}
}

// TestCompactPairSim checks the similarity a bulk build prunes full link
// lists by while it walks compact codes: the compact codes' dot product
// times step² must track the full codes' cosine, pair by pair.
func TestCompactPairSim(t *testing.T) {
	if raceEnabled {
		t.Skip("checks arithmetic, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a tenth")
	}
	data := lowRank(small(4000), 512, 320, 7)
	bulkBuild(t, data, Options{Seed: 1}, 1000, func(x *Index) {
		if x.proj == nil {
			t.Fatal("the bulk build did not walk compactly")
		}
		var worst, sum float64
		const pairs = 500
		for i := range pairs {
			a, b := uint32(i*7%len(x.ids)), uint32((i*37+11)%len(x.ids))
			d := math.Abs(float64(x.pairSim(a, b, true) - x.sim(a, b)))
			worst, sum = max(worst, d), sum+d
		}
		t.Logf("kept %.3f of the energy; |compact - full| mean %.4f, worst %.4f", x.proj.kept, sum/pairs, worst)
		if sum/pairs > 0.015 || worst > 0.06 {
			t.Errorf("compact similarity off the full one by %.4f on average, %.4f at worst", sum/pairs, worst)
		}
		if x.pairSim(3, 9, false) != x.sim(3, 9) {
			t.Error("pairSim without compact is not sim")
		}
	})
}
