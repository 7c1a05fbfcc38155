package vector

import "golang.org/x/sys/cpu"

// hasAVX2 selects the assembly dot product (issue 20, PERF-2: the build's
// and the search's one hot loop).
var hasAVX2 = cpu.X86.HasAVX2

// dotInt8 returns the dot product of two codes of equal length.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	n := 0
	var s int32
	if hasAVX2 {
		if n = len(a) &^ 31; n > 0 {
			s = dotInt8AVX2(&a[0], &b[0], n)
		}
	}
	if n < len(a) {
		s += dotInt8Go(a[n:], b[n:])
	}
	return s
}

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

//go:noescape
func prefetch(p *int8)
