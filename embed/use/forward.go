package use

import "math"

// model is everything Embed needs, built once by load and read-only after.
type model struct {
	*weights
	tok    *tokenizer
	path   path
	kernel kernel    // the float32 kernel of path
	vec    vecOps    // attention's products, softmax and layer norm for path
	signal []float32 // [maxTokens][embedDim] the timing signal, computed once

	layer0 *layer0 // layer 0's projections of its input
}

// timingSignal tabulates the sinusoidal timing signal of every position:
// sines of the position times each inverse timescale, then cosines.
func timingSignal(timing []float32) []float32 {
	sig := make([]float32, maxTokens*embedDim)
	for pos := range maxTokens {
		row := sig[pos*embedDim : (pos+1)*embedDim]
		for i, inv := range timing {
			angle := float64(float32(pos) * inv)
			row[i] = float32(math.Sin(angle))
			row[numTimings+i] = float32(math.Cos(angle))
		}
	}
	return sig
}

// span locates one text's tokens among the rows of a batch.
type span struct{ start, n int }

// forward embeds a batch of tokenised texts, one unit vector per text.
func (m *model) forward(docs [][]int32) [][]float32 {
	windows, of := split(docs)
	return m.vectors(docs, windows, of, m.tokenSums(windows))
}

// split cuts texts longer than the model reads into windows of maxTokens,
// each attending within itself; of is the text of each window.
func split(docs [][]int32) (windows [][]int32, of []int) {
	for d, ids := range docs {
		for s := 0; s < len(ids); s += maxTokens {
			windows = append(windows, ids[s:min(s+maxTokens, len(ids))])
			of = append(of, d)
		}
	}
	return windows, of
}

// vectors makes each text's vector from the token sums of its windows: the
// mean over all its tokens (finish).
func (m *model) vectors(docs, windows [][]int32, of []int, sums [][]float32) [][]float32 {
	textSums := make([][]float32, len(docs))
	n := make([]int, len(docs))
	for w, sum := range sums {
		d := of[w]
		if textSums[d] == nil {
			textSums[d] = sum
		} else {
			for j, v := range sum {
				textSums[d][j] += v
			}
		}
		n[d] += len(windows[w])
	}
	return m.finish(textSums, n)
}

// tokenSums runs the transformer over a batch of tokenised texts of at
// most maxTokens tokens each, and returns each text's sum of its tokens'
// output rows.
//
// The TF.js graph pads the batch into a [texts][longest][width] tensor and
// masks the padding out of attention and pooling. Here the tokens of all
// texts are stacked instead, [tokens][width] with no padding: the dense
// layers run over every token of the batch at once, and only attention and
// pooling look at text boundaries. Masked positions contribute exactly zero
// in the graph, so the results agree.
func (m *model) tokenSums(docs [][]int32) [][]float32 {
	spans := make([]span, len(docs))
	rows := 0
	for i, ids := range docs {
		spans[i] = span{rows, len(ids)}
		rows += len(ids)
	}

	// Buffers have room for whole blocks of rows: the int8 kernel runs on
	// padded rows (whatever they hold is finite and never read back).
	padded := (rows + blockRows - 1) / blockRows * blockRows
	sc := getScratch(padded)
	defer scratchPool.Put(sc)
	f := sc.f
	x := take(&f, padded*embedDim)
	m.embed(x, docs)
	h := take(&f, padded*modelDim)     // layer-norm output
	qkv := take(&f, padded*3*modelDim) // queries, keys, values
	att := take(&f, padded*modelDim)   // attention output, heads concatenated
	ffn := take(&f, padded*ffnDim)     // feed-forward hidden units
	y0 := take(&f, padded*modelDim)    // residual stream after layer 0
	y1 := take(&f, padded*modelDim)    // ... and after layer 1
	projected := m.layer0 != nil
	if projected {
		m.project(qkv, y0, x, docs, h, sc)
	}
	m.layer(&m.layers[0], y0, x, rows, spans, h, qkv, att, ffn, sc, projected)
	m.layer(&m.layers[1], y1, y0, rows, spans, h, qkv, att, ffn, sc, false)

	sums := make([][]float32, len(docs))
	for d, s := range spans {
		sum := make([]float32, modelDim)
		for r := s.start; r < s.start+s.n; r++ {
			for j, v := range y1[r*modelDim : (r+1)*modelDim] {
				sum[j] += v
			}
		}
		sums[d] = sum
	}
	return sums
}

