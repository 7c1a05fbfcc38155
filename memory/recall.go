package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/internal/safe"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/temporal"
	"github.com/mnemo-dev/mnemo/vector"
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
	mnemo.Filter
	// Profile names a ranking profile ("seed001", "lexical"); empty is the
	// service's default.
	Profile string `json:"profile,omitempty"`
	// Explain adds every score component to each result.
	Explain bool `json:"explain,omitempty"`
	// Trace adds the time each stage of the pipeline took (Result.Trace):
	// for benchmarks and for finding where a slow recall went.
	Trace bool `json:"trace,omitempty"`
	// Session names a session whose working memory shapes the recall
	// (REC-15): its current topic's words join the lexical query, and
	// memories on the topic score TopicBoost (1.3) times higher. A session
	// without working memory changes nothing.
	Session string `json:"session,omitempty"`
	// SessionTopic is the current topic of Session's working memory, which
	// the caller finds (the facade, from the prompt service) before it
	// calls recall; "" for none. It is never read from a request.
	SessionTopic string `json:"-"`
	// TraverseHops, 0 to MaxTraverseHops, follows links from the results
	// (ExpandLinks): what they lead to fills Result.Linked, within Limit.
	// Linked memories are not counted as recalled.
	TraverseHops int `json:"traverse_hops,omitempty"`
	// MinMatch leaves out the results that match less (API-17): "weak"
	// drops those that match nothing, "strong" keeps only strong ones;
	// empty or "none" keeps every result, each with its match.
	MinMatch string `json:"min_match,omitempty"`
}

// Result is the answer to a Query.
type Result struct {
	Results []Scored `json:"results"`
	// Match is how well the answer matched the query (API-17): "strong",
	// a result answers it; "weak", one may; "none", nothing relevant was
	// found (the results, if any, are only the nearest of what there is).
	// MatchScore is the best result's probability of answering it, from
	// 0 to 1, for a threshold of the caller's own.
	Match      string  `json:"match"`
	MatchScore float64 `json:"match_score"`
	// UnknownAgent is set when the answer is empty because the agent has
	// no memories in its tenant and never had any: a misspelt agent, not
	// a forgetful one (API-18). Hint says so in words, for people.
	UnknownAgent bool   `json:"unknown_agent,omitempty"`
	Hint         string `json:"hint,omitempty"`
	// Degraded is set when part of the pipeline fell back (e.g. full-text
	// search to substring matching); Reason says why.
	Degraded bool   `json:"degraded"`
	Reason   string `json:"reason,omitempty"`
	// Terms and Prefixes are the analysed query, when Explain is set.
	Terms    []string `json:"terms,omitempty"`
	Prefixes []string `json:"prefixes,omitempty"`
	// Topic is the session's topic that boosted the results, if any.
	Topic string `json:"topic,omitempty"`
	// Time is the time the query names (REC-25) or asks for (REC-26), when
	// Explain is set and it does.
	Time *temporal.Asked `json:"time,omitempty"`
	// Who are the people and things the query names (REC-28), when
	// Explain is set and it names any.
	Who []string `json:"who,omitempty"`
	// Linked are the live memories and events of the scope that links
	// lead to from Results, when the query asked for TraverseHops: ranked
	// after Results, each with how it was reached.
	Linked []Linked `json:"linked,omitempty"`
	// Trace is where the time went, when the query asked for it.
	Trace *Trace `json:"trace,omitempty"`
}

// Trace is the wall time of each stage of one recall (Query.Trace). The
// lexical search runs beside the query embedding and the vector search, so
// Lexical and Embed+Vector overlap: Find is the stage's wall time.
type Trace struct {
	Analyse time.Duration `json:"analyse_ns"` // query analysis, the session's topic
	Find    time.Duration `json:"find_ns"`    // both candidate searches, at once
	Lexical time.Duration `json:"lexical_ns"` // the full-text search
	Embed   time.Duration `json:"embed_ns"`   // the query's embedding
	Vector  time.Duration `json:"vector_ns"`  // the vector search
	Fuse    time.Duration `json:"fuse_ns"`    // union, fusion and the profile's adjustments
	MMR     time.Duration `json:"mmr_ns"`     // ordering, diversity, the cut
	Access  time.Duration `json:"access_ns"`  // handing the access record to the recorder
	Links   time.Duration `json:"links_ns"`   // following links (traverse_hops)
	Total   time.Duration `json:"total_ns"`
}

