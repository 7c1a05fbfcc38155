package rank

import (
	"math"
	"slices"
)

// How well an answer matched its query (API-17): a result that answers it,
// one that may, or nothing relevant.
const (
	MatchStrong = "strong"
	MatchWeak   = "weak"
	MatchNone   = "none"
)

// MatchAtLeast reports whether label is min or better (none < weak <
// strong); an empty min is none.
func MatchAtLeast(label, min string) bool {
	return matchOrder(label) >= matchOrder(min)
}

func matchOrder(label string) int {
	switch label {
	case MatchStrong:
		return 2
	case MatchWeak:
		return 1
	}
	return 0
}

// ValidMatch reports whether s names a match level.
func ValidMatch(s string) bool { return s == MatchStrong || s == MatchWeak || s == MatchNone }

// MatchFeatures are what tells whether a recalled memory answers its
// query, each read off the recall that found it. None is its rank or its
// score: those say which memory matches best, not whether any does.
type MatchFeatures struct {
	// Coverage is the share of the query's content words (its terms less
	// the names of the people it asks about) the memory has.
	Coverage float64 `json:"coverage"`
	// Semantic says whether the recall compared vectors; Similarity is
	// the cosine of the memory's vector and the query's, and Margin how
	// far it stands above the scope's background, the median similarity
	// of every candidate the recall found. Both are 0 without vectors.
	Semantic   bool    `json:"semantic"`
	Similarity float64 `json:"similarity"`
	Margin     float64 `json:"margin"`
	// Agreement is 1 when the lexical and the vector search both rank
	// the memory among their first AgreeWithin, else 0.
	Agreement float64 `json:"agreement"`
	// Elsewhere is, for a query that names people (REC-28), 1 when the
	// memory is by or about none of them, 0.5 when about them but not
	// said by the one it asks about, or said by them only of the one
	// they speak to ("you ran a race?"), else 0.
	Elsewhere float64 `json:"elsewhere"`
	// Rival is, for a query that names people, how much more of the
	// query's content words, its names aside, the best result by or
	// about someone else tells (has, less where it asks or addresses)
	// than this memory does (0 when none tells more): an answer
	// another person's words hold better is likely not one about the
	// person asked about, who may never have done it at all.
	Rival float64 `json:"rival"`
	// Untold is the share of the query's content words the memory has
	// only where it asks about them or speaks of the one it addresses
	// ("have you a favourite book?"), not where it tells them (0 for a
	// question of what someone said).
	Untold float64 `json:"untold"`
}

// AgreeWithin is the rank within which both searches agree on a memory.
const AgreeWithin = 10

// MatchModel turns MatchFeatures into the probability that a memory
// answers its query, as the product of two logistic regressions: that the
// memory is about what the query asks about at all (Related: its meaning
// near the query's, above the scope's background, and words in common),
// and that it answers this question (Answers: the query's words, the
// people it names). A query on a subject the memories never touch fails
// the first; a question about one person answered by what another said
// fails the second. The coefficients are a calibration, measured
// (docs/BENCHMARKS.md, "Knowing when nothing matches"): a model fitted on
// more data replaces them, nothing else.
type MatchModel struct {
	Related MatchWeights `json:"related"`
	Answers MatchWeights `json:"answers"`
	// Lexical stands for Related when the recall compared no vectors (a
	// lexical profile, no embedder, a memory not embedded yet).
	Lexical MatchWeights `json:"lexical"`
	// Strong and Weak are the probabilities from which a match is strong,
	// and weak; under Weak it is none.
	Strong float64 `json:"strong"`
	Weak   float64 `json:"weak"`
}

// MatchWeights are one logistic regression's coefficients, one per
// feature.
type MatchWeights struct {
	Bias       float64 `json:"bias"`
	Coverage   float64 `json:"coverage"`
	Similarity float64 `json:"similarity"`
	Margin     float64 `json:"margin"`
	Agreement  float64 `json:"agreement"`
	Elsewhere  float64 `json:"elsewhere"`
	Rival      float64 `json:"rival"`
	Untold     float64 `json:"untold"`
}

// Of is the regression's probability of f.
func (w MatchWeights) Of(f MatchFeatures) float64 {
	z := w.Bias + w.Coverage*f.Coverage + w.Agreement*f.Agreement + w.Elsewhere*f.Elsewhere + w.Rival*f.Rival + w.Untold*f.Untold
	if f.Semantic {
		z += w.Similarity*f.Similarity + w.Margin*f.Margin
	}
	return 1 / (1 + math.Exp(-z))
}

// DefaultMatch is the calibration mnemo ships with, for its built-in
// embedder: docs/BENCHMARKS.md has how well it separates. Agreement weighs
// nothing: measured, it did not separate the answerable questions from the
// others. Answers' Elsewhere, Rival and Untold are fitted, the rest set by
// hand: `mnemo bench locomo --match-features F` on the dev split, then
// `mnemo bench matchfit F` (locomo.FitMatch, for the AUROC of the answers'
// match scores, each conversation held out in turn to check it carries
// over), rounded.
func DefaultMatch() MatchModel {
	return MatchModel{
		Related: MatchWeights{Bias: -6, Similarity: 8, Margin: 4, Coverage: 4},
		Answers: MatchWeights{Coverage: 2, Margin: 2, Elsewhere: -5.8, Rival: -8.1, Untold: -0.3},
		Lexical: MatchWeights{Bias: -2, Coverage: 6},
		Strong:  0.6, Weak: 0.33,
	}
}

// Probability is the probability that a memory with features f answers
// its query.
func (m MatchModel) Probability(f MatchFeatures) float64 {
	related := m.Lexical
	if f.Semantic {
		related = m.Related
	}
	return related.Of(f) * m.Answers.Of(f)
}

// Label is the match level of probability p.
func (m MatchModel) Label(p float64) string {
	switch {
	case p >= m.Strong:
		return MatchStrong
	case p >= m.Weak:
		return MatchWeak
	}
	return MatchNone
}

// Median is the median of the values that are not NaN, or NaN when none
// is: the background a similarity stands out from.
func Median(xs []float64) float64 {
	vs := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			vs = append(vs, x)
		}
	}
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// Ranks returns the 1-based rank of each positive score, best first; 0
// for the others (no score, NaN).
func Ranks(scores []float64) []int {
	clean := make([]float64, len(scores))
	for i, s := range scores {
		if !math.IsNaN(s) {
			clean[i] = s
		}
	}
	return ranks(clean)
}
