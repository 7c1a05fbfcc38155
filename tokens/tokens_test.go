package tokens_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/tokens"
)

// The counts are OpenAI's tiktoken's (tiktoken.get_encoding(name).encode).
func TestCount(t *testing.T) {
	tests := []struct {
		enc, text string
		want      int
	}{
		{tokens.CL100K, "", 0},
		{tokens.CL100K, "hello world", 2},
		{tokens.CL100K, "tiktoken is great!", 6},
		{tokens.CL100K, "antidisestablishmentarianism", 6},
		{tokens.CL100K, "<|endoftext|>", 7},
		{tokens.O200K, "hello world", 2},
		{tokens.P50K, "hello world", 2},
	}
	for _, tt := range tests {
		tk, err := tokens.New(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Count(tt.text); got != tt.want {
			t.Errorf("%s Count(%q) = %d, want %d", tt.enc, tt.text, got, tt.want)
		}
	}
}

func TestUnknownEncoding(t *testing.T) {
	if _, err := tokens.New("gpt2-ish"); err == nil {
		t.Fatal("unknown encoding accepted")
	}
	tk, err := tokens.New("")
	if err != nil || tk.Name() != tokens.CL100K {
		t.Fatalf("default = %v, %v", tk, err)
	}
}

func TestTruncate(t *testing.T) {
	tk, _ := tokens.New("")
	tests := []struct {
		text string
		n    int
	}{
		{"The quick brown fox jumps over the lazy dog.", 4},
		{"The quick brown fox", 40},
		{"今天天气很好，我们去公园散步吧。", 3},
		{"😀😀😀😀", 1},
		{"anything", 0},
	}
	for _, tt := range tests {
		got, cut := tk.Truncate(tt.text, tt.n)
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q: not UTF-8", tt.text, tt.n, got)
		}
		if !strings.HasPrefix(tt.text, got) {
			t.Errorf("Truncate(%q, %d) = %q: not a prefix", tt.text, tt.n, got)
		}
		if n := tk.Count(got); n > tt.n {
			t.Errorf("Truncate(%q, %d) = %q: %d tokens", tt.text, tt.n, got, n)
		}
		if cut != (got != tt.text) {
			t.Errorf("Truncate(%q, %d) cut = %v, got %q", tt.text, tt.n, cut, got)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	tk, _ := tokens.New("")
	text := strings.Repeat("The agent called search_flights with origin SFO and got 12 results. ", 20)
	tk.Count("warm")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tk.Count(text)
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		tk, _ := tokens.New("")
		if err := tk.Load(); err != nil {
			b.Fatal(err)
		}
	}
}
