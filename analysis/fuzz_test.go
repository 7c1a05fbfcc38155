package analysis

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// addSeeds gives both fuzzers the same corpus: mixed scripts, FTS syntax,
// apostrophes, marks, emoji and broken UTF-8.
func addSeeds(f *testing.F) {
	for _, s := range []string{
		"",
		"我喜欢用 Python 写代码",
		"Caroline's dogs don't like running in the rain",
		`"a" OR b*) NEAR(c d, 3) col:val -x ^y`,
		"Ｐｙｔｈｏｎ３ ＧＰＴ＊ pyth* 机器* **",
		"私はPythonでコードを書くのが好きです。すごーい！",
		"저는 파이썬을 좋아합니다 ㅋㅋ",
		"nai\u0308ve café O'Brien rock'n'roll dogs' ’twas",
		"👍🏽❤️‍🔥 1️⃣ #tag @user https://example.com/a_b?c=d",
		"ab\xffcd\xe4\xb8 \u200b\ufeff\u0301x",
		"因为我们使用吉他，所以他们在线对话了解一下",
	} {
		f.Add(s)
	}
}

func FuzzTerms(f *testing.F) {
	addSeeds(f)
	a := New()
	f.Fuzz(func(t *testing.T, text string) {
		terms := a.Terms(text)
		for _, term := range terms {
			if !clean(term) {
				t.Fatalf("Terms(%q) has unclean term %q", text, term)
			}
		}
		if again := a.Terms(text); !slices.Equal(terms, again) {
			t.Fatalf("Terms(%q) not deterministic: %q then %q", text, terms, again)
		}
		if got, want := a.IndexString(text), strings.Join(terms, " "); got != want {
			t.Fatalf("IndexString(%q) = %q, want %q", text, got, want)
		}

		kws := a.Keywords(text, 5)
		if len(kws) > 5 {
			t.Fatalf("Keywords(%q, 5) returned %d keywords", text, len(kws))
		}
		for i, kw := range kws {
			if !clean(kw) {
				t.Fatalf("Keywords(%q) has unclean keyword %q", text, kw)
			}
			if slices.Contains(kws[:i], kw) {
				t.Fatalf("Keywords(%q) = %q repeats %q", text, kws, kw)
			}
		}
	})
}

func FuzzQuery(f *testing.F) {
	addSeeds(f)
	a := New()
	f.Fuzz(func(t *testing.T, text string) {
		q := a.Query(text)
		for _, s := range q.Terms {
			if !clean(s) {
				t.Fatalf("Query(%q) has unclean term %q", text, s)
			}
		}
		for _, p := range q.Prefixes {
			if !clean(p) || utf8.RuneCountInString(p) < 2 {
				t.Fatalf("Query(%q) has bad prefix %q", text, p)
			}
		}
		if dup(q.Terms) || dup(q.Prefixes) {
			t.Fatalf("Query(%q) = %q %q has duplicates", text, q.Terms, q.Prefixes)
		}
		if q.Empty() != (len(q.Terms)+len(q.Prefixes) == 0) {
			t.Fatalf("Query(%q).Empty() = %v with %q %q", text, q.Empty(), q.Terms, q.Prefixes)
		}
		// Index and query analysis agree: every query term is an index term
		// of the same text. This holds even with '*' in the text, as a word
		// before a '*' becomes a prefix rather than a different term.
		terms := a.Terms(text)
		for _, s := range q.Terms {
			if !slices.Contains(terms, s) {
				t.Fatalf("Query(%q) term %q is not in Terms = %q", text, s, terms)
			}
		}
		if !strings.ContainsAny(text, "*＊") && len(terms) > 0 && len(q.Terms) == 0 {
			t.Fatalf("Query(%q) is empty but Terms = %q", text, terms)
		}
	})
}

// dup reports whether list holds a string twice.
func dup(list []string) bool {
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		if seen[s] {
			return true
		}
		seen[s] = true
	}
	return false
}
