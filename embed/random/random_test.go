package random

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.Embedder = (*Embedder)(nil)

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

func TestModel(t *testing.T) {
	tests := []struct {
		dim   int
		seed  uint64
		want  int
		model string
	}{
		{0, 0, 512, "random-512-0"},
		{8, 42, 8, "random-8-42"},
		{1536, 7, 1536, "random-1536-7"},
	}
	for _, tt := range tests {
		e := New(tt.dim, tt.seed)
		if e.Dimension() != tt.want || e.Model() != tt.model {
			t.Errorf("New(%d, %d): Dimension %d, Model %q; want %d, %q", tt.dim, tt.seed, e.Dimension(), e.Model(), tt.want, tt.model)
		}
		if v := embed(t, e, "x")[0]; len(v) != tt.want {
			t.Errorf("New(%d, %d): vector has %d components, want %d", tt.dim, tt.seed, len(v), tt.want)
		}
	}
}

func TestReproducible(t *testing.T) {
	texts := []string{"", "hello", "hello ", "你好"}
	a := embed(t, New(64, 42), texts...)
	reversed := slices.Clone(texts)
	slices.Reverse(reversed)
	b := embed(t, New(64, 42), reversed...)
	for i := range texts {
		if !slices.Equal(a[i], b[len(texts)-1-i]) {
			t.Errorf("%q: vectors differ across instances or order", texts[i])
		}
	}
}

func TestDistinct(t *testing.T) {
	vs := embed(t, New(64, 42), "hello", "hello ", "world", "")
	for i := range vs {
		var n float64
		for _, x := range vs[i] {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d: squared norm %v, want 1", i, n)
		}
		for j := i + 1; j < len(vs); j++ {
			if slices.Equal(vs[i], vs[j]) {
				t.Errorf("vectors %d and %d are equal", i, j)
			}
		}
	}
	other := embed(t, New(64, 43), "hello")[0]
	if slices.Equal(vs[0], other) {
		t.Error("different seeds gave the same vector")
	}
}
