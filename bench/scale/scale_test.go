package scale

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestRunSmall runs the whole measurement on a small store: every step
// works and reports sane figures. It runs without the race detector (make
// test's unit step, FULLSIZE), which slows its writes and sentence encoder
// tenfold; the service's concurrency is the race run's in its own packages.
func TestRunSmall(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race (make test's unit step, FULLSIZE)")
	}
	// No request timeout: on a loaded machine a batch of 500 may take any
	// time (QUAL-3).
	rep, err := Run(context.Background(), Config{N: 2000, Dir: t.TempDir(), Queries: 20, Exact: 10, Bulk: 1000, RequestTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Generated || rep.WriteRate <= 0 || rep.RecallP95 <= 0 || rep.IndexBytes == 0 || rep.DBBytes == 0 {
		t.Fatalf("report %+v", rep)
	}
	// The default configuration: the built-in embedder, a bulk load
	// acknowledged before its vectors, then embedded; every stage timed.
	if rep.Dimension != 612 || rep.AckRate <= 0 || rep.FirstRecall <= 0 || rep.EmbedRate <= 0 {
		t.Fatalf("bulk load: %+v", rep)
	}
	// Both bulk loads through HTTP, the guard on as mnemo serve has it.
	for _, b := range []Bulk{rep.BulkSync, rep.BulkAsync} {
		if b.Memories != 1000 || !b.Guard || b.PerSecond <= 0 || b.PerCPUSecond <= 0 || b.Async != (b.Embedded > 0) {
			t.Fatalf("bulk load through HTTP: %+v", b)
		}
	}
	if !rep.BulkAsync.Async {
		t.Fatalf("the async bulk load was not: %+v", rep.BulkAsync)
	}
	if st := rep.Stages; st.Total <= 0 || st.Embed <= 0 || st.Lexical <= 0 || st.Vector <= 0 {
		t.Fatalf("stages: %+v", st)
	}
	// The slowest recalls are chosen by their whole time, their stages
	// timed inside it: under load the two can disagree, so only that the
	// tail is measured is checked here (which recalls slowest picks is
	// TestSlowest's).
	if st := rep.TailStages; st.Total <= 0 {
		t.Fatalf("the slowest recalls' stages: %+v", st)
	}
	if rep.QuietP95 <= 0 || rep.WritesP95 <= 0 || rep.WritesDone == 0 {
		t.Fatalf("recall beside writes: %+v", rep)
	}
	if rep.ANNRecall10 < 0.5 {
		t.Fatalf("ANN recall@10 %.3f: the index does not find the nearest vectors", rep.ANNRecall10)
	}
	// Each stage's peak is its own (Linux: the high-water mark is reset
	// between stages), none above the whole run's.
	if rep.IndexBuildCPU <= 0 {
		t.Fatalf("index build CPU %v", rep.IndexBuildCPU)
	}
	if runtime.GOOS == "linux" {
		for _, p := range []int64{rep.LoadRSS, rep.BuildRSS, rep.ServingRSS} {
			if p <= 0 || p > rep.PeakRSS {
				t.Fatalf("peak RSS by stage: load %d, build %d, serving %d, whole run %d", rep.LoadRSS, rep.BuildRSS, rep.ServingRSS, rep.PeakRSS)
			}
		}
	}
}

func TestSlowest(t *testing.T) {
	ms := time.Millisecond
	tr := func(d time.Duration) *memory.Trace { return &memory.Trace{Total: d} }
	for _, tc := range []struct {
		d    []time.Duration
		p    float64
		want []time.Duration
	}{
		{[]time.Duration{1 * ms}, 0.95, []time.Duration{1 * ms}},
		{[]time.Duration{5 * ms, 1 * ms, 9 * ms, 2 * ms}, 0.5, []time.Duration{5 * ms, 9 * ms}},
		{[]time.Duration{3 * ms, 3 * ms, 1 * ms}, 0.95, []time.Duration{3 * ms, 3 * ms}},
	} {
		traces := make([]*memory.Trace, len(tc.d))
		for i, d := range tc.d {
			traces[i] = tr(d)
		}
		var got []time.Duration
		for _, t := range slowest(tc.d, traces, tc.p) {
			got = append(got, t.Total)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("slowest(%v, %v) = %v, want %v", tc.d, tc.p, got, tc.want)
		}
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
	// GloVe unless $MNEMO_SCALE_STORE_EMBEDDER=builtin: the kept 100k and
	// 1M stores of docs/BENCHMARKS.md are GloVe's.
	name := EmbedderGloVe
	if os.Getenv("MNEMO_SCALE_STORE_EMBEDDER") == EmbedderBuiltin {
		name = EmbedderBuiltin
	}
	g, err := generate(ctx, Config{Dir: filepath.Join(os.TempDir(), "mnemo-scale"), N: n, Embedder: name})
	if err != nil {
		b.Fatal(err)
	}
	path := g.path
	emb, err := embedder(name)
	if err != nil {
		b.Fatal(err)
	}
	ef, _ := strconv.Atoi(os.Getenv("MNEMO_SCALE_EF"))
	svc, db, err := openStore(ctx, path, emb, ef)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	// Load the index, and insert what its file lacks, before timing.
	if _, err := svc.Surface(ctx, Scope, memory.Query{Text: "index"}); err != nil {
		b.Fatal(err)
	}
	if err := db.IndexVectors(ctx); err != nil {
		b.Fatal(err)
	}
	words, _ := glove.New().Words(vocabulary)
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
	if _, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query()}); err != nil {
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
		if _, err := svc.Surface(ctx, Scope, memory.Query{Text: qs[i], Limit: 10, Profile: os.Getenv("MNEMO_SCALE_PROFILE")}); err != nil {
			b.Fatal(err)
		}
		d[i] = time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(d, 0.5))/1e6, "p50-ms")
	b.ReportMetric(float64(percentile(d, 0.95))/1e6, "p95-ms")
}

