package vector

import "math"

// Norm returns the Euclidean length of v, its squares summed in float64.
func Norm(v []float32) float64 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
}

// Dot64 returns the dot product of two vectors of equal length, summed in
// float64: the exact scans' scores, where Dot's float32 sums are finer
// than needed but would order near ties differently.
func Dot64(a, b []float32) float64 {
	b = b[:len(a)]
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// norm is Norm, or 0 if v has no finite, non-zero length (a zero vector,
// or one holding NaN or ±Inf).
func norm(v []float32) float64 {
	n := Norm(v)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0
	}
	return n
}

// quantize writes the symmetric int8 code of v/n into dst and returns the
// scale that maps the code back: v[i]/n ≈ scale*dst[i]. The scale is chosen
// per vector from its largest component, so no component clips and small
// vectors keep their full 8 bits.
func quantize(dst []int8, v []float32, n float64) float32 {
	var maxAbs float64
	for _, f := range v {
		if a := math.Abs(float64(f)); a > maxAbs {
			maxAbs = a
		}
	}
	inv := 127 / maxAbs
	for i, f := range v {
		q := math.Round(float64(f) * inv)
		dst[i] = int8(max(-127, min(127, q)))
	}
	return float32(maxAbs / 127 / n)
}

// dotInt8 returns the dot product of two codes of equal length. The loop is
// unrolled by eight into four accumulators so that the adds do not form one
// long dependency chain; it runs at roughly half a nanosecond per component
// on amd64 without assembly.
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		s0 += int32(aa[0])*int32(bb[0]) + int32(aa[4])*int32(bb[4])
		s1 += int32(aa[1])*int32(bb[1]) + int32(aa[5])*int32(bb[5])
		s2 += int32(aa[2])*int32(bb[2]) + int32(aa[6])*int32(bb[6])
		s3 += int32(aa[3])*int32(bb[3]) + int32(aa[7])*int32(bb[7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// dotFloatInt8 returns the dot product of a float query with a code. It is
// used where the result must be exact under the quantised vectors: exact
// scans and the final reranking of graph candidates.
func dotFloatInt8(q []float32, c []int8) float32 {
	c = c[:len(q)]
	if useFMA && len(q) >= 16 {
		// AVX2 + FMA, 16 components a step: the reranking of ef
		// candidates is a visible share of a recall's CPU (PERF-2). Sums
		// in another order: within float rounding of the loop below.
		n := len(q) &^ 15
		s := dotFloatInt8AVX2(&q[0], &c[0], n)
		for i := n; i < len(q); i++ {
			s += q[i] * float32(c[i])
		}
		return s
	}
	return dotFloatInt8Go(q, c)
}

// dotFloatInt8x2 returns the dot products of a float query with two codes,
// as two calls of dotFloatInt8 would, reading the query once.
func dotFloatInt8x2(q []float32, c, f []int8) (float32, float32) {
	c, f = c[:len(q)], f[:len(q)]
	if useFMA && len(q) >= 16 {
		n := len(q) &^ 15
		sc, sf := dotFloatInt8x2AVX2(&q[0], &c[0], &f[0], n)
		for i := n; i < len(q); i++ {
			sc += q[i] * float32(c[i])
			sf += q[i] * float32(f[i])
		}
		return sc, sf
	}
	return dotFloatInt8Go(q, c), dotFloatInt8Go(q, f)
}

func dotFloatInt8Go(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		qq := q[i : i+4 : i+4]
		cc := c[i : i+4 : i+4]
		s0 += qq[0] * float32(cc[0])
		s1 += qq[1] * float32(cc[1])
		s2 += qq[2] * float32(cc[2])
		s3 += qq[3] * float32(cc[3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return s0 + s1 + s2 + s3
}

// Dot returns the dot product of two float vectors of equal length: with
// AVX2 + FMA (amd64, chosen by CPU feature), sixteen components a loop,
// else the portable loop. Of two unit vectors it is their cosine; the
// SQLite store scores the vectors its index has not inserted yet with it.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	if useFMA && len(a) >= 16 {
		// Sums in another order than the loop below: within float
		// rounding of it.
		n := len(a) &^ 15
		s := dotFloatAVX2(&a[0], &b[0], n)
		for i := n; i < len(a); i++ {
			s += a[i] * b[i]
		}
		return s
	}
	return dotFloatGo(a, b)
}

func dotFloatGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa := a[i : i+4 : i+4]
		bb := b[i : i+4 : i+4]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// encode writes the two-stage code of v/n: code is its int8 quantisation
// and fine the int8 quantisation of what code misses, so that
// v/n ≈ scale*code + fineScale*fine. The graph walks on code alone; the
// final ranking adds fine, which brings scores to within about 1e-5 of the
// float ones.
func encode(code, fine []int8, v []float32, n float64) (scale, fineScale float32) {
	scale = quantize(code, v, n)
	s := float64(scale)
	var maxAbs float64
	for i, f := range v {
		maxAbs = max(maxAbs, math.Abs(float64(f)/n-s*float64(code[i])))
	}
	if maxAbs == 0 {
		clear(fine)
		return scale, 0
	}
	inv := 127 / maxAbs
	for i, f := range v {
		q := math.Round((float64(f)/n - s*float64(code[i])) * inv)
		fine[i] = int8(max(-127, min(127, q)))
	}
	return scale, float32(maxAbs / 127)
}

// dotInt8 returns the dot product of two codes: with AVX-512 VNNI or AVX2
// (amd64, chosen by CPU feature), else the portable loop. The graph search
// and build spend most of their time here, a large share of a hybrid
// recall's CPU (PERF-2, PERF-12). The VNNI kernel takes 64 components an
// instruction pair.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	if useVNNI && len(a) > 0 {
		return dotInt8VNNI(&a[0], &b[0], len(a))
	}
	if useAVXVNNI {
		return dotInt8AVXVNNIGo(a, b)
	}
	return dotInt8AVX2Go(a, b)
}

// dotInt8AVXVNNIGo is dotInt8 with the AVX-VNNI kernel, the last len(a)
// mod 32 components in Go.
func dotInt8AVXVNNIGo(a, b []int8) int32 {
	b = b[:len(a)]
	n := len(a) &^ 31
	var s int32
	if n > 0 {
		s = dotInt8AVXVNNI(&a[0], &b[0], n)
	}
	for i := n; i < len(a); i++ {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}

// dotUint8Int8AVXVNNIGo is Σ (u[i]-128)·c[i] with the AVX-VNNI kernel,
// the last len(u) mod 32 components in Go.
func dotUint8Int8AVXVNNIGo(u []uint8, c []int8) int32 {
	c = c[:len(u)]
	n := len(u) &^ 31
	var s int32
	if n > 0 {
		s = dotUint8Int8AVXVNNI(&u[0], &c[0], n)
	}
	for i := n; i < len(u); i++ {
		s += (int32(u[i]) - 128) * int32(c[i])
	}
	return s
}

// dotInt8AVX2Go is dotInt8 without the VNNI kernel.
func dotInt8AVX2Go(a, b []int8) int32 {
	b = b[:len(a)]
	if !useAVX2 || len(a) < 16 {
		return dotInt8Go(a, b)
	}
	n := len(a) &^ 15
	s := dotInt8AVX2(&a[0], &b[0], n)
	for i := n; i < len(a); i++ {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}
