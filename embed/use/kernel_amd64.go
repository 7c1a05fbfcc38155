package use

import "golang.org/x/sys/cpu"

// bestPath returns the fastest path this CPU (and operating system, which
// must save the wider registers) supports: int8 with AVX-512 VNNI, float32
// with AVX2 and FMA, or the portable Go loops.
func bestPath() path {
	switch {
	case hasVNNI():
		return pathVNNI
	case hasAVX2FMA():
		return pathAVX2
	}
	return pathGo
}

func hasAVX2FMA() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// hasVNNI reports AVX-512 with VNNI; the VNNI path also runs the float
// layers it keeps on the AVX2 kernel.
func hasVNNI() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI && hasAVX2FMA()
}

// supported reports whether p can run here.
func (p path) supported() bool {
	switch p {
	case pathVNNI:
		return hasVNNI()
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

// qgemm adds the int8 product of 4 rows of a (uint8 codes, lda bytes
// apart, with their scales and zero points) and q's weights to 4 rows of c.
func qgemm(a []uint8, lda int, sa []float32, zp []int32, q *qlinear, c []float32, ldc int) {
	// Bounds the assembly relies on, checked once here.
	_ = a[3*lda+q.in-1]
	_ = c[3*ldc+q.out-1]
	_ = sa[3]
	_ = zp[3]
	_ = q.w[q.in*q.out-1]
	gemmVNNI4x64(&a[0], lda, &q.w[0], q.in/4, q.out/qGroup, &c[0], ldc, &sa[0], &zp[0], &q.ncs[0], &q.sw[0])
}

//go:noescape
func gemm4x16(a *float32, lda int, w *float32, k int, panels int, c *float32, ldc int)

//go:noescape
func gemmVNNI4x64(a *uint8, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32)
