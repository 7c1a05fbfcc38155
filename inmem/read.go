package inmem

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Get returns the live memory id of the scope, archived and expired
// included.
func (s *Store) Get(_ context.Context, sc mnemo.Scope, id string) (mnemo.Memory, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return mnemo.Memory{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if d := s.scope(sc); d != nil {
		if r := d.rows[id]; r != nil && !r.tomb {
			return r.out(false), nil
		}
	}
	return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", id)
}

// GetByKey returns the live memory of key, archived and expired included.
func (s *Store) GetByKey(_ context.Context, sc mnemo.Scope, key string) (mnemo.Memory, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return mnemo.Memory{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if d := s.scope(sc); d != nil {
		if r := d.keys[key]; r != nil && !r.tomb {
			return r.out(false), nil
		}
	}
	return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "key %s not found", key)
}

// orders compare rows for List; ties between memories created in the same
// nanosecond go by arrival.
var orders = map[string]func(a, b *row) int{
	"":                newest,
	mnemo.OrderNewest: newest,
	mnemo.OrderOldest: func(a, b *row) int {
		return cmp.Or(a.m.CreatedAt.Compare(b.m.CreatedAt), cmp.Compare(a.arrival, b.arrival))
	},
	mnemo.OrderKey: func(a, b *row) int {
		return cmp.Or(strings.Compare(a.m.Key, b.m.Key), a.m.CreatedAt.Compare(b.m.CreatedAt), cmp.Compare(a.arrival, b.arrival))
	},
	mnemo.OrderVitality: func(a, b *row) int {
		return cmp.Or(cmp.Compare(b.m.Vitality, a.m.Vitality), cmp.Compare(b.seq, a.seq))
	},
	mnemo.OrderOccurred: func(a, b *row) int {
		oa, ob := a.m.OccurredOf(), b.m.OccurredOf()
		return cmp.Or(ob.Start.Compare(oa.Start), ob.End.Compare(oa.End), cmp.Compare(b.seq, a.seq))
	},
}

func newest(a, b *row) int {
	return cmp.Or(b.m.CreatedAt.Compare(a.m.CreatedAt), cmp.Compare(b.arrival, a.arrival))
}

// List returns a page of the live memories matching q and how many match.
func (s *Store) List(_ context.Context, sc mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, 0, err
	}
	order, ok := orders[q.Order]
	if !ok {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "unknown order %q", q.Order)
	}
	if q.Limit < 0 || q.Offset < 0 {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "limit and offset must not be negative")
	}
	now := s.filterNow(&q.Filter)
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.scope(sc)
	if d == nil {
		return nil, total0(q.NoTotal), nil
	}
	var match []*row
	for _, r := range d.rows {
		if r.matches(&q.Filter, now) {
			match = append(match, r)
		}
	}
	total := len(match)
	if q.NoTotal {
		total = -1
	}
	if q.Offset >= len(match) {
		return nil, total, nil
	}
	end := len(match)
	if q.Limit > 0 {
		end = min(end, q.Offset+q.Limit)
	}
	if end < len(match)/4 {
		match = smallest(match, end, order)
	} else {
		slices.SortFunc(match, order)
	}
	ms := make([]mnemo.Memory, 0, end-q.Offset)
	for _, r := range match[q.Offset:end] {
		ms = append(ms, r.out(q.NoVectors))
	}
	return ms, total, nil
}

func total0(noTotal bool) int {
	if noTotal {
		return -1
	}
	return 0
}

