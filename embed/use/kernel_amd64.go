package use

import (
	"math"

	"golang.org/x/sys/cpu"
)

// bestPath returns the fastest path this CPU (and operating system, which
// must save the wider registers) supports: int8 with AVX-512 VNNI, the
// same int8 products with AVX-VNNI or with AVX2 and FMA, or the portable
// Go loops.
func bestPath() path {
	switch {
	case hasVNNI():
		return pathVNNI
	case hasAVXVNNI():
		return pathAVXVNNI
	case hasAVX2FMA():
		return pathAVX2
	}
	return pathGo
}

func hasAVX2FMA() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// hasAVXVNNI reports VPDPBUSD on 256-bit registers in its VEX form
// (AVX-VNNI), besides AVX2 and FMA: Intel's CPUs since Alder Lake, which
// most have no AVX-512.
func hasAVXVNNI() bool { return cpu.X86.HasAVXVNNI && hasAVX2FMA() }

// hasVNNI reports AVX-512 with VNNI (and VL, for packBlockAVX512's
// 128-bit forms, and POPCNT); the VNNI path also runs the float layers it
// keeps, and attention, with AVX2.
func hasVNNI() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI && cpu.X86.HasPOPCNT && hasAVX2FMA()
}

// supported reports whether p can run here.
func (p path) supported() bool {
	switch p {
	case pathVNNI:
		return hasVNNI()
	case pathAVXVNNI:
		return hasAVXVNNI()
	case pathAVX2:
		return hasAVX2FMA()
	}
	return true
}

// gemmAVX2 is the kernel type's contract implemented in assembly.
func gemmAVX2(a []float32, lda int, l *linear, c []float32, ldc int) {
	in, panels := l.in, l.out/panelWidth
	// Bounds the assembly relies on, checked once here.
	_ = a[3*lda+in-1]
	_ = c[3*ldc+l.out-1]
	_ = l.panels[panels*in*panelWidth-1]
	gemm4x16(&a[0], lda, &l.panels[0], in, panels, &c[0], ldc)
}

// checkBlock checks, once, the bounds the int8 kernels' assembly relies
// on besides their codes': a block of rows of c, their scales and zero
// points, the bias and the weights.
func (q *qlinear) checkBlock(sa []float32, zp []int32, bias, c []float32, ldc int) {
	_ = c[3*ldc+q.out-1]
	_ = sa[3]
	_ = zp[3]
	_ = bias[q.out-1]
	_ = q.w[q.in*q.out-1]
}

// qgemm is qgemmGo's contract implemented with AVX-512 VNNI.
func qgemm(a []uint8, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	_ = a[3*lda+q.in-1] // bounds the assembly relies on, with checkBlock's
	q.checkBlock(sa, zp, bias, c, ldc)
	gemmVNNI4x64(&a[0], lda, &q.w[0], q.in/4, q.out/qGroup, &c[0], ldc, &sa[0], &zp[0], &q.ncs[0], &q.sw[0], &bias[0], add)
}

// qgemmSparse is qgemmSparseGo's contract implemented with AVX-512 VNNI.
func qgemmSparse(p []uint32, ks []int32, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	// Bounds the assembly relies on, checked once here.
	nk := len(ks)
	if nk > q.in/4 || len(p) < 4*nk {
		panic("use: more k-steps than inputs")
	}
	q.checkBlock(sa, zp, bias, c, ldc)
	var ks0 *int32
	var p0 *uint32
	if nk > 0 {
		ks0, p0 = &ks[0], &p[0]
		for _, off := range ks {
			if off < 0 || int(off) >= q.in*qGroup {
				panic("use: k-step out of range")
			}
		}
	}
	gemmVNNI4x64Sparse(p0, ks0, nk, &q.w[0], q.in/4, q.out/qGroup, &c[0], ldc, &sa[0], &zp[0], &q.ncs[0], &q.sw[0], &bias[0], add)
}

// qgemmWords is qgemmGo's contract implemented with AVX2, on codes widened
// to int16 (quantizeRowsWords): the same sums as qgemm's, and the same
// results to the bit.
func qgemmWords(a []int16, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	_ = a[3*lda+q.in-1] // bounds the assembly relies on, with checkBlock's
	q.checkBlock(sa, zp, bias, c, ldc)
	gemmMadd4x8(&a[0], lda, &q.w[0], q.in/4, q.out/qGroup, &c[0], ldc, &sa[0], &zp[0], &q.ncs[0], &q.sw[0], &bias[0], add)
}

