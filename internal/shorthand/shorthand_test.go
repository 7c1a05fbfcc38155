package shorthand

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWord(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"tmrw", "tomorrow", true},
		{"Tmrw", "tomorrow", true},
		{"bday's", "birthday's", true},
		{"bday’s", "birthday’s", true},
		{"yday", "yesterday", true},
		{"idk", "i don't know", true},
		{"favourite", "favorite", true},
		{"u", "you", true},
		{"BC", "BC", false},     // an acronym
		{"TMRW", "TMRW", false}, // capitals are read as an acronym
		{"tomorrow", "tomorrow", false},
		{"birthday", "birthday", false},
		{"", "", false},
		{"2day", "2day", false}, // also "a 2day trip"
		{"averyveryverylongword", "averyveryverylongword", false},
	} {
		got, ok := Word(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Word(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"c u tmrw!", "see you tomorrow!"},
		{"r u free? C U soon, c ya", "are you free? see you soon, see you"},
		{"plan c u2 abc u", "plan c u2 abc you"},
		{"c  u", "c  you"},
		{"vitamin c", "vitamin c"},
		{"my bday party was last nite lol", "my birthday party was last night lol"},
		{"Going 2nite w/ my bf", "Going tonight w/ my boyfriend"},
		{"gonna see her nxt wk, idk", "going to see her next week, i don't know"},
		{"(yday)", "(yesterday)"},
		{"'tmrw'", "'tomorrow'"},
		{"tmrw😂", "tomorrow😂"},
		{"see you tomorrow", "see you tomorrow"},
		{"café tmrwé", "café tmrwé"}, // a word with other letters is no shorthand
		{"zürich yday", "zürich yesterday"},
		{"", ""},
		{"tmrw", "tomorrow"},
		{"BC 300", "BC 300"},
		{"my favourite colour", "my favourite colour"}, // spellings are Word's alone
	} {
		got, o, ok := Expand(tc.in)
		if got != tc.want || ok != (tc.in != tc.want) {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
		checkOffsets(t, tc.in, got, o)
	}
}

func TestOffsets(t *testing.T) {
	in := "c u tmrw at 5"
	out, o, _ := Expand(in) // "see you tomorrow at 5"
	for _, tc := range []struct {
		written    string
		start, end int // in the text read
	}{
		{"tomorrow", 4, 8},
		{"you tomorrow", 0, 8}, // "you" is of "c u", written "see you"
		{"morrow", 4, 8},       // inside a written-out word: the whole word
		{"at 5", 9, 13},
		{"see", 0, 3},
	} {
		p := strings.Index(out, tc.written)
		s, e := o.Start(p), o.End(p+len(tc.written))
		if s != tc.start || e != tc.end {
			t.Errorf("%q at [%d,%d) maps to [%d,%d) %q, want [%d,%d)", tc.written, p, p+len(tc.written), s, e, in[s:e], tc.start, tc.end)
		}
	}
	var zero Offsets
	if zero.Start(7) != 7 || zero.End(7) != 7 {
		t.Error("the zero Offsets moves positions")
	}
}

// TestNoChains: a word written out is no shorthand itself, so Expand
// writes a text out once and for all.
func TestNoChains(t *testing.T) {
	all := maps.Clone(words)
	maps.Copy(all, spellings)
	if len(all) != len(words)+len(spellings) {
		t.Error("a spelling is shorthand too")
	}
	for k, v := range all {
		if k != strings.ToLower(k) || len(k) > maxWord {
			t.Errorf("key %q: not lower case, or longer than maxWord", k)
		}
		for _, w := range strings.Fields(v) {
			if _, ok := Word(w); ok {
				t.Errorf("%q stands for %q, and %q is shorthand too", k, v, w)
			}
		}
	}
}

// checkOffsets checks what Expand's offsets must hold: every position of
// the written text maps into the text read, in order, the written-out
// words map to the words read, and the rest is the text read.
func checkOffsets(t *testing.T, in, out string, o Offsets) {
	t.Helper()
	last := 0
	for p := 0; p <= len(out); p++ {
		s, e := o.Start(p), o.End(p)
		if s < 0 || e > len(in) || s > e || s < last {
			t.Fatalf("Expand(%q): position %d maps to [%d, %d) after %d", in, p, s, e, last)
		}
		last = s
	}
	var rebuilt strings.Builder
	at := 0
	for _, s := range o.spans {
		if s.to < at || s.to+s.is > len(out) || s.from+s.was > len(in) {
			t.Fatalf("Expand(%q): span %+v out of bounds", in, s)
		}
		rebuilt.WriteString(out[at:s.to])
		w := in[s.from : s.from+s.was]
		if full, ok := written(w); !ok || full != out[s.to:s.to+s.is] {
			t.Fatalf("Expand(%q): %q written as %q", in, w, out[s.to:s.to+s.is])
		}
		rebuilt.WriteString(w)
		at = s.to + s.is
	}
	rebuilt.WriteString(out[at:])
	if rebuilt.String() != in {
		t.Fatalf("Expand(%q): the offsets rebuild %q", in, rebuilt.String())
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"c u tmrw!", "bday’s party 2nite", "café tmrwé", "'yday'", "ＴＭＲＷ", "tmrw\xff yday", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, o, ok := Expand(in)
		if !ok {
			if out != in {
				t.Fatalf("Expand(%q) = %q with nothing written out", in, out)
			}
			return
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Expand(%q) = %q: not UTF-8", in, out)
		}
		checkOffsets(t, in, out, o)
		if again, _, _ := Expand(out); again != out {
			t.Fatalf("Expand(%q) = %q, again %q", in, out, again)
		}
	})
}

func BenchmarkExpand(b *testing.B) {
	for _, text := range []string{
		"I went to the support group yesterday and it was really helpful, thanks for asking!",
		"omg my bday party was last nite, c u tmrw? gonna be gr8",
	} {
		b.Run(strings.Fields(text)[0], func(b *testing.B) {
			for b.Loop() {
				Expand(text)
			}
		})
	}
}

// written returns what Expand writes for one word or pair it writes out.
func written(w string) (string, bool) {
	if full, ok := Word(w); ok {
		return full, true
	}
	first, second, ok := strings.Cut(w, " ")
	full, ok2 := pairs[strings.ToLower(first)][strings.ToLower(second)]
	return full, ok && ok2
}
