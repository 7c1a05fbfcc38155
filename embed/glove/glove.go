package glove

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/cedict"
)

// modelData is the converted model; see model.go for its layout and
// scripts/glove/convert.sh for how it is made.
//
//go:embed data/glove-100d.bin
var modelData []byte

// ModelName is what Model returns. The version changes whenever stored
// vectors would no longer compare with new ones. The Chinese lexicon
// (EMB-7) left it alone: English vectors did not change, and a Chinese
// vector only gained the lexicon's part beside its hashed features, so a
// Chinese memory embedded before it still matches by shared characters,
// and by meaning once `mnemo reindex` embeds it again; a new version would
// have stopped semantic recall of every store until then.
const ModelName = "glove-sif-100d-v1"

// Dimension is the number of components of every vector.
const Dimension = 100

// Parameters of the embedding, the same as in scripts/glove/sif.js
// (params there). They were chosen on the LoCoMo dev split; see doc.go.
const (
	// sifA is SIF's a: a word of probability p weighs a/(a+p), so "the"
	// counts for 1.3% of a rare word, "said" (rank 14) for 16%, a word of
	// rank 1000 for 93%.
	sifA = 1e-3
	// oovWeight weighs a word missing from the vocabulary (a rare name, a
	// number, a typo) like a rare word: in a memory store such a word is
	// often the very thing searched for.
	oovWeight = 1
	// cjkWeight weighs a CJK character or character bigram: a bigram
	// and its two characters together count about as much as a word.
	cjkWeight = 0.5
	// hashNorm is the length of a hashed vector, about that of a
	// mid-frequency GloVe word.
	hashNorm = 5
	// gramWeight weighs an unknown word's trigrams against the word itself,
	// so that spelling variants overlap a little and the word matches
	// itself best.
	gramWeight = 0.5
	// removeCommonComponent says whether to remove the common component
	// stored in the model from every vector, the last step of SIF. It
	// does not help on LoCoMo (see doc.go), so it is off; the component
	// stays in the model file so that the variant can still be measured.
	removeCommonComponent = false
	// zhWeight weighs a Chinese word placed in the GloVe space by the
	// lexicon, against the hashed features of its characters; zhCharWeight
	// a single character.
	zhWeight     = 1.0
	zhCharWeight = 0.5
	// euler is the Euler–Mascheroni constant: the harmonic number H(n) is
	// about ln n + euler.
	euler = 0.5772156649015329
)

// Embedder embeds text as SIF sentence vectors. It is safe for concurrent
// use. The model is parsed on the first call to Embed, which costs well
// under a millisecond: the embedded file is read in place.
type Embedder struct {
	data []byte
	opt  options
	// zh places Chinese words in the space (EMB-8); nil leaves Chinese to
	// hashed character features alone.
	zh func() (*cedict.Lexicon, error)

	once  sync.Once
	model *model
	lex   *cedict.Lexicon
	err   error
}

var _ mnemo.Embedder = (*Embedder)(nil)

// options are the knobs of the embedding. New uses the constants above;
// tests vary them to measure alternatives.
type options struct {
	a         float64
	oovWeight float64
	cjkWeight float64
	removePC  bool // remove the common component
	uniform   bool // weigh every in-vocabulary word 1 instead of a/(a+p)
	maxWords  int  // treat words of rank >= maxWords as unknown; 0 means all
	zhWeight  float64
	zhChar    float64
}

var defaults = options{a: sifA, oovWeight: oovWeight, cjkWeight: cjkWeight, removePC: removeCommonComponent,
	zhWeight: zhWeight, zhChar: zhCharWeight}

// New returns an Embedder of the built-in model.
func New() *Embedder {
	return &Embedder{data: modelData, opt: defaults, zh: cedict.New}
}

// NewWithoutLexicon returns an Embedder of the built-in model that reads
// CJK by hashed character features alone, as it did before the Chinese
// lexicon (EMB-7): for comparisons.
func NewWithoutLexicon() *Embedder {
	return &Embedder{data: modelData, opt: defaults}
}

// Dimension returns 100.
func (e *Embedder) Dimension() int { return Dimension }

// Model returns ModelName.
func (e *Embedder) Model() string { return ModelName }

func (e *Embedder) load() (*model, error) {
	e.once.Do(func() {
		e.model, e.err = parseModel(e.data)
		if e.err == nil && e.model.dim != Dimension {
			e.model, e.err = nil, fmt.Errorf("glove: model has %d dimensions, want %d", e.model.dim, Dimension)
		}
		if e.err == nil && e.zh != nil {
			if e.lex, e.err = e.zh(); e.err != nil {
				e.model = nil
			}
		}
	})
	return e.model, e.err
}

// Embed returns one vector per text: of unit length, or all zeros for a
// text without a single word or CJK character (empty, or only punctuation,
// symbols and emoji). A text of nothing but stop words ("who is she") still
// gets a vector: SIF gives frequent words small weights, not zero, and the
// weights only matter relative to each other.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m, err := e.load()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	var s scratch
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("glove: %w", err)
		}
		out[i] = e.vector(m, &s, text)
	}
	return out, nil
}

// scratch is the memory one vector computation needs, reused across texts.
type scratch struct {
	tok          tokenizer
	acc, oov, zh []float64
}

func (e *Embedder) vector(m *model, s *scratch, text string) []float32 {
	if s.acc == nil {
		s.acc, s.oov = make([]float64, m.dim), make([]float64, m.dim)
	}
	acc := s.acc
	clear(acc)
	z := math.Log(float64(m.full)) + euler
	maxWords := m.n
	if e.opt.maxWords > 0 {
		maxWords = min(maxWords, e.opt.maxWords)
	}
	zh := e.lex != nil && e.opt.zhWeight > 0 && cedict.IsChinese(text)
	s.tok.tokens(text, func(tok string, cjk bool) {
		if cjk {
			cjkFeatures(tok, func(f string) {
				addHashed(acc, "c:", f, e.opt.cjkWeight*hashNorm)
			})
			if zh {
				e.addChinese(m, s, tok, z)
			}
			return
		}
		words(tok, func(w string) {
			if r, ok := m.lookup(w); ok && r < maxWords {
				wt := 1.0
				if !e.opt.uniform {
					p := 1 / (float64(r+1) * z)
					wt = e.opt.a / (e.opt.a + p)
				}
				m.add(acc, r, wt)
				return
			}
			oovVector(s.oov, w)
			for j, x := range s.oov {
				acc[j] += e.opt.oovWeight * x
			}
		})
	})
	if e.opt.removePC {
		dropComponent(acc, m.pc)
	}
	v := make([]float32, m.dim)
	var n float64
	for _, x := range acc {
		n += x * x
	}
	if n == 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return v
	}
	n = math.Sqrt(n)
	for j, x := range acc {
		v[j] = float32(x / n)
	}
	return v
}

// dropComponent removes from v its projection on the unit vector pc.
func dropComponent(v, pc []float64) {
	var d float64
	for j, x := range v {
		d += x * pc[j]
	}
	for j := range v {
		v[j] -= d * pc[j]
	}
}

// Words returns the n most frequent words of the vocabulary (all of them
// when n is larger), most frequent first: realistic text for benchmarks
// that generate memories.
func (e *Embedder) Words(n int) ([]string, error) {
	m, err := e.load()
	if err != nil {
		return nil, err
	}
	n = min(n, m.n)
	out := make([]string, n)
	for r := range out {
		out[r] = m.word(r)
	}
	return out, nil
}
