package analysis

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/mnemo-dev/mnemo/internal/shorthand"
)

// Analyzer turns text into index terms. It is safe for concurrent use and
// cheap to build: all its tables are package-level literals, so there is
// nothing to load. The zero value is ready to use.
type Analyzer struct {
	// stems remembers english.Stem's answers, word by word: stemming is
	// most of Terms' work, and a store's texts mostly reuse words seen
	// before (PERF-1, PERF-8). At most maxStems words; when full it
	// starts again empty.
	stems    sync.Map // lower-case word → its stem
	numStems atomic.Int32
}

// maxStems bounds an Analyzer's remembered stems (a few MB).
const maxStems = 1 << 15

// stem returns english.Stem(word, true), remembered.
func (a *Analyzer) stem(word string) string {
	if s, ok := a.stems.Load(word); ok {
		return s.(string)
	}
	// A copy: word may be a slice of a long text, which the map would
	// keep alive through the word or its stem.
	word = strings.Clone(word)
	s := english.Stem(word, true)
	if a.numStems.Add(1) > maxStems {
		a.stems.Clear()
		a.numStems.Store(1)
	}
	a.stems.Store(word, s)
	return s
}

// New returns an Analyzer.
func New() *Analyzer { return &Analyzer{} }

// Terms returns the index terms of text, in order, with duplicates kept
// because term frequency matters to BM25.
//
// Words of alphabetic scripts are lower-cased, width-folded and, when they
// are plain ASCII, stemmed with Porter2 ("running" -> "run"). English stop
// words and single letters are dropped; numbers are kept as they are. An
// apostrophe between letters stays inside the word: a clitic ending ('s,
// 'm, 're, 've, 'll, 'd) is removed, so "Caroline's" is indexed as
// "Caroline", a negative contraction such as "don't" becomes "not", and
// otherwise the apostrophe is dropped ("O'Brien" -> "obrien"). Negations
// are not stop words.
//
// Runs of CJK characters are split at stop characters (的, 了, 我, 用, ...)
// and two-character function words (我们, 因为, ...); what remains is indexed
// as overlapping character bigrams, a lone character as a unigram.
//
// Every term consists only of letters, digits and combining marks.
func (a *Analyzer) Terms(text string) []string {
	var terms []string
	for tok := range tokens(text) {
		if tok.cls != word {
			cjkSegments(tok.text, tok.cls, func(seg []unit) {
				bigrams(tok.text, seg, func(t string) { terms = append(terms, t) })
			})
			continue
		}
		a.analyzeWords(tok.text, func(w analyzed) { terms = append(terms, w.term) })
	}
	return terms
}

// IndexString is strings.Join(a.Terms(text), " "): what gets stored in the
// full-text index. Stored this way, any tokenizer that splits on spaces sees
// exactly the terms Query produces.
func (a *Analyzer) IndexString(text string) string {
	return strings.Join(a.Terms(text), " ")
}

// Query is a parsed search query.
type Query struct {
	Terms    []string // analysed like Terms, without duplicates
	Prefixes []string // lower-cased, unstemmed word beginnings
}

// Query parses a user query. Words are analysed like Terms and deduplicated,
// keeping the first occurrence. A word of an alphabetic script followed
// directly by '*' ("Pyth*") becomes a prefix: lower-cased, width-folded and
// not stemmed, since the user wrote the beginning of a surface word; prefixes
// shorter than two characters match too much and are dropped. A '*' after a
// CJK character is ignored.
//
// All other syntax (quotes, AND/OR/NOT, parentheses, ':', '-', '^', NEAR) is
// plain text, so the result can never carry operators into a full-text
// engine.
//
// A query of nothing but stop words ("who is she") gives an empty Query:
// stop words are not in the index, so searching for them could only ever
// match nothing. Callers should read Empty as "no lexical evidence" and rely
// on their other signals.
func (a *Analyzer) Query(q string) Query {
	var out Query
	seen := make(map[string]struct{})
	add := func(list *[]string, key, s string) {
		if _, ok := seen[key]; !ok {
			seen[key] = struct{}{}
			*list = append(*list, s)
		}
	}
	for tok := range tokens(q) {
		switch {
		case tok.star:
			if p := prefix(tok.text); utf8.RuneCountInString(p) >= 2 {
				add(&out.Prefixes, p+"*", p)
			}
		case tok.cls != word:
			cjkSegments(tok.text, tok.cls, func(seg []unit) {
				bigrams(tok.text, seg, func(t string) { add(&out.Terms, t, t) })
			})
		default:
			a.analyzeWords(tok.text, func(w analyzed) { add(&out.Terms, w.term, w.term) })
		}
	}
	return out
}

// Empty reports whether q has neither terms nor prefixes.
func (q Query) Empty() bool { return len(q.Terms) == 0 && len(q.Prefixes) == 0 }

// FTS5 renders q as an SQLite FTS5 MATCH expression that matches any of its
// terms and prefixes, each as a quoted string: `"python" OR "喜欢" OR "pyth"*`.
// Quoting makes every term a string, never an operator or a column filter.
// It returns "" for an empty Query, which FTS5 would reject.
func (q Query) FTS5() string {
	var b strings.Builder
	quote := func(s string) {
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(s, `"`, `""`))
		b.WriteByte('"')
	}
	for _, t := range q.Terms {
		quote(t)
	}
	for _, p := range q.Prefixes {
		quote(p)
		b.WriteByte('*')
	}
	return b.String()
}