// smallest returns the n first rows of rs by cmp, sorted, with a bounded
// max-heap: a page of a large scope costs n log n, not the whole sort.
func smallest(rs []*row, n int, less func(a, b *row) int) []*row {
	if n <= 0 {
		return nil
	}
	h := make([]*row, 0, n)
	down := func(i int) {
		for {
			l, big := 2*i+1, i
			if l < len(h) && less(h[l], h[big]) > 0 {
				big = l
			}
			if r := l + 1; r < len(h) && less(h[r], h[big]) > 0 {
				big = r
			}
			if big == i {
				return
			}
			h[i], h[big] = h[big], h[i]
			i = big
		}
	}
	for _, r := range rs {
		if len(h) < n {
			h = append(h, r)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if less(h[i], h[p]) <= 0 {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
		} else if less(r, h[0]) < 0 {
			h[0] = r
			down(0)
		}
	}
	slices.SortFunc(h, less)
	return h
}

// History returns the revisions of key, oldest first.
func (s *Store) History(_ context.Context, sc mnemo.Scope, key string) ([]mnemo.Revision, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.scope(sc)
	if d == nil {
		return nil, nil
	}
	var out []mnemo.Revision
	for _, r := range d.hist[key] {
		rev := *r
		if r.Memory != nil {
			m := *r.Memory
			rev.Memory = &m
		}
		out = append(out, rev)
	}
	return out, nil
}

// DeletedAfter implements mnemo.Store.DeletedAfter: the history of the keys
// tombstoned after t (REC-27).
func (s *Store) DeletedAfter(_ context.Context, sc mnemo.Scope, t time.Time, limit int) ([]mnemo.Revision, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.scope(sc)
	if d == nil || limit <= 0 {
		return nil, nil
	}
	type deleted struct {
		key string
		at  time.Time
	}
	var keys []deleted
	for key, revs := range d.hist {
		for _, r := range revs {
			if r.Op == mnemo.OpTombstone && r.Applied && r.At.After(t) {
				keys = append(keys, deleted{key, r.At})
				break // the first after t: revisions are oldest first
			}
		}
	}
	slices.SortFunc(keys, func(a, b deleted) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	keys = keys[:min(limit, len(keys))]
	slices.SortFunc(keys, func(a, b deleted) int { return strings.Compare(a.key, b.key) })
	var out []mnemo.Revision
	for _, k := range keys {
		for _, r := range d.hist[k.key] {
			rev := *r
			if r.Memory != nil {
				m := *r.Memory
				rev.Memory = &m
			}
			out = append(out, rev)
		}
	}
	return out, nil
}

// Stats describes the scope.
func (s *Store) Stats(_ context.Context, sc mnemo.Scope) (mnemo.Stats, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return mnemo.Stats{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var st mnemo.Stats
	if s.space.Model != "" {
		st.Vectors = &mnemo.VectorStats{Model: s.space.Model, Dimension: s.space.Dimension}
	}
	d := s.scope(sc)
	if d == nil {
		return st, nil
	}
	sessions := map[string]bool{}
	embedded := 0
	for _, r := range d.rows {
		if r.tomb {
			st.Tombstones++
			continue
		}
		m := &r.m
		st.Memories++
		if m.Archived {
			st.Archived++
		}
		if m.Key != "" {
			st.Keys++
		}
		if m.SessionID != "" {
			sessions[m.SessionID] = true
		}
		if st.Oldest == nil || m.CreatedAt.Before(*st.Oldest) {
			t := m.CreatedAt
			st.Oldest = &t
		}
		if st.Newest == nil || m.CreatedAt.After(*st.Newest) {
			t := m.CreatedAt
			st.Newest = &t
		}
		if st.Vectors != nil {
			if r.vectored {
				embedded++
				st.Vectors.Embedded++
			} else if r.embed != "" {
				st.Vectors.Pending++
			}
		}
	}
	st.Sessions = len(sessions)
	if st.Vectors != nil {
		st.Vectors.Indexed = embedded // the exact scan indexes every vector
	}
	return st, nil
}

// CountTypes counts the memories matching f by type, most numerous first.
func (s *Store) CountTypes(_ context.Context, sc mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	now := s.filterNow(&f)
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []mnemo.TypeCount{}
	d := s.scope(sc)
	if d == nil {
		return out, nil
	}
	type acc struct {
		n   int
		sum float64
	}
	by := map[string]*acc{}
	for _, r := range d.rows {
		if !r.matches(&f, now) {
			continue
		}
		a := by[r.m.Type]
		if a == nil {
			a = &acc{}
			by[r.m.Type] = a
		}
		a.n++
		a.sum += r.m.Vitality
	}
	for t, a := range by {
		out = append(out, mnemo.TypeCount{Type: t, Count: a.n, MeanVitality: a.sum / float64(a.n)})
	}
	slices.SortFunc(out, func(a, b mnemo.TypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Type, b.Type))
	})
	return out, nil
}
