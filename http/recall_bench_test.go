package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/testkit"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// BenchmarkRecallHTTP is the small-store recall of PERF-10 (P95 ≤ 5 ms
// at 1k memories through HTTP): the same queries answered in process and
// by POST /v1/recall over loopback, in the default configuration (the
// built-in embedder, a SQLite store of 1,000 memories), so that what HTTP
// adds is the difference between the two in one run.
//
//	go test -run '^$' -bench RecallHTTP -benchtime 2000x ./http
func BenchmarkRecallHTTP(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: builtin.New()})
	if err := svc.Init(ctx); err != nil {
		b.Fatal(err)
	}
	scope := mnemo.Scope{TenantID: "default", AgentID: "bench"}
	c := testkit.NewCorpus(5)
	drafts := make([]mnemo.Draft, 1000)
	for i := range drafts {
		s := c.Sentence(15)
		drafts[i] = mnemo.Draft{Content: &s}
	}
	if _, err := svc.RememberBatch(ctx, scope, drafts); err != nil {
		b.Fatal(err)
	}
	srv := mhttp.NewServer(svc, mhttp.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		svc.Close()
	})
	url := "http://" + ln.Addr().String() + "/v1/recall"
	client := &http.Client{Timeout: time.Minute}
	queries := make([]string, 512)
	for i := range queries {
		queries[i] = c.Query()
	}
	run := func(b *testing.B, recall func(q string) error) {
		for i := range 20 { // warm: the index loaded, connections open
			if err := recall(queries[i]); err != nil {
				b.Fatal(err)
			}
		}
		d := make([]time.Duration, b.N)
		// The process's CPU time, client and server, beside the wall
		// times: it holds steady on a busy machine, where the two arms'
		// wall times differ by more than HTTP adds.
		cpu0 := cpuTime()
		b.ResetTimer()
		for i := range b.N {
			t0 := time.Now()
			if err := recall(queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
			d[i] = time.Since(t0)
		}
		b.StopTimer()
		cpu := cpuTime() - cpu0
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2])/1e6, "p50-ms")
		b.ReportMetric(float64(d[len(d)*95/100])/1e6, "p95-ms")
		b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
	}
	b.Run("in-process", func(b *testing.B) {
		run(b, func(q string) error {
			_, err := svc.Recall(ctx, scope, memory.Query{Text: q, Limit: 10})
			return err
		})
	})
	b.Run("http", func(b *testing.B) {
		run(b, func(q string) error {
			body, _ := json.Marshal(map[string]any{"agent_id": scope.AgentID, "query": q, "limit": 10})
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("recall: status %d", resp.StatusCode)
			}
			return nil
		})
	})
}
