// Package openai is a client for OpenAI-compatible embedding endpoints:
// OpenAI itself, and Ollama, vLLM, LiteLLM and Text Embeddings Inference,
// which all serve the same POST /v1/embeddings protocol.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/openaiapi"
)

// Defaults for the zero fields of Config.
const (
	DefaultBatchSize  = 64
	DefaultTimeout    = openaiapi.DefaultTimeout
	DefaultMaxRetries = openaiapi.DefaultMaxRetries
	DefaultRetryDelay = openaiapi.DefaultRetryDelay
)

// maxResponse bounds how much of an answer is read: generous for a batch
// of thousands of 3072-dimension vectors, small enough that a runaway
// server cannot exhaust memory.
const maxResponse = 256 << 20

// Config configures a Client.
type Config struct {
	// BaseURL is the API root that /embeddings is appended to, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1" (Ollama).
	BaseURL string
	// Model is the model name sent with each request, e.g.
	// "text-embedding-3-small".
	Model string
	// APIKey, if set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Dimension is the expected number of components of each vector. When
	// 0, it is learned from the first answer and enforced from then on.
	Dimension int
	// BatchSize is the most texts sent in one request (DefaultBatchSize
	// when <= 0).
	BatchSize int
	// Timeout bounds each HTTP attempt (DefaultTimeout when <= 0).
	Timeout time.Duration
	// MaxRetries is how many times a failed request is retried after a 429,
	// a 5xx or a network error (DefaultMaxRetries when 0; negative for none).
	MaxRetries int
	// RetryDelay is the base of the exponential backoff (DefaultRetryDelay
	// when <= 0); the n-th retry waits about RetryDelay * 2^n, with jitter.
	RetryDelay time.Duration
	// HTTPClient sends the requests (a new http.Client when nil).
	HTTPClient *http.Client
}

// Client embeds texts through an OpenAI-compatible API. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	api *openaiapi.Client
	dim atomic.Int64 // configured or learned; 0 until known
}

var _ mnemo.Embedder = (*Client)(nil)

// New returns a Client for cfg. BaseURL (an http or https URL) and Model
// are required; anything invalid is an EINVALID error.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai: model is required")
	}
	if cfg.Dimension < 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai: dimension %d is negative", cfg.Dimension)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	api, err := openaiapi.New(openaiapi.Config{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries,
		RetryDelay: cfg.RetryDelay, HTTPClient: cfg.HTTPClient, MaxResponse: maxResponse, What: "embedding provider",
	})
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, api: api}
	c.dim.Store(int64(cfg.Dimension))
	return c, nil
}

// Dimension returns the configured dimension or, when none was configured,
// the one learned from the first answer; 0 before that.
func (c *Client) Dimension() int { return int(c.dim.Load()) }

// Model returns "openai:<model>"; the prefix names the protocol, not the
// vendor, so a model served by Ollama is "openai:nomic-embed-text".
func (c *Client) Model() string { return "openai:" + c.cfg.Model }

// Embed returns one vector per text, in order, sending the texts in
// batches of BatchSize, one after another.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for batch := range slices.Chunk(texts, c.cfg.BatchSize) {
		vecs, err := c.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// embedBatch sends one batch; the transport retries transient failures.
func (c *Client) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: batch})
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	data, err := c.api.Post(ctx, "/embeddings", body)
	if err != nil {
		return nil, err
	}
	return c.decode(data, len(batch))
}

// decode checks an answer for n texts and returns its vectors in input
// order, whatever order the server listed them in.
func (c *Client) decode(data []byte, n int) ([][]float32, error) {
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "openai: malformed answer"), err)
	}
	if len(r.Data) != n {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "openai: answer has %d embeddings for %d texts", len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "openai: answer has a bad or repeated index %d", d.Index)
		}
		if err := c.checkDimension(len(d.Embedding)); err != nil {
			return nil, err
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// checkDimension learns the dimension from the first vector if none was
// configured, and rejects any vector of another size: a store built with
// one dimension must never receive vectors of another.
func (c *Client) checkDimension(got int) error {
	if got == 0 {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "openai: answer has an empty embedding")
	}
	c.dim.CompareAndSwap(0, int64(got))
	if want := c.dim.Load(); int64(got) != want {
		return mnemo.Errorf(mnemo.EINVALID, "openai: model %s returned %d dimensions, expected %d", c.cfg.Model, got, want)
	}
	return nil
}
