package memory

import (
	"context"
	"math"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/filter"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/temporal"
)

// asOf answers ms, live memories that a store kept for a filter's AsOf,
// with what held at t (REC-27): a keyed memory whose current revision was
// written after t becomes the revision of its key that stood at t, its
// ValidTo the time the next revision replaced it, or goes when none stood
// then. A keyless memory is kept as it is (the store judged it by its
// creation, occurrence and valid_to; a correction in place since t is not
// undone). Revisions are read once per key.
func (s *Service) asOf(ctx context.Context, scope mnemo.Scope, ms []mnemo.Memory, t time.Time) ([]mnemo.Memory, error) {
	out := ms[:0:0]
	for _, m := range ms {
		if m.Key == "" || m.ValidAt(t) {
			out = append(out, m)
			continue
		}
		revs, err := s.store.History(ctx, scope, m.Key)
		if err != nil {
			return nil, err
		}
		if old, ok := stoodAt(revs, t); ok {
			old.ID, old.AccessedAt, old.AccessCount = m.ID, m.AccessedAt, m.AccessCount
			out = append(out, old)
		}
	}
	return out, nil
}

// stoodAt is the revision of a key's history (oldest first) that held at
// t: the last applied write whose ValidFrom is at or before t, ended by the
// next applied revision (a write or a tombstone) or by its own valid_to,
// whichever comes first, if that is after t.
func stoodAt(revs []mnemo.Revision, t time.Time) (mnemo.Memory, bool) {
	var (
		stood *mnemo.Memory
		end   *time.Time
	)
	for i := range revs {
		r := &revs[i]
		if !r.Applied {
			continue // lost last-write-wins: it never stood
		}
		when := r.At
		if r.Memory != nil {
			when = r.Memory.UpdatedAt
		}
		if stood != nil && end == nil {
			e := when
			end = &e
		}
		if r.Op == mnemo.OpPut && r.Memory != nil && !r.Memory.ValidFrom().After(t) {
			m := *r.Memory
			stood, end = &m, nil
		}
	}
	if stood == nil {
		return mnemo.Memory{}, false
	}
	if end != nil && (stood.ValidTo == nil || end.Before(*stood.ValidTo)) {
		stood.ValidTo = end
	}
	if stood.ValidTo != nil && !stood.ValidTo.After(t) {
		return mnemo.Memory{}, false
	}
	return *stood, true
}

// candidatesAsOf is asOf over recall's candidates: each keeps the scores
// its key's live memory had.
func (s *Service) candidatesAsOf(ctx context.Context, scope mnemo.Scope, cands []candidate, t time.Time) ([]candidate, error) {
	out := cands[:0]
	for _, c := range cands {
		ms, err := s.asOf(ctx, scope, []mnemo.Memory{c.m}, t)
		if err != nil {
			return nil, err
		}
		if len(ms) == 1 {
			c.m = ms[0]
			out = append(out, c)
		}
	}
	return out, nil
}

// maxGoneAsOf is how many keys tombstoned since an as_of time (those
// tombstoned soonest after it first), and how many memories archived
// since (by the ledger, the latest archived first), a recall or list
// looks at.
const maxGoneAsOf = 500