// finish makes each text's vector from the sum of its tokens' output rows
// (nil for a text with no tokens, which pools to zeros) over its n tokens:
// their mean, the pooling layer, tanh and unit length.
func (m *model) finish(sums [][]float32, n []int) [][]float32 {
	pooled := make([]float32, len(sums)*modelDim)
	for d, sum := range sums {
		if sum == nil {
			continue
		}
		dst := pooled[d*modelDim : (d+1)*modelDim]
		inv := 1 / float32(max(n[d], 1))
		for j, v := range sum {
			dst[j] = v * inv
		}
	}

	out := make([]float32, len(sums)*modelDim)
	m.pool.apply(m.kernel, out, pooled, len(sums)) // float32 on every path: once per text
	vecs := make([][]float32, len(sums))
	for d := range sums {
		v := out[d*modelDim : (d+1)*modelDim : (d+1)*modelDim]
		var sum float64
		for j, x := range v {
			t := float32(math.Tanh(float64(x)))
			v[j] = t
			sum += float64(t) * float64(t)
		}
		inv := float32(1 / math.Sqrt(max(sum, l2Epsilon)))
		for j := range v {
			v[j] *= inv
		}
		vecs[d] = v
	}
	return vecs
}

// embed writes the input of layer 0 for every token: twice its embedding
// plus the sinusoidal timing signal of its position. "Twice" is the graph's:
// it adds the timing signal to a copy of the embeddings and then adds the
// result back onto the embeddings.
func (m *model) embed(x []float32, docs [][]int32) {
	r := 0
	for _, ids := range docs {
		for pos, id := range ids {
			row := x[r*embedDim : (r+1)*embedDim]
			e := m.embeddings[int(id)*embedDim : (int(id)+1)*embedDim]
			sig := m.signal[pos*embedDim : (pos+1)*embedDim]
			for i := range row {
				row[i] = 2*e[i] + sig[i]
			}
			r++
		}
	}
}

// layer runs one pre-norm transformer layer from x (l.dim wide) into y
// (modelDim wide):
//
//	y = residual(x) + attention(norm(x))
//	y = y + ffn2(relu(ffn1(norm(y))))
//
// h, qkv, att and ffn are scratch space.
func (m *model) layer(l *layer, y, x []float32, rows int, spans []span, h, qkv, att, ffn []float32, sc *scratch, projected bool) {
	dim := l.dim
	if !projected {
		h = h[:rows*dim]
		m.vec.norm(h, x[:rows*dim], dim, l.attnNormScale, l.attnNormBias)
		m.apply(l.qkv, qkv, h, rows, sc)
	}
	attention(att, qkv, dim, spans, m.vec)

	switch {
	case projected:
		// project has set y.
	case l.residual != nil:
		m.apply(l.residual, y, x, rows, sc)
	default:
		copy(y[:rows*modelDim], x[:rows*modelDim])
	}
	m.applyAdd(l.attnOut, y, att, rows, sc)

	h = h[:rows*modelDim]
	m.vec.norm(h, y[:rows*modelDim], modelDim, l.ffnNormScale, l.ffnNormBias)
	m.apply(l.ffn1, ffn, h, rows, sc)
	if l.ffn2.q != nil {
		// The int8 path applies the ReLU as it quantises.
		m.quantised(l.ffn2, y, ffn, rows, sc, true, true)
		return
	}
	for i, v := range ffn[:rows*ffnDim] {
		ffn[i] = max(v, 0)
	}
	m.applyAdd(l.ffn2, y, ffn, rows, sc)
}

