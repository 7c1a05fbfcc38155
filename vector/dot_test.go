package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// int8Kernels are the int8 dot products the graph may run, each with
// whether this CPU can: the portable loop, AVX2, AVX-512 VNNI, and VNNI
// with the query offset once (searcher.dot), and the AVX-VNNI kernels,
// which the graph runs without AVX-512 VNNI. bind fixes the first operand.
var int8Kernels = []struct {
	name string
	ok   bool
	bind func(a []int8) func(b []int8) int32
}{
	{"go", true, bind(dotInt8Go)},
	{"AVX2", useAVX2, bind(dotInt8AVX2Go)},
	{"VNNI", useVNNI, bind(dotInt8)},
	{"VNNI query", useVNNI, func(a []int8) func(b []int8) int32 {
		s := new(searcher)
		s.setQueryCode(a, 1)
		return s.dot
	}},
	{"AVX-VNNI", useAVXVNNI, bind(dotInt8AVXVNNIGo)},
	{"AVX-VNNI query", useAVXVNNI, func(a []int8) func(b []int8) int32 {
		u := make([]uint8, len(a))
		for i, c := range a {
			u[i] = uint8(c) ^ 0x80
		}
		return func(b []int8) int32 { return dotUint8Int8AVXVNNIGo(u, b) }
	}},
}

func bind(f func(a, b []int8) int32) func(a []int8) func(b []int8) int32 {
	return func(a []int8) func(b []int8) int32 {
		return func(b []int8) int32 { return f(a, b) }
	}
}

// TestDotInt8Kernels: every int8 kernel the CPU has agrees exactly with a
// plain int64 sum on every length, the extremes included (PERF-2).
func TestDotInt8Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 700; n++ {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
		}
		switch n % 50 {
		case 0:
			for i := range a {
				a[i], b[i] = -128, -128 // the largest products
			}
		case 1:
			for i := range a {
				a[i], b[i] = 127, -128 // the most negative
			}
		}
		var want int64
		for i := range a {
			want += int64(a[i]) * int64(b[i])
		}
		for _, k := range int8Kernels {
			if !k.ok {
				continue
			}
			if got := k.bind(a)(b); int64(got) != want {
				t.Fatalf("n %d, %s: %d, want %d", n, k.name, got, want)
			}
		}
	}
}

// TestDotFloatInt8Kernels: the AVX2 + FMA kernel agrees with the portable
// loop within float rounding on every length.
func TestDotFloatInt8Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 700; n++ {
		q, c := make([]float32, n), make([]int8, n)
		var mag float64
		for i := range q {
			q[i], c[i] = float32(r.NormFloat64()), int8(r.IntN(256)-128)
			mag += math.Abs(float64(q[i]) * float64(c[i]))
		}
		got, want := dotFloatInt8(q, c), dotFloatInt8Go(q, c)
		if math.Abs(float64(got-want)) > 1e-5*mag+1e-6 {
			t.Fatalf("n %d: %v, want %v (FMA %v)", n, got, want, useFMA)
		}
	}
}

// TestDotFloatInt8x2: the fused kernel gives both dot products within
// float rounding of the portable loop, on every length.
func TestDotFloatInt8x2(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 700; n++ {
		q, c, f := make([]float32, n), make([]int8, n), make([]int8, n)
		var magC, magF float64
		for i := range q {
			q[i], c[i], f[i] = float32(r.NormFloat64()), int8(r.IntN(256)-128), int8(r.IntN(256)-128)
			magC += math.Abs(float64(q[i]) * float64(c[i]))
			magF += math.Abs(float64(q[i]) * float64(f[i]))
		}
		gotC, gotF := dotFloatInt8x2(q, c, f)
		wantC, wantF := dotFloatInt8Go(q, c), dotFloatInt8Go(q, f)
		if math.Abs(float64(gotC-wantC)) > 1e-5*magC+1e-6 || math.Abs(float64(gotF-wantF)) > 1e-5*magF+1e-6 {
			t.Fatalf("n %d: %v, %v, want %v, %v (FMA %v)", n, gotC, gotF, wantC, wantF, useFMA)
		}
	}
}

