package use

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// nfkc normalises text to Unicode Normalization Form KC, as the reference
// tokenizer does with String.prototype.normalize("NFKC") before it looks
// anything up. NFKC folds compatibility characters (full-width letters,
// ligatures, "…", no-break spaces, superscripts) into the plain forms the
// vocabulary was built from.
//
// The standard library has no normaliser and mnemo takes no dependency for
// one, so the tables come from nfkc.bin, which scripts/use/convert.js
// extracts from node's ICU: the same data the reference normalises with.
// The algorithm is UAX #15's: full compatibility decomposition, canonical
// ordering of combining marks, then canonical composition.
type nfkc struct {
	decomp map[rune][]rune  // full NFKD of every code point it changes
	class  map[rune]uint8   // combining class rank of non-starters
	comp   map[[2]rune]rune // canonical pairs that compose
}

// Hangul syllables decompose and compose by formula rather than by table.
const (
	hangulBase  = 0xac00
	hangulCount = 11172
	jamoLBase   = 0x1100
	jamoVBase   = 0x1161
	jamoTBase   = 0x11a7
	jamoLCount  = 19
	jamoVCount  = 21
	jamoTCount  = 28
)

// parseNFKC decodes nfkc.bin:
//
//	"NFKCTAB1"
//	uvarint n, n × (uvarint code point delta, uvarint k, k × uvarint rune)
//	uvarint n, n × (uvarint code point delta, byte class rank)
//	uvarint n, n × (uvarint first, uvarint second, uvarint composite)
func parseNFKC(data []byte) (*nfkc, error) {
	r := &reader{buf: data}
	if string(r.bytes(8)) != "NFKCTAB1" {
		return nil, errors.New("use: not an NFKC table file")
	}
	t := &nfkc{
		decomp: make(map[rune][]rune),
		class:  make(map[rune]uint8),
		comp:   make(map[[2]rune]rune),
	}
	cp := 0
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		cp += r.uvarint()
		d := make([]rune, r.uvarint())
		for i := range d {
			d[i] = rune(r.uvarint())
		}
		t.decomp[rune(cp)] = d
	}
	cp = 0
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		cp += r.uvarint()
		t.class[rune(cp)] = r.bytes(1)[0]
	}
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		a, b, c := rune(r.uvarint()), rune(r.uvarint()), rune(r.uvarint())
		t.comp[[2]rune{a, b}] = c
	}
	if r.err != nil {
		return nil, fmt.Errorf("use: corrupt NFKC tables: %w", r.err)
	}
	return t, nil
}

// String returns s in NFKC. Invalid UTF-8 becomes U+FFFD, as a JavaScript
// string could not hold it in the first place.
func (t *nfkc) String(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s // ASCII is already in every normal form
	}

	// Decompose. Hangul syllables are kept whole: decomposing them only for
	// composition to rebuild them would change nothing.
	buf := make([]rune, 0, len(s))
	for _, c := range s {
		if d, ok := t.decomp[c]; ok {
			buf = append(buf, d...)
		} else {
			buf = append(buf, c)
		}
	}

	// Canonical ordering: stable-sort every run of non-starters by class.
	for i := 0; i < len(buf); {
		if t.class[buf[i]] == 0 {
			i++
			continue
		}
		j := i
		for j < len(buf) && t.class[buf[j]] != 0 {
			j++
		}
		slices.SortStableFunc(buf[i:j], func(a, b rune) int {
			return int(t.class[a]) - int(t.class[b])
		})
		i = j
	}

	// Canonical composition: each character joins the last starter unless
	// something between them blocks it (a starter, or a mark of the same or
	// higher class).
	out := buf[:0]
	starter := -1
	var last uint8 // class of the last character kept after the starter
	for _, c := range buf {
		cc := t.class[c]
		if starter >= 0 && (len(out)-1 == starter || (last != 0 && last < cc)) {
			if composed, ok := t.compose(out[starter], c); ok {
				out[starter] = composed
				continue
			}
		}
		if cc == 0 {
			starter = len(out)
		}
		last = cc
		out = append(out, c)
	}

	var b strings.Builder
	b.Grow(len(s))
	for _, c := range out {
		b.WriteRune(c)
	}
	return b.String()
}

// compose returns the primary composite of a and b, if there is one.
func (t *nfkc) compose(a, b rune) (rune, bool) {
	switch {
	case a >= jamoLBase && a < jamoLBase+jamoLCount && b >= jamoVBase && b < jamoVBase+jamoVCount:
		return hangulBase + ((a-jamoLBase)*jamoVCount+(b-jamoVBase))*jamoTCount, true
	case a >= hangulBase && a < hangulBase+hangulCount && (a-hangulBase)%jamoTCount == 0 &&
		b > jamoTBase && b < jamoTBase+jamoTCount:
		return a + (b - jamoTBase), true
	}
	c, ok := t.comp[[2]rune{a, b}]
	return c, ok
}
