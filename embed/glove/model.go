package glove

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The model file, written by scripts/glove/convert.js, is used in place:
// nothing is copied or decoded per word, so loading costs only the checks
// in parseModel. All integers and floats are little-endian.
//
//	magic    [8]byte        "MNGLOVE\n"
//	version  uint32         modelVersion
//	dim      uint32         components per vector
//	n        uint32         words kept, the n most frequent
//	full     uint32         words in the source vocabulary (for Zipf's law)
//	pc       [dim]float32   the common component, a unit vector
//	scale    [n]float32     per word: vector = scale × int8 components
//	vec      [n][dim]int8   per word, in frequency order
//	sorted   [n]uint32      ranks of the words in byte order of their text
//	off      [n+1]uint32    per word: its text is words[off[r]:off[r+1]]
//	words    []byte         the words' UTF-8 text, in frequency order
//
// A word's index in frequency order is its rank: the source vocabulary
// (GloVe 6B's, filtered by wink) is sorted by corpus frequency, most
// frequent first.
const (
	modelMagic   = "MNGLOVE\n"
	modelVersion = 1
	headerSize   = len(modelMagic) + 4*4
)

// model is a parsed view of a model file.
type model struct {
	dim    int
	n      int
	full   int
	pc     []float64
	scale  []byte
	vec    []byte
	sorted []byte
	off    []byte
	words  []byte
}

var errModel = errors.New("glove: malformed model file")

// parseModel checks the layout of b and returns a model that reads from it.
func parseModel(b []byte) (*model, error) {
	if len(b) < headerSize || string(b[:len(modelMagic)]) != modelMagic {
		return nil, errModel
	}
	u32 := func(i int) int { return int(binary.LittleEndian.Uint32(b[i:])) }
	h := len(modelMagic)
	if v := u32(h); v != modelVersion {
		return nil, fmt.Errorf("glove: model file version %d, want %d", v, modelVersion)
	}
	m := &model{dim: u32(h + 4), n: u32(h + 8), full: u32(h + 12)}
	if m.dim == 0 || m.dim > 4096 || m.n == 0 || m.full < m.n || m.n > len(b) {
		return nil, errModel
	}
	rest := b[headerSize:]
	take := func(size int) []byte {
		if size > len(rest) {
			return nil
		}
		s := rest[:size:size]
		rest = rest[size:]
		return s
	}
	pc := take(4 * m.dim)
	m.scale = take(4 * m.n)
	m.vec = take(m.n * m.dim)
	m.sorted = take(4 * m.n)
	m.off = take(4 * (m.n + 1))
	if pc == nil || m.scale == nil || m.vec == nil || m.sorted == nil || m.off == nil {
		return nil, errModel
	}
	m.words = rest
	if m.offset(0) != 0 || m.offset(m.n) != len(m.words) {
		return nil, errModel
	}
	m.pc = make([]float64, m.dim)
	for i := range m.pc {
		m.pc[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(pc[4*i:])))
	}
	return m, nil
}

func (m *model) offset(r int) int { return int(binary.LittleEndian.Uint32(m.off[4*r:])) }

// word returns the text of the word of rank r. Offsets are checked here
// rather than at load time, which would mean reading the whole table.
func (m *model) word(r int) string {
	i, j := m.offset(r), m.offset(r+1)
	if i > j || j > len(m.words) {
		return ""
	}
	return string(m.words[i:j])
}

// lookup returns the rank of w, by binary search over the words in byte
// order: about 19 probes for the whole vocabulary, with no table to build
// at load time.
func (m *model) lookup(w string) (int, bool) {
	lo, hi := 0, m.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		r := int(binary.LittleEndian.Uint32(m.sorted[4*mid:]))
		if r >= m.n {
			return 0, false
		}
		i, j := m.offset(r), m.offset(r+1)
		if i > j || j > len(m.words) {
			return 0, false
		}
		switch c := compare(m.words[i:j], w); {
		case c == 0:
			return r, true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// compare is bytes.Compare(b, []byte(s)) without the conversion.
func compare(b []byte, s string) int {
	n := min(len(b), len(s))
	for i := range n {
		if b[i] != s[i] {
			if b[i] < s[i] {
				return -1
			}
			return 1
		}
	}
	return len(b) - len(s)
}

// add adds w times the vector of the word of rank r to acc.
func (m *model) add(acc []float64, r int, w float64) {
	w *= float64(math.Float32frombits(binary.LittleEndian.Uint32(m.scale[4*r:])))
	for j, q := range m.vec[r*m.dim : (r+1)*m.dim] {
		acc[j] += w * float64(int8(q))
	}
}
