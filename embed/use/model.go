package use

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Hyperparameters of the graph. scripts/use/convert.js checks them against
// the TF.js model before it writes use-lite.bin, so a model with other
// values is refused at conversion time rather than silently misread here.
const (
	maxTokens   = 128       // ClipToMaxLength: the longest text the graph reads (see Embed)
	embedDim    = 256       // width of the token embeddings and of layer 0
	modelDim    = Dimension // width of layer 1 and of the output
	ffnDim      = 1536      // hidden width of both feed-forward blocks
	numHeads    = 4         // attention heads in both layers
	normEpsilon = 1e-6      // layer-norm epsilon
	l2Epsilon   = 1e-12
	numTimings  = embedDim / 2 // sine and cosine frequencies of the timing signal
)

// Tensor encodings in use-lite.bin.
const (
	kindF32 = 0 // float32
	kindF16 = 1 // IEEE half
	kindQ8  = 2 // int8 with one float32 scale per row
)

// weights is the decoded model, read-only once loaded and so safe to share
// between goroutines.
type weights struct {
	vocab      []piece
	embeddings []float32 // [vocab rows][embedDim]
	timing     []float32 // [numTimings] inverse timescales
	layers     [2]layer
	pool       *linear // modelDim -> modelDim, followed by tanh
}

// piece is one SentencePiece vocabulary entry.
type piece struct {
	text  string
	score float64
}

// layer is one pre-norm transformer layer. Layer 0 widens its input from
// embedDim to modelDim, so its residual path goes through a projection;
// layer 1's residual is the identity (residual is nil).
type layer struct {
	dim                         int // input width
	attnNormScale, attnNormBias []float32
	qkv                         *linear // dim -> 3*dim: queries, keys, values
	attnOut                     *linear // dim -> modelDim
	residual                    *linear // dim -> modelDim, or nil
	ffnNormScale, ffnNormBias   []float32
	ffn1                        *linear // modelDim -> ffnDim, then ReLU
	ffn2                        *linear // ffnDim -> modelDim
}

// parseModel decodes use-lite.bin, written by scripts/use/convert.js:
//
//	"USELITE1"
//	uvarint n, then n × (string piece, float64 score)
//	uvarint m, then m × tensor
//
// where a string is a uvarint length and UTF-8 bytes, and a tensor is a
// string name, a kind byte, uvarint rows and cols, and its data. Matrices
// are stored [out][in]; parseModel transposes them into linear layers.
func parseModel(data []byte) (*weights, error) {
	r := &reader{buf: data}
	if magic := r.bytes(8); string(magic) != "USELITE1" {
		return nil, errors.New("use: not a use-lite model file")
	}
	w := &weights{}
	n := r.uvarint()
	if n > 1<<20 {
		return nil, fmt.Errorf("use: implausible vocabulary size %d", n)
	}
	w.vocab = make([]piece, n)
	for i := range w.vocab {
		w.vocab[i].text = r.string()
		w.vocab[i].score = math.Float64frombits(binary.LittleEndian.Uint64(r.bytes(8)))
	}

	tensors := make(map[string]tensor)
	for m := r.uvarint(); m > 0 && r.err == nil; m-- {
		t := r.tensor()
		tensors[t.name] = t
	}
	if r.err != nil {
		return nil, fmt.Errorf("use: corrupt model file: %w", r.err)
	}

	var errs []error
	vector := func(name string, size int) []float32 {
		t, ok := tensors[name]
		if !ok || t.rows != 1 || t.cols != size {
			errs = append(errs, fmt.Errorf("tensor %s: missing or not [%d]", name, size))
			return make([]float32, size)
		}
		return t.data
	}
	matrix := func(name string, out, in int) []float32 {
		t, ok := tensors[name]
		if !ok || t.rows != out || t.cols != in {
			errs = append(errs, fmt.Errorf("tensor %s: missing or not [%d][%d]", name, out, in))
			return make([]float32, out*in)
		}
		return t.data
	}
	lin := func(prefix string, out, in int) *linear {
		return newLinear(matrix(prefix+".weight", out, in), vector(prefix+".bias", out), out, in)
	}

	if t, ok := tensors["embeddings"]; !ok || t.cols != embedDim || t.rows < len(w.vocab) {
		errs = append(errs, errors.New("tensor embeddings: missing or too small"))
	} else {
		w.embeddings = t.data
	}
	w.timing = vector("timing", numTimings)
	for i := range w.layers {
		dim := embedDim
		if i == 1 {
			dim = modelDim
		}
		p := fmt.Sprintf("layer%d.", i)
		l := &w.layers[i]
		l.dim = dim
		l.attnNormScale = vector(p+"attn_norm.scale", dim)
		l.attnNormBias = vector(p+"attn_norm.bias", dim)
		l.qkv = lin(p+"qkv", 3*dim, dim)
		l.attnOut = lin(p+"attn_out", modelDim, dim)
		if dim != modelDim {
			l.residual = lin(p+"residual", modelDim, dim)
		}
		l.ffnNormScale = vector(p+"ffn_norm.scale", modelDim)
		l.ffnNormBias = vector(p+"ffn_norm.bias", modelDim)
		l.ffn1 = lin(p+"ffn1", ffnDim, modelDim)
		l.ffn2 = lin(p+"ffn2", modelDim, ffnDim)
	}
	w.pool = lin("pool", modelDim, modelDim)
	if len(errs) > 0 {
		return nil, fmt.Errorf("use: bad model file: %w", errors.Join(errs...))
	}
	return w, nil
}

// tensor is one decoded entry of use-lite.bin, in float32.
type tensor struct {
	name       string
	rows, cols int
	data       []float32
}

// reader decodes use-lite.bin and nfkc.bin; the first error sticks and
// later reads return zero values.
type reader struct {
	buf []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.buf = nil
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.buf) {
		r.fail(errors.New("unexpected end of data"))
		return make([]byte, max(n, 0))
	}
	b := r.buf[:n]
	r.buf = r.buf[n:]
	return b
}

func (r *reader) uvarint() int {
	v, n := binary.Uvarint(r.buf)
	if n <= 0 || v > math.MaxInt32 {
		r.fail(errors.New("bad varint"))
		return 0
	}
	r.buf = r.buf[n:]
	return int(v)
}

func (r *reader) string() string { return string(r.bytes(r.uvarint())) }

func (r *reader) tensor() tensor {
	t := tensor{name: r.string()}
	kind := r.bytes(1)[0]
	t.rows, t.cols = r.uvarint(), r.uvarint()
	n := t.rows * t.cols
	if r.err != nil || t.rows > 1<<20 || t.cols > 1<<20 || n > 1<<26 {
		r.fail(fmt.Errorf("tensor %q: bad shape", t.name))
		return t
	}
	t.data = make([]float32, n)
	switch kind {
	case kindF32:
		b := r.bytes(4 * n)
		for i := range t.data {
			t.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case kindF16:
		b := r.bytes(2 * n)
		for i := range t.data {
			t.data[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case kindQ8:
		sb := r.bytes(4 * t.rows)
		q := r.bytes(n)
		for row := range t.rows {
			scale := math.Float32frombits(binary.LittleEndian.Uint32(sb[4*row:]))
			dst := t.data[row*t.cols : (row+1)*t.cols]
			for i, v := range q[row*t.cols : (row+1)*t.cols] {
				dst[i] = float32(int8(v)) * scale
			}
		}
	default:
		r.fail(fmt.Errorf("tensor %q: unknown kind %d", t.name, kind))
	}
	return t
}

// halfToFloat widens an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: renormalise
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
