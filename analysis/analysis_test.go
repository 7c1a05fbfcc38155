package analysis

import (
	"fmt"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"spaces", " \t\n\u3000 ", nil},
		{"only stop words", "Who is she? It was the one.", []string{"one"}},
		{"stemming", "running dogs", []string{"run", "dog"}},
		{"stemming keeps duplicates", "Dogs run; the dog runs.", []string{"dog", "run", "dog", "run"}},
		{"possessive", "Caroline's cat", []string{"carolin", "cat"}},
		{"possessive curly", "Caroline’s cat", []string{"carolin", "cat"}},
		{"plural possessive", "the dogs' toys", []string{"dog", "toy"}},
		{"negative contraction", "I don't know", []string{"not", "know"}},
		{"negative contractions", "isn't, can't, won't", []string{"not", "not", "not"}},
		{"contraction without apostrophe", "dont worry", []string{"not", "worri"}},
		{"negations kept", "no meat, never fish, not eggs", []string{"no", "meat", "never", "fish", "not", "egg"}},
		{"auxiliary clitics", "I'm sure we'll go, they've gone", []string{"sure", "go", "gone"}},
		{"inner apostrophe", "O'Brien rock'n'roll", []string{"obrien", "rocknrol"}},
		{"quotes are not apostrophes", "'hello' 'world'", []string{"world"}},
		{"full-width", "Ｐｙｔｈｏｎ ＧＰＴ－４", []string{"python", "gpt", "4"}},
		{"numbers", "born in 1987, has 3 kids, 1,000 dollars", []string{"born", "1987", "3", "kid", "1", "000", "dollar"}},
		{"letters and digits", "GPT4o mp3", []string{"gpt4o", "mp3"}},
		{"single letters dropped", "a b c x-ray", []string{"ray"}},
		{"non-ASCII words unstemmed", "café naïve Müller's Straße", []string{"café", "naïve", "müller", "straße"}},
		{"combining marks", "nai\u0308ve", []string{"nai\u0308ve"}},
		{"cyrillic", "Привет, мир", []string{"привет", "мир"}},
		{"emoji and punctuation", "👍🏽❤️ great!!! 🎉 #tag @bob", []string{"great", "tag", "bob"}},
		{"variation selector", "coffee\ufe0f", []string{"coffe"}},
		{"seed mixed", "我喜欢用 Python 写代码", []string{"喜欢", "python", "代码"}},
		{"seed mixed no spaces", "我喜欢用Python写代码", []string{"喜欢", "python", "代码"}},
		{"chinese bigrams", "机器学习", []string{"机器", "器学", "学习"}},
		{"chinese unigram", "你好", []string{"好"}},
		{"chinese stop pairs", "因为我们喜欢他们", []string{"喜欢"}},
		{"chinese keep pairs", "他使用吉他", []string{"使用", "用吉", "吉他"}},
		{"chinese punctuation", "今天，天气。", []string{"今天", "天气"}},
		{"script boundary", "2024年", []string{"2024", "年"}},
		{"japanese", "私はPythonでコードを書くのが好きです", []string{"私", "python", "コー", "ード", "書く", "好き"}},
		{"japanese lone kana dropped", "それは", nil},
		{"korean", "파이썬 좋아", []string{"파이", "이썬", "좋아"}},
		{"korean syllable", "책", []string{"책"}},
		{"invalid utf-8", "ab\xffcd", []string{"ab", "cd"}},
		{"chat shorthand", "my bday pics from yday", []string{"birthday", "pictur", "yesterday"}},
		{"shorthand of several words", "idk, gonna ask", []string{"not", "know", "go", "ask"}},
		{"shorthand possessive", "Bday's cake", []string{"birthday", "cake"}},
		{"acronym is no shorthand", "UNI BC", []string{"uni", "bc"}},
		{"british spelling", "my favourite colour", []string{"favorit", "color"}},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := a.Terms(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for _, term := range got {
				if !clean(term) {
					t.Errorf("Terms(%q) has unclean term %q", tt.in, term)
				}
			}
		})
	}
}

