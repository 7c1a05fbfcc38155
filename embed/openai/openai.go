// Package openai is a client for OpenAI-compatible embedding endpoints:
// OpenAI itself, and Ollama, vLLM, LiteLLM and Text Embeddings Inference,
// which all serve the same POST /v1/embeddings protocol.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Defaults for the zero fields of Config.
const (
	DefaultBatchSize  = 64
	DefaultTimeout    = 30 * time.Second
	DefaultMaxRetries = 3
	DefaultRetryDelay = 500 * time.Millisecond
)

const (
	// maxRetryDelay caps both the backoff and a server's Retry-After, so a
	// misbehaving server cannot stall a caller for hours.
	maxRetryDelay = time.Minute
	// maxResponse bounds how much of an answer is read: generous for a
	// batch of thousands of 3072-dimension vectors, small enough that a
	// runaway server cannot exhaust memory.
	maxResponse = 256 << 20
	// maxErrorBody is how much of an error answer is quoted in an error.
	maxErrorBody = 512
)

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
	cfg      Config
	endpoint string
	dim      atomic.Int64 // configured or learned; 0 until known
}

var _ mnemo.Embedder = (*Client)(nil)

// New returns a Client for cfg. BaseURL (an http or https URL) and Model
// are required; anything invalid is an EINVALID error.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai: model is required")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL itself is not quoted: it may carry credentials.
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai: base URL must be an http or https URL")
	}
	if cfg.Dimension < 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai: dimension %d is negative", cfg.Dimension)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	c := &Client{cfg: cfg, endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/embeddings"}
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

// attemptError is a failed attempt: retry says whether another attempt may
// succeed, wait is the server's Retry-After (0 when absent).
type attemptError struct {
	err   error
	retry bool
	wait  time.Duration
}

// embedBatch sends one batch, retrying transient failures with exponential
// backoff and jitter.
func (c *Client) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: batch})
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		vecs, aerr := c.post(ctx, body, len(batch))
		if aerr == nil {
			return vecs, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("openai: %w", ctx.Err())
		}
		if !aerr.retry || attempt >= c.cfg.MaxRetries {
			return nil, aerr.err
		}
		delay := aerr.wait
		if delay == 0 {
			delay = c.backoff(attempt)
		}
		t := time.NewTimer(min(delay, maxRetryDelay))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("openai: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// backoff returns RetryDelay * 2^attempt, scaled by a random factor in
// [0.5, 1) so that clients that failed together do not retry together.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.RetryDelay << min(attempt, 16)
	if d <= 0 || d > maxRetryDelay {
		d = maxRetryDelay
	}
	return d/2 + rand.N(d/2+1)
}

// post makes one attempt.
func (c *Client) post(ctx context.Context, body []byte, n int) ([][]float32, *attemptError) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &attemptError{err: mnemo.Errorf(mnemo.EINVALID, "openai: bad request: %s", c.redact(err.Error()))}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, &attemptError{
			err:   fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "embedding provider unreachable"), redacted{err, c.cfg.APIKey}),
			retry: true,
		}
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody)) // let the connection be reused
		resp.Body.Close()
	}()

	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, &attemptError{
			err:   fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "embedding provider answer cut short"), redacted{err, c.cfg.APIKey}),
			retry: true,
		}
	}
	if len(data) > maxResponse {
		return nil, &attemptError{err: mnemo.Errorf(mnemo.EUNAVAILABLE, "openai: answer over %d bytes", maxResponse)}
	}
	vecs, err := c.decode(data, n)
	if err != nil {
		return nil, &attemptError{err: err}
	}
	return vecs, nil
}

// statusError turns a non-200 answer into an error with a code the caller
// can act on. 429 and 5xx are worth retrying; other 4xx will fail the same
// way again.
func (c *Client) statusError(resp *http.Response) *attemptError {
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := fmt.Sprintf("openai: %s: %s", resp.Status, c.redact(strings.TrimSpace(string(snippet))))
	code := mnemo.EINVALID
	retry := false
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests:
		code, retry = mnemo.ERATELIMITED, true
	case s >= 500:
		code, retry = mnemo.EUNAVAILABLE, true
	case s == http.StatusUnauthorized:
		code = mnemo.EUNAUTHORIZED
	case s == http.StatusForbidden:
		code = mnemo.EFORBIDDEN
	case s == http.StatusRequestEntityTooLarge:
		code = mnemo.ETOOLARGE
	case s < 400:
		code = mnemo.EUNAVAILABLE // a redirect not followed or an odd 2xx
	}
	return &attemptError{err: mnemo.Errorf(code, "%s", msg), retry: retry, wait: retryAfter(resp.Header.Get("Retry-After"))}
}

// retryAfter parses a Retry-After header given in seconds or as an HTTP
// date; 0 when absent or unparsable.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
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

func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[REDACTED]")
}

// redacted wraps an error so that its message never shows the API key,
// while errors.Is and errors.As still see the original.
type redacted struct {
	err error
	key string
}

func (r redacted) Error() string {
	if r.key == "" {
		return r.err.Error()
	}
	return strings.ReplaceAll(r.err.Error(), r.key, "[REDACTED]")
}

func (r redacted) Unwrap() error { return r.err }
