package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// startServe runs `mnemo serve` in process with args and returns its base
// URL; the server stops when the test ends.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var logs syncBuffer
	done := make(chan int)
	go func() {
		done <- testApp(t, strings.NewReader(""), &logs, &logs).main(ctx, append(args, "serve", "--addr", "127.0.0.1:0"))
	}()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	var m []string
	testwait.Until(t, 10*time.Second, "the server to start", func() bool {
		m = re.FindStringSubmatch(logs.String())
		return m != nil
	})
	return "http://" + m[1]
}

// headerTransport adds headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestServeWithKeys(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mnemo.yml")
	os.WriteFile(cfg, []byte(`auth:
  keys:
    - name: writer
      secret: ${TEST_WRITER_KEY}
      tenant: acme
      agents: [bot]
      scopes: [read, write]
    - name: reader
      secret: ${TEST_READER_KEY}
      tenant: acme
      scopes: [read]
`), 0o644)
	t.Setenv("TEST_WRITER_KEY", "writer-secret-0123456789")
	t.Setenv("TEST_READER_KEY", "reader-secret-0123456789")
	base := startServe(t, "--data", t.TempDir(), "--config", cfg)

	do := func(method, path, key, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		method, path, key, body string
		status                  int
	}{
		{"POST", "/v1/memories", "", `{"content":"x"}`, 401},
		{"POST", "/v1/memories", "wrong-secret-0123456789", `{"content":"x"}`, 401},
		{"POST", "/v1/memories", "reader-secret-0123456789", `{"agent_id":"bot","content":"x"}`, 403},
		{"POST", "/v1/memories", "writer-secret-0123456789", `{"agent_id":"other","content":"x"}`, 403},
		{"POST", "/v1/memories", "writer-secret-0123456789", `{"content":"the deploy window is Tuesday"}`, 201},
		{"POST", "/v1/surface", "reader-secret-0123456789", `{"agent_id":"bot","query":"deploy"}`, 200},
		{"GET", "/metrics", "writer-secret-0123456789", ``, 403},
		{"GET", "/healthz", "", ``, 200},
	}
	for _, tt := range tests {
		if st, body := do(tt.method, tt.path, tt.key, tt.body); st != tt.status {
			t.Errorf("%s %s with %q: %d, want %d: %s", tt.method, tt.path, tt.key, st, tt.status, body)
		}
	}

	// MCP over /mcp: the tenant comes from the key, a read-only key cannot
	// use the (writing) tools.
	call := func(key string) (*mcpsdk.CallToolResult, error) {
		client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil)
		tr := &mcpsdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{
			"Authorization": "Bearer " + key, "X-Mnemo-Agent": "bot",
		}}}
		sess, err := client.Connect(context.Background(), tr, nil)
		if err != nil {
			return nil, err
		}
		defer sess.Close()
		return sess.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "deploy"}})
	}
	res, err := call("writer-secret-0123456789")
	if err != nil || res.IsError || !strings.Contains(textOf(res), "Tuesday") {
		t.Fatalf("MCP recall with the writer key: %v %+v", err, res)
	}
	if res, err := call("reader-secret-0123456789"); err == nil && !res.IsError {
		t.Fatalf("MCP with a read-only key worked: %+v", res)
	}
}

func textOf(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
