// Package textutil holds the small text helpers the services share.
package textutil

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// FirstSentence returns text up to its first sentence end.
func FirstSentence(text string) string {
	text = OneLine(text)
	for i, r := range text {
		switch r {
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' {
				return text[:i+1]
			}
		case '。', '！', '？':
			return text[:i+len(string(r))]
		}
	}
	return text
}

// OneLine folds whitespace runs, newlines included, into single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip cuts s to at most n characters, marking the cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return strings.TrimSpace(string(rs[:n-1])) + "…"
}

// TruncateRunes cuts s to at most n characters, unmarked.
func TruncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// EmptyJSON reports whether text or JSON holds nothing: blank, null, or an
// empty object, array or string.
func EmptyJSON(d []byte) bool {
	s := strings.TrimSpace(string(d))
	return s == "" || s == "null" || s == "{}" || s == `""` || s == "[]"
}

// KeySegment makes a tag safe as one key segment.
func KeySegment(tag string) string {
	var b strings.Builder
	for _, r := range tag {
		if r == '/' || r < ' ' {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Count is n and the noun that agrees with it: "1 memory", "0 memories",
// "3 memories".
func Count(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}

// EditDistance is the Levenshtein distance of a and b, in runes.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Sentences calls fn with each sentence of text, and whether it asks (its
// closing marks have a question mark: "really?!"). A full stop ends one
// only before a space, a quote or the end, so numbers ("5.5") and names
// ("example.com") stay whole.
func Sentences(text string, fn func(text string, asks bool)) {
	start, asks := 0, false
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		switch r {
		case '.', '!', '?':
			asks = asks || r == '?'
			if end < len(text) && !strings.ContainsRune(" \t\n\"'", rune(text[end])) {
				if !strings.ContainsRune(".!?", rune(text[end])) {
					asks = false
				}
				continue
			}
		case '。', '！', '？', '\n':
			asks = asks || r == '？'
		default:
			continue
		}
		if start < end {
			fn(text[start:end], asks)
		}
		start, asks = end, false
	}
	if start < len(text) {
		fn(text[start:], false)
	}
}
