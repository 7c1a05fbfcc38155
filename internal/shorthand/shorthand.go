// Package shorthand reads the shorthand people type in chat ("tmrw",
// "bday", "wknd", "gonna") and a few British spellings as the words a
// question written out in full asks with, so that a chat's words, times
// and meaning are found by one (REC-39). It changes what is read, never
// what is stored.
package shorthand

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// words maps shorthand, lower case, to the words it stands for. Only
// forms that stand for one thing in a chat are listed: "mo", "sec",
// "eve", "atm", "doc" or "grad" are words or stand for several, and
// "2day" is also "a 2day trip".
var words = map[string]string{
	// Days and times, read by the temporal rules (REC-23).
	"tmrw": "tomorrow", "tmrow": "tomorrow", "tmrrw": "tomorrow", "tmmrw": "tomorrow", "tmr": "tomorrow",
	"tmw": "tomorrow", "tmro": "tomorrow", "2moro": "tomorrow", "2morro": "tomorrow", "2morrow": "tomorrow",
	"2mrw": "tomorrow", "2mro": "tomorrow", "tomoro": "tomorrow", "tomorow": "tomorrow",
	"tommorow": "tomorrow", "tommorrow": "tomorrow", "tomorro": "tomorrow", "tomrw": "tomorrow",
	"yday": "yesterday", "yest": "yesterday", "ystd": "yesterday", "ystday": "yesterday",
	"yesterdy": "yesterday", "yesturday": "yesterday", "yestarday": "yesterday", "yesteday": "yesterday",
	"tonite": "tonight", "2nite": "tonight", "2night": "tonight", "nite": "night", "nites": "nights",
	"wknd": "weekend", "wkend": "weekend", "wknds": "weekends", "wkends": "weekends",
	"wk": "week", "wks": "weeks", "nxt": "next",
	"mnth": "month", "mnths": "months", "mth": "month", "mths": "months",
	"yr": "year", "yrs": "years", "hr": "hour", "hrs": "hours",
	"b4": "before", "l8r": "later", "l8er": "later", "thru": "through",
	"bday": "birthday", "bdays": "birthdays", "hbd": "happy birthday", "xmas": "christmas",
	"anniv": "anniversary", "vacay": "vacation", "hols": "holidays",

	// People.
	"bf": "boyfriend", "gf": "girlfriend", "bff": "best friend", "bffs": "best friends",
	"hubby": "husband", "wifey": "wife", "ppl": "people",

	// Things.
	"pic": "picture", "pics": "pictures", "pix": "pictures", "vid": "video", "vids": "videos",
	"convo": "conversation", "convos": "conversations", "appt": "appointment", "appts": "appointments",
	"uni": "university", "msg": "message", "msgs": "messages", "txt": "text", "tix": "tickets",
	"fav": "favorite", "fave": "favorite", "favs": "favorites", "faves": "favorites",
	"congrats": "congratulations", "congratz": "congratulations", "grats": "congratulations",

	// Words of speech.
	"u": "you", "ur": "your", "urself": "yourself", "bc": "because", "bcuz": "because", "cuz": "because",
	"coz": "because", "tho": "though", "abt": "about", "smth": "something", "sth": "something",
	"thx": "thanks", "thnx": "thanks", "thanx": "thanks", "tnx": "thanks", "pls": "please", "plz": "please",
	"prolly": "probably", "obvi": "obviously", "srsly": "seriously", "esp": "especially",
	"idk": "i don't know", "dunno": "don't know", "imo": "in my opinion", "imho": "in my opinion",
	"tbh": "to be honest", "btw": "by the way", "omg": "oh my god", "rn": "right now",
	"nvm": "never mind", "ofc": "of course", "lmk": "let me know", "asap": "as soon as possible",
	"gonna": "going to", "wanna": "want to", "gotta": "got to", "kinda": "kind of", "sorta": "sort of",
	"lemme": "let me", "gimme": "give me", "outta": "out of", "lotta": "lot of",
}

// spellings maps British spellings that a stemmer keeps apart from the
// American to those, for Word alone: an embedder reads either alike.
var spellings = map[string]string{
	"favourite": "favorite", "favourites": "favorites", "colour": "color", "colours": "colors",
	"colourful": "colorful", "neighbour": "neighbor", "neighbours": "neighbors",
	"neighbourhood": "neighborhood", "theatre": "theater", "theatres": "theaters",
	"centre": "center", "centres": "centers", "travelling": "traveling", "travelled": "traveled",
	"traveller": "traveler", "travellers": "travelers", "mum": "mom", "mums": "moms",
	"realise": "realize", "realised": "realized", "organise": "organize", "organised": "organized",
	"organising": "organizing", "jewellery": "jewelry", "programme": "program", "humour": "humor",
	"flavour": "flavor", "honour": "honor", "behaviour": "behavior",
}

// pairs are shorthand of two words, the first a letter that alone stands
// for nothing: "c u", "r u".
var pairs = map[string]map[string]string{
	"c": {"u": "see you", "ya": "see you"},
	"r": {"u": "are you"},
}

// maxWord is the longest key of words, in bytes.
const maxWord = 13

// shapeSet is a filter of the words of words by their first two bytes
// and length: a word it does not have is none of them.
type shapeSet [64]uint64

func shapeOf(w []byte) uint {
	h := uint(w[0])*131 + uint(len(w))*7
	if len(w) > 1 {
		h += uint(w[1]) * 31
	}
	return h % (64 * 64)
}

func (s *shapeSet) has(w []byte) bool {
	h := shapeOf(w)
	return s[h/64]&(1<<(h%64)) != 0
}

