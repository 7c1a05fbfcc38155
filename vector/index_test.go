package vector

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// build returns an index over data, with id i for data[i].
func build(t testing.TB, data [][]float32, opts Options) *Index {
	t.Helper()
	x := New(len(data[0]), opts)
	ids := make([]uint64, len(data))
	for i := range ids {
		ids[i] = uint64(i)
	}
	if err := x.AddBatch(ids, data); err != nil {
		t.Fatal(err)
	}
	return x
}

type scored struct {
	id uint64
	s  float64
}

// reference ranks the live ids that accept allows by float64 cosine with q
// under the stored vectors: what the exact paths must return.
func reference(x *Index, q []float32, accept func(uint64) bool) []scored {
	qn := norm(q)
	var out []scored
	for n, st := range x.state {
		id := x.ids[n]
		if st != live || (accept != nil && !accept(id)) {
			continue
		}
		var dot, fine float64
		for i, c := range x.code(uint32(n)) {
			dot += float64(c) * float64(q[i])
			fine += float64(x.fineCode(uint32(n))[i]) * float64(q[i])
		}
		out = append(out, scored{id, (float64(x.scales[n])*dot + float64(x.fineSc[n])*fine) / qn})
	}
	slices.SortFunc(out, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	return out
}

// small shrinks a test size under the race detector, which slows the
// index tenfold.
func small(n int) int {
	if raceEnabled {
		return n / 4
	}
	return n
}

// checkExact fails unless got is the top k of want up to ties within tol.
func checkExact(t *testing.T, got []Result, want []scored, k int) {
	t.Helper()
	const tol = 1e-4
	if len(got) != min(k, len(want)) {
		t.Fatalf("got %d results, want %d", len(got), min(k, len(want)))
	}
	byID := make(map[uint64]float64, len(want))
	for _, w := range want {
		byID[w.id] = w.s
	}
	for i, r := range got {
		s, ok := byID[r.ID]
		if !ok {
			t.Fatalf("result %d: id %d not eligible", i, r.ID)
		}
		if math.Abs(float64(r.Score)-s) > tol || math.Abs(s-want[i].s) > tol {
			t.Fatalf("result %d: id %d score %v (true %v), want score %v", i, r.ID, r.Score, s, want[i].s)
		}
	}
}

func TestAddRejects(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tt := range []struct {
		name string
		v    []float32
	}{
		{"short", []float32{1, 2}},
		{"long", []float32{1, 2, 3, 4}},
		{"zero", []float32{0, 0, 0}},
		{"nan", []float32{1, nan, 0}},
		{"inf", []float32{1, inf, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := New(3, Options{})
			if err := x.Add(1, tt.v); err == nil {
				t.Fatal("Add succeeded")
			}
			if x.Len() != 0 || x.Has(1) {
				t.Fatal("rejected vector was added")
			}
			if err := x.AddBatch([]uint64{1, 2}, [][]float32{{1, 0, 0}, tt.v}); err == nil || x.Len() != 0 {
				t.Fatalf("AddBatch: err %v, Len %d; want an error and nothing added", err, x.Len())
			}
		})
	}
}

func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for n := range 200 { // the assembly's 32-byte blocks and every tail
		a, b, q := make([]int8, n), make([]int8, n), make([]float32, n)
		var wantI int32
		var wantF, absF float64
		for i := range n {
			a[i], b[i], q[i] = int8(rng.IntN(255)-127), int8(rng.IntN(255)-127), float32(rng.NormFloat64())
			wantI += int32(a[i]) * int32(b[i])
			wantF += float64(q[i]) * float64(b[i])
			absF += math.Abs(float64(q[i]) * float64(b[i]))
		}
		if got := dotInt8(a, b); got != wantI {
			t.Errorf("dotInt8 len %d = %d, want %d", n, got, wantI)
		}
		if got := dotFloatInt8(q, b); math.Abs(float64(got)-wantF) > 1e-3+1e-6*absF { // float32 sums
			t.Errorf("dotFloatInt8 len %d = %v, want %v", n, got, wantF)
		}
	}
	// The extremes: no intermediate sum overflows.
	a := make([]int8, 4096)
	for i := range a {
		a[i] = -127
	}
	if got := dotInt8(a, a); got != 4096*127*127 {
		t.Errorf("dotInt8 of -127s = %d, want %d", got, 4096*127*127)
	}
}