// qgemmBytes is qgemmGo's contract implemented with AVX-VNNI: the same
// sums as qgemm's, and the same results to the bit.
func qgemmBytes(a []uint8, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	_ = a[3*lda+q.in-1] // bounds the assembly relies on, with checkBlock's
	q.checkBlock(sa, zp, bias, c, ldc)
	gemmDot4x16(&a[0], lda, &q.w[0], q.in/4, q.out/qGroup, &c[0], ldc, &sa[0], &zp[0], &q.ncs[0], &q.sw[0], &bias[0], add)
}

// quantizeRowsBytes is quantizeRowsVNNI with AVX2, for qgemmBytes: the
// same scales, zero points and codes.
func quantizeRowsBytes(a []uint8, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	checkWidth16(in)
	quantizeRowsWith(a, sa, zp, x, rows, in, relu, spanAVX2, quantBytes)
}

// quantizeRowsWords is quantizeRowsVNNI with AVX2, the codes widened to
// int16 for qgemmWords: the same scales, zero points and codes.
func quantizeRowsWords(a []int16, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	checkWidth16(in)
	quantizeRowsWith(a, sa, zp, x, rows, in, relu, spanAVX2, quantWords)
}

// checkWidth16 checks the row width the AVX2 quantisers rely on.
func checkWidth16(in int) {
	if in%16 != 0 {
		panic("use: int8 layer width not a multiple of 16")
	}
}

// spanAVX2 is a row's lowest and highest values (both from 0), with AVX2;
// len(row) is a multiple of 16.
func spanAVX2(row []float32) (lo, hi float32) {
	var mm [16]float32
	minMax8(&row[0], len(row), &mm)
	return lanesSpan(mm[:8], mm[8:])
}

// quantizeRowsWith is quantizeRows with span for a row's lowest and
// highest values and code for its codes, in assembly.
func quantizeRowsWith[T uint8 | int16](a []T, sa []float32, zp []int32, x []float32, rows, in int, relu bool,
	span func(row []float32) (lo, hi float32), code func(x *float32, n int, dst *T, inv, z float32)) {
	for r := range rows {
		row := x[r*in : (r+1)*in : (r+1)*in]
		out := a[r*in : (r+1)*in : (r+1)*in]
		lo, hi := span(row)
		inv, z, ok := rowCode(lo, hi, relu, &sa[r], &zp[r])
		if !ok {
			clear(out)
			continue
		}
		code(&row[0], in, &out[0], inv, z+0.5)
	}
}

// lanesSpan is the lowest of lows and the highest of highs: the bounds of
// a row from its lanes'.
func lanesSpan(lows, highs []float32) (lo, hi float32) {
	lo, hi = lows[0], highs[0]
	for i := 1; i < len(lows); i++ {
		lo, hi = min(lo, lows[i]), max(hi, highs[i])
	}
	return lo, hi
}

//go:noescape
func gemmMadd4x8(a *int16, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)

//go:noescape
func gemmDot4x16(a *uint8, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)

//go:noescape
func quantBytes(x *float32, n int, dst *uint8, inv, z float32)

//go:noescape
func minMax8(x *float32, n int, out *[16]float32)

//go:noescape
func quantWords(x *float32, n int, dst *int16, inv, z float32)

//go:noescape
func gemm4x16(a *float32, lda int, w *float32, k int, panels int, c *float32, ldc int)

//go:noescape
func gemmVNNI4x64(a *uint8, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)

//go:noescape
func gemmVNNI4x64Sparse(p *uint32, ks *int32, nk int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)

//go:noescape
func packBlockAVX512(p *uint32, ks *int32, a *uint8, in int) int

// packBlockVNNI is packBlock with AVX-512, for the VNNI path.
func packBlockVNNI(p []uint32, ks []int32, a []uint8, in int) int {
	if in%16 != 0 {
		return packBlock(p, ks, a, in)
	}
	// Bounds the assembly relies on, its whole-register stores included.
	_ = a[4*in-1]
	_ = p[in-1]
	_ = ks[in/4-1]
	return packBlockAVX512(&p[0], &ks[0], &a[0], in)
}

//go:noescape
func minMax16(x *float32, n int, out *[32]float32)

//go:noescape
func quant16(x *float32, n int, dst *uint8, inv, z float32)

// quantizeRowsVNNI is quantizeRows with AVX-512, for the VNNI path (the
// rows' widths are multiples of 16). The result is the same but for
// float rounding of the last ulp.
func quantizeRowsVNNI(a []uint8, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	quantizeRowsWith(a, sa, zp, x, rows, in, relu, func(row []float32) (lo, hi float32) {
		var mm [32]float32
		minMax16(&row[0], len(row), &mm)
		return lanesSpan(mm[:16], mm[16:])
	}, quant16)
}

