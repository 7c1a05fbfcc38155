package model2vec

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizer is the tokenizer of a Hugging Face tokenizer.json, as
// model2vec's models ship it. WordPiece (the English potion models: BERT's
// uncased vocabulary): BERT normalisation (clean-up, CJK characters split,
// lowercasing and accent stripping when the normaliser says so), BERT
// pre-tokenisation (whitespace and punctuation), greedy longest-match
// WordPiece with "##" continuations, [UNK] for a word it cannot split.
// Unigram (SentencePiece vocabularies: XLM-R's in potion-multilingual-128M,
// EMB-7): NFKC for the Precompiled normaliser, Metaspace pre-tokenisation
// (each whitespace-separated word prefixed with "▁"), and the pieces of
// highest total score (Viterbi), an unknown character as the unknown piece.
type tokenizer struct {
	vocab     map[string]int32
	unk       int32 // -1: none
	prefix    string
	maxChars  int
	lowercase bool
	strip     bool // accents
	cjk       bool // put spaces around CJK characters

	unigram  bool
	scores   []float64 // Unigram: per id
	unkScore float64   // Unigram: an unknown character's score
	maxPiece int       // Unigram: the longest piece, in bytes
	space    string    // Unigram: Metaspace's replacement
	nfkc     bool
}

// tokenizerJSON is the part of tokenizer.json read here.
type tokenizerJSON struct {
	Normalizer   *normalizerJSON   `json:"normalizer"`
	PreTokenizer *preTokenizerJSON `json:"pre_tokenizer"`
	Model        struct {
		Type                    string          `json:"type"`
		Vocab                   json.RawMessage `json:"vocab"`
		UnkToken                string          `json:"unk_token"`
		UnkID                   *int            `json:"unk_id"`
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

type preTokenizerJSON struct {
	Type          string              `json:"type"`
	Replacement   string              `json:"replacement"`
	PreTokenizers []*preTokenizerJSON `json:"pretokenizers"`
}

// metaspace returns the replacement of the Metaspace pre-tokenizer in p,
// or "".
func (p *preTokenizerJSON) metaspace() string {
	if p == nil {
		return ""
	}
	if p.Type == "Metaspace" {
		return p.Replacement
	}
	for _, q := range p.PreTokenizers {
		if r := q.metaspace(); r != "" {
			return r
		}
	}
	return ""
}

// parseTokenizer reads a tokenizer.json. WordPiece and Unigram models are
// read; any other says so.
func parseTokenizer(b []byte) (*tokenizer, error) {
	var j tokenizerJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	switch j.Model.Type {
	case "WordPiece":
	case "Unigram":
		return parseUnigram(&j)
	default:
		return nil, fmt.Errorf("tokenizer.json: model type %q: mnemo reads WordPiece and Unigram tokenizers (model2vec's potion models)", j.Model.Type)
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
	case "NFKC", "Precompiled":
		// Precompiled is SentencePiece's own table, NFKC with a few
		// additions (nmt_nfkc): NFKC is its core.
		t.nfkc = true
	case "StripAccents":
		t.strip = true
	case "Sequence":
		for _, m := range n.Normalizers {
			t.normalizer(m)
		}
	}
}

// parseUnigram reads a Unigram model: its vocabulary is a list of
// [piece, score] pairs, the id a piece's place in it.
func parseUnigram(j *tokenizerJSON) (*tokenizer, error) {
	var pairs [][2]json.RawMessage
	if err := json.Unmarshal(j.Model.Vocab, &pairs); err != nil {
		return nil, fmt.Errorf("tokenizer.json: Unigram vocab: %w", err)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("tokenizer.json: an empty vocabulary")
	}
	if len(pairs) > math.MaxInt32 {
		return nil, fmt.Errorf("tokenizer.json: %d pieces", len(pairs))
	}
	t := &tokenizer{vocab: make(map[string]int32, len(pairs)), scores: make([]float64, len(pairs)), unk: -1, unigram: true, space: "▁"}
	minScore := math.Inf(1)
	for id, p := range pairs {
		var piece string
		var score float64
		if err := json.Unmarshal(p[0], &piece); err != nil {
			return nil, fmt.Errorf("tokenizer.json: Unigram piece %d: %w", id, err)
		}
		if err := json.Unmarshal(p[1], &score); err != nil || math.IsNaN(score) || math.IsInf(score, 0) {
			return nil, fmt.Errorf("tokenizer.json: Unigram piece %d: score %s", id, p[1])
		}
		if _, dup := t.vocab[piece]; !dup {
			t.vocab[piece] = int32(id)
		}
		t.scores[id] = score
		minScore = min(minScore, score)
		t.maxPiece = max(t.maxPiece, len(piece))
	}
	// An unknown character costs more than any piece, as in the
	// reference implementation (the lowest score less 10).
	t.unkScore = minScore - 10
	if j.Model.UnkID != nil {
		if *j.Model.UnkID < 0 || *j.Model.UnkID >= len(pairs) {
			return nil, fmt.Errorf("tokenizer.json: unk_id %d outside the vocabulary", *j.Model.UnkID)
		}
		t.unk = int32(*j.Model.UnkID)
	}
	if r := j.PreTokenizer.metaspace(); r != "" {
		t.space = r
	}
	t.normalizer(j.Normalizer)
	return t, nil
}

// encode returns the token ids of text, [UNK] included.
func (t *tokenizer) encode(text string, ids []int32) []int32 {
	if t.unigram {
		return t.encodeUnigram(text, ids)
	}
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

// encodeUnigram normalises text, cuts it at white space and encodes each
// word, prefixed with the Metaspace mark, as its best pieces.
func (t *tokenizer) encodeUnigram(text string, ids []int32) []int32 {
	if t.nfkc {
		text = norm.NFKC.String(text)
	}
	if t.lowercase {
		text = strings.ToLower(text)
	}
	for _, w := range strings.FieldsFunc(text, unicode.IsSpace) {
		ids = t.viterbi(t.space+strings.ToValidUTF8(w, "\uFFFD"), ids)
	}
	return ids
}

// viterbi appends the ids of the pieces of w whose scores sum highest;
// a character no piece starts with is the unknown piece (when the model
// has one), runs of them one.
func (t *tokenizer) viterbi(w string, ids []int32) []int32 {
	n := len(w)
	best := make([]float64, n+1) // best[i]: the highest score of w[:i]
	from := make([]int, n+1)     // where the last piece of w[:i] starts
	piece := make([]int32, n+1)  // its id, -1 for an unknown character
	for i := 1; i <= n; i++ {
		best[i] = math.Inf(-1)
	}
	for i := 0; i < n; i++ {
		if math.IsInf(best[i], -1) || !utf8Start(w[i]) {
			continue
		}
		_, size := utf8.DecodeRuneInString(w[i:])
		single := false
		for j := i + size; j <= n && j-i <= t.maxPiece; j++ {
			if j < n && !utf8Start(w[j]) {
				continue
			}
			id, ok := t.vocab[w[i:j]]
			if !ok {
				continue
			}
			single = single || j == i+size
			if s := best[i] + t.scores[id]; s > best[j] {
				best[j], from[j], piece[j] = s, i, id
			}
		}
		if !single {
			if s := best[i] + t.unkScore; s > best[i+size] {
				best[i+size], from[i+size], piece[i+size] = s, i, -1
			}
		}
	}
	start := len(ids)
	for j := n; j > 0; j = from[j] {
		id := piece[j]
		if id < 0 {
			id = t.unk
		}
		if id >= 0 && (id != t.unk || len(ids) == start || ids[len(ids)-1] != t.unk) {
			ids = append(ids, id)
		}
	}
	slices.Reverse(ids[start:])
	return ids
}