// maxWholeSegment is the longest CJK segment Keywords returns whole; longer
// ones, more likely several words run together, give their bigrams.
const maxWholeSegment = 4

// Keywords returns up to n distinct keywords of text, most frequent first,
// ties in order of first appearance. A keyword is given in surface form: a
// word as first written (case kept, width-folded, "Caroline's" ->
// "Caroline"), counted together with its other inflections; a CJK segment
// of two to four characters whole, a longer one as bigrams. Stop words,
// negations, numbers and lone characters are never keywords.
func (a *Analyzer) Keywords(text string, n int) []string {
	if n <= 0 {
		return nil
	}
	type keyword struct {
		surface string
		count   int
	}
	var kws []keyword
	index := make(map[string]int) // term -> position in kws
	add := func(term, surface string) {
		if i, ok := index[term]; ok {
			kws[i].count++
			return
		}
		index[term] = len(kws)
		kws = append(kws, keyword{surface, 1})
	}
	for tok := range tokens(text) {
		if tok.cls != word {
			cjkSegments(tok.text, tok.cls, func(seg []unit) {
				switch {
				case len(seg) == 1:
				case len(seg) <= maxWholeSegment:
					s := tok.text[seg[0].start:seg[len(seg)-1].end]
					add(s, s)
				default:
					bigrams(tok.text, seg, func(t string) { add(t, t) })
				}
			})
			continue
		}
		a.analyzeWords(tok.text, func(w analyzed) {
			if w.kind == plain {
				add(w.term, w.surface)
			}
		})
	}
	slices.SortStableFunc(kws, func(a, b keyword) int { return cmp.Compare(b.count, a.count) })
	out := make([]string, 0, min(n, len(kws)))
	for _, kw := range kws[:min(n, len(kws))] {
		out = append(out, kw.surface)
	}
	return out
}

// kind says what an analysed word is, for Keywords.
type kind uint8

const (
	plain    kind = iota
	number        // only digits
	negation      // "not", "never", "don't", ...
)

// analyzed is the analysis of one word token.
type analyzed struct {
	term    string // index term
	surface string // the word as written, without clitic or apostrophes
	kind    kind
}

// clitics are the endings removed after an apostrophe. They are possessives
// or contracted auxiliaries ("I'm", "we'll"), all stop words on their own.
var clitics = map[string]struct{}{
	"'s": {}, "'m": {}, "'re": {}, "'ve": {}, "'ll": {}, "'d": {},
}

// analyzeWords analyses a word token, or the words a chat's shorthand
// stands for ("bday" is "birthday", "idk" "i don't know"), so that a
// question written out in full finds a chat's words (REC-39), and calls
// yield with each word not dropped.
func (a *Analyzer) analyzeWords(text string, yield func(analyzed)) {
	full, ok := shorthand.Word(text)
	if !ok {
		if w, ok := a.analyzeWord(text); ok {
			yield(w)
		}
		return
	}
	for w := range strings.FieldsSeq(full) {
		if w, ok := a.analyzeWord(w); ok {
			yield(w)
		}
	}
}

// analyzeWord analyses a word token, reporting false if it is dropped.
func (a *Analyzer) analyzeWord(text string) (analyzed, bool) {
	surface := text
	if i := strings.LastIndexByte(surface, '\''); i >= 0 {
		end := strings.ToLower(surface[i:])
		if end == "'t" && (surface[i-1] == 'n' || surface[i-1] == 'N') {
			return analyzed{term: "not", surface: "not", kind: negation}, true
		}
		if _, ok := clitics[end]; ok {
			surface = surface[:i]
		}
		surface = strings.ReplaceAll(surface, "'", "")
	}
	lower := strings.ToLower(surface)
	if _, ok := notForms[lower]; ok {
		return analyzed{term: "not", surface: "not", kind: negation}, true
	}
	if _, ok := stopWords[lower]; ok || isSingleLetter(lower) {
		return analyzed{}, false
	}
	w := analyzed{term: lower, surface: surface}
	switch {
	case isNumber(lower):
		w.kind = number
	case isASCIILower(lower):
		if s := a.stem(lower); s != "" {
			w.term = s
		}
	}
	if _, ok := negations[lower]; ok {
		w.kind = negation
	}
	return w, true
}

// prefix returns the prefix-query form of a word token: lower-cased, with
// apostrophes removed and no stemming.
func prefix(text string) string {
	return strings.ToLower(strings.ReplaceAll(text, "'", ""))
}

// isSingleLetter reports whether s is one letter, with any marks.
func isSingleLetter(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(r) {
		return false
	}
	for _, r := range s[n:] {
		if !isMark(r) {
			return false
		}
	}
	return true
}

// isNumber reports whether s consists of digits only.
func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// isASCIILower reports whether s consists of the letters a to z only: the
// words Porter2 is meant for. Other words are left unstemmed.
func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
