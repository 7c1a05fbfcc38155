package main

import (
	"testing"
	"time"
)

func TestEmbeddingConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultEmbeddingConfig, (*EmbeddingConfig).validate, []sectionCase[EmbeddingConfig]{
		{"none", func(c *EmbeddingConfig) { c.Provider = ProviderNone }, ""},
		{"openai", func(c *EmbeddingConfig) {
			c.Provider, c.OpenAI.BaseURL, c.OpenAI.Model = ProviderOpenAI, "http://127.0.0.1:1/v1", "m"
		}, ""},
		{"openai without model", func(c *EmbeddingConfig) { c.Provider, c.OpenAI.BaseURL = ProviderOpenAI, "http://x/v1" }, "embedding.openai"},
		{"provider", func(c *EmbeddingConfig) { c.Provider = "word2vec" }, "embedding.provider"},
		{"dimension", func(c *EmbeddingConfig) { c.Dimension = 4097 }, "embedding.dimension"},
		{"cache_size", func(c *EmbeddingConfig) { c.CacheSize = -1 }, "embedding.cache_size"},
		{"model2vec", func(c *EmbeddingConfig) { c.Provider, c.Path = ProviderModel2Vec, "/models/potion-base-8M" }, ""},
		{"model2vec without path", func(c *EmbeddingConfig) { c.Provider = ProviderModel2Vec }, "embedding.path"},
		{"mode async", func(c *EmbeddingConfig) { c.Mode = ModeAsync }, ""},
		{"mode", func(c *EmbeddingConfig) { c.Mode = "later" }, "embedding.mode"},
		{"query_timeout", func(c *EmbeddingConfig) { c.QueryTimeout = -time.Second }, "embedding.query_timeout"},
	})
}
