package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/temporal"
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

// found is what the candidate searches found, and how they went.
type found struct {
	lexical  mnemo.SearchResult
	vectors  []mnemo.VectorHit
	qvec     []float32      // the query's vector; nil when it was not embedded
	vecModel string         // the embedder's model; "" without one
	useVec   bool           // semantic search took part
	fallback bool           // the embedder failed: hashed TF-IDF stands in
	rescored bool           // the fallback embedder's similarity stands in (PG-3)
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
	f = security.ClearanceFrom(ctx).TimeFilter(f)
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

// gather is recall's second stage, the candidates: find's searches of both
// indexes and, beside them, the memories of the time the query names
// (REC-25) and, for a "when" question, what matches its words and says
// when it happened, which joins the lexical hits rather than only ranking
// higher (REC-29). On two cores the reads of the two beside find hide
// behind its own.
func (s *Service) gather(ctx context.Context, r *recall) (found, error) {
	var (
		g       errgroup.Group
		whenSR  mnemo.SearchResult
		whenRan = r.asked.When && !r.aq.Empty() && r.profile.LexicalWeight > 0
		dated   []mnemo.Memory
	)
	if whenRan {
		g.Go(func() error {
			return panics.Call(s.log, "dated search", func() (err error) {
				whenSR, err = s.store.Search(ctx, r.scope, r.whenQuery())
				return err
			})
		})
	}
	if r.asked.Found {
		g.Go(func() error {
			return panics.Call(s.log, "dated list", func() (err error) {
				dated, err = s.dated(ctx, r.scope, r.q, r.asked.Window)
				return err
			})
		})
	}
	f, err := s.find(ctx, r)
	besideErr := g.Wait()
	if err != nil {
		return found{}, err
	}
	if besideErr != nil {
		return found{}, besideErr
	}
	f.dated = dated
	if !whenRan && r.asked.When && !r.aq.Empty() && r.profile.LexicalWeight > 0 {
		// find made a vectors-only profile lexical: search now.
		if whenSR, err = s.store.Search(ctx, r.scope, r.whenQuery()); err != nil {
			return found{}, err
		}
		whenRan = true
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
	return f, nil
}

// want is how many candidates each index is asked for.
func (r *recall) want() int { return max(r.q.Limit*candidateFactor, minCandidates) }

// whenQuery is the lexical search of a "when" question for what says when
// it happened (REC-29).
func (r *recall) whenQuery() mnemo.TextQuery {
	q := mnemo.TextQuery{Filter: r.sq.Filter, Terms: r.aq.Terms, Prefixes: r.aq.Prefixes, Limit: r.want()}
	q.Dated = true
	q.Filter = r.clear.TimeFilter(q.Filter)
	return q
}

// find searches the lexical and the vector index at once for candidates
// of r, falling back where a part fails. It may change r's profile: a
// vectors-only profile with no vectors ranks by words.
func (s *Service) find(ctx context.Context, r *recall) (found, error) {
	f := s.planFind(ctx, r)

	// The fan-out: the lexical search on its own goroutine, the query's
	// embedding and the vector search on this one.
	var (
		g       errgroup.Group
		sr      mnemo.SearchResult
		lexTime time.Duration
	)
	lexStarted := !r.aq.Empty() && r.profile.LexicalWeight > 0
	if lexStarted {
		g.Go(func() error {
			return panics.Call(s.log, "lexical search", func() (err error) {
				sr, lexTime, err = s.lexical(ctx, r)
				return err
			})
		})
	}
	var semErr error
	if f.useVec && !f.fallback {
		semErr = s.semantic(ctx, r, &f)
	}
	lexErr := g.Wait()
	if semErr != nil {
		return found{}, semErr
	}

	if f.fallback && !lexStarted && !r.aq.Empty() {
		// A vectors-only profile: the lexical index finds the candidates
		// that the fallback's similarity ranks.
		if s.fallback == nil {
			r.profile.LexicalWeight = 1
		}
		sr, lexTime, lexErr = s.lexical(ctx, r)
	}
	if r.sw != nil {
		r.sw.t.Lexical = lexTime
	}
	if lexErr != nil {
		return found{}, lexErr
	}
	if sr.Degraded {
		cause := sr.Cause
		if cause == "" {
			cause = mnemo.DegradedFullText
		}
		f.notes = append([]degradation{{cause, sr.Reason}}, f.notes...)
	}
	f.lexical = sr
	return f, nil
}

// planFind decides which searches find runs: semantic search when the
// profile uses vectors and the store and the embedder can give them, with
// the reasons for what falls back. It may change r's profile.
func (s *Service) planFind(ctx context.Context, r *recall) found {
	profile := &r.profile
	f := found{useVec: s.vec != nil && profile.UsesVectors()}
	var noIndex *noIndexError
	switch {
	case s.noVectors && profile.UsesVectors():
		f.notes = append(f.notes, degradation{mnemo.DegradedVectorIndex, "no vector index (the store keeps no vectors): answered by full text and recency"})
	case f.useVec:
		f.vecModel = s.vec.embedder.Model()
		if err := s.vec.init(ctx); errors.As(err, &noIndex) {
			f.useVec = false
			f.notes = append(f.notes, degradation{mnemo.DegradedVectorIndex, noIndex.reason()})
		} else if err != nil {
			f.fallback = true
			f.notes = append(f.notes, degradation{mnemo.DegradedEmbedder, "semantic index unavailable: " + err.Error()})
		}
	}
	if profile.LexicalWeight == 0 && !f.useVec {
		// A vectors-only profile with no vectors: better words than nothing.
		if len(f.notes) == 0 {
			f.notes = append(f.notes, degradation{mnemo.DegradedEmbedder, "no embedder is configured: answered by the lexical index"})
		}
		profile.LexicalWeight = 1
	}
	// A word cut short ("Lisb*") means nothing to an embedder: its vector
	// is noise, which fusion would normalise to the best candidate's and
	// let outweigh the prefix's lexical match 0.7 to 0.3. So the embedder
	// sees the query's whole words, and a query of prefixes alone is
	// answered by the lexical index.
	if wholeWords(r.sq.Text) == "" && len(r.aq.Prefixes) > 0 && profile.LexicalWeight > 0 || strings.TrimSpace(r.sq.Text) == "" {
		f.useVec = false // nothing to embed: a question led by its time (asked.go)
	}
	return f
}

// lexical searches the full-text index for r's candidates, and says how
// long it took when r is timed.
func (s *Service) lexical(ctx context.Context, r *recall) (mnemo.SearchResult, time.Duration, error) {
	t0 := r.sw.now()
	sr, err := s.store.Search(ctx, r.scope, mnemo.TextQuery{
		Filter: r.sq.Filter, Terms: r.aq.Terms, Prefixes: r.aq.Prefixes, Limit: r.want(),
	})
	return sr, r.sw.since(t0), err
}

// semantic embeds the query's whole words and searches the vector index
// with them, into f. An embedder or a vector index that fails is a
// degradation, noted in f; only a cancelled ctx is an error.
func (s *Service) semantic(ctx context.Context, r *recall, f *found) error {
	t0 := r.sw.now()
	qv, err := s.vec.embedQuery(ctx, wholeWords(r.sq.Text))
	if r.sw != nil {
		r.sw.t.Embed = time.Since(t0)
	}
	t0 = r.sw.now()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f.fallback = true
		how := "answered by the lexical index alone"
		if s.fallback != nil {
			how = "answered by the lexical index re-scored by " + s.fallback.Model() + " similarity"
		}
		f.notes = append(f.notes, degradation{mnemo.DegradedEmbedder, fmt.Sprintf("embedder %s unavailable: %s", f.vecModel, how)})
		s.log.Warn("query embedding failed", "model", f.vecModel, "err", err)
		return nil
	}
	f.qvec = qv
	vq := mnemo.VectorQuery{Filter: r.sq.Filter, Vector: qv, Limit: r.want()}
	var vecErr error
	if ls, ok := s.store.Store.(VectorLagSearcher); ok {
		var lag string
		if f.vectors, lag, vecErr = ls.SearchVectorsLag(ctx, r.scope, vq); lag != "" && vecErr == nil {
			f.notes = append(f.notes, degradation{mnemo.DegradedVectorIndex, lag})
		}
	} else {
		f.vectors, vecErr = s.store.Vectors.SearchVectors(ctx, r.scope, vq)
	}
	if r.sw != nil {
		r.sw.t.Vector = time.Since(t0)
	}
	if vecErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f.notes = append(f.notes, degradation{mnemo.DegradedVectorIndex, "semantic index failed: answered by the lexical index alone"})
		s.log.Warn("vector search failed", "err", vecErr)
		f.vectors = nil
	}
	return nil
}

// candidates is the union of what gather found and, for a query as of a
// time (REC-27), what held then: a key rewritten since answers with its
// earlier value, ranked by how its key's memory matched, and what was
// deleted or archived since joins, as it held then.
func (s *Service) candidates(ctx context.Context, r *recall, f *found) ([]candidate, error) {
	cands := union(*f)
	if r.q.AsOf == nil {
		return cands, nil
	}
	cands, err := s.candidatesAsOf(ctx, r.scope, cands, *r.q.AsOf)
	if err != nil {
		return nil, err
	}
	return s.goneCandidates(ctx, r, *r.q.AsOf, cands, f)
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

// VectorLagSearcher is a mnemo.VectorStore whose ANN index catches up with its
// vectors in the background. SearchVectorsLag is SearchVectors that also
// says, in lag, when the answer could not search every stored vector by
// meaning (the index is still catching up); lag is empty otherwise.
// Recall flags such an answer degraded.
type VectorLagSearcher interface {
	SearchVectorsLag(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) (hits []mnemo.VectorHit, lag string, err error)
}
