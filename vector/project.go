package vector

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// A projection maps a stored vector to a compact int8 code of k
// dimensions: its coordinates in the span of the sample's top k principal
// directions (of the uncentred second moment, which is what dot products
// keep), turned by a random rotation so that every coordinate has about
// the same spread, quantised with one step for all. The dot product of two
// compact codes times step² approximates the cosine of their vectors,
// missing the part outside the span; a bulk build walks the graph with it,
// since a compact code fits in far fewer cache lines than a full one
// (PERF-12).
type projection struct {
	dim, k int
	rows   []float32 // k rows of dim, orthonormal
	step   float32   // the value of one int8 unit of a compact code
	kept   float64   // the fraction of the sample's energy inside the span
}

// Fitting parameters.
const (
	fitSample = 8192 // vectors the second moment is estimated from
	fitIters  = 40   // at most; stops earlier when the kept energy settles
)

// fitProjection returns the projection onto the top k principal
// directions of sample (unit vectors), found by orthogonal iteration on
// their second-moment matrix: no eigensolver, since any orthonormal basis
// of the span gives the same dot products.
func fitProjection(sample [][]float32, k int, seed uint64) *projection {
	dim := len(sample[0])
	k = min(k, dim)
	rng := rand.New(rand.NewPCG(seed, 0x70ca))
	cov := secondMoment(sample)
	var trace float64
	for i := range dim {
		trace += float64(cov[i*dim+i])
	}

	// q holds k rows of dim: start random, then q ← orth(q·C) until the
	// energy it keeps, trace(q C qᵀ), stops growing.
	q := make([]float32, k*dim)
	for i := range q {
		q[i] = float32(rng.NormFloat64())
	}
	orthonormalize(q, k, dim)
	next := make([]float32, k*dim)
	var kept float64
	for range fitIters {
		parallelRows(k, func(j int) {
			row := q[j*dim : (j+1)*dim]
			out := next[j*dim : (j+1)*dim]
			for i := range dim {
				out[i] = Dot(row, cov[i*dim:(i+1)*dim])
			}
		})
		var e float64
		for j := range k {
			e += float64(Dot(q[j*dim:(j+1)*dim], next[j*dim:(j+1)*dim]))
		}
		q, next = next, q
		orthonormalize(q, k, dim)
		if e-kept < 1e-4*trace {
			kept = e
			break
		}
		kept = e
	}

	// A random rotation of the span spreads its energy evenly over the k
	// coordinates, so that one quantisation step fits them all.
	rot := make([]float32, k*k)
	for i := range rot {
		rot[i] = float32(rng.NormFloat64())
	}
	orthonormalize(rot, k, k)
	rows := make([]float32, k*dim)
	parallelRows(k, func(j int) {
		out := rows[j*dim : (j+1)*dim]
		for t := range k {
			if r := rot[j*k+t]; r != 0 {
				for i, f := range q[t*dim : (t+1)*dim] {
					out[i] += r * f
				}
			}
		}
	})
	p := &projection{dim: dim, k: k, rows: rows, kept: kept / trace}

	// One step for all: the largest coordinate of the sample maps to 127.
	var maxAbs float32
	y := make([]float32, k)
	for _, v := range sample {
		p.projectFloat(y, v)
		for _, f := range y {
			maxAbs = max(maxAbs, float32(math.Abs(float64(f))))
		}
	}
	p.step = maxAbs / 127
	return p
}

// secondMoment returns the dim×dim matrix Σ v vᵀ / len(sample), row-major.
func secondMoment(sample [][]float32) []float32 {
	dim, n := len(sample[0]), len(sample)
	// Columns of the sample, so that each entry is one long dot product.
	cols := make([]float32, dim*n)
	for r, v := range sample {
		for i, f := range v {
			cols[i*n+r] = f
		}
	}
	cov := make([]float32, dim*dim)
	inv := 1 / float32(n)
	parallelRows(dim, func(i int) {
		ci := cols[i*n : (i+1)*n]
		for j := i; j < dim; j++ {
			d := Dot(ci, cols[j*n:(j+1)*n]) * inv
			cov[i*dim+j], cov[j*dim+i] = d, d
		}
	})
	return cov
}

// orthonormalize makes the k rows of dim in m orthonormal, in order, by
// modified Gram-Schmidt (twice, for float32's sake). A row that falls in
// the span of the ones before it is left zero.
func orthonormalize(m []float32, k, dim int) {
	for pass := 0; pass < 2; pass++ {
		for j := range k {
			row := m[j*dim : (j+1)*dim]
			for t := range j {
				prev := m[t*dim : (t+1)*dim]
				d := Dot(row, prev)
				for i := range row {
					row[i] -= d * prev[i]
				}
			}
			n := math.Sqrt(float64(Dot(row, row)))
			if n < 1e-12 {
				clear(row)
				continue
			}
			inv := float32(1 / n)
			for i := range row {
				row[i] *= inv
			}
		}
	}
}

// parallelRows calls f(0..n-1) on every core.
func parallelRows(n int, f func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for j := w; j < n; j += workers {
				f(j)
			}
		})
	}
	wg.Wait()
}

// projectFloat writes the projection of v into y (k floats).
func (p *projection) projectFloat(y, v []float32) {
	for j := range p.k {
		y[j] = Dot(p.rows[j*p.dim:(j+1)*p.dim], v)
	}
}

// encode writes the compact code of the stored vector scale*code +
// fineScale*fine into dst (k bytes), projected from the codes so that a
// node's compact code is the same however it was stored.
func (p *projection) encode(dst, code, fine []int8, scale, fineScale float32) {
	inv := 1 / p.step
	for j := range p.k {
		c, f := dotFloatInt8x2(p.rows[j*p.dim:(j+1)*p.dim], code, fine)
		y := (c*scale + f*fineScale) * inv
		dst[j] = int8(max(-127, min(127, math.Round(float64(y)))))
	}
}

// encodeFloat writes the compact code of v/n into dst (k bytes).
func (p *projection) encodeFloat(dst []int8, v []float32, n float64) {
	inv := 1 / (float64(p.step) * n)
	for j := range p.k {
		y := float64(Dot(p.rows[j*p.dim:(j+1)*p.dim], v)) * inv
		dst[j] = int8(max(-127, min(127, math.Round(y))))
	}
}
