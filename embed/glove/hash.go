package glove

import "math"

// Words missing from GloVe (rare names, numbers, typos) and CJK bigrams get
// deterministic pseudo-random vectors: a feature's FNV-1a hash seeds a
// SplitMix64 sequence whose outputs, mapped to [-1, 1), are the components.
// In 100 dimensions two such vectors are nearly orthogonal (|cos| about
// 0.1), and so is one against a GloVe word, so a hashed feature matches
// only itself. The sequence is plain integer arithmetic, reproduced
// bit for bit by scripts/glove/sif.js.

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a returns the 64-bit FNV-1a hash of prefix+s.
func fnv1a(prefix, s string) uint64 {
	h := uint64(fnvOffset)
	for i := range len(prefix) {
		h = (h ^ uint64(prefix[i])) * fnvPrime
	}
	for i := range len(s) {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// hashVector sets v to the unit vector of the feature prefix+s.
func hashVector(v []float64, prefix, s string) {
	state := fnv1a(prefix, s)
	var n float64
	for j := range v {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		x := float64(z>>11)/(1<<53)*2 - 1
		v[j] = x
		n += x * x
	}
	n = math.Sqrt(n)
	for j := range v {
		v[j] /= n
	}
}

// addHashed adds w times the unit vector of prefix+s to acc.
func addHashed(acc []float64, prefix, s string, w float64) {
	var buf [Dimension]float64
	v := buf[:len(acc)]
	if len(acc) > Dimension {
		v = make([]float64, len(acc))
	}
	hashVector(v, prefix, s)
	for j, x := range v {
		acc[j] += w * x
	}
}

// oovVector sets v to the vector of a word missing from the vocabulary:
// the word's own hashed vector plus, at gramWeight, the normalised sum of
// the hashed vectors of its character trigrams with boundary marks
// ("<ab", "abc", "bc>"), scaled to length hashNorm. Words of fewer than
// three characters have no trigrams beyond the word itself.
func oovVector(v []float64, word string) {
	hashVector(v, "w:", word)
	var offs [64]int // byte offsets of the runes of "<word>"
	b := append(offs[:0], 0)
	for i := range word {
		b = append(b, 1+i)
	}
	b = append(b, 1+len(word), 2+len(word))
	// b holds the start of every rune of "<" + word + ">" and the end.
	if runes := len(b) - 1; runes >= 5 {
		marked := "<" + word + ">"
		var g [Dimension]float64
		gram := g[:len(v)]
		if len(v) > Dimension {
			gram = make([]float64, len(v))
		}
		for i := 0; i+3 < len(b); i++ {
			addHashed(gram, "g:", marked[b[i]:b[i+3]], 1)
		}
		scaleTo(gram, gramWeight)
		for j, x := range gram {
			v[j] += x
		}
	}
	scaleTo(v, hashNorm)
}

// scaleTo scales v to length l; a zero vector stays zero.
func scaleTo(v []float64, l float64) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return
	}
	f := l / math.Sqrt(n)
	for j := range v {
		v[j] *= f
	}
}
