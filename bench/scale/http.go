package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// timeHTTPRecalls times n recalls as a user's client makes them: POST
// /v1/recall over loopback to the server `mnemo serve` runs, with an API
// key, the JSON both ways and the access record included (PERF-2: the
// goals are through HTTP). timeout is the server's request timeout
// (Config.RequestTimeout).
func timeHTTPRecalls(ctx context.Context, svc *service.Mnemo, g *generator, n int, timeout time.Duration, progress func(string, int, int)) ([]time.Duration, error) {
	const secret = "bench-scale-key"
	srv := mhttp.NewServer(svc, mhttp.Options{Keys: []mhttp.APIKey{{
		Name: "bench", Hash: mhttp.HashKey(secret), Tenant: Scope.TenantID,
		Agents: []string{Scope.AgentID}, Scopes: []string{mhttp.ScopeRead},
	}}, Timeout: timeout})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench scale: %w", err)
	}
	go srv.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	url := "http://" + ln.Addr().String() + "/v1/recall"
	client := &http.Client{Timeout: clientTimeout(time.Minute, timeout)}
	out := make([]time.Duration, n)
	for i := range out {
		body, _ := json.Marshal(map[string]any{"query": g.query(), "limit": 10})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("bench scale: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+secret)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("bench scale: recall through HTTP: %w", err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		out[i] = time.Since(t0)
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("bench scale: recall through HTTP: %d %s", resp.StatusCode, b)
		}
		if progress != nil {
			progress("recall through HTTP", i+1, n)
		}
	}
	return out, nil
}

// Bulk is one bulk load as a user posts it: POST /v1/memories/batch, 500
// memories a request, over loopback HTTP, into a fresh store in the
// default configuration (issue 20's bulk goals).
type Bulk struct {
	Memories int  `json:"memories"`
	Async    bool `json:"async"` // acknowledged before the vectors (async_embedding)
	Guard    bool `json:"guard"` // the Write Guard on, as mnemo serve has it
	// PerSecond is memories acknowledged a second, wall clock;
	// PerCPUSecond a second of the process's CPU time, which a shared
	// machine inflates least (async: the background embedding that runs
	// meanwhile is counted too).
	PerSecond    float64 `json:"per_s"`
	PerCPUSecond float64 `json:"per_cpu_s"`
	// Embedded is, for async, memories a second from the first post until
	// the worker had made every vector.
	Embedded float64 `json:"embedded_per_s,omitempty"`
}

// bulkBatch is the memories a request of the bulk load carries.
const bulkBatch = 500

// bulkHTTP posts n generated memories in batches of bulkBatch to a server
// over a fresh store in dir, removed after, with the Write Guard on (the
// default) and vectors made before each answer or, async, after it.
// timeout is the server's request timeout (Config.RequestTimeout).
func bulkHTTP(ctx context.Context, dir string, emb mnemo.Embedder, g *generator, n int, async bool, timeout time.Duration, progress func(string, int, int)) (Bulk, error) {
	out := Bulk{Memories: n, Async: async, Guard: true}
	dir = filepath.Join(dir, "bulk-scratch")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, fmt.Errorf("bench scale: %w", err)
	}
	defer os.RemoveAll(dir)
	// As mnemo serve opens a store by default (synchronous FULL).
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{})
	if err != nil {
		return out, err
	}
	svc := service.New(db, service.Options{Embedder: emb})
	defer svc.Close()
	if err := svc.Init(ctx); err != nil {
		return out, err
	}
	// The model loads on first use: not part of a bulk load's rate.
	if _, err := emb.Embed(ctx, []string{g.sentence()}); err != nil {
		return out, err
	}
	const secret = "bench-scale-bulk-key"
	srv := mhttp.NewServer(svc, mhttp.Options{Keys: []mhttp.APIKey{{
		Name: "bulk", Hash: mhttp.HashKey(secret), Tenant: Scope.TenantID,
		Agents: []string{Scope.AgentID}, Scopes: []string{mhttp.ScopeWrite},
	}}, Timeout: timeout})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return out, fmt.Errorf("bench scale: %w", err)
	}
	go srv.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	url := "http://" + ln.Addr().String() + "/v1/memories/batch"
	bodies := make([][]byte, 0, (n+bulkBatch-1)/bulkBatch)
	for i := 0; i < n; i += bulkBatch {
		mems := make([]map[string]any, min(bulkBatch, n-i))
		for j := range mems {
			mems[j] = map[string]any{"content": g.sentence(), "tags": []string{g.tag()}}
		}
		b, err := json.Marshal(map[string]any{"agent_id": Scope.AgentID, "memories": mems, "async_embedding": async})
		if err != nil {
			return out, fmt.Errorf("bench scale: %w", err)
		}
		bodies = append(bodies, b)
	}
	stage := "bulk load through HTTP, sync"
	if async {
		stage = "bulk load through HTTP, async"
	}
	client := &http.Client{Timeout: clientTimeout(5*time.Minute, timeout)}
	start, cpu0, done := time.Now(), cpuTime(), 0
	for _, body := range bodies {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return out, fmt.Errorf("bench scale: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := client.Do(req)
		if err != nil {
			return out, fmt.Errorf("bench scale: bulk load through HTTP: %w", err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated {
			return out, fmt.Errorf("bench scale: bulk load through HTTP: %d %s", resp.StatusCode, b)
		}
		done += min(bulkBatch, n-done)
		if progress != nil {
			progress(stage, done, n)
		}
	}
	wall, cpu := time.Since(start), cpuTime()-cpu0
	out.PerSecond = float64(n) / wall.Seconds()
	if cpu > 0 {
		out.PerCPUSecond = float64(n) / cpu.Seconds()
	}
	if async {
		if err := svc.WaitEmbedded(ctx); err != nil {
			return out, err
		}
		out.Embedded = float64(n) / time.Since(start).Seconds()
	}
	return out, nil
}

// clientTimeout is the client's bound d, or none when the server's
// request timeout is none.
func clientTimeout(d, server time.Duration) time.Duration {
	if server < 0 {
		return 0
	}
	return d
}