// BenchmarkLexical times the lexical stage of recall alone: the store's
// Search, as recall asks it (the analysed query, 50 candidates), on the
// SQLite file $MNEMO_SCALE_DB, or else the generated store (see
// BenchmarkHybridRecall). Search reads only, so the kept store is safe:
//
//	MNEMO_SCALE_DB=/path/mnemo.db go test -run '^$' -bench Lexical -benchtime 2000x ./bench/scale
func BenchmarkLexical(b *testing.B) {
	ctx := context.Background()
	path := os.Getenv("MNEMO_SCALE_DB")
	if path == "" {
		n := 100_000
		if v, err := strconv.Atoi(os.Getenv("MNEMO_SCALE_N")); err == nil && v > 0 {
			n = v
		}
		g, err := generate(ctx, Config{Dir: filepath.Join(os.TempDir(), "mnemo-scale"), N: n, Embedder: EmbedderGloVe})
		if err != nil {
			b.Fatal(err)
		}
		path = g.path
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	// Rank in memory, as a store open for a while does.
	t0 := time.Now()
	for !db.LexicalIndex().Ready && time.Since(t0) < 5*time.Minute {
		time.Sleep(10 * time.Millisecond)
	}
	st := db.LexicalIndex()
	b.Logf("in-memory full-text index: ready %v after %v, %d rows, %.1f MB (%.0f bytes a memory)",
		st.Ready, time.Since(t0).Round(time.Millisecond), st.Rows, float64(st.Bytes)/1e6, float64(st.Bytes)/float64(max(st.Rows, 1)))
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		b.Fatal(err)
	}
	gen, an := newGenerator(words, 3), analysis.New()
	query := func() mnemo.TextQuery {
		aq := an.Query(gen.query())
		return mnemo.TextQuery{Terms: aq.Terms, Prefixes: aq.Prefixes, Limit: 50}
	}
	for range 100 { // fill the page cache
		if _, err := db.Search(ctx, Scope, query()); err != nil {
			b.Fatal(err)
		}
	}
	qs := make([]mnemo.TextQuery, b.N)
	for i := range qs {
		qs[i] = query()
	}
	d := make([]time.Duration, b.N)
	// CPU time, beside the wall times: it holds steady on a busy machine.
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := db.Search(ctx, Scope, qs[i])
		if err != nil || res.Degraded {
			b.Fatalf("Search: %+v, %v", res, err)
		}
		d[i] = time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(d, 0.5))/1e6, "p50-ms")
	b.ReportMetric(float64(percentile(d, 0.95))/1e6, "p95-ms")
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkFilteredRecall times hybrid recall (surface, limit 10) with a
// filter of each kind on the generated store (see BenchmarkHybridRecall),
// one sub-benchmark per kind; the store is generated once and reused:
//
//	go test -run '^$' -bench FilteredRecall -benchtime 200x ./bench/scale
func BenchmarkFilteredRecall(b *testing.B) {
	ctx := context.Background()
	svc, gen := openBench(b, 7)
	after := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(99_000 * 30 * time.Second)
	before := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(1_000 * 30 * time.Second)
	tag := gen.tag()
	kinds := []struct {
		name string
		f    mnemo.Filter
	}{
		{"none", mnemo.Filter{}},
		{"pinned", mnemo.Filter{Pinned: true}},                                        // 1%
		{"min_confidence_0.5", mnemo.Filter{MinConfidence: 0.5}},                      // 51%
		{"min_confidence_0.99", mnemo.Filter{MinConfidence: 0.99}},                    // 2%
		{"min_vitality", mnemo.Filter{MinVitality: 0.5}},                              // all: vitality starts at 1
		{"security_restricted", mnemo.Filter{SecurityLevels: []string{"restricted"}}}, // 2%
		{"security_public_internal", mnemo.Filter{SecurityLevels: []string{"public", "internal"}}},
		{"include_archived", mnemo.Filter{IncludeArchived: true, IncludeExpired: true}},
		{"tags", mnemo.Filter{Tags: []string{tag}}},              // 2%
		{"types", mnemo.Filter{Types: []string{"event"}}},        // 25%
		{"categories", mnemo.Filter{Categories: []string{"c4"}}}, // 4%
		{"session", mnemo.Filter{SessionID: "s9"}},               // 2.5%
		{"key_prefix", mnemo.Filter{KeyPrefix: "/doc/3"}},        // 1.4%
		{"created_after", mnemo.Filter{CreatedAfter: &after}},    // 1%
		{"created_before", mnemo.Filter{CreatedBefore: &before}}, // 1%
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			qs := make([]string, b.N)
			for i := range qs {
				qs[i] = gen.query()
			}
			d := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := svc.Surface(ctx, Scope, memory.Query{Text: qs[i], Limit: 10, Filter: k.f}); err != nil {
					b.Fatal(err)
				}
				d[i] = time.Since(t0)
			}
			b.StopTimer()
			b.ReportMetric(float64(percentile(d, 0.5))/1e6, "p50-ms")
			b.ReportMetric(float64(percentile(d, 0.95))/1e6, "p95-ms")
		})
	}
}

