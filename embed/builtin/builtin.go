// Package builtin is mnemo's default embedder, inside the binary, with no
// model to download and no service to call: GloVe SIF word vectors and the
// Universal Sentence Encoder Lite, joined so that their cosines are
// averaged. Either alone recalls less on LoCoMo than the two together
// (docs/BENCHMARKS.md).
//
// Both models are English. Chinese reaches their space through the
// CC-CEDICT lexicon (embed/cedict, EMB-7): GloVe places each Chinese word
// at the mean of its English glosses' vectors beside its hashed
// characters, and USE-Lite reads a Chinese text as its gloss words. A
// text without Han characters, or with kana (Japanese), embeds as it
// would without the lexicon.
package builtin

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/embed/cedict"
	"github.com/mnemo-dev/mnemo/embed/concat"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/embed/use"
)

// New returns the built-in embedder: 612 dimensions, model
// "concat(glove-sif-100d-v1*0.5+use-lite-512-v1*0.5)", the name it had
// before the lexicon (glove.ModelName says why). Both models load on first
// use.
func New() mnemo.Embedder {
	e, err := concat.New(
		concat.Part{Embedder: glove.New(), Weight: 0.5},
		concat.Part{Embedder: &glossed{inner: use.New(), perWord: glossesPerWord}, Weight: 0.5},
	)
	if err != nil {
		panic(err) // both parts have fixed, positive dimensions
	}
	return e
}

// glossesPerWord is how many English gloss words stand for a Chinese word
// of two characters or more in the text USE-Lite reads.
const glossesPerWord = 2

// glossed embeds a Chinese text (cedict.IsChinese) as inner embeds its
// English gloss words (cedict.Lexicon.Translate), and any other text
// unchanged.
type glossed struct {
	inner   mnemo.Embedder
	perWord int

	once sync.Once
	lex  *cedict.Lexicon
	err  error
}

var (
	_ mnemo.Embedder = (*glossed)(nil)
	_ embed.Loader   = (*glossed)(nil)
)

func (g *glossed) Dimension() int { return g.inner.Dimension() }

// Model is the inner model's: English vectors are the same; a Chinese one
// embedded before, read from characters USE-Lite does not know, meant
// little in this part then and means as little beside new ones, until
// `mnemo reindex` (glove.ModelName).
func (g *glossed) Model() string { return g.inner.Model() }

func (g *glossed) lexicon() (*cedict.Lexicon, error) {
	g.once.Do(func() { g.lex, g.err = cedict.New() })
	return g.lex, g.err
}

// Load loads the inner model, if it is an embed.Loader, and the lexicon.
func (g *glossed) Load() (time.Duration, error) {
	var d time.Duration
	if l, ok := g.inner.(embed.Loader); ok {
		var err error
		if d, err = l.Load(); err != nil {
			return d, err
		}
	}
	start := time.Now()
	_, err := g.lexicon()
	return d + time.Since(start), err
}

func (g *glossed) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := texts
	for i, t := range texts {
		if !cedict.IsChinese(t) {
			continue
		}
		lex, err := g.lexicon()
		if err != nil {
			return nil, fmt.Errorf("builtin: %w", err)
		}
		if &out[0] == &texts[0] {
			out = append([]string(nil), texts...)
		}
		out[i] = lex.Translate(t, g.perWord)
	}
	return g.inner.Embed(ctx, out)
}
