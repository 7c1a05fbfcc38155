// Package cedict is a Chinese–English lexicon built into the binary, made
// from CC-CEDICT (CC BY-SA 4.0; data/NOTICE) by scripts/cedict/convert.sh:
// each simplified Chinese word of up to four characters with the English
// words of its glosses, in gloss order, that the GloVe model knows. The
// built-in embedder reads Chinese through it into its English spaces, so
// that a Chinese text and an English one of the same meaning are near
// (EMB-7).
package cedict

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

//go:embed data/zh-en.bin
var data []byte

// The lexicon file is used in place; all integers are little-endian.
//
//	magic    [8]byte        "MNZHDICT"
//	version  uint32         fileVersion
//	n        uint32         Chinese words, in byte order of their text
//	ngloss   uint32         gloss words in all
//	nvocab   uint32         distinct English words
//	nbytes   uint32         bytes of the Chinese words' text
//	woff     [n+1]uint32    word i is words[woff[i]:woff[i+1]]
//	goff     [n+1]uint32    its glosses are gloss[goff[i]:goff[i+1]]
//	voff     [nvocab+1]uint32  English word k is vocab[voff[k]:voff[k+1]]
//	gloss    [ngloss]uint16 English word numbers
//	words    [nbytes]byte   the Chinese words' UTF-8 text
//	vocab    []byte         the English words' text
const (
	magic       = "MNZHDICT"
	fileVersion = 1
	headerSize  = len(magic) + 5*4
	// MaxChars is the longest word of the lexicon, in characters.
	MaxChars = 4
)

var errFile = errors.New("cedict: malformed lexicon file")

// Lexicon is a parsed lexicon. It is read-only and safe for concurrent use.
type Lexicon struct {
	n, nvocab        int
	woff, goff, voff []byte
	gloss            []byte
	words, vocab     []byte
}

// New returns the built-in lexicon. Parsing checks only the layout: the
// file is read in place.
func New() (*Lexicon, error) { return Parse(data) }

// Parse returns the lexicon of the file b.
func Parse(b []byte) (*Lexicon, error) {
	if len(b) < headerSize || string(b[:len(magic)]) != magic {
		return nil, errFile
	}
	u32 := func(i int) int { return int(binary.LittleEndian.Uint32(b[i:])) }
	h := len(magic)
	if v := u32(h); v != fileVersion {
		return nil, fmt.Errorf("cedict: lexicon file version %d, want %d", v, fileVersion)
	}
	l := &Lexicon{n: u32(h + 4), nvocab: u32(h + 12)}
	ngloss, nbytes := u32(h+8), u32(h+16)
	if l.n > len(b) || l.nvocab > len(b) || ngloss > len(b) || nbytes > len(b) {
		return nil, errFile
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
	l.woff = take(4 * (l.n + 1))
	l.goff = take(4 * (l.n + 1))
	l.voff = take(4 * (l.nvocab + 1))
	l.gloss = take(2 * ngloss)
	l.words = take(nbytes)
	if l.woff == nil || l.goff == nil || l.voff == nil || l.gloss == nil || l.words == nil {
		return nil, errFile
	}
	l.vocab = rest
	if off(l.woff, 0) != 0 || off(l.woff, l.n) != nbytes || off(l.goff, 0) != 0 || off(l.goff, l.n) != ngloss ||
		off(l.voff, 0) != 0 || off(l.voff, l.nvocab) != len(l.vocab) {
		return nil, errFile
	}
	return l, nil
}

func off(t []byte, i int) int { return int(binary.LittleEndian.Uint32(t[4*i:])) }

// Len returns the number of Chinese words.
func (l *Lexicon) Len() int { return l.n }

// lookup returns the number of the word w, by binary search: offsets are
// checked here rather than at load time, which would mean reading them all.
func (l *Lexicon) lookup(w string) (int, bool) {
	lo, hi := 0, l.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		i, j := off(l.woff, mid), off(l.woff, mid+1)
		if i > j || j > len(l.words) {
			return 0, false
		}
		// string(b) in a comparison does not allocate.
		switch b := l.words[i:j]; {
		case string(b) == w:
			return mid, true
		case string(b) < w:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// Glosses calls fn with the English words of word i, in gloss order, at
// most max of them (all when max <= 0).
func (l *Lexicon) Glosses(i int, max int, fn func(english string)) {
	if i < 0 || i >= l.n {
		return
	}
	a, b := off(l.goff, i), off(l.goff, i+1)
	if a > b || 2*b > len(l.gloss) {
		return
	}
	if max > 0 {
		b = min(b, a+max)
	}
	for k := a; k < b; k++ {
		v := int(binary.LittleEndian.Uint16(l.gloss[2*k:]))
		if v >= l.nvocab {
			continue
		}
		x, y := off(l.voff, v), off(l.voff, v+1)
		if x > y || y > len(l.vocab) {
			continue
		}
		fn(string(l.vocab[x:y]))
	}
}

// Segment cuts seg, a run of Chinese characters, into words of the lexicon
// by forward maximum matching: at each character the longest word that
// starts there. It calls fn with each word's number and length in
// characters; characters that start no word are skipped.
func (l *Lexicon) Segment(seg string, fn func(i, chars int)) {
	for seg != "" {
		var ends [MaxChars]int
		n := 0
		for j := 0; n < MaxChars && j < len(seg); n++ {
			_, size := utf8.DecodeRuneInString(seg[j:])
			j += size
			ends[n] = j
		}
		found := false
		for k := n - 1; k >= 0; k-- {
			if i, ok := l.lookup(seg[:ends[k]]); ok {
				fn(i, k+1)
				seg = seg[ends[k]:]
				found = true
				break
			}
		}
		if !found {
			seg = seg[ends[0]:]
		}
	}
}

// HasHan reports whether text contains a Han character.
func HasHan(text string) bool {
	for _, r := range text {
		if r >= 0x2E80 && unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// IsChinese reports whether text is to be read as Chinese: it has Han
// characters and no kana, which would make it Japanese, whose kanji the
// lexicon does not know.
func IsChinese(text string) bool {
	han := false
	for _, r := range text {
		if r < 0x2E80 {
			continue
		}
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			return false
		case unicode.Is(unicode.Han, r):
			han = true
		}
	}
	return han
}

// Translate returns text with every run of Han characters replaced by the
// English gloss words of its words: the first perWord of a word of two
// characters or more, the first of a single character. Everything else is
// kept as it is; a text that is not Chinese (IsChinese) is returned
// unchanged.
func (l *Lexicon) Translate(text string, perWord int) string {
	if !IsChinese(text) {
		return text
	}
	var b strings.Builder
	start := -1 // byte offset of the current Han run
	flush := func(end int) {
		if start < 0 {
			return
		}
		l.Segment(text[start:end], func(i, chars int) {
			n := perWord
			if chars == 1 {
				n = 1
			}
			l.Glosses(i, n, func(w string) {
				b.WriteByte(' ')
				b.WriteString(w)
			})
		})
		b.WriteByte(' ')
		start = -1
	}
	for i, r := range text {
		if r >= 0x2E80 && unicode.Is(unicode.Han, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(text))
	return b.String()
}
