package vector

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// dataset returns n synthetic clustered vectors: noise around n/500 (at
// least 10) gaussian centres. Within a cluster the noise has a decaying
// spectrum, component i having standard deviation spread/sqrt(1+i/8), as the
// principal components of real sentence embeddings do; so the data has far
// fewer effective dimensions than dim, yet clusters overlap enough that
// nearest neighbours cross cluster borders. The same arguments always give
// the same vectors.
func dataset(n, dim int, seed uint64) [][]float32 {
	centres, sd := model(n, dim, seed)
	return points(n, dim, centres, sd, rand.New(rand.NewPCG(seed, 2)))
}

// queries returns n fresh vectors from the distribution of dataset(size, dim, seed).
func queries(n, size, dim int, seed uint64) [][]float32 {
	centres, sd := model(size, dim, seed)
	return points(n, dim, centres, sd, rand.New(rand.NewPCG(seed, 3)))
}

var spread = 0.6

func model(size, dim int, seed uint64) (centres [][]float32, sd []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres = make([][]float32, max(10, size/500))
	for c := range centres {
		centres[c] = make([]float32, dim)
		for i := range centres[c] {
			centres[c][i] = float32(rng.NormFloat64())
		}
	}
	sd = make([]float64, dim)
	for i := range sd {
		sd[i] = spread / math.Sqrt(1+float64(i)/8)
	}
	return centres, sd
}

func points(n, dim int, centres [][]float32, sd []float64, rng *rand.Rand) [][]float32 {
	flat := make([]float32, n*dim)
	out := make([][]float32, n)
	for j := range out {
		c := centres[rng.IntN(len(centres))]
		v := flat[j*dim : (j+1)*dim : (j+1)*dim]
		for i := range v {
			v[i] = c[i] + float32(rng.NormFloat64()*sd[i])
		}
		out[j] = v
	}
	return out
}

// bruteForce returns the ids (indexes into data) of the k vectors nearest to
// q by float64 cosine similarity, best first.
func bruteForce(data [][]float32, q []float32, k int) []uint64 {
	type hit struct {
		id uint64
		s  float64
	}
	hits := make([]hit, 0, len(data))
	qn := norm(q)
	for id, v := range data {
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(q[i])
		}
		hits = append(hits, hit{uint64(id), dot / (norm(v) * qn)})
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(b.s, a.s) })
	ids := make([]uint64, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		ids = append(ids, h.id)
	}
	return ids
}

// recall returns the fraction of want found in got.
func recall(got []Result, want []uint64) float64 {
	if len(want) == 0 {
		return 1
	}
	n := 0
	for _, r := range got {
		if slices.Contains(want, r.ID) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}
