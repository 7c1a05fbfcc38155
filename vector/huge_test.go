package vector

import "testing"

// TestAdviseHuge: the advice leaves slices of any size and alignment as
// they were, and it may be given before or after they are written.
func TestAdviseHuge(t *testing.T) {
	for _, n := range []int{0, 1, 4 << 20, 5<<20 + 3} {
		s := make([]int8, n)
		adviseHuge(s)
		for i := range s {
			s[i] = int8(i)
		}
		adviseHuge(s[min(1, n):])
		for i := range s {
			if s[i] != int8(i) {
				t.Fatalf("n %d: s[%d] = %d", n, i, s[i])
			}
		}
	}
	adviseHuge(make([]uint32, 0, 3<<20))
}