func TestEncode(t *testing.T) {
	for _, dim := range []int{1, 3, 100, 384} {
		v := dataset(1, dim, uint64(dim))[0]
		code, fine := make([]int8, dim), make([]int8, dim)
		n := norm(v)
		s, fs := encode(code, fine, v, n)
		var worst float64
		for i := range v {
			worst = max(worst, math.Abs(float64(v[i])/n-float64(s)*float64(code[i])-float64(fs)*float64(fine[i])))
		}
		if worst > 1e-4 {
			t.Errorf("dim %d: worst component error %v", dim, worst)
		}
	}
}

func TestExact(t *testing.T) {
	for _, tt := range []struct {
		name   string
		n, dim int
		k      int
		accept func(uint64) bool
	}{
		{"empty-k", 0, 8, 5, nil},
		{"tiny", 3, 8, 10, nil},
		{"small", 500, 16, 10, nil},
		{"d100", small(2000), 100, 10, nil},
		{"k1", small(2000), 100, 1, nil},
		{"k100", small(2000), 100, 100, nil},
		{"filter-odd", small(2000), 100, 10, func(id uint64) bool { return id%2 == 1 }},
		{"filter-none", small(2000), 100, 10, func(uint64) bool { return false }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := New(tt.dim, Options{ExactBelow: 1 << 30})
			data := dataset(tt.n, tt.dim, 7)
			for i, v := range data {
				if err := x.Add(uint64(i), v); err != nil {
					t.Fatal(err)
				}
			}
			for qi, q := range queries(small(20), tt.n, tt.dim, 7) {
				want := reference(x, q, tt.accept)
				checkExact(t, x.Search(q, tt.k, tt.accept), want, tt.k)

				var ids []uint64
				for id := range uint64(tt.n + 10) { // includes unknown ids
					if (tt.accept == nil || tt.accept(id)) && id%3 != uint64(qi%3) {
						ids = append(ids, id, id) // and repeats
					}
				}
				want = reference(x, q, func(id uint64) bool {
					return (tt.accept == nil || tt.accept(id)) && id%3 != uint64(qi%3)
				})
				checkExact(t, x.SearchIDs(q, tt.k, ids), want, tt.k)
			}
		})
	}
}

func TestSearchBadQuery(t *testing.T) {
	x := build(t, dataset(100, 8, 1), Options{})
	for _, q := range [][]float32{nil, {1, 2}, make([]float32, 8), {float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}} {
		if r := x.Search(q, 5, nil); r != nil {
			t.Errorf("Search(%v) = %v, want nil", q, r)
		}
		if r := x.SearchIDs(q, 5, []uint64{1}); r != nil {
			t.Errorf("SearchIDs(%v) = %v, want nil", q, r)
		}
	}
	if r := x.Search(dataset(1, 8, 2)[0], 0, nil); r != nil {
		t.Errorf("k=0 gave %v", r)
	}
}

// meanRecall is the mean recall@k of graph searches against a float64
// brute force over the original vectors of the ids accept allows.
func meanRecall(x *Index, data [][]float32, qs [][]float32, k int, accept func(uint64) bool) float64 {
	var sum float64
	for _, q := range qs {
		var ids []uint64
		var vs [][]float32
		for id, v := range data {
			if v != nil && (accept == nil || accept(uint64(id))) {
				ids = append(ids, uint64(id))
				vs = append(vs, v)
			}
		}
		var want []uint64
		for _, i := range bruteForce(vs, q, k) {
			want = append(want, ids[i])
		}
		sum += recall(x.Search(q, k, accept), want)
	}
	return sum / float64(len(qs))
}

func TestRecall(t *testing.T) {
	n, dim := small(20000), 100
	data := dataset(n, dim, 3)
	x := build(t, data, Options{ExactBelow: 1})
	if r := meanRecall(x, data, queries(100, n, dim, 3), 10, nil); r < 0.95 {
		t.Errorf("recall@10 = %.3f, want >= 0.95", r)
	}
}

