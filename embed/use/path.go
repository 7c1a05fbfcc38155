package use

import (
	"fmt"
	"sync"
)

// path is one way of running the model's matrix products (PERF-8).
// bestPath picks the fastest the CPU supports once, when the model loads;
// the tests run every supported path against the same golden vectors.
type path int

const (
	pathGo      path = iota // portable Go loops, float32
	pathAVX2                // AVX2 and FMA assembly, int8 weights and activations widened to int16
	pathVNNI                // AVX-512 VNNI assembly, int8 weights and activations
	pathAVXVNNI             // AVX-VNNI assembly (VPDPBUSD on 256 bits), the same int8 products
)

func (p path) String() string {
	switch p {
	case pathGo:
		return "go"
	case pathAVX2:
		return "avx2"
	case pathVNNI:
		return "vnni"
	case pathAVXVNNI:
		return "avxvnni"
	}
	return fmt.Sprintf("path(%d)", int(p))
}

// kernel returns the float32 kernel of p. The int8 paths keep some layers
// in float32 (see quantised) and run them with AVX2.
func (p path) kernel() kernel {
	if p == pathGo {
		return gemmGo
	}
	return gemmAVX2
}

// vecOps are the vector operations besides the matrix products. Those of
// attention, for one head over the n tokens of its text: scores sets
// out[j] = q·k_j for one query, softmax is softmaxGo or its twin, and wsum
// sets out = Σ_j w[j]·v_j, where k_j and v_j start stride floats apart;
// scores4 and wsum4 do the same for four queries, stride floats apart,
// their scores or weights ostride or wstride floats apart, reading each
// key and value once for the four. And layer norm: norm is layerNormGo or
// its twin.
type vecOps struct {
	scores  func(q, k []float32, stride, n int, out []float32)
	scores4 func(q, k []float32, stride, hd, n int, out []float32, ostride int)
	softmax func(x []float32, scale float32)
	wsum    func(v []float32, stride, n int, w, out []float32)
	wsum4   func(v []float32, stride, hd, n int, w []float32, wstride int, out []float32, ostride int)
	norm    func(dst, src []float32, dim int, scale, bias []float32)
}

var vecGo = vecOps{
	scores4: func(q, k []float32, stride, hd, n int, out []float32, ostride int) {
		for r := range 4 {
			for j := range n {
				out[r*ostride+j] = dot(q[r*stride:][:hd], k[j*stride:][:hd])
			}
		}
	},
	wsum4: func(v []float32, stride, hd, n int, w []float32, wstride int, out []float32, ostride int) {
		for r := range 4 {
			o := out[r*ostride:][:hd]
			clear(o)
			for j := range n {
				axpy(o, v[j*stride:][:hd], w[r*wstride+j])
			}
		}
	},
	scores: func(q, k []float32, stride, n int, out []float32) {
		for j := range n {
			out[j] = dot(q, k[j*stride:][:len(q)])
		}
	},
	wsum: func(v []float32, stride, n int, w, out []float32) {
		clear(out)
		for j := range n {
			axpy(out, v[j*stride:][:len(out)], w[j])
		}
	},
	softmax: softmaxGo,
	norm:    layerNormGo,
}

// vec returns p's attention operations.
func (p path) vec() vecOps {
	if p == pathGo {
		return vecGo
	}
	return vecAVX2
}

// quantised lists the layers the int8 paths run in int8 as they are:
// every per-token matrix but layer 0's query-key-value and residual
// projections, which layer0 runs in int8 on the token embeddings alone
// (their input is the embeddings plus the wider timing signal, and
// quantising it as it is costs the goldens most), and not the pooling layer,
// which runs once per text rather than per token. Measured on the goldens
// (lowest cosine with TF.js; float32 0.99948): layer 0's projections in
// float32 0.99935; through layer0 0.99923; layer 0's qkv input quantised as
// it is 0.99918, and its residual's as well 0.99886, under the 0.999 floor.
func (w *weights) quantised() []*linear {
	l0, l1 := &w.layers[0], &w.layers[1]
	return []*linear{l0.attnOut, l0.ffn1, l0.ffn2, l1.qkv, l1.attnOut, l1.ffn1, l1.ffn2}
}

// scratch is the working memory of one forward pass, pooled so that a
// steady stream of batches does not allocate it again each time.
type scratch struct {
	f   []float32
	qa  []uint8
	qw  []int16   // the codes widened, on the AVX2 path
	sa  []float32 // per row: the activations' scales
	zp  []int32   // ... their zero points
	inv []float32 // ... and layer 0's layer-norm scale (see project)
	pk  []uint32  // a block's codes for the int8 kernel (see packBlock)
	ks  []int32   // ... and its k-steps
}

var scratchPool sync.Pool // *scratch

// getScratch returns scratch space for rows rows (a multiple of blockRows).
func getScratch(rows int) *scratch {
	s, _ := scratchPool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if n := rows * (embedDim + 7*modelDim + ffnDim); cap(s.f) < n {
		s.f = make([]float32, n)
	}
	if n := rows * ffnDim; cap(s.qa) < n {
		s.qa = make([]uint8, n)
	}
	if cap(s.sa) < rows {
		s.sa = make([]float32, rows)
		s.zp = make([]int32, rows)
		s.inv = make([]float32, rows)
	}
	if s.pk == nil {
		s.pk = make([]uint32, ffnDim)
		s.ks = make([]int32, ffnDim/4)
	}
	return s
}

// take cuts the next n floats off s.f.
func take(buf *[]float32, n int) []float32 {
	b := (*buf)[:n:n]
	*buf = (*buf)[n:]
	return b
}
