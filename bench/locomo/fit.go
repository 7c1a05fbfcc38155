package locomo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/mnemo-dev/mnemo/rank"
)

// FeatureLine is one question's line of Options.Features.
type FeatureLine struct {
	Sample     string          `json:"sample"`
	Question   string          `json:"question"`
	Category   int             `json:"category"`
	Match      string          `json:"match"`
	MatchScore float64         `json:"match_score"`
	Results    []FeatureResult `json:"results"`
}

// FeatureResult is one result of a FeatureLine: its key, whether it is an
// evidence turn, and its match features and probability.
type FeatureResult struct {
	Key      string                 `json:"key"`
	Evidence bool                   `json:"evidence"`
	Match    *rank.MatchExplanation `json:"match,omitempty"`
}

// Answerable reports whether the line's question is one the conversation
// answers (categories 1–4), not an adversarial one (5).
func (l FeatureLine) Answerable() bool { return l.Category >= 1 && l.Category <= 4 }

// ReadFeatures reads the JSON lines Options.Features wrote. Blank lines
// are skipped; a line that is not a FeatureLine is an error naming it.
func ReadFeatures(r io.Reader) ([]FeatureLine, error) {
	var lines []FeatureLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var l FeatureLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if l.Sample == "" {
			return nil, fmt.Errorf("line %d: no sample", n)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return lines, nil
}

// MatchAUROC is the AUROC of the answer's match score, made by m of the
// lines' features, answerable against adversarial questions.
func MatchAUROC(lines []FeatureLine, m rank.MatchModel) float64 {
	var pos, neg []float64
	for _, l := range lines {
		p := answerScore(l, m)
		if l.Answerable() {
			pos = append(pos, p)
		} else {
			neg = append(neg, p)
		}
	}
	return AUROC(pos, neg)
}

// answerScore is the answer's match score under m: its best result's
// probability, as the engine makes it.
func answerScore(l FeatureLine, m rank.MatchModel) float64 {
	best := 0.0
	for _, r := range l.Results {
		if r.Match != nil {
			best = max(best, m.Probability(r.Match.MatchFeatures))
		}
	}
	return best
}

// The Answers weights FitMatch fits, in order. Similarity and Agreement
// stay as they are: on conversations whose every question is on a subject
// they touch, neither tells the questions they answer from the others.
// So does the bias: the AUROC does not depend on it, and it places the
// probabilities against the thresholds.
var fitted = []struct {
	w func(*rank.MatchWeights) *float64
	x func(rank.MatchFeatures) float64
}{

	{func(w *rank.MatchWeights) *float64 { return &w.Elsewhere }, func(f rank.MatchFeatures) float64 { return f.Elsewhere }},
	{func(w *rank.MatchWeights) *float64 { return &w.Rival }, func(f rank.MatchFeatures) float64 { return f.Rival }},
	{func(w *rank.MatchWeights) *float64 { return &w.Untold }, func(f rank.MatchFeatures) float64 { return f.Untold }},
}

// Fitting's settings: the L2 penalty on the weights, Adam's
// step and how many full passes it takes. Deterministic: the same lines
// fit the same weights.
const (
	fitL2    = 1e-3
	fitRate  = 0.05
	fitSteps = 1000
)

// FitMatch fits m's Answers regression, the part of the model that tells
// whether a memory answers this question of these people, to the lines,
// for the AUROC of the answer's match score (its best result's
// probability): it minimises the logistic loss of every answerable
// question's log score less every unanswerable one's (a smooth
// Wilcoxon–Mann–Whitney statistic), with a small L2 penalty. Related,
// which tells whether the memory is on the query's subject at all, and
// the thresholds are kept: LoCoMo's unanswerable questions are all on
// subjects the conversation touches, asked of the wrong person, and say
// nothing of queries about unknown subjects.
func FitMatch(lines []FeatureLine, m rank.MatchModel) rank.MatchModel {
	theta := make([]float64, len(fitted))
	for k, p := range fitted {
		theta[k] = *p.w(&m.Answers)
	}
	set := func() {
		for k, p := range fitted {
			*p.w(&m.Answers) = theta[k]
		}
	}
	type scored struct {
		s float64   // log of the answer's match score
		g []float64 // its gradient in theta
	}
	var pos, neg []scored
	for _, l := range lines {
		if slices.ContainsFunc(l.Results, func(r FeatureResult) bool { return r.Match != nil }) {
			if l.Answerable() {
				pos = append(pos, scored{g: make([]float64, len(theta))})
			} else {
				neg = append(neg, scored{g: make([]float64, len(theta))})
			}
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		return m
	}
	// Adam (Kingma and Ba, 2015).
	mom, vel := make([]float64, len(theta)), make([]float64, len(theta))
	const b1, b2, eps = 0.9, 0.999, 1e-8
	grad := make([]float64, len(theta))
	for step := 1; step <= fitSteps; step++ {
		set()
		ip, in := 0, 0
		for _, l := range lines {
			best, bf := -1.0, rank.MatchFeatures{}
			for _, r := range l.Results {
				if r.Match == nil {
					continue
				}
				if p := m.Probability(r.Match.MatchFeatures); p > best {
					best, bf = p, r.Match.MatchFeatures
				}
			}
			if best < 0 {
				continue
			}
			var q *scored
			if l.Answerable() {
				q, ip = &pos[ip], ip+1
			} else {
				q, in = &neg[in], in+1
			}
			// The score is Related × σ(z) of the Answers logit z:
			// d log score / d z = 1 − σ(z).
			q.s = math.Log(max(best, 1e-300))
			d := 1 - m.Answers.Of(bf)
			for k, p := range fitted {
				q.g[k] = d * p.x(bf)
			}
		}
		clear(grad)
		for _, a := range pos {
			for _, u := range neg {
				// d/dθ log(1 + e^−(a−u)) = −σ(u−a) (∇a − ∇u)
				w := 1 / (1 + math.Exp(a.s-u.s))
				for k := range grad {
					grad[k] -= w * (a.g[k] - u.g[k])
				}
			}
		}
		pairs := float64(len(pos) * len(neg))
		for k := range grad {
			grad[k] /= pairs
			grad[k] += fitL2 * theta[k]
			mom[k] = b1*mom[k] + (1-b1)*grad[k]
			vel[k] = b2*vel[k] + (1-b2)*grad[k]*grad[k]
			mh := mom[k] / (1 - math.Pow(b1, float64(step)))
			vh := vel[k] / (1 - math.Pow(b2, float64(step)))
			theta[k] -= fitRate * mh / (math.Sqrt(vh) + eps)
		}
	}
	set()
	return m
}

// Fold is one conversation held out: the AUROC on it of the model as it
// is (Before) and of the model fitted on the other conversations (After).
type Fold struct {
	Sample        string
	Before, After float64
	Model         rank.MatchModel
}

// CrossValidate fits m on all conversations of lines but one and measures
// it on that one, for each in turn (leave one conversation out): how well
// a fit carries over to conversations it never saw.
func CrossValidate(lines []FeatureLine, m rank.MatchModel) []Fold {
	var samples []string
	by := map[string][]FeatureLine{}
	for _, l := range lines {
		if by[l.Sample] == nil {
			samples = append(samples, l.Sample)
		}
		by[l.Sample] = append(by[l.Sample], l)
	}
	slices.Sort(samples)
	folds := make([]Fold, 0, len(samples))
	for _, s := range samples {
		var train []FeatureLine
		for _, o := range samples {
			if o != s {
				train = append(train, by[o]...)
			}
		}
		fit := FitMatch(train, m)
		folds = append(folds, Fold{Sample: s, Before: MatchAUROC(by[s], m), After: MatchAUROC(by[s], fit), Model: fit})
	}
	return folds
}
