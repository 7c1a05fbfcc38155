package use

import (
	"encoding/binary"
	"math"
)

// qGroup is the number of output units the int8 kernel computes at once:
// four panels of 16. Every output width of the model (256, 512, 768,
// 1536) is a multiple, and every input width a multiple of 4.
const qGroup = 64

// qlinear is the int8 form of a linear layer, for the int8 paths
// (PERF-8): weights quantised to int8 with one scale per output unit,
// multiplied with activations quantised per row to uint8 with a zero point
// (dynamic quantisation), summed exactly in int32.
//
//	x[r][i] ≈ sa[r]·(a[r][i] − zp[r])      w[o][i] ≈ sw[o]·q[o][i]
//	Σ_i x[r][i]·w[o][i] ≈ sa[r]·sw[o]·(Σ_i a[r][i]·q[o][i] − zp[r]·Σ_i q[o][i])
//
// Most of use-lite.bin's matrices are stored as int8 per output unit
// already (scripts/use/convert.js), so for those the weights here are the
// stored ones exactly; only the activations' rounding is new.
type qlinear struct {
	in, out int
	w       []int8    // [out/qGroup][in/4][4 panels][16 outputs][4 inputs]
	ncs     []int32   // [out] −Σ_i q[o][i]
	sw      []float32 // [out]
}

// newQLinear quantises l's weights per output unit.
func newQLinear(l *linear) *qlinear {
	in, out := l.in, l.out
	q := &qlinear{in: in, out: out, w: make([]int8, in*out), ncs: make([]int32, out), sw: make([]float32, out)}
	weight := func(o, i int) float32 { return l.panels[(o/panelWidth)*in*panelWidth+i*panelWidth+o%panelWidth] }
	k4 := in / 4
	for o := range out {
		var m float32
		for i := range in {
			m = max(m, float32(math.Abs(float64(weight(o, i)))))
		}
		scale := m / 127
		inv := float32(0)
		if m > 0 {
			inv = 1 / scale
		}
		q.sw[o] = scale
		g, p, j := o/qGroup, (o%qGroup)/16, o%16
		var sum int32
		for i := range in {
			v := int8(max(-127, min(127, math.Round(float64(weight(o, i)*inv)))))
			sum += int32(v)
			q.w[((g*k4+i/4)*4+p)*64+j*4+i%4] = v
		}
		q.ncs[o] = -sum
	}
	return q
}

// quantizeRows writes the uint8 codes of rows rows of x ([rows][in]) into
// a, with each row's scale and zero point. The range of a row always
// includes 0, so zeros (ReLU's, padding's) are exact. With relu set it
// quantises max(x, 0): the range starts at 0 and negative values clamp to
// the code of 0.
func quantizeRows(a []uint8, sa []float32, zp []int32, x []float32, rows, in int, relu bool) {
	for r := range rows {
		row := x[r*in : (r+1)*in : (r+1)*in]
		var lo, hi float32
		for _, v := range row {
			lo = min(lo, v)
			hi = max(hi, v)
		}
		out := a[r*in : (r+1)*in : (r+1)*in]
		inv, z, ok := rowCode(lo, hi, relu, &sa[r], &zp[r])
		if !ok {
			clear(out)
			continue
		}
		// v*inv+z lies in [0, 255] up to rounding; +0.5 then truncation
		// rounds half up.
		for i, v := range row {
			out[i] = uint8(min(255, max(0, v*inv+z+0.5)))
		}
	}
}

// rowCode sets the scale and the zero point of a row whose values span
// [lo, hi], which includes 0 (with relu: [0, hi]), and returns the inverse
// of the scale and the zero point as a float. ok is false for a row of
// zeros, whose scale and zero point are 0.
func rowCode(lo, hi float32, relu bool, sa *float32, zp *int32) (inv, z float32, ok bool) {
	if relu {
		lo = 0
	}
	if hi == lo {
		*sa, *zp = 0, 0
		return 0, 0, false
	}
	scale := (hi - lo) / 255
	inv = 1 / scale
	z = float32(math.Round(float64(-lo * inv)))
	*sa, *zp = scale, int32(z)
	return inv, z, true
}