// BenchmarkSnapshot times a run's snapshot (CTX-13, CTX-14: pinned, 3
// related by hybrid recall, 5 recent, 500 tokens) on the generated store:
//
//	go test -run '^$' -bench Snapshot -benchtime 1000x ./bench/scale
func BenchmarkSnapshot(b *testing.B) {
	ctx := context.Background()
	svc, gen := openBench(b, 5)
	snap := func() error {
		payload, _ := json.Marshal(gen.query())
		_, err := svc.Snapshot(ctx, Scope, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "message", Payload: payload}})
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

// BenchmarkFirstRecall loads $MNEMO_SCALE_N memories (default 100,000)
// into a new store through the Service, in batches of 1,000 as an import
// does, with the built-in embedder (the default configuration;
// MNEMO_SCALE_EMBEDDER=glove for GloVe alone), and times the first hybrid
// recall right after the load, then the next ones. The index catches up in
// the background meanwhile; the first recall does not wait for it, and
// scores the vectors the index lacks from the store's pending buffer:
//
//	go test -run '^$' -bench FirstRecall -benchtime 1x -timeout 2h ./bench/scale
func BenchmarkFirstRecall(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_SCALE_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	var emb mnemo.Embedder = builtin.New()
	if os.Getenv("MNEMO_SCALE_EMBEDDER") == "glove" {
		emb = glove.New()
	}
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		svc, db, err := openStore(ctx, filepath.Join(b.TempDir(), "mnemo.db"), emb, 0)
		if err != nil {
			b.Fatal(err)
		}
		gen := newGenerator(words, 1)
		start := time.Now()
		if err := load(ctx, svc, gen, n); err != nil {
			b.Fatal(err)
		}
		rate := float64(n) / time.Since(start).Seconds()
		st, err := svc.Stats(ctx, Scope)
		if err != nil {
			b.Fatal(err)
		}
		qgen := newGenerator(words, 2)
		// $MNEMO_SCALE_FIRST_PROFILE names a file for the CPU profile of
		// the first recall alone.
		if p := os.Getenv("MNEMO_SCALE_FIRST_PROFILE"); p != "" {
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			pprof.StartCPUProfile(f)
			defer f.Close()
		}
		b.StartTimer()
		t0 := time.Now()
		if _, err := svc.Surface(ctx, Scope, memory.Query{Text: qgen.query(), Limit: 10}); err != nil {
			b.Fatal(err)
		}
		first := time.Since(t0)
		b.StopTimer()
		pprof.StopCPUProfile()
		next := make([]time.Duration, 20)
		for j := range next {
			t0 := time.Now()
			if _, err := svc.Surface(ctx, Scope, memory.Query{Text: qgen.query(), Limit: 10}); err != nil {
				b.Fatal(err)
			}
			next[j] = time.Since(t0)
		}
		t0 = time.Now()
		if err := db.IndexVectors(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rate, "load/s")
		b.ReportMetric(float64(first)/1e6, "first-ms")
		b.ReportMetric(float64(percentile(next, 0.5))/1e6, "next-p50-ms")
		if st.Vectors != nil {
			b.ReportMetric(float64(st.Vectors.Indexed), "indexed-at-first")
			// What the first recall scored beside the index (at most
			// the newest 5,000 of them).
			b.ReportMetric(float64(st.Vectors.Embedded-st.Vectors.Indexed), "unindexed-at-first")
		}
		b.ReportMetric(time.Since(t0).Seconds(), "catchup-left-s")
		svc.Close()
	}
}

