package model2vec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// tensor is one tensor of a safetensors file, decoded to float32 (F32 and
// F16; I32 and I64 for a vocabulary mapping).
type tensor struct {
	shape []int
	f32   []float32 // F32, F16
	ints  []int64   // I32, I64
}

// maxHeader bounds a safetensors header (the format's own limit is 100 MB).
const maxHeader = 100 << 20

// readSafetensors decodes the tensors of a safetensors file held in b: an
// 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range in the data that follows. Every range is
// checked against the data and the shape before it is read (EMB-1).
func readSafetensors(b []byte) (map[string]tensor, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes, no header", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > maxHeader || n > uint64(len(b)-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes in a file of %d", n, len(b))
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &head); err != nil {
		return nil, fmt.Errorf("safetensors: header: %w", err)
	}
	data := b[8+n:]
	names := make([]string, 0, len(head))
	for k := range head {
		if k != "__metadata__" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := make(map[string]tensor, len(names))
	for _, name := range names {
		var info struct {
			Dtype   string   `json:"dtype"`
			Shape   []int64  `json:"shape"`
			Offsets []uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(head[name], &info); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		if len(info.Offsets) != 2 || info.Offsets[0] > info.Offsets[1] || info.Offsets[1] > uint64(len(data)) {
			return nil, fmt.Errorf("safetensors: tensor %q: data offsets %v outside %d bytes", name, info.Offsets, len(data))
		}
		raw := data[info.Offsets[0]:info.Offsets[1]]
		count := uint64(1)
		shape := make([]int, len(info.Shape))
		for i, d := range info.Shape {
			if d < 0 || d > math.MaxInt32 {
				return nil, fmt.Errorf("safetensors: tensor %q: dimension %d", name, d)
			}
			shape[i] = int(d)
			if count *= uint64(d); count > uint64(len(data)) {
				return nil, fmt.Errorf("safetensors: tensor %q: shape %v larger than the file", name, info.Shape)
			}
		}
		size := map[string]uint64{"F32": 4, "F16": 2, "I32": 4, "I64": 8}[info.Dtype]
		if size == 0 {
			// Tensors model2vec does not use may be of any type: skipped.
			continue
		}
		if uint64(len(raw)) != count*size {
			return nil, fmt.Errorf("safetensors: tensor %q: %d bytes for shape %v of %s", name, len(raw), info.Shape, info.Dtype)
		}
		t := tensor{shape: shape}
		switch info.Dtype {
		case "F32":
			t.f32 = make([]float32, count)
			for i := range t.f32 {
				t.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		case "F16":
			t.f32 = make([]float32, count)
			for i := range t.f32 {
				t.f32[i] = half(binary.LittleEndian.Uint16(raw[2*i:]))
			}
		case "I32":
			t.ints = make([]int64, count)
			for i := range t.ints {
				t.ints[i] = int64(int32(binary.LittleEndian.Uint32(raw[4*i:])))
			}
		case "I64":
			t.ints = make([]int64, count)
			for i := range t.ints {
				t.ints[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		}
		out[name] = t
	}
	return out, nil
}

// half converts an IEEE 754 binary16 to float32.
func half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0: // zero
		return math.Float32frombits(sign)
	}
	// Subnormal: normalise.
	e := uint32(113)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
}
