package analysis

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// class is the kind of run a character belongs to. A token is a maximal run
// of one class, so a script change is always a token boundary: "2024年"
// is "2024" and "年", and a Katakana loanword is split from the kanji and
// kana around it.
type class uint8

const (
	sep    class = iota // punctuation, space, symbols, emoji: between tokens
	word                // letters and digits of alphabetic scripts, digits
	han                 // Han and Hiragana: Chinese, and Japanese kanji with kana endings
	kata                // Katakana
	hangul              // Hangul
	cont                // prolonged-sound marks (ー): continue the CJK run they follow
)

// token is a run of text between separators.
type token struct {
	text string // width-folded, case kept, apostrophes normalised to '\''
	cls  class  // word, han, kata or hangul
	star bool   // followed immediately by '*' (a prefix in a query)
}

// Fold maps full-width ASCII variants to ASCII ("Ｐｙｔｈｏｎ" -> "Python")
// and the ideographic space to a space, so that text typed with a CJK input
// method matches text typed without one.
func Fold(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}

// isApostrophe reports whether r can join the two halves of "don't".
func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u02BC'
}

// isMark reports whether r is a combining mark that belongs to the character
// before it (accents, Indic vowel signs, kana voicing marks). Enclosing marks
// and variation selectors only decorate symbols and emoji, so they are not
// marks here.
func isMark(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Mc) && !unicode.Is(unicode.Variation_Selector, r)
}

// classOf returns the class of the (folded) rune r.
func classOf(r rune) class {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return word
		}
		return sep
	}
	if !unicode.IsLetter(r) {
		if unicode.IsDigit(r) {
			return word
		}
		return sep
	}
	switch {
	case unicode.In(r, unicode.Han, unicode.Hiragana):
		return han
	case unicode.Is(unicode.Katakana, r):
		return kata
	case unicode.Is(unicode.Hangul, r):
		return hangul
	case r == 0x30FC || r == 0xFF70 || r == 0xFF9E || r == 0xFF9F:
		// ー and its half-width forms, and the half-width voicing marks,
		// are Common script.
		return cont
	}
	return word
}

// tokens splits s into word and CJK tokens. Invalid UTF-8 and every
// character that is neither a letter, a digit nor a mark inside a token is
// a separator, so a token's text holds only letters, digits, marks and
// (in word tokens) apostrophes between two letters.
func tokens(s string) iter.Seq[token] {
	return func(yield func(token) bool) {
		var (
			buf     []byte // text of the current token if it differs from s[start:end]
			cur     = sep  // class of the current token
			start   int    // where the current token starts in s
			end     int    // where it ends in s
			changed bool   // whether buf, not s[start:end], holds the text
			last    rune   // last rune appended
		)
		// flush ends the current token; it reports false if yield asked to stop.
		flush := func(star bool) bool {
			if cur == sep {
				return true
			}
			t := token{cls: cur, star: star && cur == word}
			if changed {
				t.text = string(buf)
			} else {
				t.text = s[start:end]
			}
			cur, buf, changed = sep, buf[:0], false
			return yield(t)
		}
		// add appends rune r (original orig, of size n at offset i) to the
		// current token, starting one of class c if there is none.
		add := func(c class, r, orig rune, i, n int) {
			if cur == sep {
				cur, start, end = c, i, i
			}
			if r != orig && !changed {
				buf = append(buf[:0], s[start:end]...)
				changed = true
			}
			if changed {
				buf = utf8.AppendRune(buf, r)
			}
			end = i + n
			last = r
		}

		for i := 0; i < len(s); {
			orig, n := utf8.DecodeRuneInString(s[i:])
			r := Fold(orig)
			c := classOf(r)
			switch {
			case c == word || c == han || c == kata || c == hangul:
				if cur != c && !flush(false) {
					return
				}
				add(c, r, orig, i, n)
			case c == cont:
				if cur == sep || cur == word {
					if !flush(false) {
						return
					}
					c = kata
				} else {
					c = cur
				}
				add(c, r, orig, i, n)
			case cur != sep && isMark(r):
				add(cur, r, orig, i, n)
			case cur == word && isApostrophe(r) && (unicode.IsLetter(last) || isMark(last)) && letterFollows(s[i+n:]):
				add(word, '\'', orig, i, n)
			case r == '*':
				if !flush(true) {
					return
				}
			default:
				if !flush(false) {
					return
				}
			}
			i += n
		}
		flush(false)
	}
}

// letterFollows reports whether s starts with a letter of a word token, as
// the second half of "don't" must.
func letterFollows(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	r = Fold(r)
	return classOf(r) == word && unicode.IsLetter(r)
}
