//go:build !amd64

package use

// bestPath returns the portable path: only amd64 has assembly kernels.
func bestPath() path { return pathGo }

func (p path) supported() bool { return p == pathGo }

func gemmAVX2(a []float32, lda int, l *linear, c []float32, ldc int) {
	panic("use: no AVX2 kernel on this architecture")
}

var (
	qgemm       = qgemmGo
	qgemmSparse = qgemmSparseGo
	normStats   = normStatsGo
	centre      = centreGo
)

func quantizeRowsVNNI(a []uint8, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	quantizeRows(a, sa, zp, x, rows, in, relu)
}

var vecAVX2 = vecGo
