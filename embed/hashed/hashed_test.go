package hashed

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.Embedder = (*Embedder)(nil)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func embed(t *testing.T, e *Embedder, texts ...string) [][]float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vs), len(texts))
	}
	return vs
}

func TestDimension(t *testing.T) {
	tests := []struct {
		dim, want int
		model     string
	}{
		{0, 512, "hashed-tfidf-512"},
		{-3, 512, "hashed-tfidf-512"},
		{64, 64, "hashed-tfidf-64"},
		{1536, 1536, "hashed-tfidf-1536"},
	}
	for _, tt := range tests {
		e := New(tt.dim)
		if e.Dimension() != tt.want || e.Model() != tt.model {
			t.Errorf("New(%d): Dimension %d, Model %q; want %d, %q", tt.dim, e.Dimension(), e.Model(), tt.want, tt.model)
		}
		for _, v := range embed(t, e, "hello world", "") {
			if len(v) != tt.want {
				t.Errorf("New(%d): vector has %d components, want %d", tt.dim, len(v), tt.want)
			}
		}
	}
}

func TestDeterministicAndNormalised(t *testing.T) {
	texts := []string{"The quick brown fox jumps over the lazy dog", "我喜欢用Python写代码", "a"}
	a := embed(t, New(256), texts...)
	b := embed(t, New(256), texts...)
	for i := range texts {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("%q: vectors differ between instances", texts[i])
		}
	}
	for i, v := range a[:2] {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: squared norm %v, want 1", texts[i], n)
		}
		if c := cosine(v, b[i]); math.Abs(c-1) > 1e-6 {
			t.Errorf("%q: cosine with itself %v, want 1", texts[i], c)
		}
	}
}

func TestEmpty(t *testing.T) {
	for _, text := range []string{"", "   ", "the and of", "!!!"} {
		v := embed(t, New(32), text)[0]
		if slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
			t.Errorf("%q: want the zero vector, got %v", text, v)
		}
	}
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		name             string
		query, near, far string
	}{
		{"english", "the database connection timed out", "database connection timeout errors", "my favourite colour is blue"},
		{"stems", "running the tests", "he runs tests daily", "bake a chocolate cake"},
		{"trigrams", "runner", "runners", "chocolate"},
		{"chinese", "我喜欢用Python写代码", "用Python写代码很有趣", "今天天气很好"},
		{"chinese-words", "数据库连接超时", "数据库连接失败", "晚饭吃了面条"},
	}
	e := New(512)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := embed(t, e, tt.query, tt.near, tt.far)
			for i, v := range vs {
				if !slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
					t.Fatalf("text %d: zero vector", i)
				}
			}
			near, far := cosine(vs[0], vs[1]), cosine(vs[0], vs[2])
			if near <= far {
				t.Errorf("cosine(near) = %.3f, not above cosine(far) = %.3f", near, far)
			}
			if near <= 0.1 {
				t.Errorf("cosine(near) = %.3f, want clearly positive", near)
			}
		})
	}
}

func TestTrigramOverlap(t *testing.T) {
	// Stemming leaves "running" as "run" and "runner" as "runner": without
	// trigrams they would share nothing.
	vs := embed(t, New(1024), "running", "runner", "elephant")
	if c := cosine(vs[0], vs[1]); c <= 0.05 {
		t.Errorf("cosine(running, runner) = %.3f, want some overlap", c)
	}
	if cosine(vs[0], vs[1]) <= cosine(vs[0], vs[2]) {
		t.Errorf("running is no closer to runner than to elephant")
	}
}

func TestStats(t *testing.T) {
	s := NewStats()
	if got := s.IDF("anything"); got != 1 {
		t.Errorf("empty corpus: IDF = %v, want 1", got)
	}
	e := NewWithStats(512, s)
	docs := []string{
		"memory server for agents",
		"memory store for agents",
		"memory recall for agents",
		"postgres backend",
	}
	for _, d := range docs {
		s.Add(e.Terms(d))
	}
	if s.Docs() != len(docs) {
		t.Errorf("Docs = %d, want %d", s.Docs(), len(docs))
	}
	if common, rare := s.IDF("memori"), s.IDF("postgr"); common >= rare {
		t.Errorf("IDF(common) = %v, not below IDF(rare) = %v", common, rare)
	}

	// With IDF, sharing a rare word counts for more than sharing a common
	// one: the query matches on "memory" with one text and on "postgres"
	// with the other.
	q := "memory postgres"
	withIDF := embed(t, e, q, "memory", "postgres")
	if a, b := cosine(withIDF[0], withIDF[1]), cosine(withIDF[0], withIDF[2]); a >= b {
		t.Errorf("with IDF: cosine(common) = %.3f, not below cosine(rare) = %.3f", a, b)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(0).Embed(ctx, []string{"x"}); err == nil {
		t.Error("Embed with a canceled context: want an error")
	}
}
