package memory

import (
	"context"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
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

// maxDeletedAsOf is how many keys tombstoned since an as_of time a recall
// or list looks at, those tombstoned soonest after it first.
const maxDeletedAsOf = 500

// deletedAsOf is what the keys tombstoned since t held at t (REC-27): the
// revision of each that stood then, those f matches at now, in key order.
// Their live rows are gone, so no index finds them; a key forgotten for
// good has no revision left to answer with. Nothing when the store cannot
// find deleted keys (not a mnemo.DeletedFinder).
func (s *Service) deletedAsOf(ctx context.Context, scope mnemo.Scope, f *mnemo.Filter, t, now time.Time) ([]mnemo.Memory, error) {
	df, ok := s.store.Store.(mnemo.DeletedFinder)
	if !ok {
		return nil, nil
	}
	revs, err := df.DeletedAfter(ctx, scope, t, maxDeletedAsOf)
	if err != nil {
		return nil, err
	}
	var out []mnemo.Memory
	for len(revs) > 0 {
		n := 1
		for n < len(revs) && revs[n].Key == revs[0].Key {
			n++
		}
		if m, ok := stoodAt(revs[:n], t); ok && f.Match(&m, now) {
			out = append(out, m)
		}
		revs = revs[n:]
	}
	return out, nil
}

// deletedCandidates adds to recall's candidates what keys tombstoned since
// t held at t, those of a key no candidate has that share a word with the
// query or, when it names a time, happened then. With no index to score
// them, a memory's lexical score is the share of the query's terms it has
// times the best candidate's BM25 (or 1), its similarity that of the
// vector it was written with, if any.
func (s *Service) deletedCandidates(ctx context.Context, scope mnemo.Scope, q *Query, t, now time.Time, cands []candidate, aq analysis.Query, asked temporal.Asked, f *found) ([]candidate, error) {
	gone, err := s.deletedAsOf(ctx, scope, &q.Filter, t, now)
	if err != nil || len(gone) == 0 {
		return cands, err
	}
	keys := make(map[string]bool, len(cands))
	best := 0.0
	for _, c := range cands {
		if c.m.Key != "" {
			keys[c.m.Key] = true
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
	for _, m := range gone {
		if keys[m.Key] {
			continue
		}
		ratio := s.hitRatio(&m, terms)
		then := asked.Found && asked.Window.Overlaps(temporal.Window{Start: m.OccurredOf().Start, End: m.OccurredOf().End})
		if ratio == 0 && !then {
			continue
		}
		cands = append(cands, candidate{m: m, lexical: ratio * best, sim: similarity(f.qvec, m, f.vecModel), vec: m.Embedding})
	}
	return cands, nil
}
