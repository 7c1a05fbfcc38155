// Package model2vec is a local static-model embedder: a model2vec model
// (github.com/MinishLab/model2vec) read from a directory — a token
// embedding matrix in model.safetensors, its tokenizer.json, config.json
// optionally — a text's vector the mean of its tokens' rows, normalised. No
// network, no cgo: thousands of texts a second on one core (EMB-1).
//
// mnemo never downloads a model. Get one yourself, for instance Minish
// Lab's potion models from the Hugging Face hub (minishlab/potion-base-8M:
// model.safetensors, tokenizer.json, config.json), into a directory, and
// configure
//
//	embedding:
//	  provider: model2vec
//	  path: /models/potion-base-8M
//
// The layout read: "embeddings" [vocab, dim] F32 or F16; optionally
// "weights" [vocab] (per-token weights, multiplied in before pooling) and
// "mapping" [tokens] I32/I64 (token id -> row, for vocabulary-quantised
// models). Tokenizers: WordPiece (the English potion models), with BERT's
// normaliser (lowercasing, accents) or a sequence of Lowercase and
// StripAccents; Unigram (SentencePiece vocabularies, as
// potion-multilingual-128M ships), with NFKC for its Precompiled
// normaliser and Metaspace's "▁" word marks. Unknown pieces are dropped
// before pooling, as model2vec does.
package model2vec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Embedder embeds texts with a model2vec model. It is safe for concurrent
// use.
type Embedder struct {
	name    string
	dim     int
	vecs    []float32 // rows of dim
	rows    int
	weights []float32 // per row; nil: 1
	mapping []int32   // token id -> row; nil: identity
	tok     *tokenizer
	maxLen  int // tokens pooled per text
}

// MaxTokens is how many tokens of a text are pooled when config.json sets
// no seq_length (model2vec's default, 512).
const MaxTokens = 512

// Load reads the model in dir.
func Load(dir string) (*Embedder, error) {
	st, err := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	tj, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	var cfg []byte
	if b, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		cfg = b
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	return New(filepath.Base(filepath.Clean(dir)), st, tj, cfg)
}

// New makes an embedder from the files' contents; name names the model in
// Model ("model2vec:" + name). config may be nil.
func New(name string, safetensors, tokenizerJSON, config []byte) (*Embedder, error) {
	ts, err := readSafetensors(safetensors)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	emb, ok := ts["embeddings"]
	if !ok || len(emb.shape) != 2 || emb.f32 == nil {
		return nil, fmt.Errorf("model2vec: model.safetensors has no float tensor \"embeddings\" [vocab, dim]")
	}
	rows, dim := emb.shape[0], emb.shape[1]
	if rows == 0 || dim == 0 || dim > 8192 {
		return nil, fmt.Errorf("model2vec: embeddings of shape [%d, %d]", rows, dim)
	}
	tok, err := parseTokenizer(tokenizerJSON)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	e := &Embedder{name: name, dim: dim, vecs: emb.f32, rows: rows, tok: tok, maxLen: MaxTokens}
	if w, ok := ts["weights"]; ok {
		if w.f32 == nil || len(w.f32) != rows {
			return nil, fmt.Errorf("model2vec: weights of %d values for %d rows", len(w.f32)+len(w.ints), rows)
		}
		e.weights = w.f32
	}
	if m, ok := ts["mapping"]; ok {
		if m.ints == nil {
			return nil, fmt.Errorf("model2vec: mapping must be integers")
		}
		e.mapping = make([]int32, len(m.ints))
		for i, r := range m.ints {
			if r < 0 || r >= int64(rows) {
				return nil, fmt.Errorf("model2vec: mapping[%d] = %d, outside %d rows", i, r, rows)
			}
			e.mapping[i] = int32(r)
		}
	}
	if len(config) > 0 {
		var c struct {
			SeqLength int `json:"seq_length"`
		}
		if err := json.Unmarshal(config, &c); err != nil {
			return nil, fmt.Errorf("model2vec: config.json: %w", err)
		}
		if c.SeqLength > 0 {
			e.maxLen = c.SeqLength
		}
	}
	return e, nil
}

// Model names the model: "model2vec:" and its directory's name.
func (e *Embedder) Model() string { return "model2vec:" + strings.ReplaceAll(e.name, " ", "_") }

// Dimension is the model's.
func (e *Embedder) Dimension() int { return e.dim }

// Embed returns the normalised mean of each text's token vectors; a text
// with no known token gets the zero vector (found lexically only).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var ids []int32
	for i, text := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ids = e.tok.encode(text, ids[:0])
		out[i] = e.pool(ids)
	}
	return out, nil
}

// pool is the normalised (weighted) mean of the rows of ids, [UNK] left out.
func (e *Embedder) pool(ids []int32) []float32 {
	v := make([]float32, e.dim)
	n := 0
	for _, id := range ids {
		if n == e.maxLen {
			break
		}
		if id == e.tok.unk || id < 0 {
			continue
		}
		r := int(id)
		if e.mapping != nil {
			if r >= len(e.mapping) {
				continue
			}
			r = int(e.mapping[r])
		}
		if r >= e.rows {
			continue
		}
		row := e.vecs[r*e.dim : (r+1)*e.dim]
		w := float32(1)
		if e.weights != nil {
			w = e.weights[r]
		}
		for k, x := range row {
			v[k] += w * x
		}
		n++
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		clear(v)
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for k := range v {
		v[k] *= inv
	}
	return v
}