// stopwatch times the stages of one recall; a nil stopwatch times nothing.
type stopwatch struct {
	t    *Trace
	last time.Time
}

func newStopwatch(on bool) *stopwatch {
	if !on {
		return nil
	}
	return &stopwatch{t: &Trace{}, last: time.Now()}
}

// lap adds the time since the last lap to *d.
func (w *stopwatch) lap(d func(*Trace) *time.Duration) {
	if w == nil {
		return
	}
	now := time.Now()
	*d(w.t) += now.Sub(w.last)
	w.last = now
}

// since returns the time from t0, or zero when not timing.
func (w *stopwatch) since(t0 time.Time) time.Duration {
	if w == nil {
		return 0
	}
	return time.Since(t0)
}

// now is the clock when timing, else zero.
func (w *stopwatch) now() time.Time {
	if w == nil {
		return time.Time{}
	}
	return time.Now()
}

// Scored is one recalled memory with its score. Results come in the order
// of Score, best first (API-19).
type Scored struct {
	mnemo.Memory
	// Score is the memory's final score, the order of the results: its
	// Relevance less the diversity penalty of what ranked before it (MMR).
	Score float64 `json:"score"`
	// Relevance is how the memory scored on its own, before diversity:
	// the product (or sum) of its explanation's components.
	Relevance float64 `json:"relevance"`
	// Match is how well this memory matches the query: strong, weak or
	// none (API-17).
	Match   string            `json:"match"`
	Explain *rank.Explanation `json:"explain,omitempty"`

	feat    rank.MatchFeatures // what Match is made of, but Coverage and Elsewhere
	lexical float64            // its BM25, 0 when the lexical search did not find it
	inTime  bool               // it happened in the time the query names (REC-25)
}

// Recall returns the memories that best match q and records the access
// (accessed_at, access_count) of those returned.
func (s *Service) Recall(ctx context.Context, scope mnemo.Scope, q Query) (Result, error) {
	return s.search(ctx, scope, q, true)
}

// Surface is Recall with no side effect: nothing is recorded, nothing decays
// (REC-18).
func (s *Service) Surface(ctx context.Context, scope mnemo.Scope, q Query) (Result, error) {
	return s.search(ctx, scope, q, false)
}

// candidateFactor is how many candidates each index returns per result
// asked, at least minCandidates: enough for the adjustments and MMR to have
// a choice.
const (
	candidateFactor = 3
	minCandidates   = 50
)

// candidate is one memory found by either index.
type candidate struct {
	m       mnemo.Memory
	lexical float64   // BM25; 0 when the lexical index did not return it
	sim     float64   // cosine similarity to the query; NaN without a vector
	vec     []float32 // what MMR compares: the stored vector, or the fallback's
}

// degradation is one part of recall that fell back, and why.
type degradation struct{ cause, reason string }

// rescore gives each candidate the fallback embedder's similarity between
// the query and the candidate's text (PG-3: the embedder is down,
// TF-IDF similarity answers). The vectors are made for this recall and
// dropped with it: the store keeps one vector space.
func (s *Service) rescore(ctx context.Context, query string, cands []candidate) error {
	texts := make([]string, len(cands)+1)
	texts[0] = query
	for i := range cands {
		texts[i+1] = embedText(&cands[i].m, "")
	}
	vecs, err := s.fallback.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i := range cands {
		cands[i].sim, cands[i].vec = rank.Cosine(vecs[0], vecs[i+1]), vecs[i+1]
	}
	return nil
}

