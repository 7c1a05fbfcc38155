package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// BenchmarkBulkWrite is POST /v1/memories/batch's path in the default
// configuration (the built-in embedder, 612 d; the Write Guard on): batches
// of 500 into a fresh store, embedded on write (sync) or acknowledged
// before their vectors (async, PERF-n of issue 20). It reports memories
// acknowledged per second; the async run's background embedding is not
// waited for.
//
//	go test -run '^$' -bench BulkWrite -benchtime 10x ./memory
func BenchmarkBulkWrite(b *testing.B) {
	for _, mode := range []string{"sync", "async"} {
		b.Run(mode, func(b *testing.B) {
			svc := newSemantic(b, newClock(), "", service.Options{Embedder: builtin.New(), AsyncEmbedding: mode == "async"})
			c := newCorpus(3)
			ctx := context.Background()
			batches := make([][]mnemo.Draft, b.N)
			for i := range batches {
				batches[i] = make([]mnemo.Draft, 500)
				for j := range batches[i] {
					s := c.Sentence(15)
					batches[i][j] = mnemo.Draft{Content: &s}
				}
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := svc.RememberBatch(ctx, benchScope, batches[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*500)/time.Since(start).Seconds(), "memories/s")
		})
	}
}

// BenchmarkBackgroundEmbedding times the worker that embeds a bulk load
// acknowledged without vectors (async): 2,000 memories written, then
// WaitEmbedded. It reports memories embedded per second, from the first
// write to the last vector (built-in embedder).
//
//	go test -run '^$' -bench BackgroundEmbedding -benchtime 1x ./memory
func BenchmarkBackgroundEmbedding(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		svc := newSemantic(b, newClock(), "", service.Options{Embedder: builtin.New(), AsyncEmbedding: true, Guard: memory.GuardOptions{Off: true}})
		c := newCorpus(5)
		ctx := context.Background()
		b.StartTimer()
		start := time.Now() // the worker starts with the first write
		for range 4 {
			drafts := make([]mnemo.Draft, 500)
			for j := range drafts {
				s := c.Sentence(15)
				drafts[j] = mnemo.Draft{Content: &s}
			}
			if _, err := svc.RememberBatch(ctx, benchScope, drafts); err != nil {
				b.Fatal(err)
			}
		}
		if err := svc.WaitEmbedded(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(2000/time.Since(start).Seconds(), "memories/s")
	}
}
