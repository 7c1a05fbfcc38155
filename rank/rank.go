// Package rank scores recall candidates. Each signal is a separate,
// explainable feature in [0, 1]; a Profile combines them into one score and
// can say how much each contributed.
//
// A recall goes through four steps, each a function here:
//
//  1. fuse: the lexical (BM25) and semantic (cosine) scores of each
//     candidate, each normalised to the best of the query, into one
//     relevance (Fuse, or RRF);
//  2. adjust: relevance times the adjustments a profile asks for (time
//     decay, priority × vitality, category boost), or REC-14's weighted
//     sum (Profile.Score);
//  3. diversify: maximal marginal relevance over the best (MMR);
//  4. cut to the top k (the caller).
package rank

import (
	"math"
	"time"
)

// Formulas a profile may use.
const (
	// FormulaHybrid multiplies the fused relevance by the adjustments:
	//
	//	score = relevance × decay(age) × priority·vitality × category
	//
	// Every factor is in [0, 1], so the score is too, and a threshold on
	// it means the same from one query to the next.
	FormulaHybrid = "hybrid"
	// FormulaWeighted is REC-14's weighted sum of features.
	FormulaWeighted = "weighted"
	// FormulaSurface is REC-19's surface weighting:
	//
	//	score = priorityWeight/4 × vitality × keyword hit ratio
	FormulaSurface = "surface"
)

// Fusion methods.
const (
	FusionWeighted = "weighted" // LexicalWeight·lexical + SemanticWeight·semantic
	FusionRRF      = "rrf"      // reciprocal rank fusion, k = 60
)

// Features are the signals of one candidate, each in [0, 1].
type Features struct {
	Keyword   float64 // lexical match, normalised to the query's best
	Semantic  float64 // vector similarity, normalised to the query's best
	Relevance float64 // Keyword and Semantic fused

	CategoryBoost float64 // category match with the query's intent, normalised
	Recency       float64 // decay since last access (REC-14)
	Frequency     float64 // log-normalised access count
	Confidence    float64 // the memory's confidence

	Decay            float64 // decay with the memory's age (REC-3)
	PriorityVitality float64 // priority weight × vitality (REC-17)
	HitRatio         float64 // fraction of the query's terms the memory has
}