// search is the recall pipeline: check, analyse, find candidates in both
// indexes, fuse and adjust their scores, diversify and cut, record access
// (when record is set), follow links.
func (s *Service) search(ctx context.Context, scope mnemo.Scope, q Query, record bool) (out Result, err error) {
	defer s.gate.Begin()() // background work steps aside meanwhile (PERF-2)
	sw := newStopwatch(q.Trace)
	start := sw.now()
	profile, now, err := s.checkQuery(scope, &q)
	if err != nil {
		return Result{}, err
	}

	// 1. Analyse, with the session's topic and the time the query names
	// (REC-25): its words leave the text the indexes search.
	res := Result{Results: []Scored{}}
	var (
		asked     temporal.Asked
		who, said []string
	)
	if !s.noTimeWho {
		asked = temporal.Query(q.Text, now)
		who = entity.Query(q.Text)     // the people it asks about (REC-28)
		said = entity.Speakers(q.Text) // and who said what it asks for
	}
	sq := q
	lq := q // what the lexical index searches
	timeLed := false
	if asked.Found {
		// Its time leaves the text searched, and its subject and the
		// scaffolding of a question the words the lexical index searches
		// (REC-31, asked.go): the embedder reads the sentence whole. With
		// no words of its own left, it is led by its time.
		topic, own := questionTopic(asked.Text, who)
		if s.analyzer.Query(own).Empty() {
			timeLed, sq.Text, lq.Text = true, "", ""
		} else {
			sq.Text, lq.Text = asked.Text, topic
		}
	}
	if q.Explain && (asked.Found || asked.When) {
		res.Time = &asked
	}
	if q.Explain {
		res.Who = who
	}
	aq, topic, err := s.analyse(ctx, scope, lq, &res)
	if err != nil {
		return Result{}, err
	}
	sw.lap(func(t *Trace) *time.Duration { return &t.Analyse })
	defer func() {
		if sw != nil && err == nil {
			sw.t.Total = time.Since(start)
			out.Trace = sw.t
		}
	}()

	// 2. Candidates, from both indexes at once, and what happened in the
	// time the query names. A "when" question: what matches its words and
	// says when it happened joins, not only ranks higher (REC-29); that
	// search runs beside the others.
	whenQuery := func() mnemo.TextQuery {
		dq := mnemo.TextQuery{Filter: sq.Filter, Terms: aq.Terms, Prefixes: aq.Prefixes, Limit: max(q.Limit*candidateFactor, minCandidates)}
		dq.Dated = true
		return dq
	}
	var (
		whenWG  sync.WaitGroup
		whenSR  mnemo.SearchResult
		whenErr error
		whenRan bool
	)
	if asked.When && !aq.Empty() && profile.LexicalWeight > 0 {
		whenRan = true
		whenWG.Add(1)
		go func() {
			defer whenWG.Done()
			whenErr = safe.Call(s.log, "dated search", func() error {
				var err error
				whenSR, err = s.store.Search(ctx, scope, whenQuery())
				return err
			})
		}()
	}
	// The memories of the time the query names are listed beside the
	// searches too: on two cores their reads hide behind find's.
	var (
		dated    []mnemo.Memory
		datedErr error
	)
	if asked.Found {
		whenWG.Add(1)
		go func() {
			defer whenWG.Done()
			datedErr = safe.Call(s.log, "dated list", func() error {
				var err error
				dated, err = s.dated(ctx, scope, q, asked.Window)
				return err
			})
		}()
	}
	f, err := s.find(ctx, scope, sq, aq, &profile, sw)
	whenWG.Wait()
	if err != nil {
		return Result{}, err
	}
	if datedErr != nil {
		return Result{}, datedErr
	}
	f.dated = dated
	if !whenRan && asked.When && !aq.Empty() && profile.LexicalWeight > 0 {
		// find made a vectors-only profile lexical: search now.
		whenSR, whenErr = s.store.Search(ctx, scope, whenQuery())
		whenRan = true
	}
	if whenErr != nil {
		return Result{}, whenErr
	}
	if whenRan {
		// Their BM25 is the main search's (the same terms, the same
		// index): they join its hits, with their lexical score.
		seen := make(map[string]bool, len(f.lexical.Hits))
		for _, h := range f.lexical.Hits {
			seen[h.Memory.ID] = true
		}
		for _, h := range whenSR.Hits {
			if !seen[h.Memory.ID] {
				f.lexical.Hits = append(f.lexical.Hits, h)
			}
		}
	}
	sw.lap(func(t *Trace) *time.Duration { return &t.Find })
	s.noteDegradations(ctx, scope, f.notes, &res)
	cands := union(f)
	if q.AsOf != nil {
		// What held then (REC-27): a key rewritten since answers with its
		// earlier value, ranked by how its key's memory matched.
		if cands, err = s.candidatesAsOf(ctx, scope, cands, *q.AsOf); err != nil {
			return Result{}, err
		}
		// and what was deleted or archived since, as it held then.
		if cands, err = s.goneCandidates(ctx, scope, &sq, *q.AsOf, now, cands, aq, asked, &f); err != nil {
			return Result{}, err
		}
	}
	if len(cands) == 0 {
		res.Match = rank.MatchNone
		if err := s.noteUnknownAgent(ctx, scope, &res); err != nil {
			return Result{}, err
		}
		return res, nil
	}
	rescored := false
	if f.fallback && s.fallback != nil {
		if err := s.rescore(ctx, q.Text, cands); err != nil {
			s.log.Warn("fallback similarity failed: the lexical score alone", "model", s.fallback.Model(), "err", err)
		} else {
			rescored = true
		}
	}

	// 3. Fuse and adjust: every signal a separate feature, combined by the
	// profile.
	scored, cands := s.score(q, profile, now, aq, topic, asked, timeLed, who, said, cands, f.vecModel, f.useVec, rescored)
	sw.lap(func(t *Trace) *time.Duration { return &t.Fuse })

	// 4. Best first, then diversify and cut; then how well each matched.
	res.Results = diversify(scored, cands, profile, q.Limit)
	if !s.noMatch {
		s.matchResults(&res, scored, sq.Text, timeLed, who, said, q.MinMatch)
	}
	sw.lap(func(t *Trace) *time.Duration { return &t.MMR })

	// 5. Record access.
	if record && len(res.Results) > 0 {
		s.recordAccess(ctx, scope, res.Results, now)
	}
	sw.lap(func(t *Trace) *time.Duration { return &t.Access })

	// 6. Follow links from the results.
	if q.TraverseHops > 0 && len(res.Results) < q.Limit {
		ids := make([]string, len(res.Results))
		for i := range res.Results {
			ids[i] = res.Results[i].ID
		}
		if res.Linked, err = s.ExpandLinks(ctx, scope, ids, q.TraverseHops, q.Limit-len(res.Results)); err != nil {
			return Result{}, err
		}
	}
	sw.lap(func(t *Trace) *time.Duration { return &t.Links })
	return res, nil
}

