package vector

import "golang.org/x/sys/cpu"

// useAVX2 is whether dotInt8 uses the AVX2 kernel: the CPU has it and the
// operating system saves the YMM registers.
var useAVX2 = cpu.X86.HasAVX2

// dotInt8AVX2 is the dot product of a[:n] and b[:n], n a multiple of 16.
//
//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32