// TestShorthandFound: a question written out in full asks with the
// terms of a chat's shorthand (REC-39).
func TestShorthandFound(t *testing.T) {
	a := New()
	for _, tc := range []struct{ chat, question string }{
		{"omg my bday party!!", "birthday party"},
		{"got new pics of the kids", "pictures kids"},
		{"my bf took me to the theatre", "boyfriend theater"},
		{"congrats on the new appt", "congratulations appointment"},
		{"we spent the wknd at my mum's", "weekend mom"},
		{"fave band, c u 2nite", "favorite band tonight"},
	} {
		have := a.Terms(tc.chat)
		for _, q := range a.Query(tc.question).Terms {
			if !slices.Contains(have, q) {
				t.Errorf("%q asks with %q, which %q's terms %q lack", tc.question, q, tc.chat, have)
			}
		}
	}
}

func TestIndexString(t *testing.T) {
	a := New()
	if got, want := a.IndexString("我喜欢用 Python 写代码"), "喜欢 python 代码"; got != want {
		t.Errorf("IndexString = %q, want %q", got, want)
	}
	if got := a.IndexString("the"); got != "" {
		t.Errorf("IndexString(stop word) = %q, want empty", got)
	}
}

func TestQuery(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		terms    []string
		prefixes []string
	}{
		{"empty", "", nil, nil},
		{"only stop words", "who is she", nil, nil},
		{"seed", "我喜欢用 Python 写代码", []string{"喜欢", "python", "代码"}, nil},
		{"dedup", "dog Dogs DOG 喜欢喜欢", []string{"dog", "喜欢", "欢喜"}, nil},
		{"prefix", "Pyth*", nil, []string{"pyth"}},
		{"prefix unstemmed", "running* runs", []string{"run"}, []string{"running"}},
		{"prefix full-width", "ＰＹＴ＊", nil, []string{"pyt"}},
		{"prefix too short", "P* x*", nil, nil},
		{"prefix of stop word", "the*", nil, []string{"the"}},
		{"prefix dedup", "py* PY** py*", nil, []string{"py"}},
		{"prefix inside word", "Py*thon", []string{"thon"}, []string{"py"}},
		{"star after space", "python *", []string{"python"}, nil},
		{"star after cjk", "机器*", []string{"机器"}, nil},
		{"prefix digits", "20*", nil, []string{"20"}},
		{"injection quotes", `"a" OR b*) NEAR(`, []string{"near"}, nil},
		{"injection column", "col:val", []string{"col", "val"}, nil},
		{"injection not", "-x ^y", nil, nil},
		{"injection operators", `title:secret AND (NOT "x y") NEAR(a b, 3) ^start -minus`, []string{"titl", "secret", "not", "near", "3", "start", "minus"}, nil},
		{"injection quote in prefix", `py"*`, []string{"py"}, nil},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := a.Query(tt.in)
			if !slices.Equal(got.Terms, tt.terms) || !slices.Equal(got.Prefixes, tt.prefixes) {
				t.Errorf("Query(%q) = %q %q, want %q %q", tt.in, got.Terms, got.Prefixes, tt.terms, tt.prefixes)
			}
			if empty := len(tt.terms)+len(tt.prefixes) == 0; got.Empty() != empty {
				t.Errorf("Query(%q).Empty() = %v, want %v", tt.in, got.Empty(), empty)
			}
			for _, s := range slices.Concat(got.Terms, got.Prefixes) {
				if !clean(s) {
					t.Errorf("Query(%q) has unclean term %q", tt.in, s)
				}
			}
		})
	}
}