func TestDelete(t *testing.T) {
	n, dim := small(4000), 32
	data := dataset(n, dim, 5)
	x := build(t, data, Options{ExactBelow: 1})
	if x.Delete(uint64(n + 1)) {
		t.Fatal("Delete of an unknown id reported true")
	}
	// Delete three quarters, in an order that spreads over the graph and
	// triggers several vacuums.
	for i := range n {
		if i%4 != 0 {
			if !x.Delete(uint64(i)) {
				t.Fatalf("Delete(%d) = false", i)
			}
			data[i] = nil
		}
	}
	if x.Delete(1) {
		t.Fatal("second Delete reported true")
	}
	if got := x.Len(); got != n/4 {
		t.Fatalf("Len = %d, want %d", got, n/4)
	}
	if x.Has(1) || !x.Has(4) {
		t.Fatal("Has is wrong after Delete")
	}
	qs := queries(50, n, dim, 5)
	for _, q := range qs {
		for _, r := range x.Search(q, 20, nil) {
			if r.ID%4 != 0 {
				t.Fatalf("deleted id %d returned", r.ID)
			}
		}
	}
	if r := meanRecall(x, data, qs, 10, nil); r < 0.95 {
		t.Errorf("recall@10 after deletes = %.3f, want >= 0.95", r)
	}
	// Re-add the deleted ids, with new vectors; freed slots are reused.
	nodes := len(x.ids)
	fresh := dataset(n, dim, 6)
	for i := range n {
		if i%4 != 0 {
			if err := x.Add(uint64(i), fresh[i]); err != nil {
				t.Fatal(err)
			}
			data[i] = fresh[i]
		}
	}
	if x.Len() != n || len(x.ids) > nodes+n/8 {
		t.Fatalf("Len = %d with %d nodes; want %d with slots reused", x.Len(), len(x.ids), n)
	}
	if r := meanRecall(x, data, qs, 10, nil); r < 0.95 {
		t.Errorf("recall@10 after re-adding = %.3f, want >= 0.95", r)
	}
	// Delete everything, then start again.
	for i := range n {
		x.Delete(uint64(i))
	}
	if x.Len() != 0 || x.Search(qs[0], 5, nil) != nil {
		t.Fatal("empty index returned results")
	}
	if err := x.Add(7, data[7]); err != nil {
		t.Fatal(err)
	}
	if r := x.Search(data[7], 5, nil); len(r) != 1 || r[0].ID != 7 {
		t.Fatalf("Search = %v, want id 7", r)
	}
}

func TestReplace(t *testing.T) {
	for _, exactBelow := range []int{1, 1 << 30} {
		n := small(3000)
		data := dataset(n, 16, 9)
		x := build(t, data, Options{ExactBelow: exactBelow})
		q := queries(1, n, 16, 9)[0]
		if err := x.Add(42, q); err != nil {
			t.Fatal(err)
		}
		if x.Len() != n {
			t.Fatalf("Len = %d after replace, want %d", x.Len(), n)
		}
		r := x.Search(q, 3, nil)
		if len(r) == 0 || r[0].ID != 42 || r[0].Score < 0.9999 {
			t.Fatalf("Search after replace = %v, want id 42 with score 1", r)
		}
		for _, r := range x.Search(data[42], 10, nil) {
			if r.ID == 42 && r.Score > 0.9999 {
				t.Fatal("old vector of id 42 still found")
			}
		}
	}
}

func TestFilter(t *testing.T) {
	n, dim := small(5000), 32
	data := dataset(n, dim, 11)
	x := build(t, data, Options{ExactBelow: 1})
	qs := queries(30, n, dim, 11)
	for _, tt := range []struct {
		name   string
		accept func(uint64) bool
	}{
		{"half", func(id uint64) bool { return id%2 == 0 }},
		{"one-percent", func(id uint64) bool { return id%100 == 7 }},
		{"three", func(id uint64) bool { return id == 5 || id == 500 || id == 1111 }},
		{"none", func(uint64) bool { return false }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, q := range qs {
				want := reference(x, q, tt.accept)
				got := x.Search(q, 10, tt.accept)
				if len(got) != min(10, len(want)) {
					t.Fatalf("got %d results, want %d", len(got), min(10, len(want)))
				}
				for _, r := range got {
					if !tt.accept(r.ID) {
						t.Fatalf("id %d fails the filter", r.ID)
					}
				}
				if len(want) <= 10 {
					checkExact(t, got, want, 10)
				}
			}
			if r := meanRecall(x, data, qs, 10, tt.accept); r < 0.95 {
				t.Errorf("filtered recall@10 = %.3f, want >= 0.95", r)
			}
		})
	}
}