// goneAsOf is what held at t but is out of reach of the store's filter
// now (REC-27), those f matches at now: the revision that stood then of
// each key tombstoned since (its live row is gone, so no index finds it),
// and each memory archived since (soft forgetting, a prune, a reset,
// retention or capacity, by the ledger), as it held then. A key or memory
// forgotten for good has nothing left to answer with. Without a ledger,
// the archived part is left out.
func (s *Service) goneAsOf(ctx context.Context, scope mnemo.Scope, f *mnemo.Filter, t, now time.Time) ([]mnemo.Memory, error) {
	var out []mnemo.Memory
	{
		revs, err := s.store.DeletedAfter(ctx, scope, t, maxGoneAsOf)
		if err != nil {
			return nil, err
		}
		for len(revs) > 0 {
			n := 1
			for n < len(revs) && revs[n].Key == revs[0].Key {
				n++
			}
			if m, ok := stoodAt(revs[:n], t); ok && filter.Match(f, &m, now) {
				out = append(out, m)
			}
			revs = revs[n:]
		}
	}
	if f.IncludeArchived || f.ArchivedOnly {
		return out, nil // the store's answer has them already
	}
	ids, err := s.archivedAfter(ctx, scope, t)
	if err != nil || len(ids) == 0 {
		return out, err
	}
	for _, id := range ids {
		m, err := s.store.Get(ctx, scope, id)
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		if !m.Archived {
			continue // restored since: the store's answer has it
		}
		ms, err := s.asOf(ctx, scope, []mnemo.Memory{m}, t)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			m.Archived = false            // not yet, then
			if filter.Match(f, &m, now) { // f.AsOf: begun by t, not ended
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// archiveActions are the ledger's actions that archive memories.
var archiveActions = []string{mnemo.ActionArchive, mnemo.ActionPrune, mnemo.ActionReset, mnemo.ActionRetention}

// archivedAfter is the ids of the memories the ledger says were archived
// after t, up to maxGoneAsOf of them, the latest archived first by action.
func (s *Service) archivedAfter(ctx context.Context, scope mnemo.Scope, t time.Time) ([]string, error) {
	ls := s.store.Life
	if ls == nil {
		return nil, nil
	}
	since := t.Add(time.Nanosecond) // Since is inclusive
	seen := map[string]bool{}
	var ids []string
	for _, a := range archiveActions {
		for off := 0; len(ids) < maxGoneAsOf; {
			es, _, err := ls.Ledger(ctx, scope, mnemo.LedgerQuery{Action: a, Since: &since, Limit: 100, Offset: off})
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				for _, id := range e.MemoryIDs {
					if !seen[id] && len(ids) < maxGoneAsOf {
						seen[id] = true
						ids = append(ids, id)
					}
				}
			}
			if len(es) < 100 {
				break
			}
			off += len(es)
		}
	}
	return ids, nil
}

// goneCandidates adds to recall's candidates what held at t that the
// store's filter no longer reaches (goneAsOf), those no candidate has
// (by key or id) that share a word with the query or, when it names a
// time, happened then. With no index to score
// them, a memory's lexical score is the share of the query's terms it has
// times the best candidate's BM25 (or 1), its similarity that of the
// vector it was written with, if any.
func (s *Service) goneCandidates(ctx context.Context, r *recall, t time.Time, cands []candidate, f *found) ([]candidate, error) {
	aq, asked := r.aq, r.asked
	gone, err := s.goneAsOf(ctx, r.scope, &r.sq.Filter, t, r.now)
	if err != nil || len(gone) == 0 {
		return cands, err
	}
	have := make(map[string]bool, len(cands))
	best := 0.0
	for _, c := range cands {
		have[c.m.ID] = true
		if c.m.Key != "" {
			have["key:"+c.m.Key] = true
		}
		best = max(best, c.lexical)
	}
	if best == 0 {
		best = 1
	}
	terms := make(map[string]bool, len(aq.Terms))
	for _, w := range aq.Terms {
		terms[w] = true
	}
	var add []candidate
	for _, m := range gone {
		if have[m.ID] || m.Key != "" && have["key:"+m.Key] {
			continue
		}
		ratio := s.hitRatio(&m, terms)
		then := asked.Found && asked.Window.Overlaps(temporal.Window{Start: m.OccurredOf().Start, End: m.OccurredOf().End})
		if ratio == 0 && !then {
			continue
		}
		add = append(add, candidate{m: m, lexical: ratio * best, sim: similarity(f.qvec, m, f.vecModel), vec: m.Embedding})
	}
	s.embedGone(ctx, add, f)
	return append(cands, add...), nil
}

// embedGone gives the candidates that lack a vector of the query's model
// (a revision is kept without one) the embedder's vector of their text
// now, so that fusion weighs their meaning as it does the others'. When
// the embedder fails they go on by their words alone.
func (s *Service) embedGone(ctx context.Context, cands []candidate, f *found) {
	if s.vec == nil || f.qvec == nil || !f.useVec {
		return
	}
	var idx []int
	var texts []string
	for i := range cands {
		if math.IsNaN(cands[i].sim) {
			idx = append(idx, i)
			texts = append(texts, embedText(&cands[i].m, ""))
		}
	}
	if len(texts) == 0 {
		return
	}
	vecs, err := s.vec.embedder.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		s.log.Warn("embedding what held then failed: ranked by its words", "err", err)
		return
	}
	for k, i := range idx {
		cands[i].sim, cands[i].vec = rank.Cosine(f.qvec, vecs[k]), vecs[k]
	}
}
