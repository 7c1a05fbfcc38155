// Package rank scores recall candidates. Each signal is a separate,
// explainable feature in [0, 1]; a Profile weighs them into one score and
// can say how much each contributed.
package rank

import (
	"math"
	"time"
)

// Features are the signals of one candidate, each in [0, 1].
type Features struct {
	Keyword       float64 // lexical match, normalised to the best candidate
	CategoryBoost float64 // category match with the query's intent, normalised
	Recency       float64 // decay since last access
	Frequency     float64 // log-normalised access count
	Confidence    float64 // the memory's confidence
}

// Profile weighs features into a score.
type Profile struct {
	Name       string  `json:"name"`
	Keyword    float64 `json:"keyword"`
	Category   float64 `json:"category"`
	Recency    float64 `json:"recency"`
	Frequency  float64 `json:"frequency"`
	Confidence float64 `json:"confidence"`

	// HalfLife of the recency decay on last access.
	HalfLife time.Duration `json:"half_life"`
	// MatchBoost is the category boost a memory gets when its category
	// matches the query's intent (seed 001: 1.5×); others get 1×. The
	// feature is boost/MatchBoost so that it stays in [0, 1].
	MatchBoost float64 `json:"match_boost"`
	// FrequencySaturation is the access count at which Frequency reaches 1.
	FrequencySaturation int `json:"frequency_saturation"`
}

// Seed001 is seed 001's weighted formula, the default profile:
//
//	score = keyword×0.4 + category×0.2 + recency×0.15 + frequency×0.1 + confidence×0.15
//
// with a 7-day half-life on last access.
func Seed001() Profile {
	return Profile{
		Name: "seed001", Keyword: 0.4, Category: 0.2, Recency: 0.15, Frequency: 0.1, Confidence: 0.15,
		HalfLife: 7 * 24 * time.Hour, MatchBoost: 1.5, FrequencySaturation: 100,
	}
}

// Lexical ranks by the lexical match alone: the profile evaluations compare
// against plain BM25 with.
func Lexical() Profile {
	p := Seed001()
	p.Name, p.Keyword, p.Category, p.Recency, p.Frequency, p.Confidence = "lexical", 1, 0, 0, 0, 0
	return p
}

// Profiles are the named profiles a query may ask for.
func Profiles() map[string]Profile {
	return map[string]Profile{"seed001": Seed001(), "lexical": Lexical()}
}

// Score is the weighted sum of f.
func (p Profile) Score(f Features) float64 {
	return p.Keyword*f.Keyword + p.Category*f.CategoryBoost + p.Recency*f.Recency +
		p.Frequency*f.Frequency + p.Confidence*f.Confidence
}

// Component is one feature's share of a score.
type Component struct {
	Name         string  `json:"name"`
	Value        float64 `json:"value"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// Explanation says how a score was made.
type Explanation struct {
	Profile    string      `json:"profile"`
	Score      float64     `json:"score"`
	Components []Component `json:"components"`
}

// Explain returns the score of f with every component.
func (p Profile) Explain(f Features) Explanation {
	comp := func(name string, v, w float64) Component {
		return Component{Name: name, Value: v, Weight: w, Contribution: v * w}
	}
	return Explanation{
		Profile: p.Name,
		Score:   p.Score(f),
		Components: []Component{
			comp("keyword", f.Keyword, p.Keyword),
			comp("category_boost", f.CategoryBoost, p.Category),
			comp("recency", f.Recency, p.Recency),
			comp("frequency", f.Frequency, p.Frequency),
			comp("confidence", f.Confidence, p.Confidence),
		},
	}
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
