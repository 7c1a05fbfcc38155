package main

import "time"

// The embedding section; embedder.go makes the embedders it describes.

// Embedding providers.
const (
	ProviderBuiltin   = "builtin"
	ProviderGloVe     = "glove"
	ProviderUSE       = "use"
	ProviderEnsemble  = "ensemble"
	ProviderHashed    = "hashed"
	ProviderRandom    = "random"
	ProviderOpenAI    = "openai"
	ProviderModel2Vec = "model2vec"
	ProviderNone      = "none"
)

// Embedding modes (embedding.mode).
const (
	ModeSync  = "sync"
	ModeAsync = "async"
)

// EmbeddingConfig chooses the embedder of semantic recall.
type EmbeddingConfig struct {
	// Provider is builtin (the default, the same as ensemble: GloVe SIF
	// word vectors and the Universal Sentence Encoder Lite, both in the
	// binary, their cosines averaged), glove or use (one of the two alone),
	// hashed (hashed TF-IDF, no model), random (seeded random vectors:
	// mock mode), openai (any OpenAI-compatible /v1/embeddings), model2vec
	// (a local static model in Path: embed/model2vec) or none (lexical
	// recall only).
	Provider string `yaml:"provider"`
	// Path is the directory of a model2vec model (model.safetensors,
	// tokenizer.json, config.json), which the user downloads: mnemo never
	// does (e.g. minishlab/potion-base-8M from the Hugging Face hub).
	Path string `yaml:"path"`
	// Dimension of hashed and random vectors.
	Dimension int `yaml:"dimension"`
	// Seed of random vectors.
	Seed uint64 `yaml:"seed"`
	// CacheSize is how many query embeddings are kept (EMB-4: 1,000).
	CacheSize int `yaml:"cache_size"`
	// QueryTimeout bounds a remote provider's embedding of a query: past
	// it, recall answers by hashed TF-IDF similarity, degraded (0:
	// memory.DefaultQueryEmbedTimeout). An in-process model is not timed
	// (EMB-8).
	QueryTimeout time.Duration `yaml:"query_timeout"`
	// Mode is sync (a write is acknowledged with its vectors made) or
	// async (acknowledged at once; the background worker makes the
	// vectors from the queue kept in the store, and recall finds the
	// memory by its words until then: MEM-3, PERF-1). Empty: async for
	// openai, sync for the in-process embedders; a one-shot command's
	// writes are sync whatever it says (EMB-8). async makes bulk loads
	// (POST /v1/memories/batch, /v1/messages, mnemo import) as fast as the
	// store takes them.
	Mode string `yaml:"mode"`
	// Async is the older spelling of mode: true is async, false sync.
	// Mode wins when both are set.
	Async *bool `yaml:"async"`

	OpenAI OpenAIEmbedderConfig `yaml:"openai"`
}

// OpenAIEmbedderConfig is an OpenAI-compatible /v1/embeddings endpoint:
// embedding.openai, and the media embedders of events.vectors.media.
type OpenAIEmbedderConfig struct {
	BaseURL    string        `yaml:"base_url"`
	Model      string        `yaml:"model"`
	APIKey     Secret        `yaml:"api_key"`
	Dimension  int           `yaml:"dimension"`
	BatchSize  int           `yaml:"batch_size"`
	Timeout    time.Duration `yaml:"timeout"`
	MaxRetries int           `yaml:"max_retries"`
}

func defaultEmbeddingConfig() EmbeddingConfig {
	return EmbeddingConfig{Provider: ProviderBuiltin, Dimension: 256, Seed: 42, CacheSize: 1000}
}

// validate checks the embedding section.
func (c *EmbeddingConfig) validate() error {
	switch c.Provider {
	case ProviderBuiltin, ProviderGloVe, ProviderUSE, ProviderEnsemble, ProviderHashed, ProviderRandom, ProviderNone:
	case ProviderOpenAI:
		if c.OpenAI.BaseURL == "" || c.OpenAI.Model == "" {
			return &ConfigError{"embedding.openai", "base_url and model are required"}
		}
	case ProviderModel2Vec:
		if c.Path == "" {
			return &ConfigError{"embedding.path", "the directory of the model2vec model is required (mnemo never downloads one)"}
		}
	default:
		return &ConfigError{"embedding.provider", "must be builtin, glove, use, ensemble, hashed, random, openai, model2vec or none"}
	}
	if c.Dimension < 1 || c.Dimension > 4096 {
		return &ConfigError{"embedding.dimension", "must be between 1 and 4096"}
	}
	switch c.Mode {
	case "", ModeSync, ModeAsync:
	default:
		return &ConfigError{"embedding.mode", "must be sync or async"}
	}
	if c.CacheSize < 0 {
		return &ConfigError{"embedding.cache_size", "must not be negative"}
	}
	if c.QueryTimeout < 0 {
		return &ConfigError{"embedding.query_timeout", "must not be negative"}
	}
	return nil
}
