package use

import (
	"slices"
	"sync/atomic"
)

// layer0 is layer 0's two projections of its input, query-key-value and
// residual, in the form that avoids a matrix product over the input (see
// project).
//
// Layer 0's input is x = 2e + s, a token's embedding e and its position's
// timing signal s. Both projections are linear in x, the query-key-value
// one after layer norm h = γ⊙(x−μ)·inv + β:
//
//	residual:  W·x + b = 2·W·e + (W·s + b)
//	qkv:       W·h + b = inv·(2·W'·e + W'·s − μ·W'·1) + (W·β + b),  W' = W·diag(γ)
//
// The terms in s are tabulated per position at load. The terms in e
// depend on the token alone: by default they are tabulated in float32 too,
// per vocabulary entry the first time a text has it: the two products are
// a large share of a bulk load's CPU (PERF-8), and a token's row is reused
// by every later text that has it. With the int8 option they go through
// the int8 kernel instead, e quantised on its own scale (the signal's
// values span ±1, far wider than the embeddings', so quantising x per
// token would lose much of e).
type layer0 struct {
	qkv, res       *qlinear  // W' and the residual's W in int8, or nil for the float tables
	qkvPos, resPos []float32 // [maxTokens][out]: W'·s, and W·s + b
	qkvMean        []float32 // W'·1, which the mean multiplies
	qkvBias        []float32 // W·β + b
	zeros          []float32 // a zero bias, 3·embedDim long

	// The float tables: W' and W without their biases, and per
	// vocabulary entry W'·e followed by W·e once a text has had it.
	qkvF, resF *linear
	tokens     []atomic.Pointer[tokenRow]
}

// qkvWidth is the width of layer 0's query-key-value projection.
const qkvWidth = 3 * embedDim

// tokenRow is one vocabulary entry's W'·e and W·e (see layer0).
type tokenRow [qkvWidth + modelDim]float32

// newLayer0 builds l's layer0, with k for the float products it tabulates,
// for vocab entries; int8 runs the token terms through the int8 kernel.
func newLayer0(l *layer, signal []float32, k kernel, vocab int, int8 bool) *layer0 {
	in := l.dim
	// W' = W·diag(γ): scale each input unit's weights.
	scaled := &linear{in: in, out: l.qkv.out, panels: make([]float32, len(l.qkv.panels)), bias: make([]float32, l.qkv.out)}
	for i, w := range l.qkv.panels {
		scaled.panels[i] = w * l.attnNormScale[i/panelWidth%in]
	}
	p := &layer0{
		qkvPos:  make([]float32, maxTokens*scaled.out),
		resPos:  make([]float32, maxTokens*modelDim),
		qkvMean: make([]float32, scaled.out),
		qkvBias: make([]float32, scaled.out),
		zeros:   make([]float32, scaled.out),
	}
	if int8 {
		p.qkv, p.res = newQLinear(scaled), newQLinear(l.residual)
	} else {
		p.qkvF = scaled
		p.resF = &linear{in: in, out: modelDim, panels: l.residual.panels, bias: p.zeros[:modelDim]}
		p.tokens = make([]atomic.Pointer[tokenRow], vocab)
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
	if m.layer0.qkv == nil {
		m.projectTables(qkv, y, x, docs, e)
		return
	}
	p := m.layer0
	const dim, width = embedDim, qkvWidth
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

// projectTables is project from the float tables, filling the rows of
// tokens no text had before. e is scratch space.
func (m *model) projectTables(qkv, y, x []float32, docs [][]int32, e []float32) {
	p := m.layer0
	m.fillTokens(docs, e)
	stats, centreRow := normStats, centre
	if m.path == pathGo {
		stats, centreRow = normStatsGo, centreGo // the portable path needs no AVX2
	}
	const dim, width = embedDim, qkvWidth
	var t [width]float32
	r := 0
	for _, ids := range docs {
		for pos, id := range ids {
			tok := p.tokens[id].Load()
			res, rp := y[r*modelDim:(r+1)*modelDim], p.resPos[pos*modelDim:(pos+1)*modelDim]
			for j, v := range tok[width:] {
				res[j] = 2*v + rp[j]
			}
			qp := p.qkvPos[pos*width : (pos+1)*width]
			for j, v := range tok[:width] {
				t[j] = 2*v + qp[j]
			}
			mean, inv := stats(x[r*dim : (r+1)*dim])
			centreRow(qkv[r*width:(r+1)*width], t[:], p.qkvMean, p.qkvBias, mean, inv)
			r++
		}
	}
}

// fillTokens tabulates W'·e and W·e for the tokens of docs that have no
// row yet, all in one product. e has room for a row per token of docs.
// Two batches may fill the same token at once: each stores the same
// values, the kernel's sums for a row not depending on the other rows.
func (m *model) fillTokens(docs [][]int32, e []float32) {
	p := m.layer0
	var ids []int32
	for _, doc := range docs {
		for _, id := range doc {
			if p.tokens[id].Load() == nil && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	const dim = embedDim
	for r, id := range ids {
		copy(e[r*dim:(r+1)*dim], m.embeddings[int(id)*dim:(int(id)+1)*dim])
	}
	n := len(ids)
	q := make([]float32, n*qkvWidth)
	res := make([]float32, n*modelDim)
	p.qkvF.apply(m.kernel, q, e, n)
	p.resF.apply(m.kernel, res, e, n)
	rows := make([]tokenRow, n)
	for r, id := range ids {
		copy(rows[r][:qkvWidth], q[r*qkvWidth:])
		copy(rows[r][qkvWidth:], res[r*modelDim:(r+1)*modelDim])
		p.tokens[id].Store(&rows[r])
	}
}

// centreGo sets out[j] = inv·(t[j] − mean·c[j]) + d[j]: the terms of
// layer 0's query-key-value projection that do not go through a matrix
// product (see layer0).
func centreGo(out, t, c, d []float32, mean, inv float32) {
	t, c, d = t[:len(out)], c[:len(out)], d[:len(out)]
	for j := range out {
		out[j] = inv*(t[j]-mean*c[j]) + d[j]
	}
}