// apply sets y = x·W + b for rows rows, with the layer's int8 form when
// the path has one for it. y and x have room for rows rounded up to a
// whole block.
func (m *model) apply(l *linear, y, x []float32, rows int, sc *scratch) {
	if l.q != nil {
		m.quantised(l, y, x, rows, sc, false, false)
		return
	}
	l.apply(m.kernel, y, x, rows)
}

// applyAdd adds x·W + b to y: the layer and its residual connection.
func (m *model) applyAdd(l *linear, y, x []float32, rows int, sc *scratch) {
	if l.q != nil {
		m.quantised(l, y, x, rows, sc, false, true)
		return
	}
	l.applyAdd(m.kernel, y, x, rows)
}

// quantised sets y to x·W + b with l's int8 form, or adds that to y if
// add is set; x goes through a ReLU first if relu is set. The kernel writes
// the bias as it stores each result: a pass over y beforehand would miss
// the cache at a batch's size.
func (m *model) quantised(l *linear, y, x []float32, rows int, sc *scratch, relu, add bool) {
	// Rows past rows get a zero scale: their products are zero.
	padded := (rows + blockRows - 1) / blockRows * blockRows
	switch m.path {
	case pathAVX2:
		// The same codes, widened to int16 for VPMADDWD. Every k-step:
		// skipping the ReLU's zero ones (as the VNNI path does) saved
		// less here than listing them cost.
		if n := padded * l.in; cap(sc.qw) < n {
			sc.qw = make([]int16, n)
		}
		quantisedDense(sc.qw, l, y, x, rows, padded, sc, relu, add, quantizeRowsWords, qgemmWords)
		return
	case pathAVXVNNI:
		// Every k-step, as on AVX2.
		quantisedDense(sc.qa, l, y, x, rows, padded, sc, relu, add, quantizeRowsBytes, qgemmBytes)
		return
	}
	quantizeRowsVNNI(sc.qa, sc.sa, sc.zp, x, rows, l.in, relu)
	for r := rows; r < padded; r++ {
		sc.sa[r], sc.zp[r] = 0, 0
	}
	for r := 0; r < padded; r += blockRows {
		if relu {
			// About 9 in 10 codes are 0 after the ReLU: skip the
			// k-steps where all four rows' are.
			nk := packBlockVNNI(sc.pk, sc.ks, sc.qa[r*l.in:], l.in)
			qgemmSparse(sc.pk, sc.ks[:nk], sc.sa[r:], sc.zp[r:], l.q, l.bias, y[r*l.out:], l.out, add)
			continue
		}
		qgemm(sc.qa[r*l.in:], l.in, sc.sa[r:], sc.zp[r:], l.q, l.bias, y[r*l.out:], l.out, add)
	}
}

// quantisedDense is quantised on every k-step, with codes of type T made
// by quantize and multiplied by gemm: the AVX2 and AVX-VNNI paths. rows
// past rows up to padded get a zero scale.
func quantisedDense[T uint8 | int16](codes []T, l *linear, y, x []float32, rows, padded int, sc *scratch, relu, add bool,
	quantize func(a []T, sa []float32, zp []int32, x []float32, rows, in int, relu bool),
	gemm func(a []T, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool)) {
	quantize(codes, sc.sa, sc.zp, x, rows, l.in, relu)
	for r := rows; r < padded; r++ {
		sc.sa[r], sc.zp[r] = 0, 0
	}
	for r := 0; r < padded; r += blockRows {
		gemm(codes[r*l.in:], l.in, sc.sa[r:], sc.zp[r:], l.q, l.bias, y[r*l.out:], l.out, add)
	}
}

// layerNormGo normalises each dim-wide row of src to zero mean and unit
// variance, then scales and shifts it. dim must be a multiple of 32. The
// conversions to float32 keep the compiler from fusing a multiply and an
// add, so that layerNormAVX2 gets the same result to the bit.
func layerNormGo(dst, src []float32, dim int, scale, bias []float32) {
	for r := 0; r < len(src)/dim; r++ {
		in := src[r*dim : (r+1)*dim : (r+1)*dim]
		out := dst[r*dim : (r+1)*dim : (r+1)*dim]
		mean, inv := normStatsGo(in)
		for i, v := range in {
			out[i] = float32(scale[i]*inv*(v-mean)) + bias[i]
		}
	}
}

