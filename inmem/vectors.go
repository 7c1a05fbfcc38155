package inmem

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// VectorSpace returns the model and dimension of the stored vectors.
func (s *Store) VectorSpace(context.Context) (mnemo.VectorSpace, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.space, nil
}

// SetVectorSpace sets the model and dimension of the store's vectors. See
// mnemo.VectorStore.
func (s *Store) SetVectorSpace(_ context.Context, vs mnemo.VectorSpace, reset bool) error {
	if vs.Model == "" || vs.Dimension <= 0 {
		return mnemo.Errorf(mnemo.EINVALID, "a vector space needs a model and a positive dimension")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.space
	if cur == vs && !reset {
		return nil
	}
	if cur.Model != "" && !reset {
		n := 0
		for _, r := range s.ids {
			if r.vectored {
				n++
			}
		}
		if n > 0 {
			return mnemo.Errorf(mnemo.EMISMATCH,
				"the store holds %d vectors of model %s (%d dimensions), not %s (%d dimensions): run `mnemo reindex` to re-embed it",
				n, cur.Model, cur.Dimension, vs.Model, vs.Dimension)
		}
	}
	// Every vector of the old space is dropped and its memory queued.
	for _, r := range s.ids {
		r.m.Embedding, r.m.EmbeddingModel, r.vectored, r.norm = nil, "", false, 0
		if r.embed == "" && !r.tomb {
			r.embed = r.m.Content
		}
	}
	s.space = vs
	return nil
}

// Unembedded returns up to n live memories waiting for a vector, oldest
// first.
func (s *Store) Unembedded(_ context.Context, n int) ([]mnemo.EmbedJob, error) {
	if n <= 0 {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var rs []*row
	for _, r := range s.ids {
		if waiting(r) {
			rs = append(rs, r)
		}
	}
	rs = smallest(rs, n, func(a, b *row) int { return cmp.Compare(a.seq, b.seq) })
	jobs := make([]mnemo.EmbedJob, len(rs))
	for i, r := range rs {
		jobs[i] = mnemo.EmbedJob{ID: r.m.ID, Text: r.embed}
	}
	return jobs, nil
}

func waiting(r *row) bool { return !r.tomb && !r.vectored && r.embed != "" }

// CountUnembedded counts the live memories waiting for a vector.
func (s *Store) CountUnembedded(context.Context) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, r := range s.ids {
		if waiting(r) {
			n++
		}
	}
	return n, nil
}

// SetVectors stores the vectors of jobs, skipping those whose memory is
// gone or whose embed text changed. See mnemo.VectorStore.
func (s *Store) SetVectors(_ context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	if len(jobs) != len(vecs) {
		return fmt.Errorf("inmem: set vectors: %d jobs but %d vectors", len(jobs), len(vecs))
	}
	if len(jobs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.space.Model == "" {
		return mnemo.Errorf(mnemo.EINVALID, "the store has no vector space: set one first")
	}
	for i, j := range jobs {
		if len(vecs[i]) != s.space.Dimension {
			return mnemo.Errorf(mnemo.EMISMATCH, "a vector of %d dimensions for a store of %d", len(vecs[i]), s.space.Dimension)
		}
		if !finite(vecs[i]) {
			return mnemo.Errorf(mnemo.EINVALID, "memory %s: the vector has a NaN or infinite component", j.ID)
		}
	}
	for i, j := range jobs {
		r := s.ids[j.ID]
		if r == nil || r.tomb || r.embed != j.Text {
			continue
		}
		r.m.Embedding, r.m.EmbeddingModel, r.vectored = slices.Clone(vecs[i]), s.space.Model, true
		r.norm = vector.Norm(r.m.Embedding)
	}
	return nil
}

// SearchVectors returns the live memories of the scope matching q's filter
// whose vectors are nearest q.Vector, best cosine first. It scores every
// vector of the scope exactly: about a millisecond per few thousand
// vectors of a few hundred dimensions (see BenchmarkSearchVectors).
func (s *Store) SearchVectors(_ context.Context, sc mnemo.Scope, q mnemo.VectorQuery) ([]mnemo.VectorHit, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	now := s.filterNow(&q.Filter)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.space.Model == "" {
		return nil, nil
	}
	if len(q.Vector) != s.space.Dimension {
		return nil, mnemo.Errorf(mnemo.EMISMATCH, "a query vector of %d dimensions for a store of %d", len(q.Vector), s.space.Dimension)
	}
	d := s.scope(sc)
	if d == nil {
		return nil, nil
	}
	qn := vector.Norm(q.Vector)
	if qn == 0 {
		return nil, nil
	}
	type cand struct {
		r   *row
		sim float64
	}
	// The k best so far, worst first: a min-heap by similarity.
	k := q.Limit
	top := make([]cand, 0, k)
	worse := func(a, b cand) bool { return a.sim < b.sim || a.sim == b.sim && a.r.seq > b.r.seq }
	for _, r := range d.slots { // every live row, in a slice: faster to walk than the map
		if r == nil || !r.vectored || r.norm == 0 {
			continue
		}
		c := cand{r, float64(vector.Dot(q.Vector, r.m.Embedding)) / (qn * r.norm)}
		if len(top) == k && !worse(top[0], c) {
			continue
		}
		if !r.matches(&q.Filter, now) {
			continue
		}
		if len(top) < k {
			top = append(top, c)
			for i := len(top) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(top[i], top[p]) {
					break
				}
				top[i], top[p] = top[p], top[i]
				i = p
			}
			continue
		}
		top[0] = c
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < len(top) && worse(top[l], top[m]) {
				m = l
			}
			if l+1 < len(top) && worse(top[l+1], top[m]) {
				m = l + 1
			}
			if m == i {
				break
			}
			top[i], top[m] = top[m], top[i]
			i = m
		}
	}
	slices.SortFunc(top, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.r.seq, b.r.seq))
	})
	hits := make([]mnemo.VectorHit, len(top))
	for i, c := range top {
		hits[i] = mnemo.VectorHit{Memory: c.r.out(false), Similarity: c.sim}
	}
	return hits, nil
}
