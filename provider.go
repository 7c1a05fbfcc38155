package mnemo

import "context"

// Embedder turns texts into vectors for semantic recall. Every vector it
// returns has Dimension() components; a store keeps the dimension and model
// it was built with, and a mismatch is an error, never silent garbage.
// Providers live in packages under embed/.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimension() int
	// Model names the model, e.g. "openai:text-embedding-3-small" or
	// "hashed-tfidf-512"; it is stored with each vector.
	Model() string
}

// Tokenizer counts and cuts prompt text as a model's tokenizer does
// (package tokens: cl100k and others, offline).
type Tokenizer interface {
	Count(s string) int
	// Truncate returns the longest prefix of s of at most n tokens, and
	// whether anything was cut.
	Truncate(s string, n int) (string, bool)
}

// Summarizer reduces a passage to one sentence of at most maxTokens, for
// compacting a run's older rounds: an LLM when one is configured. When it
// fails, the Service falls back to its extractive sentence and says so.
type Summarizer interface {
	Summarize(ctx context.Context, text string, maxTokens int) (string, error)
}