func TestFTS5(t *testing.T) {
	tests := []struct {
		q    Query
		want string
	}{
		{Query{}, ""},
		{Query{Terms: []string{"python", "喜欢"}}, `"python" OR "喜欢"`},
		{Query{Prefixes: []string{"pyth"}}, `"pyth"*`},
		{Query{Terms: []string{"run"}, Prefixes: []string{"py", "go"}}, `"run" OR "py"* OR "go"*`},
		{Query{Terms: []string{`a"b`}}, `"a""b"`}, // built by hand, still quoted safely
	}
	for _, tt := range tests {
		if got := tt.q.FTS5(); got != tt.want {
			t.Errorf("%+v.FTS5() = %s, want %s", tt.q, got, tt.want)
		}
	}
}

func TestKeywords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want []string
	}{
		{"seed", "我喜欢用 Python 写代码", 10, []string{"喜欢", "Python", "代码"}},
		{"zero", "Python Python", 0, nil},
		{"empty", "", 5, []string{}},
		{"frequency then first appearance", "Go is fun. Rust is fast. I like Rust and rust.", 10, []string{"Rust", "Go", "fun", "fast", "like"}},
		{"inflections counted together", "dog cats Dogs cat dogs", 10, []string{"dog", "cats"}},
		{"limit", "alpha beta gamma delta", 2, []string{"alpha", "beta"}},
		{"surface form", "Caroline's ＰＹＴＨＯＮ", 10, []string{"Caroline", "PYTHON"}},
		{"no negations or numbers", "I don't have 3 cats, never", 10, []string{"cats"}},
		{"cjk whole segments", "机器学习很有趣，机器学习", 10, []string{"机器学习", "有趣"}},
		{"long cjk segment as bigrams", "自然语言处理", 10, []string{"自然", "然语", "语言", "言处", "处理"}},
		{"lone characters", "你好", 10, []string{}},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := a.Keywords(tt.in, tt.n)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Keywords(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

// TestKeywordsSeed is REC-9's example: mixed Chinese and English text.
func TestKeywordsSeed(t *testing.T) {
	got := New().Keywords("我喜欢用 Python 写代码", 10)
	for _, want := range []string{"Python", "代码", "喜欢"} {
		if !slices.Contains(got, want) {
			t.Errorf("Keywords = %q, missing %q", got, want)
		}
	}
	for _, bad := range []string{"我", "用", "写"} {
		if slices.Contains(got, bad) {
			t.Errorf("Keywords = %q, contains stop word %q", got, bad)
		}
	}
}

func TestIsCJK(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"hello, world", false},
		{"Ｐｙｔｈｏｎ", false},
		{"café 👍", false},
		{"hello 世界", true},
		{"カタカナ", true},
		{"ひらがな", true},
		{"한국어", true},
		{"，。", false}, // CJK punctuation is not a CJK character
	}
	for _, tt := range tests {
		if got := IsCJK(tt.in); got != tt.want {
			t.Errorf("IsCJK(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestZeroValue checks the documented promise that the zero Analyzer works.
func TestZeroValue(t *testing.T) {
	var a Analyzer
	if got := a.Terms("running dogs"); !slices.Equal(got, []string{"run", "dog"}) {
		t.Errorf("zero Analyzer: Terms = %q", got)
	}
}

// clean reports whether s is a usable term: non-empty, valid UTF-8, made
// only of letters, digits and combining marks.
func clean(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			return false
		}
	}
	return true
}

// TestStemsRemembered: a remembered stem is english.Stem's, the first time
// and after, also once the memory has filled and started again; it never
// holds more than maxStems words.
func TestStemsRemembered(t *testing.T) {
	a := New()
	words := []string{"running", "runs", "generously", "caresses", "dying", "skies", "news", "atlas", "cosmos", "sky"}
	for i := range maxStems + 100 {
		words = append(words, fmt.Sprintf("%sing%d", words[i%10], i)) // fills the memory past its bound
	}
	for round := range 2 {
		for _, w := range words {
			if got, want := a.stem(w), english.Stem(w, true); got != want {
				t.Fatalf("round %d: stem(%q) = %q, want %q", round, w, got, want)
			}
		}
		if n := a.numStems.Load(); n > maxStems {
			t.Errorf("round %d: %d stems remembered, at most %d", round, n, maxStems)
		}
	}
}
