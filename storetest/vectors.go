package storetest

import (
	"math"
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// The vector cases run for stores that implement mnemo.VectorStore. They pin:
//
//   - A store has one vector space; setting another while vectors are
//     stored is EMISMATCH, unless reset, which drops every vector and
//     queues every memory with embed text again.
//   - A memory written with embed text and no vector (or a vector of
//     another space) is queued: Unembedded returns it until SetVectors
//     stores its vector. A vector for text the memory no longer has, or for
//     a deleted memory, is skipped.
//   - SearchVectors answers within the scope, best cosine first, with the
//     filters of Search; deleted and rewritten memories never come back
//     with a stale vector.

// VectorIndexer is implemented by a VectorStore whose vector index can be
// missing at run time (postgres on a server without pgvector): VectorIndex
// returns nil when there is one, else why not. Without one, the vector
// cases check the degraded contract instead of their own: every vector
// method fails with EUNAVAILABLE, memories with embed text are stored all
// the same, and Stats.Vectors says why there are no vectors.
type VectorIndexer interface {
	VectorIndex() error
}

// vectorStore returns s as a VectorStore, or skips the test. For a store
// without a vector index it checks the degraded contract and returns false.
func vectorStore(t *testing.T, s mnemo.Store) (mnemo.VectorStore, bool) {
	vs, ok := s.(mnemo.VectorStore)
	if !ok {
		t.Skip("not a VectorStore")
	}
	if vi, ok := s.(VectorIndexer); ok && vi.VectorIndex() != nil {
		testNoVectorIndex(t, vs)
		return nil, false
	}
	return vs, true
}

// testNoVectorIndex checks a VectorStore without a vector index.
func testNoVectorIndex(t *testing.T, s mnemo.VectorStore) {
	ctx := t.Context()
	_, err := s.VectorSpace(ctx)
	wantCode(t, "VectorSpace without a vector index", err, mnemo.EUNAVAILABLE)
	wantCode(t, "SetVectorSpace without a vector index", s.SetVectorSpace(ctx, space3, false), mnemo.EUNAVAILABLE)
	_, err = s.SearchVectors(ctx, scopeAX, mnemo.VectorQuery{Vector: []float32{1, 0, 0}, Limit: 1})
	wantCode(t, "SearchVectors without a vector index", err, mnemo.EUNAVAILABLE)
	_, err = s.Unembedded(ctx, 10)
	wantCode(t, "Unembedded without a vector index", err, mnemo.EUNAVAILABLE)
	got := write(t, s, scopeAX, embedded(scopeAX, 1, "", "stored all the same", nil))
	if m := get(t, s, scopeAX, got[0].ID); m.Content != "stored all the same" {
		t.Errorf("memory without a vector index = %q", m.Content)
	}
	if st := stats(t, s, scopeAX); st.Vectors == nil || st.Vectors.Unavailable == "" {
		t.Errorf("Stats.Vectors = %+v, want it to say why there are no vectors", st.Vectors)
	}
}

var space3 = mnemo.VectorSpace{Model: "test/axes-3", Dimension: 3}

// embedded returns memory n with embed text and, when v is not nil, its
// vector in space3.
func embedded(scope mnemo.Scope, n int, key, text string, v []float32) mnemo.Record {
	m := newMemory(scope, n, key, text)
	if v != nil {
		m.Embedding, m.EmbeddingModel = v, space3.Model
	}
	r := put(m)
	r.Embed = text
	return r
}

func setSpace(t *testing.T, s mnemo.VectorStore) {
	t.Helper()
	if err := s.SetVectorSpace(t.Context(), space3, false); err != nil {
		t.Fatalf("SetVectorSpace: %v", err)
	}
}

func queued(t *testing.T, s mnemo.VectorStore) []string {
	t.Helper()
	jobs, err := s.Unembedded(t.Context(), 100)
	if err != nil {
		t.Fatalf("Unembedded: %v", err)
	}
	var out []string
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}

func testVectorSpace(t *testing.T, store mnemo.Store) {
	s, ok := vectorStore(t, store)
	if !ok {
		return
	}
	ctx := t.Context()
	if vs, err := s.VectorSpace(ctx); err != nil || vs != (mnemo.VectorSpace{}) {
		t.Fatalf("new store: %+v %v", vs, err)
	}
	wantCode(t, "empty space", s.SetVectorSpace(ctx, mnemo.VectorSpace{}, false), mnemo.EINVALID)
	setSpace(t, s)
	setSpace(t, s) // the same again is no change
	write(t, s, scopeAX, embedded(scopeAX, 1, "", "one", []float32{1, 0, 0}))
	other := mnemo.VectorSpace{Model: "test/other-4", Dimension: 4}
	wantCode(t, "another space", s.SetVectorSpace(ctx, other, false), mnemo.EMISMATCH)
	if err := s.SetVectorSpace(ctx, other, true); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if vs, _ := s.VectorSpace(ctx); vs != other {
		t.Fatalf("space after reset = %+v", vs)
	}
	if got := queued(t, s); !slices.Equal(got, []string{id(1)}) {
		t.Fatalf("queued after reset = %v", got)
	}
	wantCode(t, "vector of the old dimension",
		s.SetVectors(ctx, []mnemo.EmbedJob{{ID: id(1), Text: "one"}}, [][]float32{{1, 0, 0}}), mnemo.EMISMATCH)
	// A reset to the same space re-embeds too: reindex keeps its word.
	if err := s.SetVectors(ctx, []mnemo.EmbedJob{{ID: id(1), Text: "one"}}, [][]float32{{1, 0, 0, 0}}); err != nil {
		t.Fatalf("SetVectors: %v", err)
	}
	if got := queued(t, s); len(got) != 0 {
		t.Fatalf("queued after SetVectors = %v", got)
	}
	if err := s.SetVectorSpace(ctx, other, true); err != nil {
		t.Fatalf("reset to the same space: %v", err)
	}
	if got := queued(t, s); !slices.Equal(got, []string{id(1)}) {
		t.Fatalf("queued after a reset to the same space = %v, want every memory", got)
	}
}

func testVectorQueue(t *testing.T, store mnemo.Store) {
	s, ok := vectorStore(t, store)
	if !ok {
		return
	}
	ctx := t.Context()
	setSpace(t, s)
	write(t, s, scopeAX,
		embedded(scopeAX, 1, "", "with vector", []float32{1, 0, 0}),
		embedded(scopeAX, 2, "/k", "needs one", nil),
		put(newMemory(scopeAX, 3, "", "no embed text")),
	)
	write(t, s, scopeBX, embedded(scopeBX, 4, "", "other tenant", nil))
	foreign := embedded(scopeAX, 5, "", "foreign vector", []float32{1, 2, 3, 4})
	foreign.Memory.EmbeddingModel = "test/other-4"
	write(t, s, scopeAX, foreign)
	if got := queued(t, s); !sameSet(got, []string{id(2), id(4), id(5)}) {
		t.Fatalf("queued = %v, want %v", got, []string{id(2), id(4), id(5)})
	}
	if n, err := s.CountUnembedded(ctx); err != nil || n != 3 {
		t.Fatalf("CountUnembedded = %d, %v", n, err)
	}
	st := stats(t, s, scopeAX)
	if st.Vectors == nil || st.Vectors.Embedded != 1 || st.Vectors.Pending != 2 || st.Vectors.Model != space3.Model {
		t.Fatalf("stats = %+v", st.Vectors)
	}

	// The memory of /k is rewritten before its vector arrives: the vector
	// of the old text is skipped, the new text stays queued.
	rewrite := embedded(scopeAX, 6, "/k", "rewritten", nil)
	rewrite.Memory.UpdatedAt = at(1)
	write(t, s, scopeAX, rewrite)
	err := s.SetVectors(ctx,
		[]mnemo.EmbedJob{{ID: id(2), Text: "needs one"}, {ID: id(4), Text: "other tenant"}, {ID: id(5), Text: "foreign vector"}},
		[][]float32{{0, 1, 0}, {0, 0, 1}, {1, 1, 0}})
	if err != nil {
		t.Fatalf("SetVectors: %v", err)
	}
	jobs, err := s.Unembedded(ctx, 10)
	if err != nil || len(jobs) != 1 || jobs[0].ID != id(2) || jobs[0].Text != "rewritten" {
		t.Fatalf("queued after SetVectors = %+v, %v", jobs, err)
	}
	if m := get(t, s, scopeBX, id(4)); m.EmbeddingModel != space3.Model || !slices.Equal(m.Embedding, []float32{0, 0, 1}) {
		t.Fatalf("stored vector = %v %q", m.Embedding, m.EmbeddingModel)
	}
	wantCode(t, "NaN vector", s.SetVectors(ctx, []mnemo.EmbedJob{jobs[0]}, [][]float32{{float32(math.NaN()), 0, 0}}), mnemo.EINVALID)
}

func testVectorSearch(t *testing.T, store mnemo.Store) {
	s, ok := vectorStore(t, store)
	if !ok {
		return
	}
	ctx := t.Context()
	setSpace(t, s)
	blue := embedded(scopeAX, 2, "", "b", []float32{0.9, 0.1, 0})
	blue.Memory.Tags = []string{"blue"}
	write(t, s, scopeAX,
		embedded(scopeAX, 1, "/a", "a", []float32{1, 0, 0}),
		blue,
		embedded(scopeAX, 3, "", "c", []float32{0, 1, 0}),
		embedded(scopeAX, 4, "", "d", []float32{-1, 0, 0}),
	)
	write(t, s, scopeAY, embedded(scopeAY, 5, "", "e", []float32{1, 0, 0}))
	search := func(scope mnemo.Scope, q mnemo.VectorQuery) []string {
		t.Helper()
		hits, err := s.SearchVectors(ctx, scope, q)
		if err != nil {
			t.Fatalf("SearchVectors: %v", err)
		}
		var out []string
		for i, h := range hits {
			out = append(out, h.Memory.ID)
			if i > 0 && h.Similarity > hits[i-1].Similarity {
				t.Fatalf("not best first: %+v", hits)
			}
		}
		return out
	}
	q := mnemo.VectorQuery{Vector: []float32{1, 0, 0}, Limit: 2}
	if got := search(scopeAX, q); !slices.Equal(got, []string{id(1), id(2)}) {
		t.Fatalf("nearest = %v", got)
	}
	q.Limit = 10
	if got := search(scopeAX, q); len(got) != 4 {
		t.Fatalf("all of the scope = %v", got)
	}
	if got := search(scopeAY, q); !slices.Equal(got, []string{id(5)}) {
		t.Fatalf("other agent = %v", got)
	}
	if got := search(scopeBX, q); len(got) != 0 {
		t.Fatalf("other tenant = %v", got)
	}
	q.Filter = mnemo.Filter{Tags: []string{"blue"}}
	if got := search(scopeAX, q); !slices.Equal(got, []string{id(2)}) {
		t.Fatalf("tag filter = %v", got)
	}
	q.Filter = mnemo.Filter{}
	wantCode(t, "wrong dimension", func() error {
		_, err := s.SearchVectors(ctx, scopeAX, mnemo.VectorQuery{Vector: []float32{1, 0}, Limit: 1})
		return err
	}(), mnemo.EMISMATCH)

	// Forget, tombstone and rewrite-without-vector all leave the index.
	if _, err := s.Forget(ctx, scopeAX, []string{id(2)}, nil); err != nil {
		t.Fatal(err)
	}
	write(t, s, scopeAX, tombstone(scopeAX, 6, "/a", at(1)))
	if got := search(scopeAX, q); !slices.Equal(got, []string{id(3), id(4)}) {
		t.Fatalf("after forget and tombstone = %v", got)
	}
	r := embedded(scopeAX, 7, "", "c", nil)
	r.Memory.ID = id(3)
	if _, err := s.Forget(ctx, scopeAX, []string{id(3)}, nil); err != nil {
		t.Fatal(err)
	}
	write(t, s, scopeAX, r) // same id, no vector yet
	if got := search(scopeAX, q); !slices.Equal(got, []string{id(4)}) {
		t.Fatalf("after rewrite without a vector = %v", got)
	}
	if _, err := s.Clear(ctx, scopeAX); err != nil {
		t.Fatal(err)
	}
	if got := search(scopeAX, q); len(got) != 0 {
		t.Fatalf("after clear = %v", got)
	}
}
