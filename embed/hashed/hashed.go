// Package hashed embeds text as hashed TF-IDF vectors, with no model and no
// network: mnemo's fallback when no embedding service is available.
//
// Terms come from analysis.Analyzer, so English is stemmed and CJK text is
// indexed as character bigrams, exactly as in the lexical index. Each term
// also contributes its character trigrams at a lower weight, so that words
// sharing a root ("running", "runner") overlap a little even when stemming
// does not make them equal. Every feature is hashed into one of Dimension
// buckets with a hash-derived sign (the "hashing trick"): colliding features
// cancel out on average instead of always adding up, which keeps the bias of
// collisions small.
package hashed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
)

// DefaultDimension is used when New is given a dimension <= 0.
const DefaultDimension = 512

// trigramWeight scales a term's trigram features relative to the term
// itself: enough for shared roots to count, too little to outweigh whole
// words.
const trigramWeight = 0.3

// Embedder produces hashed TF-IDF vectors. It is safe for concurrent use.
type Embedder struct {
	dim      int
	stats    *Stats
	analyzer *analysis.Analyzer
}

var _ mnemo.Embedder = (*Embedder)(nil)

// New returns an Embedder of dim dimensions (DefaultDimension when dim <= 0)
// that weighs every term with an IDF of 1.
func New(dim int) *Embedder {
	return NewWithStats(dim, nil)
}

// NewWithStats is like New but weighs terms by their inverse document
// frequency in stats, which the caller keeps up to date with Stats.Add. A
// nil stats means an IDF of 1 for every term.
//
// Vectors depend on the statistics at the time they are computed, so a
// vector stored long ago and a fresh one are weighted slightly differently;
// cosine similarity tolerates this, but a caller who needs exact
// reproducibility should freeze the statistics.
func NewWithStats(dim int, stats *Stats) *Embedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &Embedder{dim: dim, stats: stats, analyzer: analysis.New()}
}

// Dimension returns the number of components of every vector.
func (e *Embedder) Dimension() int { return e.dim }

// Model returns "hashed-tfidf-<dim>".
func (e *Embedder) Model() string { return fmt.Sprintf("hashed-tfidf-%d", e.dim) }

// Embed returns one L2-normalised vector per text. A text with no terms
// (empty, or only stop words and punctuation) gets the zero vector; its
// cosine similarity with anything is taken to be 0.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("hashed: %w", err)
		}
		out[i] = e.vector(text)
	}
	return out, nil
}

// Terms returns the terms of text as the Embedder sees them, for feeding
// Stats.Add with the same analysis.
func (e *Embedder) Terms(text string) []string { return e.analyzer.Terms(text) }

func (e *Embedder) vector(text string) []float32 {
	tf := make(map[string]int)
	for _, t := range e.analyzer.Terms(text) {
		tf[t]++
	}
	acc := make([]float64, e.dim)
	for term, n := range tf {
		w := (1 + math.Log(float64(n))) * e.idf(term)
		e.add(acc, "w:"+term, w)
		forTrigrams(term, func(g string) { e.add(acc, "g:"+g, trigramWeight*w) })
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	v := make([]float32, e.dim)
	if norm == 0 {
		return v
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		v[i] = float32(x / norm)
	}
	return v
}

func (e *Embedder) idf(term string) float64 {
	if e.stats == nil {
		return 1
	}
	return e.stats.IDF(term)
}

// add hashes feature into acc with a sign taken from the hash's top bit,
// which is independent of the low bits that choose the bucket.
func (e *Embedder) add(acc []float64, feature string, w float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	sum := h.Sum64()
	if sum>>63 == 1 {
		w = -w
	}
	acc[sum%uint64(len(acc))] += w
}

// forTrigrams calls fn with the character trigrams of term padded with
// boundary marks ("run" -> "^ru", "run", "un$"), so that prefixes and
// suffixes count as features of their own. Terms shorter than three
// characters (CJK bigrams, short words) have no trigrams: they would only
// repeat the term.
func forTrigrams(term string, fn func(string)) {
	r := []rune(term)
	if len(r) < 3 {
		return
	}
	p := make([]rune, 0, len(r)+2)
	p = append(append(append(p, '^'), r...), '$')
	for i := 0; i+3 <= len(p); i++ {
		fn(string(p[i : i+3]))
	}
}

// Stats holds corpus statistics for inverse document frequency. It is safe
// for concurrent use. The zero value is an empty corpus.
type Stats struct {
	mu   sync.RWMutex
	docs int
	df   map[string]int
}

// NewStats returns empty statistics.
func NewStats() *Stats { return &Stats{} }

// Add records one document with the given terms; repeated terms count once.
func (s *Stats) Add(terms []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.df == nil {
		s.df = make(map[string]int)
	}
	s.docs++
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			s.df[t]++
		}
	}
}

// Docs returns the number of documents added.
func (s *Stats) Docs() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs
}

// IDF returns the smoothed inverse document frequency of term,
// 1 + ln((N+1)/(df+1)): 1 for a term in every document (and for any term of
// an empty corpus), larger for rarer terms, never zero, so that a term in
// every document still counts.
func (s *Stats) IDF(term string) float64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return 1 + math.Log(float64(s.docs+1)/float64(s.df[term]+1))
}
