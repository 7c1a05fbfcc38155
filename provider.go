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
