package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/mcp"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// bomb is a real embedder that panics on any text with "kaboom" in it: a
// stand-in for any bug below a handler or a background job.
type bomb struct{ *hashed.Embedder }

func (b bomb) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, "kaboom") {
			panic("kaboom: " + t)
		}
	}
	return b.Embedder.Embed(ctx, texts)
}

// lockedBuffer is a log sink for the server and its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestPanicsAreInternalErrors is OPS-8 as a class: a panic
// in a handler (recall's query embedding), an MCP tool (the same, by MCP)
// or a background job (the embedding worker) is an internal error with its
// stack logged, and the server keeps answering.
func TestPanicsAreInternalErrors(t *testing.T) {
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: bomb{hashed.New(64)}, AsyncEmbedding: true, Logger: log})
	if err := svc.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv := mhttp.NewServer(svc, mhttp.Options{Logger: log})
	srv.Handle("/mcp", mcp.NewServer(svc, mcp.Options{Logger: log}).HTTPHandler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		svc.Close()
	})
	base := "http://" + ln.Addr().String()
	post := func(path, body string) (int, string) {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("POST %s: %v (the server is down?)", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// Embedded in the background (AsyncEmbedding), the worker panics on it.
	if code, body := post("/v1/memories", `{"agent_id":"a","content":"the kaboom memory"}`); code != 201 {
		t.Fatalf("write: %d %s", code, body)
	}
	// Recall panics while embedding the query: a 500 problem, code internal,
	// no details.
	code, body := post("/v1/recall", `{"agent_id":"a","query":"kaboom"}`)
	var p struct{ Code, Detail string }
	json.Unmarshal([]byte(body), &p)
	if code != 500 || p.Code != mnemo.EINTERNAL || strings.Contains(body, "kaboom:") {
		t.Fatalf("panicking recall: %d %s", code, body)
	}
	// MCP: the same panic is a tool error, internal; the session goes on.
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcpsdk.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: agentHeader{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcpsdk.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "kaboom"}})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcpsdk.TextContent).Text, "internal:") {
		t.Fatalf("panicking tool: %+v, %v", res, err)
	}
	res, err = cs.CallTool(t.Context(), &mcpsdk.CallToolParams{Name: "remember", Arguments: map[string]any{"content": "The office plant needs water on Mondays"}})
	if err != nil || res.IsError {
		t.Fatalf("tool after a panic: %+v, %v", res, err)
	}
	// The server still answers, and embeds what comes after.
	if code, body := post("/v1/recall", `{"agent_id":"a","query":"office plant"}`); code != 200 {
		t.Fatalf("recall after the panics: %d %s", code, body)
	}
	for i := 0; i < 250 && !strings.Contains(logs.String(), "in=\"embedding queued memories\""); i++ {
		time.Sleep(20 * time.Millisecond) // the worker's panic is its own
	}
	for _, want := range []string{"recovered from a panic", "goroutine", "in=\"embedding queued memories\"", "in=\"mcp tool recall\"", "in=\"POST /v1/recall\""} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log has no %q:\n%s", want, logs.String())
		}
	}
}

type agentHeader struct{}

func (agentHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Mnemo-Agent", "a")
	return http.DefaultTransport.RoundTrip(r)
}
