// Package embed holds mnemo's embedding providers, one package each, all
// implementing mnemo.Embedder:
//
//   - glove: SIF sentence vectors from GloVe word vectors, built into the
//     binary (100 dimensions; hashed vectors for unknown words and CJK).
//   - use: the Universal Sentence Encoder Lite, built into the binary, with
//     a Go forward pass (512 dimensions).
//   - cedict: a Chinese–English lexicon from CC-CEDICT, built into the
//     binary, through which glove and use read Chinese (EMB-7).
//   - concat: several embedders joined into one vector space, so that their
//     cosines are averaged; the default "builtin" embedder is glove + use.
//   - hashed: TF-IDF vectors hashed into a fixed dimension, with no model.
//   - random: seeded random unit vectors for mock mode and tests.
//   - cache: an LRU cache in front of any other Embedder, for queries.
//   - openai: a client for OpenAI-compatible /v1/embeddings endpoints
//     (OpenAI, Ollama, vLLM, LiteLLM, TEI).
package embed
