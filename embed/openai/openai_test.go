package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/testwait"
)

var _ mnemo.Embedder = (*Client)(nil)

const testKey = "sk-test-secret-123"

// fake is an OpenAI-compatible embeddings server. Each text t is embedded
// as dim components all equal to len(t), so a test can tell which vector
// belongs to which text. reply, when set, answers request n (from 0)
// instead; returning false lets the default answer through.
type fake struct {
	dim     int
	reverse bool // list data in reverse order
	reply   func(n int, w http.ResponseWriter, r *http.Request) bool

	mu   sync.Mutex
	reqs []request
	auth []string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if f.reply != nil && f.reply(n, w, r) {
		return
	}
	var resp response
	resp.Data = make([]struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}, len(req.Input))
	for i, text := range req.Input {
		j := i
		if f.reverse {
			j = len(req.Input) - 1 - i
		}
		resp.Data[j].Index = i
		for range f.dim {
			resp.Data[j].Embedding = append(resp.Data[j].Embedding, float32(len(text)))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (f *fake) requests() ([]request, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...), append([]string(nil), f.auth...)
}

func start(t *testing.T, f *fake, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1/"
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.RetryDelay == 0 {
		cfg.RetryDelay = time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("x", i+1)
	}
	return out
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"ok", Config{BaseURL: "https://api.openai.com/v1", Model: "m"}, true},
		{"ollama", Config{BaseURL: "http://localhost:11434/v1", Model: "nomic-embed-text", Dimension: 768}, true},
		{"no model", Config{BaseURL: "https://api.openai.com/v1"}, false},
		{"no URL", Config{Model: "m"}, false},
		{"relative URL", Config{BaseURL: "/v1", Model: "m"}, false},
		{"bad scheme", Config{BaseURL: "ftp://example.com", Model: "m"}, false},
		{"bad URL", Config{BaseURL: "http://[::1", Model: "m"}, false},
		{"negative dimension", Config{BaseURL: "http://x", Model: "m", Dimension: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				if api := c.api.Config(); c.cfg.BatchSize != DefaultBatchSize || api.Timeout != DefaultTimeout || api.MaxRetries != DefaultMaxRetries {
					t.Errorf("defaults not applied: %+v, %+v", c.cfg, api)
				}
				if c.Model() != "openai:"+tt.cfg.Model || c.Dimension() != tt.cfg.Dimension {
					t.Errorf("Model, Dimension = %q, %d", c.Model(), c.Dimension())
				}
				return
			}
			if code := mnemo.ErrorCode(err); code != mnemo.EINVALID {
				t.Errorf("err = %v, want code %s", err, mnemo.EINVALID)
			}
		})
	}
}

func TestBatching(t *testing.T) {
	tests := []struct {
		name      string
		n, batch  int
		wantSizes []int
	}{
		{"130 by 64", 130, 64, []int{64, 64, 2}},
		{"exact", 128, 64, []int{64, 64}},
		{"one batch", 5, 0, []int{5}},
		{"empty", 0, 64, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{dim: 3, reverse: true}
			c := start(t, f, Config{BatchSize: tt.batch, Dimension: 3})
			in := texts(tt.n)
			got, err := c.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n {
				t.Fatalf("got %d vectors, want %d", len(got), tt.n)
			}
			for i, v := range got {
				if len(v) != 3 || v[0] != float32(len(in[i])) {
					t.Fatalf("vector %d = %v, want %d", i, v, len(in[i]))
				}
			}
			reqs, _ := f.requests()
			var sizes []int
			for _, r := range reqs {
				sizes = append(sizes, len(r.Input))
				if r.Model != "test-model" {
					t.Errorf("request model %q", r.Model)
				}
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tt.wantSizes) {
				t.Errorf("batch sizes %v, want %v", sizes, tt.wantSizes)
			}
		})
	}
}

func TestAuth(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{testKey, "Bearer " + testKey},
		{"", ""},
	}
	for _, tt := range tests {
		f := &fake{dim: 2}
		c := start(t, f, Config{APIKey: tt.key})
		if _, err := c.Embed(context.Background(), []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if _, auth := f.requests(); len(auth) != 1 || auth[0] != tt.want {
			t.Errorf("key %q: Authorization %q, want %q", tt.key, auth, tt.want)
		}
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		name      string
		failures  int // answers with status before a success
		status    int
		header    string
		retries   int
		wantCode  string // "" for success
		wantCalls int
	}{
		{"429 then success", 1, http.StatusTooManyRequests, "", 0, "", 2},
		{"429 with Retry-After", 1, http.StatusTooManyRequests, "0", 0, "", 2},
		{"503 twice then success", 2, http.StatusServiceUnavailable, "", 0, "", 3},
		{"500 past retries", 10, http.StatusInternalServerError, "", 2, mnemo.EUNAVAILABLE, 3},
		{"429 past retries", 10, http.StatusTooManyRequests, "", 1, mnemo.ERATELIMITED, 2},
		{"no retries", 10, http.StatusBadGateway, "", -1, mnemo.EUNAVAILABLE, 1},
		{"400 not retried", 10, http.StatusBadRequest, "", 0, mnemo.EINVALID, 1},
		{"401 not retried", 10, http.StatusUnauthorized, "", 0, mnemo.EUNAUTHORIZED, 1},
		{"403 not retried", 10, http.StatusForbidden, "", 0, mnemo.EFORBIDDEN, 1},
		{"413 not retried", 10, http.StatusRequestEntityTooLarge, "", 0, mnemo.ETOOLARGE, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{dim: 2, reply: func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n >= tt.failures {
					return false
				}
				if tt.header != "" {
					w.Header().Set("Retry-After", tt.header)
				}
				// Some providers echo the key back; it must not leak.
				http.Error(w, `{"error":{"message":"bad key `+testKey+`"}}`, tt.status)
				return true
			}}
			c := start(t, f, Config{APIKey: testKey, MaxRetries: tt.retries})
			_, err := c.Embed(context.Background(), []string{"a", "b"})
			if got := mnemo.ErrorCode(err); got != tt.wantCode {
				t.Errorf("err = %v, want code %q", err, tt.wantCode)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the API key: %v", err)
			}
			if reqs, _ := f.requests(); len(reqs) != tt.wantCalls {
				t.Errorf("%d requests, want %d", len(reqs), tt.wantCalls)
			}
		})
	}
}

