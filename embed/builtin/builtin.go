// Package builtin is mnemo's default embedder, inside the binary, with no
// model to download and no service to call: GloVe SIF word vectors and the
// Universal Sentence Encoder Lite, joined so that their cosines are
// averaged. Either alone recalls less on LoCoMo than the two together
// (docs/BENCHMARKS.md).
package builtin

import (
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/concat"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/embed/use"
)

// New returns the built-in embedder: 612 dimensions, model
// "concat(glove-sif-100d-v1*0.5+use-lite-512-v1*0.5)". Both models load on
// first use.
func New() mnemo.Embedder {
	e, err := concat.New(
		concat.Part{Embedder: glove.New(), Weight: 0.5},
		concat.Part{Embedder: use.New(), Weight: 0.5},
	)
	if err != nil {
		panic(err) // both parts have fixed, positive dimensions
	}
	return e
}
