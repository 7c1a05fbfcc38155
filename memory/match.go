package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/internal/shorthand"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/rank"
)

// matchResults sets how well each result matched the query, and the
// answer as a whole: as well as its best result (API-17). Then it leaves
// out the results under min; the answer's match still says how well the
// best found matched. scored are every candidate the recall scored. A
// question led by its time (timeLed: "what happened last Tuesday?") has
// no words left to cover: what happened then covers it.
func (s *Service) matchResults(res *Result, scored []Scored, rc *recall) {
	text, timeLed, who, said, min := rc.sq.Text, rc.timeLed, rc.who, rc.said, rc.q.MinMatch
	terms, names := s.queryTerms(text, who)
	weight, termsOf := s.termWeights(res.Results, scored, terms)
	// Coverage and Elsewhere first: each result's Rival is measured
	// against the most any of those by or about someone else tells.
	feats := make([]rank.MatchFeatures, len(res.Results))
	// What each tells of the query's content words, its names aside:
	// another's words need not name the person asked about to answer
	// in their stead.
	tells := make([]float64, len(res.Results))
	rival := 0.0
	for i := range res.Results {
		r := &res.Results[i]
		f := r.feat
		has := termsOf[i]
		speaker := speakerName(&r.Memory)
		f.Elsewhere = elsewhere(&r.Memory, speaker, who, said, names, has.all)
		var got, told, all, content, toldContent float64
		for t, w := range weight {
			all += w
			if names[t] == "" {
				content += w
				// What they said (said) is theirs, questions and all.
				if has.told[t] || len(said) > 0 && has.all[t] {
					toldContent += w
				}
			}
			// A name is matched by what its person said, whether or
			// not the text repeats it; not by what another of the
			// people asked about said ("Audrey and Buddy").
			by := names[t] != "" && speaker != "" && entity.Match([]string{names[t]}, []string{speaker})
			if has.all[t] || by {
				got += w
				if has.told[t] || by {
					told += w
				}
			}
		}
		switch {
		case all > 0:
			f.Coverage = got / all
			if len(said) == 0 {
				f.Untold = (got - told) / all
			}
		case timeLed && r.inTime:
			f.Coverage = 1
		}
		if content > 0 {
			tells[i] = toldContent / content
		}
		if f.Elsewhere > 0 {
			rival = max(rival, tells[i])
		}
		feats[i] = f
	}
	best := 0.0
	kept := res.Results[:0]
	for i, r := range res.Results {
		f := feats[i]
		f.Rival = max(0, rival-tells[i])
		p := s.match.Probability(f)
		r.Match = s.match.Label(p)
		if r.Explain != nil {
			r.Explain.Match = &rank.MatchExplanation{MatchFeatures: f, Probability: p}
		}
		best = max(best, p)
		if rank.MatchAtLeast(r.Match, min) {
			kept = append(kept, r)
		}
	}
	res.Results = kept
	res.MatchScore, res.Match = best, rank.MatchNone
	if best > 0 {
		res.Match = s.match.Label(best)
	}
}

// matchPool is how many of the best lexical candidates, beside the
// results, tell how common each query word is among what the query finds.
// Each costs an analysis of its text (some 15 µs for a sentence).
const matchPool = 10

// termWeights weighs each content word of a query by how rare it is
// among what the recall found (the results and the best lexical
// candidates): ln(1 + (n+1)/(df+1)). A word most of them have ("user" in
// an assistant's memories of its user) says little of whether one answers
// the query; a word none has, a lot. It is the inverse document frequency
// of the candidates, not the store's, which the stores keep to
// themselves; a full scan would cost more than the recall.
//
// It returns the weights, and the words of each result, analysed on the
// way.
func (s *Service) termWeights(results, scored []Scored, terms map[string]bool) (map[string]float64, []memTerms) {
	if len(terms) == 0 {
		return nil, make([]memTerms, len(results))
	}
	pool := make([]*mnemo.Memory, 0, len(results)+matchPool)
	seen := make(map[string]bool, len(results)+matchPool)
	for i := range results {
		pool, seen[results[i].ID] = append(pool, &results[i].Memory), true
	}
	lex := make([]int, 0, len(scored))
	for i := range scored {
		if scored[i].lexical > 0 && !seen[scored[i].ID] {
			lex = append(lex, i)
		}
	}
	slices.SortFunc(lex, func(a, b int) int { return cmp.Compare(scored[b].lexical, scored[a].lexical) })
	for _, i := range lex[:min(len(lex), matchPool)] {
		pool = append(pool, &scored[i].Memory)
	}
	df := make(map[string]int, len(terms))
	of := make([]memTerms, len(results))
	for i, m := range pool {
		has := s.termsOf(m, terms)
		if i < len(results) {
			of[i] = has
		}
		for t := range terms {
			if has.all[t] {
				df[t]++
			}
		}
	}
	w := make(map[string]float64, len(terms))
	n := float64(len(pool))
	for t := range terms {
		w[t] = math.Log(1 + (n+1)/(float64(df[t])+1))
	}
	return w, of
}

