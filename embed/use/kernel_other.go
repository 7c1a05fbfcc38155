//go:build !amd64

package use

// bestPath returns the portable path: only amd64 has assembly kernels.
func bestPath() path { return pathGo }

func (p path) supported() bool { return p == pathGo }

func gemmAVX2(a []float32, lda int, l *linear, c []float32, ldc int) {
	panic("use: no AVX2 kernel on this architecture")
}

// The int8 path's kernels, which only amd64 runs (see supported), are
// their portable twins here.

func qgemm(a []uint8, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	qgemmGo(a, lda, sa, zp, q, bias, c, ldc, add)
}

func qgemmSparse(p []uint32, ks []int32, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	qgemmSparseGo(p, ks, sa, zp, q, bias, c, ldc, add)
}

func qgemmWords(a []int16, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	panic("use: no AVX2 kernel on this architecture")
}

func qgemmBytes(a []uint8, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	panic("use: no AVX-VNNI kernel on this architecture")
}

func quantizeRowsBytes(a []uint8, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	panic("use: no AVX-VNNI kernel on this architecture")
}

func quantizeRowsWords(a []int16, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	panic("use: no AVX2 kernel on this architecture")
}

func packBlockVNNI(p []uint32, ks []int32, a []uint8, in int) int { return packBlock(p, ks, a, in) }

func normStats(x []float32) (mean, inv float32) { return normStatsGo(x) }

func centre(out, t, c, d []float32, mean, inv float32) { centreGo(out, t, c, d, mean, inv) }

func quantizeRowsVNNI(a []uint8, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	quantizeRows(a, sa, zp, x, rows, in, relu)
}

var vecAVX2 = vecGo