// BenchmarkDotInt8 at the built-in embedder's 612 dimensions:
//
//	go test -run '^$' -bench DotInt8 ./vector
func BenchmarkDotInt8(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	a, c := make([]int8, 612), make([]int8, 612)
	for i := range a {
		a[i], c[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
	}
	for _, k := range int8Kernels {
		if !k.ok {
			continue
		}
		dot := k.bind(a)
		b.Run(k.name, func(b *testing.B) {
			var s int32
			for i := 0; i < b.N; i++ {
				s += dot(c)
			}
			_ = s
		})
	}
}

func BenchmarkDotFloatInt8(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	q, c := make([]float32, 612), make([]int8, 612)
	for i := range q {
		q[i], c[i] = float32(r.NormFloat64()), int8(r.IntN(256)-128)
	}
	for _, k := range []struct {
		name string
		f    func(q []float32, c []int8) float32
	}{{"go", dotFloatInt8Go}, {"dispatch", dotFloatInt8}} {
		b.Run(k.name, func(b *testing.B) {
			var s float32
			for i := 0; i < b.N; i++ {
				s += k.f(q, c)
			}
			_ = s
		})
	}
}

// TestDotKernels: the AVX2 + FMA float kernel agrees with the portable
// loop, and both with a float64 sum, within float rounding on every length.
func TestDotKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 700; n++ {
		a, b := make([]float32, n), make([]float32, n)
		var mag, exact float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			mag += math.Abs(float64(a[i]) * float64(b[i]))
			exact += float64(a[i]) * float64(b[i])
		}
		tol := 1e-6*mag + 1e-7
		for _, k := range []struct {
			name string
			got  float32
		}{{"dispatch", Dot(a, b)}, {"go", dotFloatGo(a, b)}} {
			if math.Abs(float64(k.got)-exact) > tol {
				t.Fatalf("n %d, %s: %v, want %v (FMA %v)", n, k.name, k.got, exact, useFMA)
			}
		}
		if got := Dot64(a, b); got != exact {
			t.Fatalf("n %d, Dot64: %v, want %v", n, got, exact)
		}
	}
}

// TestNorm: Norm is the length of any vector, NaN and ±Inf included; norm,
// what the index divides by, is 0 for one with no finite length.
func TestNorm(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	tiny := float64(float32(1e-30)) // its square underflows float32, not float64
	for _, c := range []struct {
		name       string
		v          []float32
		want, unit float64 // Norm, norm
	}{
		{"empty", nil, 0, 0},
		{"zero", []float32{0, 0}, 0, 0},
		{"3-4-5", []float32{3, -4}, 5, 5},
		{"tiny", []float32{1e-30, 1e-30}, math.Sqrt(2 * tiny * tiny), math.Sqrt(2 * tiny * tiny)},
		{"inf", []float32{inf, 1}, math.Inf(1), 0},
		{"nan", []float32{nan, 1}, math.NaN(), 0},
	} {
		got := Norm(c.v)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: Norm = %v, want %v", c.name, got, c.want)
		}
		if got := norm(c.v); got != c.unit {
			t.Errorf("%s: norm = %v, want %v", c.name, got, c.unit)
		}
	}
}

// BenchmarkDotFloat at 612 dimensions:
//
//	go test -run '^$' -bench DotFloat$ ./vector
func BenchmarkDotFloat(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float32, 612), make([]float32, 612)
	for i := range x {
		x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	for _, k := range []struct {
		name string
		f    func(a, b []float32) float32
	}{{"go", dotFloatGo}, {"dispatch", Dot}} {
		b.Run(k.name, func(b *testing.B) {
			var s float32
			for i := 0; i < b.N; i++ {
				s += k.f(x, y)
			}
			_ = s
		})
	}
}