// memTerms are the query's terms among the analysed words of a memory:
// all of them, and those of its sentences that tell (told): neither a
// question nor said of the one spoken to. A memory that has a query's
// words only where it asks about them ("have you a favourite book?") or
// speaks of its listener ("you're awesome with your store") does not say
// them of its speaker.
type memTerms struct {
	all, told map[string]bool
}

// termsOf is the query's terms among the analysed words of what m says,
// and of what the lexical index finds it by besides: its tags, key and
// entities, which tell. Only the query's terms are ever looked up, so only
// they are kept: a set of every word of every candidate would be most of
// the match's allocations (PERF-10).
func (s *Service) termsOf(m *mnemo.Memory, terms map[string]bool) memTerms {
	var has memTerms
	add := func(words []string, tells bool) {
		for _, t := range words {
			if !terms[t] {
				continue
			}
			if has.all == nil {
				has.all, has.told = make(map[string]bool, len(terms)), make(map[string]bool, len(terms))
			}
			has.all[t] = true
			if tells {
				has.told[t] = true
			}
		}
	}
	for _, st := range s.said.of(s.analyzer, m.Content, false) {
		add(st.terms, st.tells)
	}
	for _, st := range s.said.of(s.analyzer, m.Summary+" "+strings.Join(m.Tags, " ")+" "+m.Key+" "+strings.Join(m.Entities, " "), true) {
		add(st.terms, st.tells)
	}
	return has
}

// saidTerms remembers the analysis of the texts match reads, each
// sentence's words and whether it tells them: a recall's results and best
// candidates are mostly those of the recalls before it, and analysing
// their sentences was most of the match's time (PERF-10). At most
// maxSaid texts; when full it starts again empty.
type saidTerms struct {
	texts sync.Map // saidKey → []sentenceTerms
	n     atomic.Int32
}

type saidKey struct {
	text  string
	whole bool
}

// sentenceTerms is one sentence of a text: its analysed words, and whether
// it tells them, neither asking (it has a question mark) nor speaking of
// its listener (addressed).
type sentenceTerms struct {
	terms []string
	tells bool
}

// maxSaid bounds the texts saidTerms remembers (a few MB).
const maxSaid = 1 << 13

// of returns the sentences of text, analysed by a, remembered; or, when
// whole, text as one sentence that tells its words.
func (c *saidTerms) of(a *analysis.Analyzer, text string, whole bool) []sentenceTerms {
	k := saidKey{text, whole}
	if v, ok := c.texts.Load(k); ok {
		return v.([]sentenceTerms)
	}
	var out []sentenceTerms
	if whole {
		out = []sentenceTerms{{terms: a.Terms(text), tells: true}}
	} else {
		textutil.Sentences(text, func(sentence string, asks bool) {
			out = append(out, sentenceTerms{terms: a.Terms(sentence), tells: !asks && !addressed(sentence)})
		})
	}
	if c.n.Add(1) > maxSaid {
		c.texts.Clear()
		c.n.Store(1)
	}
	c.texts.Store(k, out)
	return out
}

// queryTerms are the analysed words of a query, and among them those of
// the names of the people it asks about (REC-28), each with its name: a
// memory by them matches those, though it need not repeat them.
func (s *Service) queryTerms(text string, who []string) (terms map[string]bool, names map[string]string) {
	terms, names = make(map[string]bool), make(map[string]string)
	for _, t := range s.analyzer.Query(text).Terms {
		terms[t] = true
	}
	for _, name := range who {
		for _, t := range s.analyzer.Terms(name) {
			if terms[t] {
				names[t] = name
			}
		}
	}
	return terms, names
}

