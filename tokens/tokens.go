// Package tokens counts text as a model's tokenizer does, offline: the BPE
// ranks of OpenAI's encodings are compiled into the binary (from
// github.com/pkoukk/tiktoken-go-loader), so nothing is downloaded. Budgets
// of prompt text — a run's short-term memory, a snapshot, a default read —
// are counted with it.
package tokens

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encodings this package knows. CL100K is the default: GPT-4 and
// GPT-3.5's, and within a few per cent of most models' counts on English.
const (
	CL100K = "cl100k_base"
	O200K  = "o200k_base" // GPT-4o and later
	P50K   = "p50k_base"  // Codex, text-davinci
)

// Names lists the encodings New accepts.
func Names() []string { return []string{CL100K, O200K, P50K} }

// encoding is what tiktoken needs besides the ranks: the pre-tokenizer
// pattern and the special tokens, as OpenAI's tiktoken defines them.
type encoding struct {
	pattern string
	special map[string]int
}

var encodings = map[string]encoding{
	CL100K: {
		pattern: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		special: map[string]int{"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
	},
	O200K: {
		pattern: `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
			`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
			`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		special: map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
	},
	P50K: {
		pattern: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
		special: map[string]int{"<|endoftext|>": 50256},
	},
}

// Tokenizer counts and cuts text in one encoding. Its ranks are loaded on
// first use (about a tenth of a second for cl100k), not by New, once per
// process and encoding. It is safe for concurrent use.
type Tokenizer struct {
	name string
}

// New returns a tokenizer for the named encoding; "" is CL100K.
func New(name string) (*Tokenizer, error) {
	if name == "" {
		name = CL100K
	}
	if _, ok := encodings[name]; !ok {
		return nil, fmt.Errorf("tokens: unknown encoding %q (known: %v)", name, Names())
	}
	return &Tokenizer{name: name}, nil
}

// Name returns the encoding's name.
func (t *Tokenizer) Name() string { return t.name }

// loaded holds each encoding's BPE, built on first use. The ranks are
// compiled in and never change, so every tokenizer of an encoding shares
// one: a command, or a test, that makes several does not load them again.
var loaded = map[string]func() (*tiktoken.Tiktoken, error){
	CL100K: sync.OnceValues(func() (*tiktoken.Tiktoken, error) { return load(CL100K) }),
	O200K:  sync.OnceValues(func() (*tiktoken.Tiktoken, error) { return load(O200K) }),
	P50K:   sync.OnceValues(func() (*tiktoken.Tiktoken, error) { return load(P50K) }),
}

func (t *Tokenizer) load() (*tiktoken.Tiktoken, error) { return loaded[t.name]() }

func load(name string) (*tiktoken.Tiktoken, error) {
	enc := encodings[name]
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("tokens: load %s: %w", name, err)
	}
	bpe, err := tiktoken.NewCoreBPE(ranks, enc.special, enc.pattern)
	if err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", name, err)
	}
	set := make(map[string]any, len(enc.special))
	for k := range enc.special {
		set[k] = true
	}
	return tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{Name: name, PatStr: enc.pattern, MergeableRanks: ranks, SpecialTokens: enc.special}, set), nil
}

// Load reads the encoding's ranks now rather than on first use, and
// reports whether they could be read.
func (t *Tokenizer) Load() error {
	_, err := t.load()
	return err
}

// Count returns how many tokens s is. Special tokens such as
// <|endoftext|> are counted as the plain text they are.
func (t *Tokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	tk, err := t.load()
	if err != nil {
		// The ranks are compiled in; this cannot fail but for a broken
		// build. Never undercount: a byte is at most one token.
		return len(s)
	}
	return len(tk.EncodeOrdinary(s))
}

// Truncate returns the longest prefix of s of at most n tokens that ends on
// a whole character, and whether anything was cut.
func (t *Tokenizer) Truncate(s string, n int) (string, bool) {
	if n <= 0 {
		return "", s != ""
	}
	tk, err := t.load()
	if err != nil {
		if len(s) <= n {
			return s, false
		}
		return validPrefix(s[:n]), true
	}
	ids := tk.EncodeOrdinary(s)
	if len(ids) <= n {
		return s, false
	}
	// A token may end inside a multi-byte character; drop the partial one.
	return validPrefix(tk.Decode(ids[:n])), true
}

// validPrefix drops a trailing incomplete UTF-8 sequence.
func validPrefix(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		c := s[i]
		if c < 0x80 {
			return s
		}
		if c >= 0xC0 { // a lead byte: is its sequence complete?
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			if len(s)-i < need {
				return s[:i]
			}
			return s
		}
	}
	return s
}
