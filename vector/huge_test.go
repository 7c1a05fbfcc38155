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

// TestGrowChunks: the chunks grow cuts from its slabs are whole, separate
// and capped, so that no node's code or links can run into another's,
// whatever the number of chunks a slab holds.
func TestGrowChunks(t *testing.T) {
	for _, dim := range []int{1, 3, 16} {
		x := New(dim, Options{M: 2})
		const chunks = 70 // slabs of 1, 1, ..., then up to 16 chunks
		for range chunks {
			x.grow()
		}
		if len(x.codes) != chunks || len(x.fine) != chunks || len(x.links0) != chunks {
			t.Fatalf("dim %d: %d, %d, %d chunks, want %d", dim, len(x.codes), len(x.fine), len(x.links0), chunks)
		}
		for c := range chunks {
			for _, s := range []int{len(x.codes[c]), cap(x.codes[c]), len(x.fine[c]), cap(x.fine[c])} {
				if s != chunkNodes*dim {
					t.Fatalf("dim %d: chunk %d holds %d codes, want %d", dim, c, s, chunkNodes*dim)
				}
			}
			if len(x.links0[c]) != chunkNodes*(x.m0+1) || cap(x.links0[c]) != len(x.links0[c]) {
				t.Fatalf("dim %d: chunk %d holds %d/%d links", dim, c, len(x.links0[c]), cap(x.links0[c]))
			}
			for i := range x.codes[c] {
				x.codes[c][i], x.fine[c][i] = int8(c), int8(-c)
			}
			for i := range x.links0[c] {
				x.links0[c][i] = uint32(c)
			}
		}
		for c := range chunks {
			for i := range x.codes[c] {
				if x.codes[c][i] != int8(c) || x.fine[c][i] != int8(-c) {
					t.Fatalf("dim %d: chunk %d overwritten at %d", dim, c, i)
				}
			}
			for i := range x.links0[c] {
				if x.links0[c][i] != uint32(c) {
					t.Fatalf("dim %d: links chunk %d overwritten at %d", dim, c, i)
				}
			}
		}
	}
}
