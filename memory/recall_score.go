package memory

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/temporal"
	"github.com/mnemo-dev/mnemo/vector"
)

// score is recall's third stage: it fuses each candidate's lexical and
// semantic relevance and adjusts it by the profile (category, recency,
// frequency, confidence, decay, priority) and by r (the session's topic,
// the time and the people the query names); candidates below the
// profile's minimum relevance go. It returns the scored candidates and
// their candidates.
func (s *Service) score(r *recall, f *found, cands []candidate) ([]Scored, []candidate) {
	profile := r.profile
	lex := make([]float64, len(cands))
	sims := make([]float64, len(cands))
	for i, c := range cands {
		lex[i], sims[i] = c.lexical, c.sim
	}
	keyword, semantic, relevance := profile.Fuse(lex, sims)
	// What the match features need of every candidate: the background
	// similarity, and each search's ranking (API-17).
	background := rank.Median(sims)
	lexRank, semRank := rank.Ranks(lex), rank.Ranks(sims)
	if r.timeLed {
		// A question led by its time (asked.go) has no words to match:
		// every candidate is as relevant, and the time and the subject
		// (the factors below) rank them (REC-31).
		for i := range relevance {
			relevance[i] = 1
		}
	}
	intent := rank.Intent(r.q.Text)
	var terms map[string]bool
	if profile.Formula == rank.FormulaSurface {
		terms = make(map[string]bool)
		for _, t := range r.aq.Terms {
			terms[t] = true
		}
	}
	scored := make([]Scored, 0, len(cands))
	kept := cands[:0:0]
	for i, c := range cands {
		if relevance[i] < profile.MinRelevance {
			continue // vector search always has a nearest neighbour, related or not
		}
		m := c.m
		cat := m.Category
		if cat == "" {
			cat = m.Type
		}
		ft := rank.Features{
			Keyword: keyword[i], Semantic: semantic[i], Relevance: relevance[i],
			CategoryBoost:    profile.CategoryBoost(intent, cat),
			Recency:          rank.Recency(r.now, m.AccessedAt, profile.HalfLife),
			Frequency:        rank.Frequency(m.AccessCount, profile.FrequencySaturation),
			Confidence:       m.Confidence,
			Decay:            profile.Decay(r.now, m.CreatedAt),
			PriorityVitality: profile.PriorityFactor(m.Priority, m.Vitality),
		}
		if profile.Formula == rank.FormulaHybrid && intent == "" {
			ft.CategoryBoost = 1 // no intent: no memory is boosted, none held back
		}
		if terms != nil {
			ft.HitRatio = s.hitRatio(&m, terms)
		}
		sc := Scored{Memory: m, Score: profile.Score(ft)}
		x := s.adjust(r, &m)
		if x.topic != 1 {
			sc.Score *= x.topic
		}
		sc.Score *= x.time * x.whenDated * x.who
		sc.lexical, sc.inTime = c.lexical, r.asked.Found && x.time == 1
		if !math.IsNaN(c.sim) && !math.IsNaN(background) {
			sc.feat.Semantic, sc.feat.Similarity, sc.feat.Margin = true, c.sim, c.sim-background
		}
		if lexRank[i] > 0 && lexRank[i] <= rank.AgreeWithin && semRank[i] > 0 && semRank[i] <= rank.AgreeWithin {
			sc.feat.Agreement = 1
		}
		if r.q.Explain {
			ex := x.explain(r, f, profile.Explain(ft), &m)
			ex.Score = sc.Score
			sc.Explain = &ex
		}
		scored = append(scored, sc)
		kept = append(kept, c)
	}
	s.sessionPrior(scored, profile.SessionPrior)
	return scored, kept
}

// sessionPrior moves each score toward its session's best (rank.
// SessionPrior, REC-34), and says so in an explanation.
func (s *Service) sessionPrior(scored []Scored, p float64) {
	if p <= 0 {
		return
	}
	scores, sessions := make([]float64, len(scored)), make([]string, len(scored))
	for i := range scored {
		scores[i], sessions[i] = scored[i].Score, scored[i].SessionID
	}
	rank.SessionPrior(scores, sessions, p)
	for i := range scored {
		sc := &scored[i]
		if sc.Explain != nil && sc.SessionID != "" && sc.Score > 0 {
			sc.Explain.Components = append(sc.Explain.Components, rank.Component{Name: "session_prior", Value: scores[i] / sc.Score})
			sc.Explain.Score = scores[i]
		}
		sc.Score = scores[i]
	}
}

