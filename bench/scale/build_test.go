package scale

import (
	"context"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/memory"
)

// BenchmarkIndexBuild builds the ANN index of the store $MNEMO_SCALE_DB (a
// copy: its saved index is deleted and written again) from its table, as
// bench scale's "ANN index build" does, in a store opened as mnemo serve
// opens it, and reports the build's peak resident set, its CPU time, the
// Go heap's peak (its objects, and all the runtime holds) and the index's
// size, and the bytes it wrote (PERF-12). With -memprofile it shows what
// the build allocates beside the index; run it in a fresh process each time:
//
//	MNEMO_SCALE_DB=/copy/of/mnemo.db go test -run '^$' -bench IndexBuild -benchtime 1x -count 3 ./bench/scale
func BenchmarkIndexBuild(b *testing.B) {
	path := os.Getenv("MNEMO_SCALE_DB")
	if path == "" {
		b.Skip("MNEMO_SCALE_DB not set")
	}
	ctx := context.Background()
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		b.Fatal(err)
	}
	gen := newGenerator(words, 1)
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(path + "-vectors"); err != nil {
			b.Fatal(err)
		}
		var meter stageMeter
		meter.start()
		heap, rss0, written0 := heapPeak(), rss(), written()
		b.StartTimer()
		svc, db, err := openStore(ctx, path, builtin.New(), 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query(), Profile: "semantic"}); err != nil {
			b.Fatal(err)
		}
		if err := db.IndexVectors(ctx); err != nil {
			b.Fatal(err)
		}
		if err := svc.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak, cpu := meter.end()
		b.ReportMetric(float64(rss0)/(1<<20), "start-rss-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
		objects, held := heap()
		b.ReportMetric(float64(objects)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(held)/(1<<20), "peak-go-MB")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(float64(size(path+"-vectors/1.ann"))/(1<<20), "index-MB")
		b.ReportMetric(float64(written()-written0)/(1<<20), "written-MB")
		b.StartTimer()
	}
}

// heapPeak samples the Go heap every 10 ms until the function it returns is
// called, which returns the highest samples: of its objects (live, or dead
// not yet swept), and of all the memory the runtime holds and has not
// returned to the OS (the heap's free pages, stacks, metadata).
func heapPeak() func() (objects, held uint64) {
	stop, done := make(chan struct{}), make(chan [2]uint64)
	go func() {
		s := []metrics.Sample{
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/total:bytes"},
			{Name: "/memory/classes/heap/released:bytes"},
		}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var peak [2]uint64
		for {
			metrics.Read(s)
			peak[0] = max(peak[0], s[0].Value.Uint64())
			peak[1] = max(peak[1], s[1].Value.Uint64()-s[2].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(stop)
		p := <-done
		return p[0], p[1]
	}
}

// written is how many bytes the process has had written to storage
// (/proc/self/io's write_bytes), 0 where that is not known.
func written() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
