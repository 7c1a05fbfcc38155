// Package random embeds text as seeded random unit vectors, for mock mode
// and tests: no model, no network, and the same text always gets the same
// vector for the same seed, so runs are reproducible. The vectors carry no
// meaning; only identical texts are similar.
package random

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/mnemo-dev/mnemo"
)

// DefaultDimension is used when New is given a dimension <= 0.
const DefaultDimension = 512

// Embedder produces seeded random vectors. It is safe for concurrent use:
// it holds no generator, each text seeds its own.
type Embedder struct {
	dim  int
	seed uint64
}

var _ mnemo.Embedder = (*Embedder)(nil)

// New returns an Embedder of dim dimensions (DefaultDimension when dim <= 0)
// whose vectors are derived from seed.
func New(dim int, seed uint64) *Embedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &Embedder{dim: dim, seed: seed}
}

// Dimension returns the number of components of every vector.
func (e *Embedder) Dimension() int { return e.dim }

// Model returns "random-<dim>-<seed>", so vectors from different seeds are
// never mixed in one store.
func (e *Embedder) Model() string { return fmt.Sprintf("random-%d-%d", e.dim, e.seed) }

// Embed returns one unit vector per text, a deterministic function of the
// seed and the text.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("random: %w", err)
		}
		out[i] = e.vector(text)
	}
	return out, nil
}

// vector draws normally distributed components, whose direction is uniform
// on the sphere, and scales them to unit length.
func (e *Embedder) vector(text string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	r := rand.New(rand.NewPCG(e.seed, h.Sum64()))
	acc := make([]float64, e.dim)
	var norm float64
	for i := range acc {
		acc[i] = r.NormFloat64()
		norm += acc[i] * acc[i]
	}
	norm = math.Sqrt(norm)
	v := make([]float32, e.dim)
	for i, x := range acc {
		v[i] = float32(x / norm)
	}
	return v
}
