package inmem_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/inmem"
)

// Search and vector search over one agent's n memories of random words
// and random 384-dimension vectors:
//
//	go test -run '^$' -bench . ./inmem
func fill(b *testing.B, n, dim int) *inmem.Store {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.1, 2, 4999)
	s := inmem.New(inmem.Options{})
	if err := s.SetVectorSpace(b.Context(), mnemo.VectorSpace{Model: "bench", Dimension: dim}, false); err != nil {
		b.Fatal(err)
	}
	recs := make([]mnemo.Record, 0, 1000)
	for i := range n {
		words := make([]string, 20)
		for j := range words {
			words[j] = fmt.Sprintf("w%d", zipf.Uint64())
		}
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		text := strings.Join(words, " ")
		recs = append(recs, mnemo.Record{
			Memory: mnemo.Memory{Content: text, Type: "fact", Embedding: v, EmbeddingModel: "bench"},
			Index:  mnemo.IndexText{Text: text}, Embed: text,
		})
		if len(recs) == cap(recs) || i == n-1 {
			if _, err := s.Write(b.Context(), scope, recs); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	return s
}

var scope = mnemo.Scope{TenantID: "t", AgentID: "a"}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := fill(b, n, 4)
			for b.Loop() {
				if _, err := s.Search(b.Context(), scope, mnemo.TextQuery{Terms: []string{"w200", "w40"}, Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchVectors is the exact cosine scan, which the store uses
// at every size.
func BenchmarkSearchVectors(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("%d-dim384", n), func(b *testing.B) {
			s := fill(b, n, 384)
			q := make([]float32, 384)
			for i := range q {
				q[i] = float32(i%7) - 3
			}
			for b.Loop() {
				if _, err := s.SearchVectors(b.Context(), scope, mnemo.VectorQuery{Vector: q, Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
