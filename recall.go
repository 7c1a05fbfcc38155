package mnemo

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/rank"
)

// Query asks for the memories that matter for a text.
type Query struct {
	Text string `json:"query"`
	// Limit is how many results to return: default 5, at most 20 (both
	// configurable).
	Limit int `json:"limit,omitempty"`
	// Now is the time recency and expiry are judged at, for replay and
	// evaluation; zero means the clock.
	Now time.Time `json:"now,omitempty"`
	Filter
	// Profile names a ranking profile ("seed001", "lexical"); empty is the
	// service's default.
	Profile string `json:"profile,omitempty"`
	// Explain adds every score component to each result.
	Explain bool `json:"explain,omitempty"`
}

// Result is the answer to a Query.
type Result struct {
	Results []Scored `json:"results"`
	// Degraded is set when part of the pipeline fell back (e.g. full-text
	// search to substring matching); Reason says why.
	Degraded bool   `json:"degraded"`
	Reason   string `json:"reason,omitempty"`
	// Terms and Prefixes are the analysed query, when Explain is set.
	Terms    []string `json:"terms,omitempty"`
	Prefixes []string `json:"prefixes,omitempty"`
}

// Scored is one recalled memory with its score.
type Scored struct {
	Memory
	Score   float64           `json:"score"`
	Explain *rank.Explanation `json:"explain,omitempty"`
}

// Recall returns the memories that best match q and records the access
// (accessed_at, access_count) of those returned.
func (s *Service) Recall(ctx context.Context, scope Scope, q Query) (Result, error) {
	return s.search(ctx, scope, q, true)
}

// Surface is Recall with no side effect: nothing is recorded, nothing decays
// (seed 003 §4.7).
func (s *Service) Surface(ctx context.Context, scope Scope, q Query) (Result, error) {
	return s.search(ctx, scope, q, false)
}

// candidateFactor is how many lexical candidates are ranked per result asked.
const (
	candidateFactor = 3
	minCandidates   = 50
)

func (s *Service) search(ctx context.Context, scope Scope, q Query, record bool) (Result, error) {
	if err := CheckScope(scope); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return Result{}, Errorf(EINVALID, "query is empty")
	}
	if q.Limit < 0 {
		return Result{}, Errorf(EINVALID, "limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = s.defLimit
	}
	if q.Limit > s.maxLimit {
		return Result{}, Errorf(EINVALID, "limit %d is over the maximum of %d", q.Limit, s.maxLimit)
	}
	profile := s.profile
	if q.Profile != "" {
		p, ok := rank.Profiles()[q.Profile]
		if !ok {
			return Result{}, Errorf(EINVALID, "unknown profile %q", q.Profile)
		}
		profile = p
	}
	now := q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	q.Filter.Now = now
	if err := s.checkFilter(&q.Filter); err != nil {
		return Result{}, err
	}

	// 1. Analyse.
	aq := s.analyzer.Query(q.Text)
	res := Result{Results: []Scored{}}
	if q.Explain {
		res.Terms, res.Prefixes = aq.Terms, aq.Prefixes
	}
	if aq.Empty() {
		return res, nil
	}

	// 2. Candidates.
	sr, err := s.store.Search(ctx, scope, TextQuery{
		Filter: q.Filter, Terms: aq.Terms, Prefixes: aq.Prefixes,
		Limit: max(q.Limit*candidateFactor, minCandidates),
	})
	if err != nil {
		return Result{}, err
	}
	res.Degraded, res.Reason = sr.Degraded, sr.Reason
	if sr.Degraded {
		s.log.Warn("recall degraded", "reason", sr.Reason)
	}

	// 3. Score: every signal a separate feature, weighed by the profile.
	lex := make([]float64, len(sr.Hits))
	for i, h := range sr.Hits {
		lex[i] = h.Lexical
	}
	lex = rank.Normalize(lex)
	intent := rank.Intent(q.Text)
	scored := make([]Scored, len(sr.Hits))
	for i, h := range sr.Hits {
		m := h.Memory
		cat := m.Category
		if cat == "" {
			cat = m.Type
		}
		f := rank.Features{
			Keyword:       lex[i],
			CategoryBoost: profile.CategoryBoost(intent, cat),
			Recency:       rank.Recency(now, m.AccessedAt, profile.HalfLife),
			Frequency:     rank.Frequency(m.AccessCount, profile.FrequencySaturation),
			Confidence:    m.Confidence,
		}
		scored[i] = Scored{Memory: m, Score: profile.Score(f)}
		if q.Explain {
			ex := profile.Explain(f)
			scored[i].Explain = &ex
		}
	}

	// 4. Top k; ties keep the lexical order.
	sort.SliceStable(scored, func(i, j int) bool { return scored[i].Score > scored[j].Score })
	if len(scored) > q.Limit {
		scored = scored[:q.Limit]
	}
	res.Results = scored

	// 5. Record access.
	if record && len(scored) > 0 {
		ids := make([]string, len(scored))
		for i := range scored {
			ids[i] = scored[i].ID
		}
		at := now // a replayed query records its access at its own time
		if err := s.store.Touch(ctx, scope, ids, at); err != nil {
			// The answer is still good; losing an access count is not
			// worth failing the recall.
			s.log.Warn("recording access failed", "err", err)
		} else {
			for i := range res.Results {
				res.Results[i].AccessedAt = at
				res.Results[i].AccessCount++
			}
		}
	}
	return res, nil
}
