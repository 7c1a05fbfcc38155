package analysis

import (
	"unicode"
	"unicode/utf8"
)

// IsCJK reports whether text contains any CJK character: a Han, Hiragana,
// Katakana or Hangul letter. Such text is analysed into character bigrams
// rather than words.
func IsCJK(text string) bool {
	for _, r := range text {
		if c := classOf(Fold(r)); c != sep && c != word {
			return true
		}
	}
	return false
}

// unit is one character of a CJK token with any combining marks that follow
// it, as the byte span tok[start:end].
type unit struct {
	r          rune
	start, end int
	stop       bool
}

// cjkSegments splits the CJK token tok at its stop characters and calls fn
// with every non-empty segment that remains. Stop lists apply only to Han
// and Hiragana runs: Katakana runs are mostly loanwords, and Korean
// particles are glued to the ends of space-separated words, so both are left
// whole.
func cjkSegments(tok string, cls class, fn func(seg []unit)) {
	units := make([]unit, 0, utf8.RuneCountInString(tok))
	for i, r := range tok {
		n := utf8.RuneLen(r)
		if len(units) > 0 && isMark(r) {
			units[len(units)-1].end = i + n
			continue
		}
		units = append(units, unit{r: r, start: i, end: i + n})
	}
	if cls == han {
		// pair returns the two units starting at i, or "" if there are not two.
		pair := func(i int) string {
			if i < 0 || i+1 >= len(units) {
				return ""
			}
			return tok[units[i].start:units[i+1].end]
		}
		for i := range units {
			if _, ok := stopChars[units[i].r]; !ok {
				continue
			}
			_, keepPrev := keepPairs[pair(i-1)]
			_, keepNext := keepPairs[pair(i)]
			units[i].stop = !keepPrev && !keepNext
		}
		for i := 0; i+1 < len(units); i++ {
			if _, ok := stopPairs[pair(i)]; ok {
				units[i].stop, units[i+1].stop = true, true
			}
		}
	}
	begin := 0
	for i := 0; i <= len(units); i++ {
		if i == len(units) || units[i].stop {
			if i > begin {
				fn(units[begin:i])
			}
			begin = i + 1
		}
	}
}

// bigrams calls fn with the overlapping character bigrams of seg, a segment
// of tok. A segment of one character is a unigram, except a lone Hiragana
// character or prolonged-sound mark, which on its own is an inflection or a
// particle.
func bigrams(tok string, seg []unit, fn func(term string)) {
	if len(seg) == 1 {
		if r := seg[0].r; unicode.In(r, unicode.Han, unicode.Katakana, unicode.Hangul) {
			fn(tok[seg[0].start:seg[0].end])
		}
		return
	}
	for i := 0; i+1 < len(seg); i++ {
		fn(tok[seg[i].start:seg[i+1].end])
	}
}
