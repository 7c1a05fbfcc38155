package memory

import (
	"context"
	"time"

	"github.com/mnemo-dev/mnemo"
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