// Retry-After and the backoff are tested in internal/openaiapi.

func TestDimension(t *testing.T) {
	tests := []struct {
		name       string
		configured int
		first      int // dimension the server answers with first, then second
		second     int
		wantErr1   bool
		wantErr2   bool
	}{
		{"configured and matching", 4, 4, 4, false, false},
		{"configured mismatch", 4, 3, 3, true, true},
		{"learned then enforced", 0, 5, 6, false, true},
		{"learned and stable", 0, 5, 5, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			f.reply = func(n int, w http.ResponseWriter, r *http.Request) bool {
				f.dim = tt.first
				if n > 0 {
					f.dim = tt.second
				}
				return false
			}
			c := start(t, f, Config{Dimension: tt.configured})
			for i, wantErr := range []bool{tt.wantErr1, tt.wantErr2} {
				_, err := c.Embed(context.Background(), []string{"abc"})
				if (err != nil) != wantErr {
					t.Fatalf("call %d: err = %v, want error %v", i, err, wantErr)
				}
				if err != nil && (mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "expected")) {
					t.Errorf("call %d: err = %v, want an %s error naming expected vs got", i, err, mnemo.EINVALID)
				}
			}
			want := tt.configured
			if want == 0 {
				want = tt.first
			}
			if c.Dimension() != want {
				t.Errorf("Dimension = %d, want %d", c.Dimension(), want)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"not JSON", `<html>oops</html>`},
		{"truncated", `{"data":[{"index":0,"embedding":[1,2`},
		{"wrong type", `{"data":{"index":0}}`},
		{"too few", `{"data":[{"index":0,"embedding":[1,2]}]}`},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`},
		{"repeated index", `{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`},
		{"empty embedding", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{reply: func(n int, w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tt.body)
				return true
			}}
			c := start(t, f, Config{})
			_, err := c.Embed(context.Background(), []string{"a", "b"})
			if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
				t.Errorf("err = %v, want code %s", err, mnemo.EUNAVAILABLE)
			}
			if reqs, _ := f.requests(); len(reqs) != 1 {
				t.Errorf("%d requests, want 1: a malformed answer is not retried", len(reqs))
			}
		})
	}
}

// hang answers nothing until the client gives up.
func hang(n int, w http.ResponseWriter, r *http.Request) bool {
	<-r.Context().Done()
	return true
}

func TestTimeout(t *testing.T) {
	f := &fake{reply: hang}
	c := start(t, f, Config{Timeout: 20 * time.Millisecond, MaxRetries: 1})
	start := time.Now()
	_, err := c.Embed(context.Background(), []string{"a"})
	if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want %s wrapping a deadline error", err, mnemo.EUNAVAILABLE)
	}
	if reqs, _ := f.requests(); len(reqs) != 2 {
		t.Errorf("%d requests, want 2: a timed-out attempt is retried", len(reqs))
	}
	if d := time.Since(start); d > testwait.D(5*time.Second) {
		t.Errorf("took %v", d)
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name  string
		reply func(n int, w http.ResponseWriter, r *http.Request) bool
		delay time.Duration
	}{
		{"during request", hang, time.Hour},
		{"during backoff", func(n int, w http.ResponseWriter, r *http.Request) bool {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, &fake{reply: tt.reply}, Config{RetryDelay: tt.delay})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := c.Embed(ctx, []string{"a"})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want the context's error", err)
			}
			if d := time.Since(start); d > testwait.D(5*time.Second) {
				t.Errorf("took %v to notice cancellation", d)
			}
		})
	}
}

func TestNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	c, err := New(Config{BaseURL: url, Model: "m", APIKey: testKey, MaxRetries: 2, RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Embed(context.Background(), []string{"a"})
	if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Errorf("err = %v, want code %s", err, mnemo.EUNAVAILABLE)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks the API key: %v", err)
	}
}
