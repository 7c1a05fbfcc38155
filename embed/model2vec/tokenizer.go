package model2vec

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// tokenizer is the WordPiece tokenizer of a Hugging Face tokenizer.json, as
// model2vec's models ship it (the potion models: BERT's uncased
// vocabulary): BERT normalisation (clean-up, CJK characters split,
// lowercasing and accent stripping when the normaliser says so), BERT
// pre-tokenisation (whitespace and punctuation), greedy longest-match
// WordPiece with "##" continuations, [UNK] for a word it cannot split.
type tokenizer struct {
	vocab     map[string]int32
	unk       int32 // -1: none
	prefix    string
	maxChars  int
	lowercase bool
	strip     bool // accents
	cjk       bool // put spaces around CJK characters
}

// tokenizerJSON is the part of tokenizer.json read here.
type tokenizerJSON struct {
	Normalizer *normalizerJSON `json:"normalizer"`
	Model      struct {
		Type                    string          `json:"type"`
		Vocab                   json.RawMessage `json:"vocab"`
		UnkToken                string          `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
	} `json:"model"`
}

type normalizerJSON struct {
	Type               string            `json:"type"`
	Lowercase          *bool             `json:"lowercase"`
	StripAccents       *bool             `json:"strip_accents"`
	HandleChineseChars *bool             `json:"handle_chinese_chars"`
	Normalizers        []*normalizerJSON `json:"normalizers"`
}

// parseTokenizer reads a tokenizer.json. Only WordPiece models are read;
// any other says so.
func parseTokenizer(b []byte) (*tokenizer, error) {
	var j tokenizerJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if j.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("tokenizer.json: model type %q: mnemo reads WordPiece tokenizers (model2vec's potion models)", j.Model.Type)
	}
	var vocab map[string]int32
	if err := json.Unmarshal(j.Model.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("tokenizer.json: vocab: %w", err)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("tokenizer.json: an empty vocabulary")
	}
	t := &tokenizer{vocab: vocab, unk: -1, prefix: "##", maxChars: 100, cjk: true}
	if j.Model.ContinuingSubwordPrefix != nil {
		t.prefix = *j.Model.ContinuingSubwordPrefix
	}
	if j.Model.MaxInputCharsPerWord > 0 {
		t.maxChars = j.Model.MaxInputCharsPerWord
	}
	if id, ok := vocab[j.Model.UnkToken]; ok && j.Model.UnkToken != "" {
		t.unk = id
	}
	t.normalizer(j.Normalizer)
	return t, nil
}

// normalizer reads the normaliser's settings: BertNormalizer, or a
// Sequence of Lowercase, NFD and StripAccents.
func (t *tokenizer) normalizer(n *normalizerJSON) {
	if n == nil {
		return
	}
	switch n.Type {
	case "BertNormalizer":
		t.lowercase = n.Lowercase == nil || *n.Lowercase
		t.strip = t.lowercase // BERT: strip_accents null follows lowercase
		if n.StripAccents != nil {
			t.strip = *n.StripAccents
		}
		t.cjk = n.HandleChineseChars == nil || *n.HandleChineseChars
	case "Lowercase":
		t.lowercase = true
	case "StripAccents":
		t.strip = true
	case "Sequence":
		for _, m := range n.Normalizers {
			t.normalizer(m)
		}
	}
}

// encode returns the token ids of text, [UNK] included.
func (t *tokenizer) encode(text string, ids []int32) []int32 {
	if t.strip {
		text = norm.NFD.String(text)
	}
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			ids = t.wordpiece(word.String(), ids)
			word.Reset()
		}
	}
	for _, r := range text {
		switch {
		case r == 0 || r == 0xfffd || (unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'):
			continue // BERT's clean-up
		case t.strip && unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsSpace(r):
			flush()
			continue
		}
		if t.lowercase {
			r = unicode.ToLower(r)
		}
		if isPunct(r) || (t.cjk && isCJK(r)) {
			flush()
			word.WriteRune(r)
			flush()
			continue
		}
		word.WriteRune(r)
	}
	flush()
	return ids
}

// wordpiece splits one word greedily into the longest pieces in the
// vocabulary.
func (t *tokenizer) wordpiece(w string, ids []int32) []int32 {
	if len([]rune(w)) > t.maxChars {
		if t.unk >= 0 {
			ids = append(ids, t.unk)
		}
		return ids
	}
	start := len(ids)
	for pos := 0; pos < len(w); {
		end, found := len(w), int32(-1)
		for end > pos {
			piece := w[pos:end]
			if pos > 0 {
				piece = t.prefix + piece
			}
			if id, ok := t.vocab[piece]; ok {
				found = id
				break
			}
			// Back off one rune.
			end--
			for end > pos && !utf8Start(w[end]) {
				end--
			}
		}
		if found < 0 {
			ids = ids[:start]
			if t.unk >= 0 {
				ids = append(ids, t.unk)
			}
			return ids
		}
		ids = append(ids, found)
		pos = end
	}
	return ids
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// isPunct is BERT's punctuation: ASCII symbols and Unicode P*.
func isPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// isCJK is BERT's CJK Unified Ideographs ranges.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}
