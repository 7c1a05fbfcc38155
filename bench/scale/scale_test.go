package scale

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/service"
)

// TestRunSmall runs the whole measurement on a small store: every step
// works and reports sane figures.
func TestRunSmall(t *testing.T) {
	rep, err := Run(context.Background(), Config{N: 2000, Dir: t.TempDir(), Queries: 20, Exact: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Generated || rep.WriteRate <= 0 || rep.RecallP95 <= 0 || rep.IndexBytes == 0 || rep.DBBytes == 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.ANNRecall10 < 0.5 {
		t.Fatalf("ANN recall@10 %.3f: the index does not find the nearest vectors", rep.ANNRecall10)
	}
}

// openBench opens the generated store of $MNEMO_SCALE_N memories (default
// 100,000), kept under $TMPDIR/mnemo-scale, with the ANN search effort
// $MNEMO_SCALE_EF, and a query generator seeded with seed.
func openBench(b *testing.B, seed uint64) (*service.Mnemo, *generator) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_SCALE_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	path, _, _, err := Generate(ctx, filepath.Join(os.TempDir(), "mnemo-scale"), n, nil)
	if err != nil {
		b.Fatal(err)
	}
	emb := glove.New()
	ef, _ := strconv.Atoi(os.Getenv("MNEMO_SCALE_EF"))
	svc, _, err := openStore(ctx, path, emb, ef)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	words, _ := emb.Words(vocabulary)
	return svc, newGenerator(words, seed)
}

// BenchmarkHybridRecall times hybrid recall (surface, limit 10) on a
// generated store of $MNEMO_SCALE_N memories (default 100,000), kept under
// $TMPDIR/mnemo-scale for later runs; $MNEMO_SCALE_PROFILE picks another
// profile (lexical, semantic) to time one index alone, $MNEMO_SCALE_EF
// another ANN search effort:
//
//	go test -run '^$' -bench HybridRecall -benchtime 1000x ./bench/scale
func BenchmarkHybridRecall(b *testing.B) {
	ctx := context.Background()
	svc, gen := openBench(b, 3)
	// Load the index before timing.
	if _, err := svc.Surface(ctx, Scope, mnemo.Query{Text: gen.query()}); err != nil {
		b.Fatal(err)
	}
	qs := make([]string, b.N)
	for i := range qs {
		qs[i] = gen.query()
	}
	d := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := svc.Surface(ctx, Scope, mnemo.Query{Text: qs[i], Limit: 10, Profile: os.Getenv("MNEMO_SCALE_PROFILE")}); err != nil {
			b.Fatal(err)
		}
		d[i] = time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(d, 0.5))/1e6, "p50-ms")
	b.ReportMetric(float64(percentile(d, 0.95))/1e6, "p95-ms")
}

// BenchmarkSnapshot times a run's snapshot (seed 000 FR-6: pinned, 3
// related by hybrid recall, 5 recent, 500 tokens) on the generated store:
//
//	go test -run '^$' -bench Snapshot -benchtime 1000x ./bench/scale
func BenchmarkSnapshot(b *testing.B) {
	ctx := context.Background()
	svc, gen := openBench(b, 5)
	snap := func() error {
		payload, _ := json.Marshal(gen.query())
		_, err := svc.Snapshot(ctx, Scope, mnemo.SnapshotQuery{Trigger: mnemo.Trigger{Type: "message", Payload: payload}})
		return err
	}
	if err := snap(); err != nil { // loads the index and the tokenizer
		b.Fatal(err)
	}
	d := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := snap(); err != nil {
			b.Fatal(err)
		}
		d[i] = time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(d, 0.5))/1e6, "p50-ms")
	b.ReportMetric(float64(percentile(d, 0.95))/1e6, "p95-ms")
}