// adjustment is what a candidate's score is multiplied by beyond its
// profile's score: the session's topic (REC-15), the time the query names
// (REC-25) or asks for (REC-26), and the people it names (REC-28). Each
// is 1 when it does not apply.
type adjustment struct {
	topic, time, whenDated, who float64
}

// adjust is m's adjustment under r.
func (s *Service) adjust(r *recall, m *mnemo.Memory) adjustment {
	x := adjustment{topic: 1, time: 1, whenDated: 1, who: 1}
	if r.topic != nil && s.hitRatio(m, r.topic) > 0 {
		x.topic = s.topicBoost
	}
	occ := m.OccurredOf()
	if r.clear.Conceals(m.SecurityLevel) {
		// Ranked by a time its caller may not read, a memory would tell
		// it when it happened: its creation, which it reads, stands in
		// (SEC-14).
		bare := *m
		bare.Occurred = nil
		occ = bare.OccurredOf()
	}
	if r.asked.Found {
		said := temporal.Window{Start: m.CreatedAt, End: m.CreatedAt.Add(time.Second)}
		if !r.asked.Window.Overlaps(said) {
			// A recurring memory by the occurrence nearest the query's
			// window, and at most as one much wider than it: what
			// happens every week answers for a day less surely than
			// what is known to have happened that day (REC-30).
			x.time = rank.TimeWithin(inside(temporal.OccurredNearest(occ, r.asked.Window), r.asked.Window))
			if occ.Recurrence != nil {
				x.time = min(x.time, rank.TimeWide)
			}
		}
	}
	if r.asked.When {
		x.whenDated = rank.WhenDated(occ.Source != mnemo.OccurredCreated)
	}
	if len(r.who) > 0 {
		x.who = whoMatch(r, m)
	}
	return x
}

// whoMatch is how m stands to the people r names (REC-28): by them,
// about them, or neither.
func whoMatch(r *recall, m *mnemo.Memory) float64 {
	speaker := speakerName(m)
	has := m.Entities
	if has == nil { // written before REC-28: found now
		has = entity.Of(speaker, m.Content, nil)
	}
	// About them: a name it holds; for a question led by its time,
	// whose name is all it matches, also one its text writes out
	// where a sentence opens ("Caroline joined a choir"), which
	// entity.Of cannot tell from a capitalised first word (REC-31).
	about := entity.Match(r.who, has) || r.timeLed && mentions(m.Content, r.who)
	if len(r.said) > 0 { // "What did Ana say…": by Ana first, then about her
		by := speaker != "" && entity.Match(r.said, []string{speaker})
		return rank.WhoSaid(by, about && (by || speaker == "" || !entity.Addressed(m.Content, r.who)))
	}
	if speaker == "" { // not a turn: what is about them is all there is of them
		return rank.Who(about)
	}
	// A turn: what they said first, and what its writer says is theirs (an
	// alias its text does not write); then another's words about them. A
	// name a turn only calls its listener by ("Thanks, Deb!") is not what
	// it is about.
	if entity.Match(r.who, []string{speaker}) || about && !mentions(m.Content, r.who) {
		return 1
	}
	return rank.WhoSaid(false, about && !entity.Addressed(m.Content, r.who))
}

// explain completes ex, the profile's explanation of m's score, with how
// m took part in semantic search and each adjustment that applied.
func (x adjustment) explain(r *recall, f *found, ex rank.Explanation, m *mnemo.Memory) rank.Explanation {
	ex.Vector = vectorState(m, f.vecModel, f.useVec)
	if f.rescored {
		ex.Vector = "fallback" // similarity by the fallback embedder, on the fly
	}
	if ex.Vector == "indexed" || ex.Vector == "fallback" {
		ex.Languages = languages(r.q.Text, m.Content)
	}
	if x.topic != 1 {
		ex.Components = append(ex.Components, rank.Component{Name: "topic_boost", Value: x.topic})
	}
	if r.asked.Found {
		ex.Components = append(ex.Components, rank.Component{Name: "time_match", Value: x.time})
	}
	if r.asked.When {
		ex.Components = append(ex.Components, rank.Component{Name: "when_dated", Value: x.whenDated})
	}
	if len(r.who) > 0 {
		ex.Components = append(ex.Components, rank.Component{Name: "who", Value: x.who})
	}
	return ex
}