// packBlock prepares blockRows rows of codes a ([blockRows][in]) for the
// int8 kernel: it keeps only the k-steps (4 inputs) where some row's codes
// are not all zero, writing their codes to p, the rows' 4 bytes each side
// by side, and their byte offsets in a group's weights to ks, and returns
// how many it kept. After a ReLU about 9 codes in 10 are 0 and a third to
// a half of the k-steps are 0 in all four rows: the kernel skips them, with
// the same sums.
func packBlock(p []uint32, ks []int32, a []uint8, in int) int {
	a0, a1, a2, a3 := a[:in], a[in:2*in], a[2*in:3*in], a[3*in:4*in]
	p = p[:in]
	ks = ks[:in/4]
	n := 0
	for k := range in / 4 {
		v0 := binary.LittleEndian.Uint32(a0[4*k:])
		v1 := binary.LittleEndian.Uint32(a1[4*k:])
		v2 := binary.LittleEndian.Uint32(a2[4*k:])
		v3 := binary.LittleEndian.Uint32(a3[4*k:])
		// Write every k-step and advance past the kept ones only, which
		// does without a branch the zeros would make unpredictable.
		q := p[4*n : 4*n+4 : 4*n+4]
		q[0], q[1], q[2], q[3] = v0, v1, v2, v3
		ks[n] = int32(k * 4 * qGroup)
		if v0|v1|v2|v3 != 0 {
			n++
		}
	}
	return n
}

// qgemmGo is the portable twin of the int8 kernel: for blockRows rows r of
// a (uint8 codes, lda bytes apart, with their scales sa and zero points
// zp) and every output o of q, it sets
//
//	c[r*ldc+o] = sa[r]·sw[o]·(Σ_i a[r][i]·q[o][i] − zp[r]·Σ_i q[o][i]) + bias[o]
//
// or adds that to c[r*ldc+o] if add is set. The sum in parentheses is
// exact in int32 (|a·q| ≤ 255·127, and in is at most ffnDim), and equals
// the assembly's to the bit; the float epilogue may differ in its last
// rounding, the assembly fusing a multiply and an add.
func qgemmGo(a []uint8, lda int, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	k4 := q.in / 4
	for r := range blockRows {
		row := a[r*lda : r*lda+q.in]
		out := c[r*ldc : r*ldc+q.out]
		for o := range q.out {
			sum := zp[r] * q.ncs[o]
			g, p, j := o/qGroup, (o%qGroup)/16, o%16
			for i, x := range row {
				sum += int32(x) * int32(q.w[((g*k4+i/4)*4+p)*64+j*4+i%4])
			}
			v := float32(float32(sum)*(q.sw[o]*sa[r])) + bias[o]
			if add {
				v += out[o]
			}
			out[o] = v
		}
	}
}

// qgemmSparseGo is qgemmGo for codes packed by packBlock into p and ks,
// and the portable twin of qgemmSparse: the same sums, over the k-steps
// that are not all zero.
func qgemmSparseGo(p []uint32, ks []int32, sa []float32, zp []int32, q *qlinear, bias, c []float32, ldc int, add bool) {
	k4 := q.in / 4
	for r := range blockRows {
		out := c[r*ldc : r*ldc+q.out]
		for o := range q.out {
			sum := zp[r] * q.ncs[o]
			g, panel, j := o/qGroup, (o%qGroup)/16, o%16
			for n, off := range ks {
				w := q.w[g*k4*4*qGroup+int(off)+panel*64+j*4:][:4]
				v := p[4*n+r]
				for t := range 4 {
					sum += int32(uint8(v>>(8*t))) * int32(w[t])
				}
			}
			v := float32(float32(sum)*(q.sw[o]*sa[r])) + bias[o]
			if add {
				v += out[o]
			}
			out[o] = v
		}
	}
}
