package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/embed/builtin"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/testkit"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// BenchmarkBatchHTTP is PERF-8's bulk load measured from outside: POST
// /v1/memories/batch, 500 memories a request, over loopback HTTP, in the
// default configuration (the built-in embedder, the Write Guard on, a
// fresh SQLite store), with vectors made before the answer (sync) or after
// it (async_embedding). It reports memories acknowledged per second, and
// per second of the process's CPU time; the async run's background
// embedding goes on beside it and is not waited for.
//
//	go test -run '^$' -bench BatchHTTP -benchtime 10x ./http
func BenchmarkBatchHTTP(b *testing.B) {
	for _, async := range []bool{false, true} {
		name := "sync"
		if async {
			name = "async"
		}
		b.Run(name, func(b *testing.B) {
			db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			svc := service.New(db, service.Options{Embedder: builtin.New()})
			if err := svc.Init(context.Background()); err != nil {
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
			url := "http://" + ln.Addr().String() + "/v1/memories/batch"
			c := testkit.NewCorpus(3)
			bodies := make([]string, b.N)
			for i := range bodies {
				mems := make([]map[string]string, 500)
				for j := range mems {
					mems[j] = map[string]string{"content": c.Sentence(15)}
				}
				buf, _ := json.Marshal(map[string]any{"agent_id": "bulk", "memories": mems, "async_embedding": async})
				bodies[i] = string(buf)
			}
			client := &http.Client{Timeout: 5 * time.Minute}
			b.ResetTimer()
			start, c0 := time.Now(), cpuTime()
			for i := 0; i < b.N; i++ {
				resp, err := client.Post(url, "application/json", strings.NewReader(bodies[i]))
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 201 {
					b.Fatal(fmt.Sprint("status ", resp.StatusCode))
				}
			}
			b.ReportMetric(float64(b.N*500)/time.Since(start).Seconds(), "memories/s")
			if cpu := cpuTime() - c0; cpu > 0 {
				// What a shared machine inflates least (sync: every
				// memory's work; async: some of the background embedding
				// too).
				b.ReportMetric(float64(b.N*500)/cpu.Seconds(), "memories/cpu-s")
			}
		})
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
