// Package concat joins several embedders into one: each text's vector is
// the concatenation of the normalised vectors of each embedder, weighted.
// The cosine similarity of two such vectors is the weighted mean of the
// embedders' cosine similarities, so embedders with different strengths
// (word vectors, a sentence encoder) vote together in one ANN index.
package concat

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
)

// Part is one embedder and its weight.
type Part struct {
	Embedder mnemo.Embedder
	Weight   float64
}

// Embedder is the concatenation of its parts. It is safe for concurrent use
// when its parts are.
type Embedder struct {
	parts []Part
	dim   int
	model string
}

var _ mnemo.Embedder = (*Embedder)(nil)

// New returns the concatenation of parts. Weights are normalised to sum to
// one; a part of weight <= 0 is an error.
func New(parts ...Part) (*Embedder, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("concat: no embedders")
	}
	sum := 0.0
	names := make([]string, len(parts))
	e := &Embedder{}
	for i, p := range parts {
		if p.Weight <= 0 || p.Embedder.Dimension() <= 0 {
			return nil, fmt.Errorf("concat: %s needs a positive weight and a known dimension", p.Embedder.Model())
		}
		sum += p.Weight
		e.dim += p.Embedder.Dimension()
		names[i] = fmt.Sprintf("%s*%g", p.Embedder.Model(), p.Weight)
	}
	for _, p := range parts {
		e.parts = append(e.parts, Part{p.Embedder, p.Weight / sum})
	}
	e.model = "concat(" + strings.Join(names, "+") + ")"
	return e, nil
}

// Load loads the models of the parts that are embed.Loaders, and returns
// the time they took together.
func (e *Embedder) Load() (time.Duration, error) {
	var total time.Duration
	for _, p := range e.parts {
		if l, ok := p.Embedder.(embed.Loader); ok {
			d, err := l.Load()
			total += d
			if err != nil {
				return total, fmt.Errorf("concat: %w", err)
			}
		}
	}
	return total, nil
}

var _ embed.Loader = (*Embedder)(nil)

// Dimension is the sum of the parts' dimensions.
func (e *Embedder) Dimension() int { return e.dim }

// Model names the parts and their weights.
func (e *Embedder) Model() string { return e.model }

// Embed embeds texts with every part and joins the vectors.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, 0, e.dim)
	}
	// The parts embed side by side: one that works on a single core (GloVe)
	// then runs beside another that uses both (USE-Lite) instead of
	// leaving a core idle before it, on a bulk write's path (PERF-8).
	// One text (a query) embeds part after part on the caller's goroutine:
	// the GloVe part takes microseconds, and a goroutine of its own would
	// wait for a core beside background work (PERF-11).
	vecs := make([][][]float32, len(e.parts))
	errs := make([]error, len(e.parts))
	if len(texts) == 1 {
		for i, p := range e.parts {
			vecs[i], errs[i] = p.Embedder.Embed(ctx, texts)
		}
	} else {
		var wg sync.WaitGroup
		for i := 1; i < len(e.parts); i++ {
			wg.Go(func() { vecs[i], errs[i] = e.parts[i].Embedder.Embed(ctx, texts) })
		}
		vecs[0], errs[0] = e.parts[0].Embedder.Embed(ctx, texts)
		wg.Wait()
	}
	for k, p := range e.parts {
		vs, err := vecs[k], errs[k]
		if err != nil {
			return nil, fmt.Errorf("concat: %w", err)
		}
		if len(vs) != len(texts) {
			return nil, fmt.Errorf("concat: %s returned %d vectors for %d texts", p.Embedder.Model(), len(vs), len(texts))
		}
		// sqrt(weight) on each unit part makes the dot product of two
		// joined vectors the weighted sum of the parts' cosines.
		w := math.Sqrt(p.Weight)
		for i, v := range vs {
			if len(v) != p.Embedder.Dimension() {
				return nil, fmt.Errorf("concat: %s returned %d dimensions, not %d", p.Embedder.Model(), len(v), p.Embedder.Dimension())
			}
			var n float64
			for _, f := range v {
				n += float64(f) * float64(f)
			}
			scale := 0.0
			if n > 0 {
				scale = w / math.Sqrt(n)
			}
			for _, f := range v {
				out[i] = append(out[i], float32(float64(f)*scale))
			}
		}
	}
	return out, nil
}