// checkQuery validates q and fills in its defaults; it returns the ranking
// profile q names and the time it is judged at.
func (s *Service) checkQuery(scope mnemo.Scope, q *Query) (profile rank.Profile, now time.Time, err error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return rank.Profile{}, time.Time{}, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "query is empty")
	}
	if q.Limit < 0 {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = s.defLimit
	}
	if q.Limit > s.maxLimit {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "limit %d is over the maximum of %d", q.Limit, s.maxLimit)
	}
	if err := checkHops(q.TraverseHops); err != nil {
		return rank.Profile{}, time.Time{}, err
	}
	if q.MinMatch != "" && !rank.ValidMatch(q.MinMatch) {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "min_match must be none, weak or strong, got %q", q.MinMatch)
	}
	profile = s.profile
	if q.Profile != "" {
		p, ok := rank.Profiles()[q.Profile]
		if !ok {
			return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "unknown profile %q", q.Profile)
		}
		profile = p
	}
	if err := mnemo.CheckTime("now", q.Now); err != nil { // TIME-1
		return rank.Profile{}, time.Time{}, err
	}
	now = q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	q.Filter.Now = now
	if err := q.Filter.Check(s.now()); err != nil {
		return rank.Profile{}, time.Time{}, err
	}
	return profile, now, nil
}

