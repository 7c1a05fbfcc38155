package memory

import (
	"context"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/temporal"
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

	feat    rank.MatchFeatures // what Match is made of, but Coverage, Elsewhere and Rival
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

// recall is one recall as its stages pass it on: the query as asked and as
// each index reads it, what analysis made of it, and its stopwatch.
type recall struct {
	scope   mnemo.Scope
	q       Query // as asked, with its defaults
	sq      Query // what the indexes search: q less the time it names
	lq      Query // what the lexical index searches: sq's subject (asked.go)
	record  bool  // count an access of each result: Recall, not Surface
	profile rank.Profile
	now     time.Time          // the time the query is judged at
	clear   security.Clearance // the caller's: what it reads masked is not ranked by its time (SEC-14)

	asked     temporal.Asked  // the time the query names (REC-25) or asks for (REC-26)
	timeLed   bool            // a question led by its time, no words of its own (REC-31)
	who, said []string        // the people it asks about, and who said what it asks for (REC-28)
	aq        analysis.Query  // lq's index terms, with the session topic's
	topic     map[string]bool // the session topic's terms (REC-15); nil without one

	sw *stopwatch
}

// search is the recall pipeline, one stage after the other over one
// recall: check, analyse, gather candidates from both indexes, fuse and
// adjust their scores, diversify and cut, record access (when record is
// set), follow links.
func (s *Service) search(ctx context.Context, scope mnemo.Scope, q Query, record bool) (out Result, err error) {
	defer s.gate.Begin()() // background work steps aside meanwhile (PERF-2)
	r := &recall{scope: scope, q: q, record: record, clear: security.ClearanceFrom(ctx), sw: newStopwatch(q.Trace)}
	start := r.sw.now()
	if r.profile, r.now, err = s.checkQuery(scope, &r.q); err != nil {
		return Result{}, err
	}
	if rs, ok := s.store.Store.(ReadSharer); ok {
		ctx = rs.ShareReads(ctx) // the searches find many of the same memories
	}

	// 1. Analyse, with the session's topic and the time the query names.
	res := Result{Results: []Scored{}}
	if err := s.analyse(ctx, r, &res); err != nil {
		return Result{}, err
	}
	r.sw.lap(func(t *Trace) *time.Duration { return &t.Analyse })
	defer func() {
		if r.sw != nil && err == nil {
			r.sw.t.Total = time.Since(start)
			out.Trace = r.sw.t
		}
	}()

	// 2. Candidates, from both indexes at once and from the time the
	// query names.
	f, err := s.gather(ctx, r)
	if err != nil {
		return Result{}, err
	}
	r.sw.lap(func(t *Trace) *time.Duration { return &t.Find })
	s.noteDegradations(ctx, scope, f.notes, &res)
	cands, err := s.candidates(ctx, r, &f)
	if err != nil {
		return Result{}, err
	}
	if len(cands) == 0 {
		res.Match = rank.MatchNone
		if err := s.noteUnknownAgent(ctx, scope, &res); err != nil {
			return Result{}, err
		}
		return res, nil
	}
	if f.fallback && s.fallback != nil {
		if err := s.rescore(ctx, r.q.Text, cands); err != nil {
			s.log.Warn("fallback similarity failed: the lexical score alone", "model", s.fallback.Model(), "err", err)
		} else {
			f.rescored = true
		}
	}

	// The people it names, with the names they go by among the
	// candidates (REC-28): "Mel" asks about "Melanie".
	if len(r.who) > 0 {
		known, speakers := knownNames(cands)
		r.who, r.said = entity.Aliases(r.who, known, speakers), entity.Aliases(r.said, known, speakers)
		if r.q.Explain {
			res.Who = r.who
		}
	}

	// 3. Fuse and adjust: every signal a separate feature, combined by the
	// profile.
	scored, cands := s.score(r, &f, cands)
	r.sw.lap(func(t *Trace) *time.Duration { return &t.Fuse })

	// 4. Best first, then diversify and cut; then how well each matched.
	res.Results = diversify(scored, cands, r.profile, r.q.Limit)
	if !s.noMatch {
		s.matchResults(&res, scored, r)
	}
	r.sw.lap(func(t *Trace) *time.Duration { return &t.MMR })

	// 5. Record access.
	if record && len(res.Results) > 0 {
		s.recordAccess(ctx, scope, res.Results, r.now)
	}
	r.sw.lap(func(t *Trace) *time.Duration { return &t.Access })

	// 6. Follow links from the results.
	if err := s.follow(ctx, r, &res); err != nil {
		return Result{}, err
	}
	r.sw.lap(func(t *Trace) *time.Duration { return &t.Links })
	return res, nil
}

// ReadSharer is a mnemo.Store whose reads made with one context can share
// the rows they load: ShareReads returns a context for the reads of one
// recall, whose searches find many of the same memories, so that each
// memory is loaded once (PERF-10). A row may then be as it was at the
// first read that loaded it.
type ReadSharer interface {
	ShareReads(ctx context.Context) context.Context
}

// follow fills res.Linked with what links lead to from its results, when
// the query asked for TraverseHops, within what is left of its limit.
func (s *Service) follow(ctx context.Context, r *recall, res *Result) error {
	if r.q.TraverseHops <= 0 || len(res.Results) >= r.q.Limit {
		return nil
	}
	ids := make([]string, len(res.Results))
	for i := range res.Results {
		ids[i] = res.Results[i].ID
	}
	var err error
	res.Linked, err = s.ExpandLinks(ctx, r.scope, ids, r.q.TraverseHops, r.q.Limit-len(res.Results))
	return err
}

// knownNames are the entities of cands (each its speaker's and the names
// it mentions), each spelling once: the names of the scope that a query's
// short forms are read against (REC-28); and, of those, the first of each
// message's, its speaker's (entity.Of), or a name its text mentions when
// it has none: at worst a name taken for someone in their own right.
func knownNames(cands []candidate) (names, speakers []string) {
	seen := make(map[string]bool)
	for i := range cands {
		m := &cands[i].m
		for k, e := range m.Entities {
			if k == 0 && m.Type == mnemo.TypeEvent && !slices.Contains(speakers, e) {
				speakers = append(speakers, e)
			}
			if !seen[e] {
				seen[e] = true
				names = append(names, e)
			}
		}
	}
	return names, speakers
}