//go:noescape
func wsum4AVX2(v *float32, stride, n, hd int, w *float32, wstride int, out *float32, ostride int)

//go:noescape
func scores4AVX2(q, k *float32, stride, n, hd int, out *float32, ostride int)

//go:noescape
func scoresAVX2(q, k *float32, stride, n, hd int, out *float32)

//go:noescape
func wsumAVX2(v *float32, stride, n, hd int, w *float32, out *float32)

//go:noescape
func softmaxAVX2(x *float32, n int, scale float32)

//go:noescape
func normStatsAVX2(x *float32, dim int, eps float64) (mean, inv float32)

//go:noescape
func centreAVX2(out, t, c, d *float32, n int, mean, inv float32)

// normStats is normStatsGo in assembly.
func normStats(x []float32) (mean, inv float32) {
	if len(x)%32 != 0 || len(x) == 0 {
		panic("use: layer-norm width not a multiple of 32")
	}
	return normStatsAVX2(&x[0], len(x), normEpsilon)
}

// centre is centreGo in assembly.
func centre(out, t, c, d []float32, mean, inv float32) {
	n := len(out)
	if n%8 != 0 || n == 0 {
		panic("use: width not a multiple of 8")
	}
	_, _, _ = t[n-1], c[n-1], d[n-1]
	centreAVX2(&out[0], &t[0], &c[0], &d[0], n, mean, inv)
}

//go:noescape
func layerNormAVX2(dst, src *float32, rows, dim int, scale, bias *float32, eps float64)

// vecAVX2 is attention's products and layer norm with AVX2 and FMA:
// attention a whole text's keys or values a call (head widths are 64 or
// 128), layer norm a whole batch.
var vecAVX2 = vecOps{
	scores4: func(q, k []float32, stride, hd, n int, out []float32, ostride int) {
		if hd%8 != 0 {
			panic("use: head width not a multiple of 8")
		}
		_ = q[3*stride+hd-1]
		_ = k[(n-1)*stride+hd-1]
		_ = out[3*ostride+n-1]
		if even := n &^ 1; even > 0 {
			scores4AVX2(&q[0], &k[0], stride, even, hd, &out[0], ostride)
		}
		if n%2 == 1 {
			for r := range 4 {
				scoresAVX2(&q[r*stride], &k[(n-1)*stride], stride, 1, hd, &out[r*ostride+n-1])
			}
		}
	},
	wsum4: func(v []float32, stride, hd, n int, w []float32, wstride int, out []float32, ostride int) {
		if hd%16 != 0 {
			panic("use: head width not a multiple of 16")
		}
		_ = v[(n-1)*stride+hd-1]
		_ = w[3*wstride+n-1]
		_ = out[3*ostride+hd-1]
		wsum4AVX2(&v[0], stride, n, hd, &w[0], wstride, &out[0], ostride)
	},
	scores: func(q, k []float32, stride, n int, out []float32) {
		hd := len(q)
		if hd%16 != 0 {
			panic("use: head width not a multiple of 16")
		}
		_ = k[(n-1)*stride+hd-1]
		_ = out[n-1]
		scoresAVX2(&q[0], &k[0], stride, n, hd, &out[0])
	},
	wsum: func(v []float32, stride, n int, w, out []float32) {
		hd := len(out)
		if hd%64 != 0 {
			panic("use: head width not a multiple of 64")
		}
		_ = v[(n-1)*stride+hd-1]
		_ = w[n-1]
		wsumAVX2(&v[0], stride, n, hd, &w[0], &out[0])
	},
	softmax: func(x []float32, scale float32) {
		// Pad to whole registers with -Inf, whose weight is 0; x has
		// room (attention's buffer is maxTokens long, a multiple of 8).
		n := len(x)
		x = x[:(n+7)&^7]
		for j := n; j < len(x); j++ {
			x[j] = float32(math.Inf(-1))
		}
		softmaxAVX2(&x[0], len(x), scale)
	},
	norm: func(dst, src []float32, dim int, scale, bias []float32) {
		rows := len(src) / dim
		if rows == 0 {
			return
		}
		_ = dst[rows*dim-1]
		_ = scale[dim-1]
		_ = bias[dim-1]
		layerNormAVX2(&dst[0], &src[0], rows, dim, &scale[0], &bias[0], normEpsilon)
	},
}