// analyse turns q's text into index terms and prefixes, with the words of
// the session's topic added; topic holds those words (nil without one).
// res learns the topic, and the terms when q asks for an explanation.
func (s *Service) analyse(ctx context.Context, scope mnemo.Scope, q Query, res *Result) (aq analysis.Query, topic map[string]bool, err error) {
	aq = s.analyzer.Query(q.Text)
	if q.Session != "" {
		if sessionTopic := q.SessionTopic; sessionTopic != "" {
			res.Topic = sessionTopic
			topic = make(map[string]bool)
			for _, t := range s.analyzer.Query(sessionTopic).Terms {
				topic[t] = true
				if !slices.Contains(aq.Terms, t) {
					aq.Terms = append(aq.Terms, t)
				}
			}
		}
	}
	if q.Explain {
		res.Terms, res.Prefixes = aq.Terms, aq.Prefixes
	}
	return aq, topic, nil
}

// found is what the candidate searches found, and how they went.
type found struct {
	lexical  mnemo.SearchResult
	vectors  []mnemo.VectorHit
	qvec     []float32      // the query's vector; nil when it was not embedded
	vecModel string         // the embedder's model; "" without one
	useVec   bool           // semantic search took part
	fallback bool           // the embedder failed: hashed TF-IDF stands in
	notes    []degradation  // why part of the pipeline fell back
	dated    []mnemo.Memory // what happened in the time the query names (REC-25)
}

// dated lists the memories whose occurred window overlaps w, within q's
// filter, the latest to happen first, as many as either index gives: a memory that
// matches the query by its date alone can then surface (REC-25).
func (s *Service) dated(ctx context.Context, scope mnemo.Scope, q Query, w temporal.Window) ([]mnemo.Memory, error) {
	f := q.Filter
	if f.OccurredAfter == nil || f.OccurredAfter.Before(w.Start) {
		f.OccurredAfter = &w.Start
	}
	if f.OccurredBefore == nil || f.OccurredBefore.After(w.End) {
		f.OccurredBefore = &w.End
	}
	if !f.OccurredBefore.After(*f.OccurredAfter) {
		return nil, nil
	}
	limit := max(q.Limit*candidateFactor, minCandidates)
	// Along the occurred index, the latest to happen first: it stops at
	// the limit, where the newest first would sort every match.
	ms, _, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: f, Order: mnemo.OrderOccurred, Limit: limit, NoTotal: true})
	if err != nil {
		return nil, err
	}
	// A query's date may also be the day a thing was said ("what did she
	// share on 7 July?"): the memories written then join.
	c := q.Filter
	c.CreatedAfter, c.CreatedBefore = later(c.CreatedAfter, w.Start), earlier(c.CreatedBefore, w.End)
	if c.CreatedBefore.After(*c.CreatedAfter) {
		said, _, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: c, Limit: limit, NoTotal: true})
		if err != nil {
			return nil, err
		}
		ms = append(ms, said...)
	}
	return ms, nil
}

func later(t *time.Time, u time.Time) *time.Time {
	if t != nil && t.After(u) {
		return t
	}
	return &u
}

func earlier(t *time.Time, u time.Time) *time.Time {
	if t != nil && t.Before(u) {
		return t
	}
	return &u
}