// TestRandomOps interleaves adds, replaces, deletes and searches and checks
// every search against a reference map of the live vectors.
func TestRandomOps(t *testing.T) {
	for _, tt := range []struct {
		name       string
		seed       uint64
		dim, ids   int
		exactBelow int
	}{
		{"graph-dense", 1, 8, 300, 1},
		{"graph-sparse", 2, 16, 3000, 1},
		{"exact", 3, 8, 300, 1 << 30},
		{"crossing", 4, 8, 400, 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tt.seed, 0))
			x := New(tt.dim, Options{ExactBelow: tt.exactBelow, M: 4 + int(tt.seed), Seed: int64(tt.seed)})
			ref := map[uint64]bool{}
			vec := func() []float32 {
				v := make([]float32, tt.dim)
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
				return v
			}
			var hits, total float64
			for op := range small(6000) {
				id := uint64(rng.IntN(tt.ids))
				switch r := rng.IntN(10); {
				case r < 5:
					if err := x.Add(id, vec()); err != nil {
						t.Fatal(err)
					}
					ref[id] = true
				case r < 8:
					if got := x.Delete(id); got != ref[id] {
						t.Fatalf("op %d: Delete(%d) = %v, want %v", op, id, got, ref[id])
					}
					delete(ref, id)
				default:
					q, k := vec(), 1+rng.IntN(15)
					var accept func(uint64) bool
					if rng.IntN(3) == 0 {
						accept = func(id uint64) bool { return id%3 == 0 }
					}
					got := x.Search(q, k, accept)
					want := reference(x, q, accept)
					if len(got) != min(k, len(want)) {
						t.Fatalf("op %d: %d results, want %d", op, len(got), min(k, len(want)))
					}
					seen := map[uint64]bool{}
					for i, r := range got {
						if !ref[r.ID] || seen[r.ID] || (accept != nil && !accept(r.ID)) {
							t.Fatalf("op %d: bad result %d", op, r.ID)
						}
						seen[r.ID] = true
						if i > 0 && r.Score > got[i-1].Score {
							t.Fatalf("op %d: results out of order", op)
						}
					}
					for _, w := range want[:min(k, len(want))] {
						total++
						if seen[w.id] {
							hits++
						}
					}
				}
				if x.Len() != len(ref) {
					t.Fatalf("op %d: Len = %d, want %d", op, x.Len(), len(ref))
				}
			}
			if total > 0 && hits/total < 0.95 {
				t.Errorf("recall = %.3f, want >= 0.95", hits/total)
			}
		})
	}
}

func TestConcurrent(t *testing.T) {
	const n, dim = 3000, 16
	data := dataset(n, dim, 13)
	x := build(t, data[:n/2], Options{ExactBelow: 500})
	qs := queries(20, n, dim, 13)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q := qs[(i+g)%len(qs)]
				var res []Result
				switch i % 3 {
				case 0:
					res = x.Search(q, 10, nil)
				case 1:
					res = x.Search(q, 10, func(id uint64) bool { return id%2 == 0 })
				case 2:
					res = x.SearchIDs(q, 10, []uint64{1, 2, 3, 400, 2000})
				}
				if !slices.IsSortedFunc(res, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) }) {
					t.Error("results out of order")
					return
				}
				x.Has(uint64(i))
				x.Len()
			}
		})
	}
	var buf discard
	for i := n / 2; i < n; i++ {
		if err := x.Add(uint64(i), data[i]); err != nil {
			t.Fatal(err)
		}
		x.Delete(uint64(i - n/2))
		if i%500 == 0 {
			if _, err := x.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if x.Len() != n/2 {
		t.Fatalf("Len = %d, want %d", x.Len(), n/2)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestErrNoDirection(t *testing.T) {
	x := New(2, Options{})
	if err := x.Add(1, []float32{0, 0}); !errors.Is(err, ErrNoDirection) {
		t.Fatalf("err = %v, want ErrNoDirection", err)
	}
}
