package vector

import (
	"math/rand/v2"
	"testing"
)

// TestVisited: the visited bits forget every mark at newEpoch, whether it
// clears the words it touched or all of them, and a search's marks never
// leak into the next.
func TestVisited(t *testing.T) {
	for _, c := range []struct {
		name   string
		nodes  int
		visits int // marks an epoch
	}{
		{"few", 10_000, 50},     // clears the touched words
		{"most", 10_000, 9_000}, // clears everything
		{"one word", 64, 64},
		{"boundaries", 1000, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(c.nodes)))
			var s searcher
			s.prepare(c.nodes)
			for epoch := range 5 {
				s.newEpoch()
				seen := make(map[uint32]bool)
				for range c.visits {
					n := uint32(r.IntN(c.nodes))
					if epoch == 3 {
						n = uint32(c.nodes - 1) // the last node, again and again
					}
					if got := s.visit(n); got != !seen[n] {
						t.Fatalf("epoch %d: visit(%d) = %v after %d marks", epoch, n, got, len(seen))
					}
					seen[n] = true
				}
			}
			s.newEpoch()
			for n := range uint32(c.nodes) {
				if !s.visit(n) {
					t.Fatalf("node %d still marked after newEpoch", n)
				}
			}
		})
	}
}