// normStatsGo returns the mean of x and the inverse of its standard
// deviation (with normEpsilon added to the variance), as layer norm uses
// them.
func normStatsGo(x []float32) (mean, inv float32) {
	dim := len(x)
	mean = laneSum(x, 0, false) / float32(dim)
	sq := laneSum(x, mean, true)
	inv = float32(1 / math.Sqrt(float64(sq)/float64(dim)+normEpsilon))
	return mean, inv
}

// laneSum returns the sum of x (a multiple of 32 long), or with sq set the
// sum of (x[i]-mean)², in the order of four 8-lane vector registers: 32
// independent partial sums, which pipeline where one chain would not,
// combined register by register and then lane by lane.
func laneSum(x []float32, mean float32, sq bool) float32 {
	var s [32]float32
	for i := 0; i+32 <= len(x); i += 32 {
		for k, v := range x[i : i+32 : i+32] {
			if sq {
				d := v - mean
				v = float32(d * d)
			}
			s[k] += v
		}
	}
	var t [8]float32
	for k := range t {
		t[k] = (s[k] + s[k+8]) + (s[k+16] + s[k+24])
	}
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
}

// attention computes multi-head scaled dot-product attention within each
// span. qkv holds each token's queries, keys and values side by side (each
// dim wide, numHeads heads of dim/numHeads); att receives the heads' outputs
// concatenated.
func attention(att, qkv []float32, dim int, spans []span, v vecOps) {
	headDim := dim / numHeads
	scale := float32(1 / math.Sqrt(float64(headDim)))
	stride := 3 * dim
	w := make([]float32, 4*maxTokens)
	for _, s := range spans {
		for hd := 0; hd < dim; hd += headDim {
			keys, values := qkv[s.start*stride+dim+hd:], qkv[s.start*stride+2*dim+hd:]
			for i := 0; i < s.n; {
				rows := 1
				if i+4 <= s.n {
					// Four queries' scores at once read each key once.
					v.scores4(qkv[(s.start+i)*stride+hd:], keys, stride, headDim, s.n, w, maxTokens)
					rows = 4
				} else {
					v.scores(qkv[(s.start+i)*stride+hd:][:headDim], keys, stride, s.n, w[:s.n])
				}
				for r := range rows {
					v.softmax(w[r*maxTokens:][:s.n], scale)
				}
				if rows == 4 {
					v.wsum4(values, stride, headDim, s.n, w, maxTokens, att[(s.start+i)*dim+hd:], dim)
				} else {
					v.wsum(values, stride, s.n, w[:s.n], att[(s.start+i)*dim+hd:][:headDim])
				}
				i += rows
			}
		}
	}
}

// softmaxGo sets x[j] = exp(scale·x[j]) / Σ_k exp(scale·x[k]), computed
// as exp(scale·(x[j] − max x)) so that nothing overflows; scale > 0.
func softmaxGo(x []float32, scale float32) {
	top := float32(math.Inf(-1))
	for _, v := range x {
		top = max(top, v)
	}
	var total float32
	for j, v := range x {
		x[j] = float32(math.Exp(float64(scale * (v - top))))
		total += x[j]
	}
	inv := 1 / total
	for j := range x {
		x[j] *= inv
	}
}

// dot returns a·b over len(a) (a multiple of 4), with four independent
// sums so that the additions pipeline.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for i := 0; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds s·x to y.
func axpy(y, x []float32, s float32) {
	x = x[:len(y)]
	for i := 0; i+4 <= len(y); i += 4 {
		y[i] += s * x[i]
		y[i+1] += s * x[i+1]
		y[i+2] += s * x[i+2]
		y[i+3] += s * x[i+3]
	}
}
