package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/service"
)

// timeHTTPRecalls times n recalls as a user's client makes them: POST
// /v1/recall over loopback to the server `mnemo serve` runs, with an API
// key, the JSON both ways and the access record included (PERF-2: the
// goals are through HTTP).
func timeHTTPRecalls(ctx context.Context, svc *service.Mnemo, g *generator, n int, progress func(string, int, int)) ([]time.Duration, error) {
	const secret = "bench-scale-key"
	srv := mhttp.NewServer(svc, mhttp.Options{Keys: []mhttp.APIKey{{
		Name: "bench", Hash: mhttp.HashKey(secret), Tenant: Scope.TenantID,
		Agents: []string{Scope.AgentID}, Scopes: []string{mhttp.ScopeRead},
	}}})
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
	client := &http.Client{Timeout: time.Minute}
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