// find searches the lexical and the vector index at once for candidates
// of q, each for want of them, falling back where a part fails. It may
// change profile: a vectors-only profile with no vectors ranks by words.
func (s *Service) find(ctx context.Context, scope mnemo.Scope, q Query, aq analysis.Query, profile *rank.Profile, sw *stopwatch) (found, error) {
	want := max(q.Limit*candidateFactor, minCandidates)
	var (
		wg       sync.WaitGroup
		sr       mnemo.SearchResult
		lexErr   error
		vhits    []mnemo.VectorHit
		qvec     []float32
		notes    []degradation // why part of the pipeline fell back
		vecErr   error
		useVec   = s.vec != nil && profile.UsesVectors()
		vecModel string
		fallback bool // the embedder failed: hashed TF-IDF stands in
	)
	var noIndex *noIndexError
	switch {
	case s.noVectors && profile.UsesVectors():
		notes = append(notes, degradation{mnemo.DegradedVectorIndex, "no vector index (the store keeps no vectors): answered by full text and recency"})
	case useVec:
		vecModel = s.vec.embedder.Model()
		if err := s.vec.init(ctx); errors.As(err, &noIndex) {
			useVec = false
			notes = append(notes, degradation{mnemo.DegradedVectorIndex, noIndex.reason()})
		} else if err != nil {
			fallback = true
			notes = append(notes, degradation{mnemo.DegradedEmbedder, "semantic index unavailable: " + err.Error()})
		}
	}
	if profile.LexicalWeight == 0 && !useVec {
		// A vectors-only profile with no vectors: better words than nothing.
		if len(notes) == 0 {
			notes = append(notes, degradation{mnemo.DegradedEmbedder, "no embedder is configured: answered by the lexical index"})
		}
		profile.LexicalWeight = 1
	}
	var lexTime time.Duration
	lexical := func() {
		t0 := sw.now()
		sr, lexErr = s.store.Search(ctx, scope, mnemo.TextQuery{
			Filter: q.Filter, Terms: aq.Terms, Prefixes: aq.Prefixes, Limit: want,
		})
		lexTime = sw.since(t0)
	}
	lexStarted := !aq.Empty() && profile.LexicalWeight > 0
	if lexStarted {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lexErr = safe.Call(s.log, "lexical search", func() error { lexical(); return lexErr })
		}()
	}
	// A word cut short ("Lisb*") means nothing to an embedder: its vector
	// is noise, which fusion would normalise to the best candidate's and
	// let outweigh the prefix's lexical match 0.7 to 0.3. So the embedder
	// sees the query's whole words, and a query of prefixes alone is
	// answered by the lexical index.
	semText := wholeWords(q.Text)
	if semText == "" && len(aq.Prefixes) > 0 && profile.LexicalWeight > 0 || strings.TrimSpace(q.Text) == "" {
		useVec = false // nothing to embed: a question led by its time (asked.go)
	}
	if useVec && !fallback {
		t0 := sw.now()
		qv, err := s.vec.embedQuery(ctx, semText)
		if sw != nil {
			sw.t.Embed = time.Since(t0)
		}
		t0 = sw.now()
		if err != nil {
			if ctx.Err() != nil {
				wg.Wait()
				return found{}, ctx.Err()
			}
			fallback = true
			how := "answered by the lexical index alone"
			if s.fallback != nil {
				how = "answered by the lexical index re-scored by " + s.fallback.Model() + " similarity"
			}
			notes = append(notes, degradation{mnemo.DegradedEmbedder, fmt.Sprintf("embedder %s unavailable: %s", vecModel, how)})
			s.log.Warn("query embedding failed", "model", vecModel, "err", err)
		} else {
			qvec = qv
			vq := mnemo.VectorQuery{Filter: q.Filter, Vector: qvec, Limit: want}
			if ls, ok := s.store.Store.(VectorLagSearcher); ok {
				var lag string
				if vhits, lag, vecErr = ls.SearchVectorsLag(ctx, scope, vq); lag != "" && vecErr == nil {
					notes = append(notes, degradation{mnemo.DegradedVectorIndex, lag})
				}
			} else {
				vhits, vecErr = s.store.Vectors.SearchVectors(ctx, scope, vq)
			}
			if sw != nil {
				sw.t.Vector = time.Since(t0)
			}
		}
	}
	if fallback && !lexStarted && !aq.Empty() {
		// A vectors-only profile: the lexical index finds the candidates
		// that the fallback's similarity ranks.
		if s.fallback == nil {
			profile.LexicalWeight = 1
		}
		lexical()
	}
	wg.Wait()
	if sw != nil {
		sw.t.Lexical = lexTime
	}
	if lexErr != nil {
		return found{}, lexErr
	}
	if vecErr != nil {
		if ctx.Err() != nil {
			return found{}, ctx.Err()
		}
		notes = append(notes, degradation{mnemo.DegradedVectorIndex, "semantic index failed: answered by the lexical index alone"})
		s.log.Warn("vector search failed", "err", vecErr)
		vhits = nil
	}
	if sr.Degraded {
		cause := sr.Cause
		if cause == "" {
			cause = mnemo.DegradedFullText
		}
		notes = append([]degradation{{cause, sr.Reason}}, notes...)
	}
	return found{lexical: sr, vectors: vhits, qvec: qvec, vecModel: vecModel, useVec: useVec, fallback: fallback, notes: notes}, nil
}

