// Package embed holds mnemo's embedding providers, one package each, all
// implementing mnemo.Embedder:
//
//   - hashed: TF-IDF vectors hashed into a fixed dimension, with no model;
//     the fallback when no embedding service is reachable.
//   - random: seeded random unit vectors for mock mode and tests.
//   - cache: an LRU cache in front of any other Embedder.
//   - openai: a client for OpenAI-compatible /v1/embeddings endpoints
//     (OpenAI, Ollama, vLLM, LiteLLM, TEI).
package embed
