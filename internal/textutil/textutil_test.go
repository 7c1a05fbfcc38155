package textutil

import (
	"slices"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 memories"}, {1, "1 memory"}, {2, "2 memories"}, {-1, "-1 memory"}, {21, "21 memories"}} {
		if got := Count(tt.n, "memory", "memories"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestSentences: a text's sentences, each with whether it asks; a full
// stop inside a number or word does not end one.
func TestSentences(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string // a sentence asks when it has a question mark
	}{
		{"", nil},
		{"I ran 5.5 km. Did you?", []string{"I ran 5.5 km.", " Did you?"}},
		{"Wow!! Really?! ok", []string{"Wow!!", " Really?!", " ok"}},
		{"Why?. Fine", []string{"Why?.", " Fine"}},
		{"Was it \"great?\" Yes", []string{"Was it \"great?", "\" Yes"}},
		{"你跑了吗？我跑了。", []string{"你跑了吗？", "我跑了。"}},
		{"line one\nline two?", []string{"line one\n", "line two?"}},
		{"see example.com now", []string{"see example.com now"}},
	} {
		var got []string
		Sentences(tt.text, func(s string, asks bool) {
			if asks != strings.ContainsAny(s, "?？") {
				t.Errorf("Sentences(%q): %q asks %v", tt.text, s, asks)
			}
			got = append(got, s)
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// FuzzSentences: any text is split without a panic into sentences that
// put together give it back.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{"I ran 5.5 km. Did you?", "Wow!! Really?! ok", "你跑了吗？我跑了。", "a\n\nb", "", "?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var b strings.Builder
		Sentences(text, func(s string, _ bool) {
			if s == "" {
				t.Errorf("Sentences(%q): an empty sentence", text)
			}
			b.WriteString(s)
		})
		if b.String() != text {
			t.Errorf("Sentences(%q) put together give %q", text, b.String())
		}
	})
}
