package memory_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// BenchmarkBulkWrite is POST /v1/memories/batch's path in the default
// configuration (the built-in embedder, 612 d; the Write Guard on): batches
// of 500 into a fresh store, embedded on write (sync) or acknowledged
// before their vectors (async; PERF-8). It reports memories
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

// BenchmarkBulkWriteGrown is BenchmarkBulkWrite into a copy of a grown
// store, where the Write Guard's lookups cost more: MNEMO_BENCH_STORE
// names a directory of bench/scale's (mnemo.db and its ANN index, e.g.
// scale-v3-builtin-100000), whose agent bench/scale the batches go to.
// Skipped without it.
//
//	MNEMO_BENCH_STORE=… go test -run '^$' -bench BulkWriteGrown -benchtime 6x ./memory
func BenchmarkBulkWriteGrown(b *testing.B) {
	src := os.Getenv("MNEMO_BENCH_STORE")
	if src == "" {
		b.Skip("MNEMO_BENCH_STORE is not set")
	}
	scope := mnemo.Scope{TenantID: "bench", AgentID: "scale"} // bench/scale's
	for _, mode := range []string{"sync", "async"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			copyStore(b, src, dir)
			db, err := sqlite.Open(context.Background(), filepath.Join(dir, "mnemo.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			svc := service.New(db, service.Options{Embedder: builtin.New()})
			defer svc.Close()
			ctx := context.Background()
			if err := svc.Init(ctx); err != nil {
				b.Fatal(err)
			}
			c := newCorpus(3)
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
				if _, err := svc.WriteWith(ctx, scope, batches[i], memory.WriteOptions{AsyncEmbedding: mode == "async"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*500)/time.Since(start).Seconds(), "memories/s")
		})
	}
}

// copyStore copies the files of the store in src, its ANN index files
// included, to dst.
func copyStore(b *testing.B, src, dst string) {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		b.Fatal(err)
	}
}
