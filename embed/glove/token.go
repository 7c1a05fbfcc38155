package glove

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/analysis"
)

// Tokenisation follows scripts/glove/sif.js step by step; the golden test
// fails if the two drift apart.
//
// GloVe's vocabulary is lower-case English words as the Stanford tokenizer
// cut them, without its clitic tokens ('s, n't, 're) and, in wink's
// version, without numbers and single letters. Text is therefore split
// into runs of letters, digits and combining marks; an apostrophe between
// letters stays in the run so that clitics can be mapped to the words
// GloVe does have (see words). CJK text, which GloVe lacks, is cut into
// character bigrams instead.

// fold maps full-width ASCII to ASCII and the ideographic space to a space,
// as the lexical analyser does, and typographic apostrophes (’, ʼ) to the
// ASCII one.
func fold(r rune) rune {
	if r == 0x2019 || r == 0x02BC {
		return '\''
	}
	return analysis.Fold(r)
}

// isCJK reports whether r is Han, Hiragana, Katakana or Hangul, or the
// prolonged-sound mark ー (Common script, but always inside Katakana).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return r == 0x30FC || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isMark(r rune) bool {
	return r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Mc)
}

// tokenizer cuts text into tokens, reusing one buffer.
type tokenizer struct {
	buf []byte
}

// tokens calls fn with every token of text in order: a lower-cased word
// (possibly with inner apostrophes) with cjk false, or a run of CJK
// characters with cjk true.
func (t *tokenizer) tokens(text string, fn func(tok string, cjk bool)) {
	const (
		none = iota
		word
		cjk
	)
	cur := none
	apos := false // the last rune in buf is an apostrophe
	flush := func() {
		if apos {
			t.buf = t.buf[:len(t.buf)-1]
		}
		if cur != none && len(t.buf) > 0 {
			fn(string(t.buf), cur == cjk)
		}
		t.buf, cur, apos = t.buf[:0], none, false
	}
	for _, r := range text {
		r = fold(r)
		switch {
		case isCJK(r):
			if cur != cjk {
				flush()
				cur = cjk
			}
			t.buf = utf8.AppendRune(t.buf, r)
			apos = false
		case isWordRune(r):
			if cur != word {
				flush()
				cur = word
			}
			t.buf = utf8.AppendRune(t.buf, unicode.ToLower(r))
			apos = false
		case isMark(r) && cur != none:
			t.buf = utf8.AppendRune(t.buf, r)
			apos = false
		case r == '\'' && cur == word && !apos:
			t.buf = append(t.buf, '\'')
			apos = true
		default:
			flush()
		}
	}
	flush()
}

// Clitics GloVe has no token for, mapped to the words they stand for.
var (
	clitics  = map[string]string{"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would"}
	negBases = map[string]string{"ca": "can", "wo": "will", "sha": "shall"}
)

// words calls fn with the vocabulary words of a word token:
// "caroline's" -> caroline, "don't" -> do not, "can't" -> can not,
// "we'll" -> we will, "o'brien" and "rock'n'roll" -> obrien, rocknroll.
// Words of one letter are dropped: the vocabulary has none, and the
// frequent ones (a, i, s) carry nothing. A lone digit is kept.
func words(tok string, fn func(w string)) {
	emit := func(w string) {
		r, n := utf8.DecodeRuneInString(w)
		if n == 0 || n == len(w) && !unicode.IsNumber(r) {
			return
		}
		fn(w)
	}
	x, y, ok := strings.Cut(tok, "'")
	switch {
	case !ok:
		emit(tok)
	case strings.Contains(y, "'"):
		emit(strings.ReplaceAll(tok, "'", ""))
	case y == "s":
		emit(x)
	case y == "t" && strings.HasSuffix(x, "n"):
		b := x[:len(x)-1]
		if nb, ok := negBases[b]; ok {
			b = nb
		}
		emit(b)
		emit("not")
	case clitics[y] != "":
		emit(x)
		emit(clitics[y])
	default:
		emit(x + y)
	}
}

// cjkStops are particles and function characters: a CJK run is split at
// them, so that no bigram spans one.
const cjkStops = "的了是在和与也都就很吗呢吧啊着过把被给之而及或" + "のはをがにでともへやかねよ"

// cjkFeatures calls fn with the characters and character bigrams of a CJK
// run split at stop characters, each character followed by the bigram it
// starts. Bigrams stand in for words, which are mostly two characters long;
// characters let words that share one (急跌, 暴跌) overlap, and double the
// features two related texts share, which lifts their similarity clearly
// above the noise of hashed vectors in 100 dimensions. Combining marks
// stay with the character before them.
func cjkFeatures(run string, fn func(f string)) {
	var starts []int // byte offsets of the characters of the current segment
	flush := func(end int) {
		for i := range starts {
			j, k := end, end
			if i+1 < len(starts) {
				j = starts[i+1]
			}
			if i+2 < len(starts) {
				k = starts[i+2]
			}
			fn(run[starts[i]:j])
			if i+1 < len(starts) {
				fn(run[starts[i]:k])
			}
		}
		starts = starts[:0]
	}
	for i, r := range run {
		switch {
		case isMark(r) && len(starts) > 0:
		case strings.ContainsRune(cjkStops, r):
			flush(i)
		default:
			starts = append(starts, i)
		}
	}
	flush(len(run))
}