// load writes n generated memories into svc, 1,000 a batch.
func load(ctx context.Context, svc *service.Mnemo, gen *generator, n int) error {
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i += 1000 {
		drafts := make([]mnemo.Draft, min(1000, n-i))
		for j := range drafts {
			s := gen.sentence()
			at := created.Add(time.Duration(i+j) * 30 * time.Second)
			drafts[j] = mnemo.Draft{Content: &s, CreatedAt: &at, Tags: []string{gen.tag()}}
		}
		if _, err := svc.RememberBatch(ctx, Scope, drafts); err != nil {
			return err
		}
	}
	return nil
}

// The HTTP steps take the server's request timeout from the config: a
// request past it is answered 503 and fails the step, and none (negative),
// as TestRunSmall asks for, lets a loaded machine take its time.
func TestBulkHTTPTimeout(t *testing.T) {
	emb, err := embedder(EmbedderGloVe)
	if err != nil {
		t.Fatal(err)
	}
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := bulkHTTP(ctx, t.TempDir(), emb, newGenerator(words, 3), 10, false, time.Nanosecond, nil); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a bulk load past a 1 ns request timeout: %v, want a 503", err)
	}
	b, err := bulkHTTP(ctx, t.TempDir(), emb, newGenerator(words, 3), 10, false, -1, nil)
	if err != nil || b.Memories != 10 || b.PerSecond <= 0 {
		t.Fatalf("a bulk load without a request timeout: %+v, %v", b, err)
	}
}