// noteDegradations logs, counts and ledgers each part of recall that fell
// back, and tells res why.
func (s *Service) noteDegradations(ctx context.Context, scope mnemo.Scope, notes []degradation, res *Result) {
	if len(notes) == 0 {
		return
	}
	reasons := make([]string, len(notes))
	for i, n := range notes {
		reasons[i] = n.reason
		if n.cause == mnemo.DegradedVectorIndex {
			s.warnOnce(noIndexWarning, "err", n.reason)
		} else {
			s.log.Warn("recall degraded", "cause", n.cause, "reason", n.reason)
		}
		s.noteDegraded(ctx, scope, n.cause, n.reason)
	}
	res.Degraded, res.Reason = true, strings.Join(reasons, "; ")
}

// union is the union of both lists of candidates, in the order found. A
// lexical candidate's similarity comes from its stored vector, so that
// fusion sees both signals of every candidate.
func union(f found) []candidate {
	var cands []candidate
	at := map[string]int{}
	for _, h := range f.lexical.Hits {
		at[h.Memory.ID] = len(cands)
		cands = append(cands, candidate{m: h.Memory, lexical: h.Lexical, sim: similarity(f.qvec, h.Memory, f.vecModel), vec: h.Memory.Embedding})
	}
	for _, h := range f.vectors {
		if i, ok := at[h.Memory.ID]; ok {
			cands[i].sim = h.Similarity
			continue
		}
		at[h.Memory.ID] = len(cands)
		cands = append(cands, candidate{m: h.Memory, sim: h.Similarity, vec: h.Memory.Embedding})
	}
	for _, m := range f.dated {
		if _, ok := at[m.ID]; ok {
			continue
		}
		at[m.ID] = len(cands)
		cands = append(cands, candidate{m: m, sim: similarity(f.qvec, m, f.vecModel), vec: m.Embedding})
	}
	return cands
}

