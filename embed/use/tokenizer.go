package use

import (
	"slices"
	"unicode/utf16"
)

// wordBoundary is SentencePiece's "▁": it stands for a space and starts
// every word-initial piece.
const wordBoundary = '\u2581'

// reservedPieces are the vocabulary's first entries (unknown, <s>, </s> and
// three spare ids), which the search never produces except for the unknown
// piece, id 0.
const reservedPieces = 6

// tokenizer splits text into vocabulary ids exactly as the reference
// TF.js tokenizer does (@energetic-ai/embeddings' Tokenizer.encode, itself
// the tfjs-models universal-sentence-encoder tokenizer): NFKC, "▁" for the
// start and for every space, then a Viterbi search for the pieces with the
// highest total score. Text is not lower-cased; the vocabulary has cased
// pieces.
//
// The reference has quirks that change ids, and they are kept on purpose:
//   - a character that starts no piece becomes the unknown piece (id 0)
//     with score 0, which beats any real piece's negative score;
//   - a position whose best score so far is exactly 0 takes any candidate;
//   - ties go to the later candidate (the shorter last piece);
//   - consecutive unknown pieces collapse into one.
//
// So text in a script the vocabulary lacks (Chinese, Japanese, Korean,
// emoji) becomes "▁" plus one unknown id per space-separated run: every
// all-Chinese sentence gets the same ids and so the same vector.
type tokenizer struct {
	norm   *nfkc
	nodes  []trieNode
	pieces []piece
	// width is each piece's length in UTF-16 code units. The reference
	// steps back over a chosen piece by its JavaScript string length; for
	// this vocabulary (no characters outside the BMP) that equals its
	// length in code points, but matching the reference is cheaper than
	// proving it for every future vocabulary.
	width []int32
}

// trieNode is a node of the prefix tree of pieces, one rune per edge.
type trieNode struct {
	children map[rune]int32
	id       int32 // piece ending here, or -1
	depth    int32 // length in runes of the path to this node
}

func newTokenizer(pieces []piece, norm *nfkc) *tokenizer {
	t := &tokenizer{
		norm:   norm,
		nodes:  []trieNode{{id: -1}},
		pieces: pieces,
		width:  make([]int32, len(pieces)),
	}
	for i, p := range pieces {
		t.width[i] = int32(len(utf16.Encode([]rune(p.text))))
		if i >= reservedPieces {
			t.insert(p.text, int32(i))
		}
	}
	return t
}

// insert adds a piece; a duplicate overwrites the earlier id, as in the
// reference.
func (t *tokenizer) insert(text string, id int32) {
	n := int32(0)
	for _, c := range text {
		next, ok := t.nodes[n].children[c]
		if !ok {
			next = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{id: -1, depth: t.nodes[n].depth + 1})
			if t.nodes[n].children == nil {
				t.nodes[n].children = make(map[rune]int32)
			}
			t.nodes[n].children[c] = next
		}
		n = next
	}
	if n != 0 {
		t.nodes[n].id = id
	}
}

// candidate is a piece that could end the text at some position.
type candidate struct {
	start int32
	id    int32
}

// encode returns the ids of text, at most maxTextTokens of them.
func (t *tokenizer) encode(text string) []int32 {
	text = t.norm.String(text)
	if text == "" {
		return nil
	}
	symbols := make([]rune, 1, len(text)+1)
	symbols[0] = wordBoundary
	for _, c := range text {
		if c == ' ' {
			c = wordBoundary
		}
		symbols = append(symbols, c)
	}
	n := len(symbols)

	// ends[e] lists the pieces that end at position e, by start position.
	ends := make([][]candidate, n+1)
	for i := range n {
		found := false
		node, ok := t.nodes[0].children[symbols[i]]
		for j := i; ok; {
			nd := &t.nodes[node]
			if nd.id >= 0 {
				end := i + int(nd.depth)
				ends[end] = append(ends[end], candidate{int32(i), nd.id})
				found = true
			}
			if j++; j >= n {
				break
			}
			node, ok = nd.children[symbols[j]]
		}
		if !found {
			ends[i+1] = append(ends[i+1], candidate{int32(i), 0})
		}
	}

	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := range ends {
		for _, c := range ends[end] {
			score := t.score(c.id) + best[c.start]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = c.id
			}
		}
	}

	var ids []int32
	for i := n; i > 0; i -= int(t.width[words[i]]) {
		ids = append(ids, words[i])
	}
	// Collapse runs of unknowns, then restore reading order.
	merged := ids[:0]
	prevUnknown := false
	for _, id := range ids {
		if !(prevUnknown && id == 0) {
			merged = append(merged, id)
		}
		prevUnknown = id == 0
	}
	slices.Reverse(merged)
	if len(merged) > maxTextTokens {
		merged = merged[:maxTextTokens]
	}
	return merged
}

// score is a piece's log-probability; the unknown piece scores 0.
func (t *tokenizer) score(id int32) float64 {
	if id == 0 {
		return 0
	}
	return t.pieces[id].score
}
