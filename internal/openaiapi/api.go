// Package openaiapi is the transport shared by mnemo's clients of
// OpenAI-compatible APIs (embed/openai, llm): one JSON POST with timeouts,
// retries with backoff and jitter on 429, 5xx and network errors,
// Retry-After, errors with codes a caller can act on, and the API key kept
// out of every message.
package openaiapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Defaults for the zero fields of Config.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultMaxRetries = 3
	DefaultRetryDelay = 500 * time.Millisecond
)

const (
	// MaxRetryDelay caps both the backoff and a server's Retry-After, so a
	// misbehaving server cannot stall a caller for hours.
	MaxRetryDelay = time.Minute
	// maxErrorBody is how much of an error answer is quoted in an error.
	maxErrorBody = 512
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API root that paths are appended to, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1" (Ollama).
	BaseURL string
	// APIKey, if set, is sent as "Authorization: Bearer <key>".
	APIKey string
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
	// MaxResponse bounds how much of an answer is read.
	MaxResponse int64
	// What names the provider in errors: "embedding provider".
	What string
}

// Client posts JSON to an OpenAI-compatible API. It is safe for concurrent
// use.
type Client struct {
	cfg  Config
	base string
}

// New returns a Client for cfg; a BaseURL that is not an http or https URL
// is EINVALID.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL itself is not quoted: it may carry credentials.
		return nil, mnemo.Errorf(mnemo.EINVALID, "openai: base URL must be an http or https URL")
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
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = 16 << 20
	}
	if cfg.What == "" {
		cfg.What = "provider"
	}
	return &Client{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/")}, nil
}

// Config returns the configuration in force, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// attemptError is a failed attempt: retry says whether another attempt may
// succeed, wait is the server's Retry-After (0 when absent).
type attemptError struct {
	err   error
	retry bool
	wait  time.Duration
}

// Post sends body to path and returns the answer's body, retrying
// transient failures with exponential backoff and jitter. The caller
// decodes the answer; a malformed one is not retried.
func (c *Client) Post(ctx context.Context, path string, body []byte) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		data, aerr := c.post(ctx, path, body)
		if aerr == nil {
			return data, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("openai: %w", ctx.Err())
		}
		if !aerr.retry || attempt >= c.cfg.MaxRetries {
			return nil, aerr.err
		}
		delay := aerr.wait
		if delay == 0 {
			delay = c.Backoff(attempt)
		}
		t := time.NewTimer(min(delay, MaxRetryDelay))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("openai: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// Backoff returns RetryDelay * 2^attempt, scaled by a random factor in
// [0.5, 1) so that clients that failed together do not retry together.
func (c *Client) Backoff(attempt int) time.Duration {
	d := c.cfg.RetryDelay << min(attempt, 16)
	if d <= 0 || d > MaxRetryDelay {
		d = MaxRetryDelay
	}
	return d/2 + rand.N(d/2+1)
}

// post makes one attempt.
func (c *Client) post(ctx context.Context, path string, body []byte) ([]byte, *attemptError) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, &attemptError{err: mnemo.Errorf(mnemo.EINVALID, "openai: bad request: %s", c.Redact(err.Error()))}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, &attemptError{
			err:   fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "%s unreachable", c.cfg.What), redacted{err, c.cfg.APIKey}),
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
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponse+1))
	if err != nil {
		return nil, &attemptError{
			err:   fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "%s answer cut short", c.cfg.What), redacted{err, c.cfg.APIKey}),
			retry: true,
		}
	}
	if int64(len(data)) > c.cfg.MaxResponse {
		return nil, &attemptError{err: mnemo.Errorf(mnemo.EUNAVAILABLE, "openai: answer over %d bytes", c.cfg.MaxResponse)}
	}
	return data, nil
}

// statusError turns a non-200 answer into an error with a code the caller
// can act on. 429 and 5xx are worth retrying; other 4xx will fail the same
// way again.
func (c *Client) statusError(resp *http.Response) *attemptError {
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := fmt.Sprintf("openai: %s: %s", resp.Status, c.Redact(strings.TrimSpace(string(snippet))))
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
	return &attemptError{err: mnemo.Errorf(code, "%s", msg), retry: retry, wait: RetryAfter(resp.Header.Get("Retry-After"))}
}

// RetryAfter parses a Retry-After header given in seconds or as an HTTP
// date; 0 when absent or unparsable.
func RetryAfter(v string) time.Duration {
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

// Redact removes the API key from s.
func (c *Client) Redact(s string) string {
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