// score fuses each candidate's lexical and semantic relevance and adjusts
// it by the profile (category, recency, frequency, confidence, decay,
// priority, the session's topic); candidates below the profile's minimum
// relevance go. It returns the scored candidates and their candidates.
func (s *Service) score(q Query, profile rank.Profile, now time.Time, aq analysis.Query, topic map[string]bool, asked temporal.Asked, timeLed bool, who, said []string, cands []candidate, vecModel string, useVec, rescored bool) ([]Scored, []candidate) {
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
	if timeLed {
		// A question led by its time (asked.go) has no words to match:
		// every candidate is as relevant, and the time and the subject
		// (the factors below) rank them (REC-31).
		for i := range relevance {
			relevance[i] = 1
		}
	}
	intent := rank.Intent(q.Text)
	var terms map[string]bool
	if profile.Formula == rank.FormulaSurface {
		terms = make(map[string]bool)
		for _, t := range aq.Terms {
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
		f := rank.Features{
			Keyword: keyword[i], Semantic: semantic[i], Relevance: relevance[i],
			CategoryBoost:    profile.CategoryBoost(intent, cat),
			Recency:          rank.Recency(now, m.AccessedAt, profile.HalfLife),
			Frequency:        rank.Frequency(m.AccessCount, profile.FrequencySaturation),
			Confidence:       m.Confidence,
			Decay:            profile.Decay(now, m.CreatedAt),
			PriorityVitality: profile.PriorityFactor(m.Priority, m.Vitality),
		}
		if profile.Formula == rank.FormulaHybrid && intent == "" {
			f.CategoryBoost = 1 // no intent: no memory is boosted, none held back
		}
		if terms != nil {
			f.HitRatio = s.hitRatio(&m, terms)
		}
		sc := Scored{Memory: m, Score: profile.Score(f)}
		boost := 1.0
		if topic != nil && s.hitRatio(&m, topic) > 0 {
			boost = s.topicBoost
			sc.Score *= boost
		}
		// The time the query names (REC-25) or asks for (REC-26).
		occ := m.OccurredOf()
		timeMatch, whenDated := 1.0, 1.0
		if asked.Found {
			said := temporal.Window{Start: m.CreatedAt, End: m.CreatedAt.Add(time.Second)}
			if asked.Window.Overlaps(said) {
				timeMatch = 1
			} else {
				// A recurring memory by the occurrence nearest the query's
				// window, and at most as one much wider than it: what
				// happens every week answers for a day less surely than
				// what is known to have happened that day (REC-30).
				timeMatch = rank.TimeWithin(inside(occ.Nearest(asked.Window), asked.Window))
				if occ.Recurrence != nil {
					timeMatch = min(timeMatch, rank.TimeWide)
				}
			}
		}
		if asked.When {
			whenDated = rank.WhenDated(occ.Source != mnemo.OccurredCreated)
		}
		// The people the query names (REC-28): by or about them, or not.
		whoMatch := 1.0
		if len(who) > 0 {
			speaker := speakerName(&m)
			has := m.Entities
			if has == nil { // written before REC-28: found now
				has = entity.Of(speaker, m.Content, nil)
			}
			// About them: a name it holds; for a question led by its time,
			// whose name is all it matches, also one its text writes out
			// where a sentence opens ("Caroline joined a choir"), which
			// entity.Of cannot tell from a capitalised first word (REC-31).
			about := entity.Match(who, has) || timeLed && mentions(m.Content, who)
			if len(said) > 0 { // "What did Ana say…": by Ana first, then about her
				whoMatch = rank.WhoSaid(speaker != "" && entity.Match(said, []string{speaker}), about)
			} else {
				whoMatch = rank.Who(about)
			}
		}
		sc.Score *= timeMatch * whenDated * whoMatch
		sc.lexical, sc.inTime = c.lexical, asked.Found && timeMatch == 1
		if !math.IsNaN(c.sim) && !math.IsNaN(background) {
			sc.feat.Semantic, sc.feat.Similarity, sc.feat.Margin = true, c.sim, c.sim-background
		}
		if lexRank[i] > 0 && lexRank[i] <= rank.AgreeWithin && semRank[i] > 0 && semRank[i] <= rank.AgreeWithin {
			sc.feat.Agreement = 1
		}
		if q.Explain {
			ex := profile.Explain(f)
			ex.Vector = vectorState(&m, vecModel, useVec)
			if rescored {
				ex.Vector = "fallback" // similarity by the fallback embedder, on the fly
			}
			if boost != 1 {
				ex.Components = append(ex.Components, rank.Component{Name: "topic_boost", Value: boost})
			}
			if asked.Found {
				ex.Components = append(ex.Components, rank.Component{Name: "time_match", Value: timeMatch})
			}
			if asked.When {
				ex.Components = append(ex.Components, rank.Component{Name: "when_dated", Value: whenDated})
			}
			if len(who) > 0 {
				ex.Components = append(ex.Components, rank.Component{Name: "who", Value: whoMatch})
			}
			ex.Score = sc.Score
			sc.Explain = &ex
		}
		scored = append(scored, sc)
		kept = append(kept, c)
	}
	return scored, kept
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

// wholeWords is text without its prefix words ("Pyth*"), what an embedder
// can make sense of.
func wholeWords(text string) string {
	if !strings.Contains(text, "*") {
		return text
	}
	var out []string
	for _, w := range strings.Fields(text) {
		if !strings.HasSuffix(w, "*") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
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

// VectorLagSearcher is a mnemo.VectorStore whose ANN index catches up with its
// vectors in the background. SearchVectorsLag is SearchVectors that also
// says, in lag, when the answer could not search every stored vector by
// meaning (the index is still catching up); lag is empty otherwise.
// Recall flags such an answer degraded.
type VectorLagSearcher interface {
	SearchVectorsLag(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) (hits []mnemo.VectorHit, lag string, err error)
}
