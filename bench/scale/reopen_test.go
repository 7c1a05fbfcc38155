package scale

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/memory"
)

// BenchmarkReopen times what bench scale's "reopen + first recall" times
// (PERF-13), split in its steps: opening the store
// $MNEMO_SCALE_DB (a copy: opening may write), then its first recall, with
// the recall's stages; a fresh process and a fresh embedder each run, as
// a restarted server has, so run it with -benchtime 1x, several times:
//
//	MNEMO_SCALE_DB=/copy/of/mnemo.db go test -run '^$' -bench Reopen -benchtime 1x -count 3 ./bench/scale
func BenchmarkReopen(b *testing.B) {
	path := os.Getenv("MNEMO_SCALE_DB")
	if path == "" {
		b.Skip("MNEMO_SCALE_DB not set")
	}
	ctx := context.Background()
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		b.Fatal(err)
	}
	gen := newGenerator(words, 5)
	for b.Loop() {
		t0 := time.Now()
		svc, _, err := openStore(ctx, path, builtin.New(), 0)
		if err != nil {
			b.Fatal(err)
		}
		opened := time.Since(t0)
		t1 := time.Now()
		res, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query(), Limit: 10, Trace: true})
		if err != nil {
			b.Fatal(err)
		}
		first := time.Since(t1)
		b.StopTimer()
		// Resident memory after the reopen: the process's own (anonymous)
		// and the file pages it maps, which are the page cache's (the index
		// file is mapped on Linux; PERF-13).
		if st, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, f := range []struct{ field, unit string }{{"RssAnon:", "anon-MB"}, {"RssFile:", "file-MB"}} {
				if _, rest, ok := strings.Cut(string(st), f.field); ok {
					if kb, err := strconv.Atoi(strings.Fields(rest)[0]); err == nil {
						b.ReportMetric(float64(kb)/1024, f.unit)
					}
				}
			}
		}
		svc.Close()
		b.StartTimer()
		b.ReportMetric(float64(opened)/1e6, "open-ms")
		b.ReportMetric(float64(first)/1e6, "first-ms")
		if tr := res.Trace; tr != nil {
			b.ReportMetric(float64(tr.Lexical)/1e6, "lexical-ms")
			b.ReportMetric(float64(tr.Embed)/1e6, "embed-ms")
			b.ReportMetric(float64(tr.Vector)/1e6, "vector-ms")
		}
	}
}
