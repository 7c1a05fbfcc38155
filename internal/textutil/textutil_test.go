package textutil

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 memories"}, {1, "1 memory"}, {2, "2 memories"}, {-1, "-1 memory"}, {21, "21 memories"}} {
		if got := Count(tt.n, "memory", "memories"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
