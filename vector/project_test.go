package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitProjection checks that the projection keeps the energy of data
// with dominant directions and not of data without, that its rows are
// orthonormal, and that compact codes give the projected dot products.
func TestFitProjection(t *testing.T) {
	if raceEnabled {
		t.Skip("checks arithmetic, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a fifteenth")
	}
	const dim, k = 512, 128
	unit := func(vs [][]float32) [][]float32 {
		for _, v := range vs {
			n := norm(v)
			for i := range v {
				v[i] = float32(float64(v[i]) / n)
			}
		}
		return vs
	}
	rng := rand.New(rand.NewPCG(1, 1))
	random := make([][]float32, 4000)
	for i := range random {
		random[i] = make([]float32, dim)
		for j := range random[i] {
			random[i][j] = float32(rng.NormFloat64())
		}
	}
	for _, tt := range []struct {
		name     string
		data     [][]float32
		min, max float64 // the share of the energy kept
	}{
		{"rank 64", unit(lowRank(4000, dim, 64, 1)), 0.99, 1},
		{"rank 160", unit(lowRank(4000, dim, 160, 2)), 0.9, 1},
		// Random vectors: a span of k directions keeps about k/dim.
		{"random", unit(random), 0, 0.4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sample, test := tt.data[:len(tt.data)-50], tt.data[len(tt.data)-50:]
			p := fitProjection(sample, k, 1)
			if p.kept < tt.min || p.kept > tt.max {
				t.Errorf("kept %.3f of the energy, want [%.2f, %.2f]", p.kept, tt.min, tt.max)
			}
			for i := range k {
				for j := i; j < k; j++ {
					d := float64(Dot(p.rows[i*dim:(i+1)*dim], p.rows[j*dim:(j+1)*dim]))
					want := 0.0
					if i == j {
						want = 1
					}
					if math.Abs(d-want) > 1e-4 {
						t.Fatalf("rows %d, %d: dot %.6f, want %v", i, j, d, want)
					}
				}
			}
			// Compact codes against float projections, on vectors not
			// in the sample: half an int8 step of error a coordinate.
			ya, yb := make([]float32, k), make([]float32, k)
			ca, cb := make([]int8, k), make([]int8, k)
			for i := 0; i+1 < len(test); i += 2 {
				a, b := test[i], test[i+1]
				p.projectFloat(ya, a)
				p.projectFloat(yb, b)
				p.encodeFloat(ca, a, 1)
				p.encodeFloat(cb, b, 1)
				want := float64(Dot(ya, yb))
				got := float64(dotInt8Go(ca, cb)) * float64(p.step) * float64(p.step)
				if tol := 2 * float64(p.step) * math.Sqrt(k); math.Abs(got-want) > tol {
					t.Errorf("compact dot %.4f, projected %.4f (tolerance %.4f)", got, want, tol)
				}
			}
		})
	}
}