var shapes = sync.OnceValue(func() *shapeSet {
	var s shapeSet
	for _, m := range []map[string]string{words, spellings} {
		for w := range m {
			h := shapeOf([]byte(w))
			s[h/64] |= 1 << (h % 64)
		}
	}
	return &s
})

// Word returns the words w stands for and true, or w and false when it
// is no shorthand; a British spelling a stemmer keeps apart from the
// American ("favourite") is the American. w is one word as written: any
// case, with an apostrophe's ending ("bday's" is "birthday's"). A word in
// capitals ("BC", "UNI") is taken for an acronym and left as it is.
func Word(w string) (string, bool) { return word(w, true) }

func word(w string, spell bool) (string, bool) {
	if len(w) < 1 || len(w) > maxWord+3 {
		return w, false
	}
	stem, end := w, ""
	for i := 1; i < len(w); i++ {
		if w[i] == '\'' || w[i] == 0xe2 && strings.HasPrefix(w[i:], "’") {
			stem, end = w[:i], w[i:]
			break
		}
	}
	if len(stem) > maxWord || len(stem) > 1 && upperAfterFirst(stem) {
		return w, false
	}
	var buf [maxWord]byte
	for i := range len(stem) {
		c := stem[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	// Most words are none: their first two letters and length say so
	// without hashing them whole.
	if !shapes().has(buf[:len(stem)]) {
		return w, false
	}
	full, ok := words[string(buf[:len(stem)])]
	if !ok && spell {
		full, ok = spellings[string(buf[:len(stem)])]
	}
	if !ok {
		return w, false
	}
	return full + end, true
}

// upperAfterFirst reports whether s has an upper-case ASCII letter after
// its first byte.
func upperAfterFirst(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// Offsets maps byte positions in a text Expand wrote back to the text it
// read. The zero value maps every position to itself.
type Offsets struct {
	spans []span
}

// span is one word written out: at from in the text read, at to in the
// text written, of length was and is.
type span struct {
	from, to, was, is int
}

// Start returns the position in the text read of position p of the text
// written, taking a position inside a written-out word to the word's
// start.
func (o Offsets) Start(p int) int {
	s, ok := o.find(p)
	if !ok {
		return p
	}
	if p < s.to+s.is {
		return s.from
	}
	return p - s.to - s.is + s.from + s.was
}

// End is Start, but takes a position inside a written-out word to the
// word's end.
func (o Offsets) End(p int) int {
	s, ok := o.find(p)
	if !ok {
		return p
	}
	if p <= s.to {
		return s.from
	}
	if p < s.to+s.is {
		return s.from + s.was
	}
	return p - s.to - s.is + s.from + s.was
}

// find returns the last span that starts at or before p.
func (o Offsets) find(p int) (span, bool) {
	i := sort.Search(len(o.spans), func(i int) bool { return o.spans[i].to > p })
	if i == 0 {
		return span{}, false
	}
	return o.spans[i-1], true
}

// Expand returns text with every shorthand word (Word, spellings aside)
// or pair ("c u") written out, the offsets back, and whether it wrote any. A word is a
// run of ASCII letters, digits and apostrophes; text with none to write
// out is returned as it is, with no allocation.
func Expand(text string) (string, Offsets, bool) {
	var (
		b    strings.Builder
		o    Offsets
		done int // text[:done] is written to b
	)
	write := func(from, to int, full string) {
		if len(o.spans) == 0 {
			b.Grow(len(text) + 16)
		}
		b.WriteString(text[done:from])
		o.spans = append(o.spans, span{from: from, to: b.Len(), was: to - from, is: len(full)})
		b.WriteString(full)
		done = to
	}
	for ws, we := nextWord(text, 0); ws < len(text); ws, we = nextWord(text, we) {
		if full, ok := word(text[ws:we], false); ok {
			write(ws, we, full)
			continue
		}
		if we-ws != 1 || we+1 >= len(text) || text[we] != ' ' {
			continue
		}
		second := pairs[strings.ToLower(text[ws:we])]
		if second == nil {
			continue
		}
		ns, ne := nextWord(text, we)
		if ns != we+1 {
			continue
		}
		if full, ok := second[strings.ToLower(text[ns:ne])]; ok {
			write(ws, ne, full)
			we = ne
		}
	}
	if len(o.spans) == 0 {
		return text, Offsets{}, false
	}
	b.WriteString(text[done:])
	return b.String(), o, true
}

// nextWord returns the bounds of the first word of text at or after i
// that has only ASCII letters, digits and apostrophes (none at its start),
// or len(text) twice. A word with letters beyond ASCII ("café") is
// skipped whole: it is no shorthand.
func nextWord(text string, i int) (start, end int) {
	start = -1
	for i < len(text) {
		c := text[i]
		if asciiWord(c, start >= 0) {
			if start < 0 {
				start = i
			}
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case r == '’' && start >= 0:
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)):
			// Skip the word this letter is in.
			for i += n; i < len(text); i += n {
				r, n = rune(text[i]), 1
				if r >= utf8.RuneSelf {
					r, n = utf8.DecodeRuneInString(text[i:])
				}
				if !(r < utf8.RuneSelf && asciiWord(byte(r), true) || r == '’' ||
					r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))) {
					break
				}
			}
			start = -1
			continue
		default:
			if start >= 0 {
				return start, i
			}
		}
		i += n
	}
	if start >= 0 {
		return start, len(text)
	}
	return len(text), len(text)
}

// asciiWord reports whether c is a letter, a digit, or, inside a word, an
// apostrophe.
func asciiWord(c byte, inside bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\'' && inside
}
