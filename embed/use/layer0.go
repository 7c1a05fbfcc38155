package use

// layer0 is layer 0's two projections of its input, query-key-value and
// residual, in the form the int8 path runs them (see project).
//
// Layer 0's input is x = 2e + s, a token's embedding e and its position's
// timing signal s. The signal's values span ±1, far wider than the
// embeddings', so quantising x (or its layer norm) per token would lose
// much of e. Both projections are linear in x, though, the query-key-value
// one after layer norm h = γ⊙(x−μ)·inv + β:
//
//	residual:  W·x + b = 2·W·e + (W·s + b)
//	qkv:       W·h + b = inv·(2·W'·e + W'·s − μ·W'·1) + (W·β + b),  W' = W·diag(γ)
//
// The terms in s are tabulated per position at load, and only e, quantised
// on its own scale, goes through the int8 kernel, once for both.
type layer0 struct {
	qkv, res       *qlinear  // W' and the residual's W in int8
	qkvPos, resPos []float32 // [maxTokens][out]: W'·s, and W·s + b
	qkvMean        []float32 // W'·1, which the mean multiplies
	qkvBias        []float32 // W·β + b
	zeros          []float32 // a zero bias for the kernel, 3·embedDim long
}

// newLayer0 builds l's layer0, with k for the float products it tabulates.
func newLayer0(l *layer, signal []float32, k kernel) *layer0 {
	in := l.dim
	// W' = W·diag(γ): scale each input unit's weights.
	scaled := &linear{in: in, out: l.qkv.out, panels: make([]float32, len(l.qkv.panels)), bias: make([]float32, l.qkv.out)}
	for i, w := range l.qkv.panels {
		scaled.panels[i] = w * l.attnNormScale[i/panelWidth%in]
	}
	p := &layer0{
		qkv:     newQLinear(scaled),
		res:     newQLinear(l.residual),
		qkvPos:  make([]float32, maxTokens*scaled.out),
		resPos:  make([]float32, maxTokens*modelDim),
		qkvMean: make([]float32, scaled.out),
		qkvBias: make([]float32, scaled.out),
		zeros:   make([]float32, scaled.out),
	}
	scaled.apply(k, p.qkvPos, signal, maxTokens)
	l.residual.apply(k, p.resPos, signal, maxTokens)
	ones := make([]float32, in)
	for i := range ones {
		ones[i] = 1
	}
	scaled.apply(k, p.qkvMean, ones, 1)
	l.qkv.apply(k, p.qkvBias, l.attnNormBias, 1)
	return p
}

// project sets qkv and y to layer 0's query-key-value and residual
// projections of x, the tokens of docs in order. e is scratch space.
func (m *model) project(qkv, y, x []float32, docs [][]int32, e []float32, sc *scratch) {
	p := m.layer0
	const dim, width = embedDim, 3 * embedDim
	r := 0
	for _, ids := range docs {
		for pos, id := range ids {
			copy(e[r*dim:(r+1)*dim], m.embeddings[int(id)*dim:(int(id)+1)*dim])
			copy(y[r*modelDim:(r+1)*modelDim], p.resPos[pos*modelDim:(pos+1)*modelDim])
			// The layer norm's mean and scale, as layerNormGo has them.
			mean, inv := normStats(x[r*dim : (r+1)*dim])
			sc.inv[r] = inv
			centre(qkv[r*width:(r+1)*width], p.qkvPos[pos*width:(pos+1)*width], p.qkvMean, p.qkvBias, mean, inv)
			r++
		}
	}
	rows := r
	padded := (rows + blockRows - 1) / blockRows * blockRows
	quantizeRowsVNNI(sc.qa, sc.sa, sc.zp, e, rows, dim, false)
	for r := range rows {
		sc.sa[r] *= 2 // exact
	}
	for r := rows; r < padded; r++ {
		sc.sa[r], sc.zp[r], sc.inv[r] = 0, 0, 0
	}
	for r := 0; r < padded; r += blockRows {
		qgemm(sc.qa[r*dim:], dim, sc.sa[r:], sc.zp[r:], p.res, p.zeros[:modelDim], y[r*modelDim:], modelDim, true)
		var sq [blockRows]float32
		for i := range sq {
			sq[i] = sc.sa[r+i] * sc.inv[r+i]
		}
		qgemm(sc.qa[r*dim:], dim, sq[:], sc.zp[r:], p.qkv, p.zeros[:width], qkv[r*width:], width, true)
	}
}

// centreGo sets out[j] = inv·(t[j] − mean·c[j]) + d[j]: the terms of
// layer 0's query-key-value projection that do not go through the int8
// kernel (see layer0).
func centreGo(out, t, c, d []float32, mean, inv float32) {
	t, c, d = t[:len(out)], c[:len(out)], d[:len(out)]
	for j := range out {
		out[j] = inv*(t[j]-mean*c[j]) + d[j]
	}
}
