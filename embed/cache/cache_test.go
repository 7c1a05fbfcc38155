package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.Embedder = (*Cache)(nil)

// counting stands in for a provider: it maps a text to a one-component
// vector holding its length and records every call.
type counting struct {
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (f *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, slices.Clone(texts))
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t))}
	}
	return out, nil
}

func (f *counting) Dimension() int { return 1 }
func (f *counting) Model() string  { return "counting" }

func (f *counting) Calls() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func TestEmbed(t *testing.T) {
	steps := []struct {
		texts      []string
		wantInner  []string // nil: no inner call
		wantHits   uint64
		wantMisses uint64
	}{
		{[]string{"a", "bb"}, []string{"a", "bb"}, 0, 2},
		{[]string{"bb", "ccc", "a"}, []string{"ccc"}, 2, 3},
		{[]string{"a", "bb", "ccc"}, nil, 5, 3},
		{[]string{"dddd", "dddd", "a"}, []string{"dddd"}, 7, 4},
		{nil, nil, 7, 4},
	}
	inner := &counting{}
	c := New(inner, 10)
	for i, s := range steps {
		before := len(inner.Calls())
		got, err := c.Embed(context.Background(), s.texts)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		for j, text := range s.texts {
			if len(got[j]) != 1 || got[j][0] != float32(len(text)) {
				t.Errorf("step %d: vector %d for %q is %v", i, j, text, got[j])
			}
		}
		calls := inner.Calls()[before:]
		switch {
		case s.wantInner == nil && len(calls) != 0:
			t.Errorf("step %d: inner called with %v, want no call", i, calls)
		case s.wantInner != nil && (len(calls) != 1 || !slices.Equal(calls[0], s.wantInner)):
			t.Errorf("step %d: inner calls %v, want one with %v", i, calls, s.wantInner)
		}
		if h, m := c.Stats(); h != s.wantHits || m != s.wantMisses {
			t.Errorf("step %d: Stats = %d, %d; want %d, %d", i, h, m, s.wantHits, s.wantMisses)
		}
	}
	if got, want := c.HitRate(), 7.0/11; got != want {
		t.Errorf("HitRate = %v, want %v", got, want)
	}
	if c.Dimension() != 1 || c.Model() != "counting" {
		t.Errorf("Dimension, Model = %d, %q; want the inner's", c.Dimension(), c.Model())
	}
}

func TestEviction(t *testing.T) {
	inner := &counting{}
	c := New(inner, 2)
	ctx := context.Background()
	for _, texts := range [][]string{{"a"}, {"b"}, {"a"}, {"c"}} { // "b" is least recently used when "c" arrives
		if _, err := c.Embed(ctx, texts); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
	tests := []struct {
		text   string
		cached bool
	}{
		{"a", true},
		{"c", true},
		{"b", false},
	}
	for _, tt := range tests {
		n := len(inner.Calls())
		if _, err := c.Embed(ctx, []string{tt.text}); err != nil {
			t.Fatal(err)
		}
		if cached := len(inner.Calls()) == n; cached != tt.cached {
			t.Errorf("%q: cached = %v, want %v", tt.text, cached, tt.cached)
		}
	}
}

func TestDefaultSize(t *testing.T) {
	if c := New(&counting{}, 0); c.size != DefaultSize {
		t.Errorf("size = %d, want %d", c.size, DefaultSize)
	}
}

func TestCopies(t *testing.T) {
	c := New(&counting{}, 10)
	ctx := context.Background()
	v, _ := c.Embed(ctx, []string{"abc"})
	v[0][0] = 99
	w, _ := c.Embed(ctx, []string{"abc"})
	if w[0][0] != 3 {
		t.Errorf("modifying a returned vector changed the cache: got %v", w[0])
	}
}

func TestInnerError(t *testing.T) {
	boom := errors.New("provider down")
	inner := &counting{err: boom}
	c := New(inner, 10)
	ctx := context.Background()
	if _, err := c.Embed(ctx, []string{"a"}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if c.Len() != 0 {
		t.Errorf("Len = %d after an error, want 0", c.Len())
	}
	inner.mu.Lock()
	inner.err = nil
	inner.mu.Unlock()
	got, err := c.Embed(ctx, []string{"a"})
	if err != nil || got[0][0] != 1 {
		t.Fatalf("after recovery: %v, %v", got, err)
	}
	if n := len(inner.Calls()); n != 2 {
		t.Errorf("inner called %d times, want 2: the failure must not be cached", n)
	}
}

// short returns one vector too few, a broken provider.
type short struct{ counting }

func (s *short) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := s.counting.Embed(ctx, texts)
	return v[1:], err
}

func TestInnerShort(t *testing.T) {
	c := New(&short{}, 10)
	_, err := c.Embed(context.Background(), []string{"a", "b"})
	if mnemo.ErrorCode(err) != mnemo.EINTERNAL {
		t.Errorf("err = %v, want an %s error", err, mnemo.EINTERNAL)
	}
	if c.Len() != 0 {
		t.Errorf("Len = %d, want 0", c.Len())
	}
}

func TestConcurrent(t *testing.T) {
	inner := &counting{}
	c := New(inner, 16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				text := key(i%32, g)
				v, err := c.Embed(context.Background(), []string{text, "shared"})
				if err != nil {
					t.Error(err)
					return
				}
				if v[0][0] != float32(len(text)) || v[1][0] != 6 {
					t.Errorf("wrong vectors %v for %q", v, text)
					return
				}
			}
		})
	}
	wg.Wait()
	h, m := c.Stats()
	if h+m != 8*200*2 {
		t.Errorf("hits + misses = %d, want %d", h+m, 8*200*2)
	}
	if c.Len() > 16 {
		t.Errorf("Len = %d, over the size 16", c.Len())
	}
}

// key makes texts of varying length that several goroutines share.
func key(i, g int) string { return fmt.Sprintf("%0*d", 1+i%7, i+g%2) }
