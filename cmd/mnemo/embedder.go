package main

import (
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/embed/cache"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/embed/model2vec"
	"github.com/mnemo-dev/mnemo/embed/openai"
	"github.com/mnemo-dev/mnemo/embed/random"
	"github.com/mnemo-dev/mnemo/embed/use"
)

// embedders returns the configured embedder for memories, the same behind
// an LRU cache for queries, and whether writes should not wait for vectors.
// Provider none returns nils: lexical recall only. builtins makes the
// embedders whose models are compiled in (GloVe, USE-Lite, both); nil for
// newBuiltin.
func (c *Config) embedders(builtins func(provider string) mnemo.Embedder) (doc, query mnemo.Embedder, async bool, err error) {
	e := c.Embedding
	switch e.Provider {
	case ProviderNone:
		return nil, nil, false, nil
	case ProviderGloVe, ProviderUSE, ProviderBuiltin, ProviderEnsemble:
		if builtins == nil {
			builtins = newBuiltin
		}
		doc = builtins(e.Provider)
	case ProviderHashed:
		doc = hashed.New(e.Dimension)
	case ProviderRandom:
		doc = random.New(e.Dimension, e.Seed)
	case ProviderModel2Vec:
		m, err := model2vec.Load(e.Path)
		if err != nil {
			return nil, nil, false, &ConfigError{"embedding.path", err.Error()}
		}
		doc = m
	case ProviderOpenAI:
		if doc, err = e.OpenAI.embedder("embedding.openai"); err != nil {
			return nil, nil, false, err
		}
		async = true
	}
	if e.Async != nil {
		async = *e.Async
	}
	if e.Mode != "" {
		async = e.Mode == ModeAsync
	}
	query = doc
	if e.CacheSize > 0 {
		query = cache.New(doc, e.CacheSize)
	}
	return doc, query, async, nil
}

// newBuiltin returns a new embedder of a provider whose model is compiled
// in; its model is decoded on first use.
func newBuiltin(provider string) mnemo.Embedder {
	switch provider {
	case ProviderGloVe:
		return glove.New()
	case ProviderUSE:
		return use.New()
	}
	return builtin.New()
}

// fallbackEmbedder is what recall's similarity falls back on while the
// configured embedder fails (PG-3): hashed TF-IDF, made on the
// fly. Nil when the embedder is hashed already, or there is none.
func (c *Config) fallbackEmbedder() mnemo.Embedder {
	switch c.Embedding.Provider {
	case ProviderNone, ProviderHashed:
		return nil
	}
	return hashed.New(0)
}

// embedder returns the endpoint's embedder; errors name field.
func (o OpenAIEmbedderConfig) embedder(field string) (mnemo.Embedder, error) {
	if o.BaseURL == "" || o.Model == "" {
		return nil, &ConfigError{field, "base_url and model are required"}
	}
	emb, err := openai.New(openai.Config{
		BaseURL: o.BaseURL, Model: o.Model, APIKey: string(o.APIKey), Dimension: o.Dimension,
		BatchSize: o.BatchSize, Timeout: o.Timeout, MaxRetries: o.MaxRetries,
	})
	if err != nil {
		return nil, &ConfigError{field, mnemo.ErrorMessage(err)}
	}
	return emb, nil
}
