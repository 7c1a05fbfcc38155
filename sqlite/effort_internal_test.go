package sqlite

import (
	"testing"

	"github.com/mnemo-dev/mnemo/vector"
)

// TestSearchEffort: 512 up to 200k vectors, then √n in steps of 64, 1024
// from 800k; never falling as the index grows (PERF-14).
func TestSearchEffort(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 512}, {5_000, 512}, {100_000, 512}, {200_000, 512},
		{300_000, 640}, {450_000, 768}, {800_000, 1024}, {1_000_000, 1024}, {10_000_000, 1024},
	} {
		if got := searchEffort(c.n); got != c.want {
			t.Errorf("searchEffort(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	prev := 0
	for n := 0; n <= 2_000_000; n += 1000 {
		ef := searchEffort(n)
		if ef < prev || ef%64 != 0 {
			t.Fatalf("searchEffort(%d) = %d after %d", n, ef, prev)
		}
		prev = ef
	}
}

// TestIndexEffort: with SearchEffort left 0 an index's efSearch follows its
// size, capped by the options' (tests lower it); set, it is fixed.
func TestIndexEffort(t *testing.T) {
	for _, c := range []struct {
		name   string
		effort int // Options.SearchEffort
		max    int // opts.EfSearch, if set after opening (as tests do)
		n      int
		want   int
	}{
		{"default, small", 0, 0, 1000, 512},
		{"default, 100k", 0, 0, 100_000, 512},
		{"default, 1M", 0, 0, 1_000_000, 1024},
		{"default, lowered", 0, 128, 1_000_000, 128},
		{"fixed", 256, 0, 1_000_000, 256},
		{"fixed above", 2048, 0, 1000, 2048},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newANNIndexes(t.TempDir()+"/mnemo.db", c.effort, nil)
			if c.max > 0 {
				a.opts.EfSearch = c.max
			}
			if got := a.effort(c.n); got != c.want {
				t.Errorf("effort(%d) = %d, want %d", c.n, got, c.want)
			}
		})
	}

	// followSize moves a live index's efSearch as it grows.
	a := newANNIndexes(t.TempDir()+"/mnemo.db", 0, nil)
	ix := vector.New(2, vector.Options{EfSearch: 1024})
	a.followSize(ix)
	if got := ix.Options().EfSearch; got != 512 {
		t.Errorf("empty index: efSearch %d, want 512", got)
	}
}
