package vector

import "golang.org/x/sys/cpu"

// useAVX2 is whether dotInt8 uses the AVX2 kernel: the CPU has it and the
// operating system saves the YMM registers.
var useAVX2 = cpu.X86.HasAVX2

// dotInt8AVX2 is the dot product of a[:n] and b[:n], n a multiple of 16.
//
//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

// useFMA is whether dotFloatInt8 uses the AVX2 + FMA kernel.
var useFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotFloatInt8AVX2 is the dot product of q[:n] and c[:n], n a multiple of
// 16.
//
//go:noescape
func dotFloatInt8AVX2(q *float32, c *int8, n int) float32

// dotFloatAVX2 is the dot product of a[:n] and b[:n], n a multiple of 16;
// it runs when useFMA is set.
//
//go:noescape
func dotFloatAVX2(a, b *float32, n int) float32

// prefetch asks for the cache line at p ahead of use.
//
//go:noescape
func prefetch(p *int8)

// prefetchLines asks for every cache line of p[:n], n > 0.
//
//go:noescape
func prefetchLines(p *int8, n int)

// dotFloatInt8x2AVX2 is the dot products of q[:n] with c[:n] and with
// f[:n], n a multiple of 16.
//
//go:noescape
func dotFloatInt8x2AVX2(q *float32, c, f *int8, n int) (sc, sf float32)

// prefetch2 asks for the cache lines at p and at q.
//
//go:noescape
func prefetch2(p, q *int8)

// useVNNI is whether the int8 dot products of the graph use the AVX-512
// VNNI kernels: the CPU has AVX-512 F, BW (byte masks) and VNNI, and the
// operating system saves the ZMM registers (HasAVX512F says both).
var useVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

// dotUint8Int8VNNI is Σ (u[i]-128)·c[i] over i < n, n > 0.
//
//go:noescape
func dotUint8Int8VNNI(u *uint8, c *int8, n int) int32

// dotInt8VNNI is the dot product of a[:n] and b[:n], n > 0.
//
//go:noescape
func dotInt8VNNI(a, b *int8, n int) int32

// useAVXVNNI is whether the int8 dot products of the graph use the
// AVX-VNNI kernels, when they do not use the VNNI ones: VPDPBUSD on 256
// bits in its VEX form, which Intel's CPUs without AVX-512 have (Alder
// Lake and later).
var useAVXVNNI = cpu.X86.HasAVXVNNI && cpu.X86.HasAVX2

// dotUint8Int8AVXVNNI is Σ (a[i]-128)·c[i] over i < n, n a positive
// multiple of 32.
//
//go:noescape
func dotUint8Int8AVXVNNI(a *uint8, c *int8, n int) int32

// dotInt8AVXVNNI is the dot product of a[:n] and c[:n], n a positive
// multiple of 32.
//
//go:noescape
func dotInt8AVXVNNI(a, c *int8, n int) int32