// Profile says how features make a score.
type Profile struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`

	// Fusion of lexical and semantic relevance.
	Fusion         string  `json:"fusion"`
	LexicalWeight  float64 `json:"lexical_weight"`
	SemanticWeight float64 `json:"semantic_weight"`
	// MinRelevance drops candidates whose fused relevance (a fraction of
	// the query's best) is lower.
	MinRelevance float64 `json:"min_relevance"`

	// Weights of the weighted formula (REC-14).
	Keyword    float64 `json:"keyword"`
	Category   float64 `json:"category"`
	Recency    float64 `json:"recency"`
	Frequency  float64 `json:"frequency"`
	Confidence float64 `json:"confidence"`

	// HalfLife of the recency feature, on last access (REC-14).
	HalfLife time.Duration `json:"half_life"`
	// DecayHalfLife and DecayFloor shape the age decay of the hybrid
	// formula: floor + (1-floor)·0.5^(age/half-life). The floor keeps an
	// old memory that is the only good match above a fresh weak one.
	DecayHalfLife time.Duration `json:"decay_half_life"`
	DecayFloor    float64       `json:"decay_floor"`
	// UsePriority multiplies the hybrid score by priority × vitality.
	UsePriority bool `json:"use_priority"`

	// MatchBoost is the category boost a memory gets when its category
	// matches the query's intent (REC-13: 1.5×); others get 1×. The
	// feature is boost/MatchBoost so that it stays in [0, 1].
	MatchBoost float64 `json:"match_boost"`
	// FrequencySaturation is the access count at which Frequency reaches 1.
	FrequencySaturation int `json:"frequency_saturation"`
	// MMRLambda trades relevance (1) against diversity (0) when picking the
	// results; 0 turns diversification off.
	MMRLambda float64 `json:"mmr_lambda"`
	// SessionPrior is how much of a memory's score is its session's best
	// candidate's (SessionPrior, REC-34); 0 leaves scores alone.
	SessionPrior float64 `json:"session_prior"`
}

// Hybrid is the default profile: lexical and semantic relevance fused
// 0.3/0.7, times a gentle age decay (30-day half-life down to 0.9),
// priority × vitality and the category boost, diversified by MMR (λ 0.8:
// the turns of a conversation that each hold part of an answer are alike,
// and 0.7's stronger diversity held back the second and third of them, not
// only repeats; docs/BENCHMARKS.md has it per conversation).
// Candidates under a fifth of the best relevance are dropped: vector search
// always has a nearest neighbour, related or not. A memory's score is 0.15
// its session's best candidate's (REC-34). docs/BENCHMARKS.md has what
// each setting was measured at.
func Hybrid() Profile {
	return Profile{
		Name: "hybrid", Formula: FormulaHybrid,
		Fusion: FusionWeighted, LexicalWeight: 0.3, SemanticWeight: 0.7, MinRelevance: 0.2,
		DecayHalfLife: 30 * 24 * time.Hour, DecayFloor: 0.9, UsePriority: true,
		MatchBoost: 1.5, FrequencySaturation: 100, MMRLambda: 0.8, SessionPrior: 0.15,
	}
}

// Seed001 is REC-14's weighted formula:
//
//	score = keyword×0.4 + category×0.2 + recency×0.15 + frequency×0.1 + confidence×0.15
//
// with a 7-day half-life on last access. Its keyword feature is the fused
// relevance, so that it, too, finds a memory by meaning.
func Seed001() Profile {
	return Profile{
		Name: "seed001", Formula: FormulaWeighted,
		Fusion: FusionWeighted, LexicalWeight: 0.3, SemanticWeight: 0.7, MinRelevance: 0.2,
		Keyword: 0.4, Category: 0.2, Recency: 0.15, Frequency: 0.1, Confidence: 0.15,
		HalfLife: 7 * 24 * time.Hour, MatchBoost: 1.5, FrequencySaturation: 100,
	}
}

// Seed003 is REC-19's surface weighting: keyword hits, weighed by
// priority and vitality, with no embedding.
func Seed003() Profile {
	return Profile{Name: "seed003", Formula: FormulaSurface, Fusion: FusionWeighted, LexicalWeight: 1}
}

// Lexical ranks by the lexical match alone: the baseline evaluations
// compare against (plain BM25).
func Lexical() Profile {
	p := Seed001()
	p.Name, p.LexicalWeight, p.SemanticWeight, p.MinRelevance = "lexical", 1, 0, 0
	p.Keyword, p.Category, p.Recency, p.Frequency, p.Confidence = 1, 0, 0, 0, 0
	return p
}

// Semantic ranks by vector similarity alone.
func Semantic() Profile {
	p := Lexical()
	p.Name, p.LexicalWeight, p.SemanticWeight = "semantic", 0, 1
	return p
}

// Profiles are the named profiles a query may ask for.
func Profiles() map[string]Profile {
	ps := map[string]Profile{}
	for _, p := range []Profile{Hybrid(), Seed001(), Seed003(), Lexical(), Semantic()} {
		ps[p.Name] = p
	}
	return ps
}

// UsesVectors reports whether the profile needs semantic candidates.
func (p Profile) UsesVectors() bool { return p.SemanticWeight > 0 }

// Score combines f by the profile's formula.
func (p Profile) Score(f Features) float64 {
	switch p.Formula {
	case FormulaHybrid:
		s := f.Relevance * f.Decay * f.CategoryBoost
		if p.UsePriority {
			s *= f.PriorityVitality
		}
		return s
	case FormulaSurface:
		return f.PriorityVitality * f.HitRatio
	default:
		return p.Keyword*f.Relevance + p.Category*f.CategoryBoost + p.Recency*f.Recency +
			p.Frequency*f.Frequency + p.Confidence*f.Confidence
	}
}

// Component is one feature's part in a score. For a weighted sum the
// contribution is value × weight and the contributions add up to the
// score; for a product (Weight 0) each value is a factor, and the factors
// multiply to the score.
type Component struct {
	Name         string  `json:"name"`
	Value        float64 `json:"value"`
	Weight       float64 `json:"weight,omitempty"`
	Contribution float64 `json:"contribution,omitempty"`
}

// Explanation says how a score was made.
type Explanation struct {
	Profile string  `json:"profile"`
	Formula string  `json:"formula"`
	Score   float64 `json:"score"`
	// Lexical and Semantic are the normalised inputs of the fusion, and
	// Relevance its result.
	Lexical    float64     `json:"lexical"`
	Semantic   float64     `json:"semantic"`
	Relevance  float64     `json:"relevance"`
	Components []Component `json:"components"`
	// Vector says whether the memory took part in semantic search:
	// "indexed", "pending" (written, its vector not yet made: found by the
	// lexical index only), "fallback" (the embedder was down: similarity by
	// the fallback embedder, made for this query) or "none" (no embedder,
	// or nothing to embed).
	Vector string `json:"vector,omitempty"`
	// Languages says, when the query or the memory is written in Chinese
	// and the memory took part in semantic search, the languages its
	// similarity was between: "zh→zh", "zh→en" (a Chinese query, an
	// English memory) or "en→zh". The built-in embedder crosses them by
	// its Chinese–English lexicon (EMB-7).
	Languages string `json:"languages,omitempty"`
	// MMR is the diversity penalty that moved the memory down, if any, in
	// the score's units: the components make the score before diversity
	// (the result's relevance), and Score is that less MMR (API-19).
	MMR float64 `json:"mmr_penalty,omitempty"`
	// Match is what says whether the memory answers the query, and the
	// probability made of it (API-17).
	Match *MatchExplanation `json:"match,omitempty"`
}

// MatchExplanation is a result's match features and the probability the
// model makes of them.
type MatchExplanation struct {
	MatchFeatures
	Probability float64 `json:"probability"`
}

// Explain returns the score of f with every component.
func (p Profile) Explain(f Features) Explanation {
	ex := Explanation{
		Profile: p.Name, Formula: p.Formula, Score: p.Score(f),
		Lexical: f.Keyword, Semantic: f.Semantic, Relevance: f.Relevance,
	}
	factor := func(name string, v float64) Component { return Component{Name: name, Value: v} }
	term := func(name string, v, w float64) Component {
		return Component{Name: name, Value: v, Weight: w, Contribution: v * w}
	}
	switch p.Formula {
	case FormulaHybrid:
		ex.Components = []Component{factor("relevance", f.Relevance), factor("decay", f.Decay), factor("category_boost", f.CategoryBoost)}
		if p.UsePriority {
			ex.Components = append(ex.Components, factor("priority_vitality", f.PriorityVitality))
		}
	case FormulaSurface:
		ex.Components = []Component{factor("priority_vitality", f.PriorityVitality), factor("hit_ratio", f.HitRatio)}
	default:
		ex.Components = []Component{
			term("keyword", f.Relevance, p.Keyword),
			term("category_boost", f.CategoryBoost, p.Category),
			term("recency", f.Recency, p.Recency),
			term("frequency", f.Frequency, p.Frequency),
			term("confidence", f.Confidence, p.Confidence),
		}
	}
	return ex
}

// Recency is 0.5^(age/halfLife) for the time since last access; a last
// access after now (a replay of the past) counts as now.
func Recency(now, last time.Time, halfLife time.Duration) float64 {
	if halfLife <= 0 {
		return 1
	}
	age := now.Sub(last)
	if age < 0 {
		age = 0
	}
	return math.Pow(0.5, float64(age)/float64(halfLife))
}

// Decay is the hybrid formula's age factor of a memory created at created:
// floor + (1-floor)·0.5^(age/halfLife).
func (p Profile) Decay(now, created time.Time) float64 {
	if p.DecayHalfLife <= 0 {
		return 1
	}
	return p.DecayFloor + (1-p.DecayFloor)*Recency(now, created, p.DecayHalfLife)
}

// priorityWeights are REC-17's weights of P0..P3.
var priorityWeights = [4]float64{4, 3, 2, 1}

// PriorityFactor is the priority × vitality feature of a memory, in [0, 1].
// The surface formula uses REC-17's weights (P0 4, P1 3, P2 2, P3 1,
// scaled by 1/4); the hybrid formula a milder 1 - 0.05×priority, since
// there it multiplies a relevance that must keep its meaning (the default
// P2 memory at full vitality keeps 90% of it). A vitality under 0.1 counts
// as 0.1, as REC-17 floors it, so that a faded memory can still be found when
// nothing else matches.
func (p Profile) PriorityFactor(priority int, vitality float64) float64 {
	v := math.Min(1, math.Max(0.1, vitality))
	switch p.Formula {
	case FormulaSurface:
		w := 1.0
		if priority >= 0 && priority < len(priorityWeights) {
			w = priorityWeights[priority]
		}
		return w / 4 * v
	case FormulaHybrid:
		return math.Max(0, 1-0.05*float64(priority)) * v
	default:
		return 1
	}
}

// Frequency is log(1+count)/log(1+saturation), capped at 1.
func Frequency(count, saturation int) float64 {
	if count <= 0 || saturation <= 0 {
		return 0
	}
	return math.Min(1, math.Log1p(float64(count))/math.Log1p(float64(saturation)))
}

// Normalize divides each score by the largest, so the best becomes 1.
// Non-positive maxima leave zeros.
func Normalize(scores []float64) []float64 {
	max := 0.0
	for _, s := range scores {
		max = math.Max(max, s)
	}
	out := make([]float64, len(scores))
	if max <= 0 {
		return out
	}
	for i, s := range scores {
		out[i] = math.Max(0, s) / max
	}
	return out
}

// Cosine is the cosine similarity of a and b; 0 when either is missing or
// zero, or their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot, na, nb = dot+x*y, na+x*x, nb+y*y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Time factors (REC-25, REC-26): a query that names a time holds back the
// memories whose occurred window misses it; a question that asks for a time
// holds back the memories that say nothing of when they happened (their
// occurred is only their creation). Factors in [0, 1], so a score stays in
// [0, 1]; each is its own component of an explanation.
const (
	// TimeMiss multiplies the score of a memory whose occurred window, and
	// creation, miss the query's window.
	TimeMiss = 0.7
	// WhenUndated multiplies, for a "when" question, the score of a memory
	// whose occurred came from its creation, not from its text or writer.
	WhenUndated = 0.85
)

// TimeMatch is the time factor of a memory: 1 when its occurred window
// (or the time it was written: a query's date may be the day a thing was
// said) overlaps the query's, TimeMiss when not.
func TimeMatch(overlaps bool) float64 {
	if overlaps {
		return 1
	}
	return TimeMiss
}

// TimeWide is the least time factor of a memory whose occurred window
// overlaps the query's: one lying wholly inside it keeps its score, one
// much wider ("in 2023" for "on 7 May 2023") tends to TimeWide (REC-29).
const TimeWide = 0.85

// TimeWithin is the time factor of a memory a share of whose occurred
// window lies inside the query's: TimeMiss for none, TimeWide to 1 as the
// share grows to all of it.
func TimeWithin(share float64) float64 {
	if share <= 0 {
		return TimeMiss
	}
	return TimeWide + (1-TimeWide)*min(share, 1)
}

// WhoMiss multiplies, for a query that names people or things ("What did
// Ana say…", "Leo's sister"), the score of a memory neither by nor about
// any of them (REC-28); one by or about them keeps its score.
const WhoMiss = 0.85

// WhoAbout multiplies, for a query that names who said something ("What
// did Ana say…"), the score of a memory about them but not said by them;
// and, for any query naming people, that of a conversation turn another
// speaker said about them.
const WhoAbout = (1 + WhoMiss) / 2

// Who is the entity factor of a memory: 1 when it is by or about one the
// query names, WhoMiss when not.
func Who(match bool) float64 {
	if match {
		return 1
	}
	return WhoMiss
}

// WhoSaid is the entity factor of a memory for a query that names who said
// what it asks for: 1 when said by them, WhoAbout when only about one it
// names, WhoMiss otherwise.
func WhoSaid(by, about bool) float64 {
	switch {
	case by:
		return 1
	case about:
		return WhoAbout
	}
	return WhoMiss
}

// WhenDated is the "when" factor of a memory: 1 when its occurred came from
// its text or its writer, WhenUndated when from its creation.
func WhenDated(dated bool) float64 {
	if dated {
		return 1
	}
	return WhenUndated
}