// diversify orders scored best first (ties keep the order found), then
// picks limit of them by MMR, which holds back what repeats a better one.
func diversify(scored []Scored, cands []candidate, profile rank.Profile, limit int) []Scored {
	order := make([]int, len(scored))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scored[order[a]].Score > scored[order[b]].Score })
	ranked := make([]Scored, len(order))
	rcands := make([]candidate, len(order))
	scores := make([]float64, len(order))
	for k, i := range order {
		ranked[k], rcands[k], scores[k] = scored[i], cands[i], scored[i].Score
	}
	// MMR compares each pick with every candidate left: the cosines come
	// from each vector's norm, taken once, and a SIMD dot product (rank.
	// Cosine, float64 and both norms every time, was most of MMR's time;
	// PERF-2).
	inv := make([]float64, len(rcands))
	for k := range rcands {
		if n := vector.Dot(rcands[k].vec, rcands[k].vec); n > 0 {
			inv[k] = 1 / math.Sqrt(float64(n))
		}
	}
	picked, penalty := rank.MMR(scores, func(i, j int) float64 {
		a, b := rcands[i].vec, rcands[j].vec
		if len(a) != len(b) || inv[i] == 0 || inv[j] == 0 {
			return 0
		}
		return math.Max(0, float64(vector.Dot(a, b))*inv[i]*inv[j])
	}, profile.MMRLambda, limit)
	results := make([]Scored, len(picked))
	for k, i := range picked {
		r := ranked[i]
		r.Relevance = r.Score
		r.Score = rank.Diversified(r.Relevance, penalty[k], profile.MMRLambda)
		if r.Explain != nil {
			r.Explain.MMR = r.Relevance - r.Score
			r.Explain.Score = r.Score
		}
		r.Embedding = nil // a vector is no answer: Get returns it
		results[k] = r
	}
	return results
}

// recordAccess counts an access of each result, at now. The record is
// written in the background (access.go): recall never waits on the writer
// for it (PERF-2).
func (s *Service) recordAccess(ctx context.Context, scope mnemo.Scope, results []Scored, now time.Time) {
	ids := make([]string, len(results))
	for i := range results {
		ids[i] = results[i].ID
	}
	at := now // a replayed query records its access at its own time
	s.access.add(ctx, scope, ids, at)
	for i := range results {
		results[i].AccessedAt = at
		results[i].AccessCount++
	}
}

// similarity is the cosine similarity of the query vector q with m's stored
// vector, or NaN when m has none of model.
func similarity(q []float32, m mnemo.Memory, model string) float64 {
	if len(q) == 0 || len(m.Embedding) != len(q) || m.EmbeddingModel != model {
		return math.NaN()
	}
	return rank.Cosine(q, m.Embedding)
}

// vectorState says whether m took part in semantic search.
// languages names the languages a query and a memory's text are in, when
// either is Chinese (EMB-7): "zh→en" for a Chinese query of an English
// memory; "" when neither is.
func languages(query, content string) string {
	qz, mz := hasHan(query), hasHan(content)
	if !qz && !mz {
		return ""
	}
	lang := func(zh bool) string {
		if zh {
			return "zh"
		}
		return "en"
	}
	return lang(qz) + "→" + lang(mz)
}

// hasHan reports whether text is Chinese: Han characters and no kana,
// which would make it Japanese.
func hasHan(text string) bool {
	isHan := func(r rune) bool { return r >= 0x2E80 && unicode.Is(unicode.Han, r) }
	isKana := func(r rune) bool { return r >= 0x3040 && unicode.In(r, unicode.Hiragana, unicode.Katakana) }
	return strings.ContainsFunc(text, isHan) && !strings.ContainsFunc(text, isKana)
}

func vectorState(m *mnemo.Memory, model string, used bool) string {
	switch {
	case !used:
		return "none"
	case len(m.Embedding) > 0 && m.EmbeddingModel == model:
		return "indexed"
	default:
		return "pending"
	}
}

// hitRatio is the fraction of the query's terms that m's text has (surface's
// weighting, REC-19).
func (s *Service) hitRatio(m *mnemo.Memory, terms map[string]bool) float64 {
	if len(terms) == 0 {
		return 0
	}
	text := m.Content + " " + m.Summary + " " + strings.Join(m.Tags, " ") + " " + m.Key
	found := map[string]bool{}
	for _, t := range s.analyzer.Terms(text) {
		if terms[t] {
			found[t] = true
		}
	}
	return float64(len(found)) / float64(len(terms))
}

// inside is the share of w that lies within q: 0 when they do not overlap
// (REC-29: an occurred window's precision against the query's).
func inside(w, q temporal.Window) float64 {
	if !w.Overlaps(q) {
		return 0
	}
	d := w.End.Sub(w.Start)
	if d <= 0 {
		return 1
	}
	start, end := w.Start, w.End
	if q.Start.After(start) {
		start = q.Start
	}
	if q.End.Before(end) {
		end = q.End
	}
	return max(float64(end.Sub(start))/float64(d), 1e-9)
}
