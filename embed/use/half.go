package use

import "math"

// toHalf is f in IEEE 754 half precision, rounded to the nearest, ties to
// even, as F16C's conversion does.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b>>23&0xff == 0xff: // infinity or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00 // too large: infinity
	case exp <= 0: // a subnormal half, or zero
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h, rem, mid := man>>shift, man&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > mid || rem == mid && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	if rem := man & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // a carry into the exponent rounds right too
	}
	return sign | uint16(h)
}

// halve gives l its weights in half precision, for gemmHalf. A query is a
// few rows, so its products read all of the model's weights for little
// arithmetic: reading half the bytes is most of what they gain (PERF-10).
// The weights are halves in the model file, or int8 with a scale s per
// output: rounding those to halves moves each by at most 2^-11 of itself,
// under 127·s/2048, an eighth of the s/2 the int8 rounding may have moved it.
//
// The float32 panels go: the halves are all the kernel reads, and keeping
// both would hold 18 MB more than the model needs.
func (l *linear) halve() {
	l.half = make([]uint16, len(l.panels))
	for i, w := range l.panels {
		l.half[i] = toHalf(w)
	}
	l.panels = nil
}

// widened is l with the float32 values of its halves as its panels, for the
// float32 kernels.
func (l *linear) widened() *linear {
	w := &linear{in: l.in, out: l.out, bias: l.bias, panels: make([]float32, len(l.half))}
	for i, h := range l.half {
		w.panels[i] = halfToFloat(h)
	}
	return w
}