// elsewhere is the Elsewhere feature of m for a query naming who (and
// asking what said said, if any): 0 when m is by one of them, or about
// them and by no one in particular; 0.5 when about them but said by
// another, or said by them to another of what the other did (addressed);
// 1 when it concerns none of them. A name the text has counts as
// about, though the entity rules missed it (at a sentence's start).
func elsewhere(m *mnemo.Memory, speaker string, who, said []string, names map[string]string, has map[string]bool) float64 {
	if len(who) == 0 {
		return 0
	}
	ents := m.Entities
	if ents == nil {
		ents = entity.Of(speaker, m.Content, nil)
	}
	asked := who
	if len(said) > 0 {
		asked = said
	}
	by := speaker != "" && entity.Match(asked, []string{speaker})
	about := entity.Match(who, ents)
	for t := range names {
		about = about || has[t]
	}
	switch {
	case by && len(said) == 0 && addressed(m.Content):
		// By them, but of the one they speak to ("you make jewelry
		// out of old things?"): the other way round of about them but
		// said by another. A question of what they said (said) asks
		// for their words, whoever those are of.
		return 0.5
	case by, about && speaker == "":
		return 0
	case about:
		return 0.5
	}
	return 1
}

// addressed reports whether text speaks to someone in the second person
// and never of its speaker in the first: a turn about its listener.
func addressed(text string) bool {
	if strings.ContainsAny(text, "我咱") {
		return false
	}
	you := strings.ContainsAny(text, "你您")
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		if i := strings.IndexAny(w, "'’"); i >= 0 {
			w = w[:i] // "you're", "i've"
		}
		switch w {
		case "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves":
			return false
		case "you", "your", "yours", "yourself", "yourselves":
			you = true
		default:
			// "u", "ur": a chat's shorthand (REC-39); "omg" is no
			// first person.
			full, ok := shorthand.Word(w)
			you = you || ok && strings.HasPrefix(full, "you")
		}
	}
	return you
}

// noteUnknownAgent marks an empty answer whose agent has no memories in
// its tenant and never had any (API-18): a misspelt agent reads as an
// empty memory otherwise. A store that cannot tell leaves it unmarked.
func (s *Service) noteUnknownAgent(ctx context.Context, scope mnemo.Scope, res *Result) error {
	known, err := s.agentKnown(ctx, scope)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Warn("cannot tell whether the agent is known", "err", err)
		return nil
	}
	if !known {
		res.UnknownAgent = true
		res.Hint = fmt.Sprintf("agent %q has no memories in this tenant", scope.AgentID)
	}
	return nil
}

// agentKnown reports whether scope's agent has, or had, memories.
func (s *Service) agentKnown(ctx context.Context, scope mnemo.Scope) (bool, error) {
	switch {
	case s.store.Agents != nil:
		agents, err := s.store.Agents.Agents(ctx, scope.TenantID)
		if err != nil {
			return true, err
		}
		return slices.ContainsFunc(agents, func(a mnemo.AgentCount) bool { return a.AgentID == scope.AgentID }), nil
	case s.store.Life != nil:
		scopes, err := s.store.Life.Scopes(ctx)
		if err != nil {
			return true, err
		}
		return slices.Contains(scopes, scope), nil
	}
	return true, nil
}

// AgentHint says that scope's agent has no memories, and names the
// agent, among those allowed (all when empty) that have some, whose name
// is nearest, when one is near enough to be a misspelling. It names only
// agents the caller may see (API-18).
func (s *Service) AgentHint(ctx context.Context, scope mnemo.Scope, allowed []string) string {
	hint := fmt.Sprintf("agent %q has no memories in this tenant", scope.AgentID)
	agents, _, err := s.Agents(ctx, scope.TenantID, allowed)
	if err != nil {
		return hint
	}
	best, bestD := "", 0
	for _, a := range agents {
		if a.Memories == 0 || a.AgentID == scope.AgentID {
			continue
		}
		d := textutil.EditDistance(strings.ToLower(a.AgentID), strings.ToLower(scope.AgentID))
		if best == "" || d < bestD {
			best, bestD = a.AgentID, d
		}
	}
	if best != "" && bestD <= max(1, min(3, len([]rune(scope.AgentID))/3)) {
		hint += fmt.Sprintf(": did you mean %q?", best)
	}
	return hint
}
