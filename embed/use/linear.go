package use

// panelWidth is the number of output units a matmul kernel computes at once.
// Every output width of the model (256, 512, 768, 1536) is a multiple.
const panelWidth = 16

// blockRows is the number of input rows a kernel call handles together, so
// that each weight it loads is used blockRows times.
const blockRows = 4

// linear is a dense layer y = x·W + b.
//
// W is stored in panels of panelWidth output units: panel p holds, for each
// input unit i in order, the panelWidth weights from i to outputs
// p*panelWidth ... p*panelWidth+15. A kernel walking a panel then reads
// memory strictly in sequence, whatever the layer's width.
type linear struct {
	in, out int
	panels  []float32 // [out/panelWidth][in][panelWidth]
	bias    []float32 // [out]
	q       *qlinear  // the int8 form, on the int8 path only
}

// newLinear packs wt, the weights as [out][in] (one row per output unit).
func newLinear(wt, bias []float32, out, in int) *linear {
	l := &linear{in: in, out: out, bias: bias, panels: make([]float32, out*in)}
	for o := range out {
		panel := l.panels[(o/panelWidth)*in*panelWidth:]
		for i := range in {
			panel[i*panelWidth+o%panelWidth] = wt[o*in+i]
		}
	}
	return l
}

// kernel adds a·W to c for blockRows rows: for each row r and output j,
//
//	c[r*ldc+j] += Σ_i a[r*lda+i] * W[i][j]
//
// with W given as l.panels. It is the one hot loop of the model; gemmAVX2
// does the same with AVX2 and FMA instructions where the CPU has them.
type kernel func(a []float32, lda int, l *linear, c []float32, ldc int)

// apply sets y = x·W + b for rows rows of x ([rows][l.in]) into y
// ([rows][l.out]).
func (l *linear) apply(k kernel, y, x []float32, rows int) {
	for r := range rows {
		copy(y[r*l.out:(r+1)*l.out], l.bias)
	}
	l.accumulate(k, y, x, rows)
}

// applyAdd adds x·W + b to y: the layer and its residual connection in one
// pass.
func (l *linear) applyAdd(k kernel, y, x []float32, rows int) {
	for r := range rows {
		row := y[r*l.out : (r+1)*l.out]
		for j, b := range l.bias {
			row[j] += b
		}
	}
	l.accumulate(k, y, x, rows)
}

func (l *linear) accumulate(k kernel, y, x []float32, rows int) {
	full := rows - rows%blockRows
	for r := 0; r < full; r += blockRows {
		k(x[r*l.in:], l.in, l, y[r*l.out:], l.out)
	}
	if full == rows {
		return
	}
	// The last rows go through zero-padded copies, so kernels only ever
	// see whole blocks.
	var a [blockRows * ffnDim]float32
	var c [blockRows * ffnDim]float32
	n := rows - full
	copy(a[:n*l.in], x[full*l.in:rows*l.in])
	copy(c[:n*l.out], y[full*l.out:rows*l.out])
	k(a[:], l.in, l, c[:], l.out)
	copy(y[full*l.out:rows*l.out], c[:n*l.out])
}

// gemmGo is the portable kernel.
func gemmGo(a []float32, lda int, l *linear, c []float32, ldc int) {
	in := l.in
	a0, a1, a2, a3 := a[:in], a[lda:lda+in], a[2*lda:2*lda+in], a[3*lda:3*lda+in]
	for p := 0; p < l.out/panelWidth; p++ {
		panel := l.panels[p*in*panelWidth : (p+1)*in*panelWidth]
		col := p * panelWidth
		for r, ar := range [blockRows][]float32{a0, a1, a2, a3} {
			var acc [panelWidth]float32
			for i, x := range ar {
				if x == 0 {
					continue
				}
				w := panel[i*panelWidth : i*panelWidth+panelWidth : i*panelWidth+panelWidth]
				acc[0] += x * w[0]
				acc[1] += x * w[1]
				acc[2] += x * w[2]
				acc[3] += x * w[3]
				acc[4] += x * w[4]
				acc[5] += x * w[5]
				acc[6] += x * w[6]
				acc[7] += x * w[7]
				acc[8] += x * w[8]
				acc[9] += x * w[9]
				acc[10] += x * w[10]
				acc[11] += x * w[11]
				acc[12] += x * w[12]
				acc[13] += x * w[13]
				acc[14] += x * w[14]
				acc[15] += x * w[15]
			}
			out := c[r*ldc+col : r*ldc+col+panelWidth]
			for j := range out {
				out[j] += acc[j]
			}
		}
	}
}
