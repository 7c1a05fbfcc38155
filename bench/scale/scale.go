// Package scale measures mnemo at scale: it generates a store of N memories
// in one agent (English sentences from the built-in embedder's vocabulary,
// embedded on write), then measures what a user of a large store waits for:
// bulk loads through HTTP (into a scratch store beside it), building and
// saving the ANN index, reopening the store, hybrid recall
// latency with the query embedding's share reported apart, ANN recall@10
// against exact search, and peak memory.
//
// `mnemo bench scale --n 1000000` runs it; the generated store is kept in
// the data directory given, so that a second run measures without
// regenerating.
package scale

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/vector"
)

// Config says what to measure.
type Config struct {
	N       int    // memories in the store
	Dir     string // where the store is generated and kept
	Queries int    // recall queries timed (default 500)
	// Exact is how many queries are also answered by exact search, for
	// ANN recall@10 (default 100).
	Exact int
	// ReuseIndex keeps the index file of an earlier run instead of
	// building (and timing) the index again.
	ReuseIndex bool
	// SearchEffort is the ANN index's efSearch; 0 is the store's default.
	SearchEffort int
	// Embedder is builtin (the default configuration's: GloVe + USE-Lite,
	// 612 d) or glove (GloVe alone, 100 d: a million memories in minutes).
	Embedder string
	// WriteBatch is the batch a writer posts every second while recall is
	// timed again beside it (default 500; negative: not measured).
	WriteBatch int
	// Bulk is how many memories are posted through HTTP into a scratch
	// SQLite store beside the generated one, once embedded before each
	// answer and once after it (default 10,000; negative, or Postgres
	// set: not measured).
	Bulk int
	// RequestTimeout bounds each request of the HTTP steps as the
	// server's own timeout: 0 is mnemo serve's default, negative none (a
	// test on a machine of any load, whose work is bounded).
	RequestTimeout time.Duration
	// Postgres, when set, is a PostgreSQL DSN: the generated store is
	// copied into a temporary schema of it and measured there (no index
	// file, reopen or writer; PG-1).
	Postgres string
	Log      io.Writer // progress; nil for none
	// Progress, when set, is told how far a long step is: stage names the
	// step ("load", "embed"), done of total.
	Progress func(stage string, done, total int)
}

// Embedders of the benchmark.
const (
	EmbedderBuiltin = "builtin"
	EmbedderGloVe   = "glove"
)

// embedder returns the named embedder; empty is the built-in one.
func embedder(name string) (mnemo.Embedder, error) {
	switch name {
	case "", EmbedderBuiltin:
		return builtin.New(), nil
	case EmbedderGloVe:
		return glove.New(), nil
	}
	return nil, fmt.Errorf("scale: embedder %q: builtin or glove", name)
}

// Stages is the median time of each recall stage (memory.Trace) over the
// timed queries.
type Stages struct {
	Analyse time.Duration `json:"analyse"`
	Lexical time.Duration `json:"lexical"`
	Embed   time.Duration `json:"embed"`
	Vector  time.Duration `json:"vector"`
	Find    time.Duration `json:"find"` // lexical beside embed + vector
	Fuse    time.Duration `json:"fuse"`
	MMR     time.Duration `json:"mmr"`
	Access  time.Duration `json:"access"`
	Total   time.Duration `json:"total"`
}

// Report is what was measured. Durations are wall-clock on this machine.
type Report struct {
	N           int           `json:"n"`
	Generated   bool          `json:"generated"`    // the store was written in this run
	IndexReused bool          `json:"index_reused"` // IndexBuild is a load of an earlier run's index
	EfSearch    int           `json:"ef_search"`    // the ANN search effort; 0 = the store's default
	WriteRate   float64       `json:"write_per_s"`  // memories/s, embedding included, when generated
	IndexBuild  time.Duration `json:"index_build"`  // ANN index built from the table
	IndexSave   time.Duration `json:"index_save"`   // written to its file
	Reopen      time.Duration `json:"reopen"`       // open + load the index file + first recall
	// LexicalReady is when the in-memory full-text index was built after
	// the reopen began; LexicalBytes its memory (an estimate).
	LexicalReady time.Duration `json:"lexical_ready"`
	LexicalBytes int64         `json:"lexical_bytes"`
	RecallP50    time.Duration `json:"recall_p50"`    // hybrid recall (surface), embedding included
	RecallP95    time.Duration `json:"recall_p95"`    //
	HTTPP50      time.Duration `json:"http_p50"`      // recall through POST /v1/recall on loopback
	HTTPP95      time.Duration `json:"http_p95"`      //
	EmbedP50     time.Duration `json:"embed_p50"`     // the query embedding alone
	EmbedP95     time.Duration `json:"embed_p95"`     //
	ANNRecall10  float64       `json:"ann_recall_10"` // vector search vs exact top 10
	// ANNRecall10Ties counts a result as found when its exact similarity
	// is within 0.001 of the exact tenth's: on a topic, many memories tie.
	ANNRecall10Ties float64 `json:"ann_recall_10_ties"`
	// PeakRSS is the highest resident set of the whole run (VmHWM);
	// LoadRSS, BuildRSS and ServingRSS are the peaks of its stages, each
	// on its own (PERF-12: the build's peak apart from the rest): the
	// bulk load when generated, the ANN index build and save (its load
	// when reused), and serving, from the reopen through recall beside
	// writes. A stage's peak is 0 where it cannot be told apart (not
	// Linux) or the stage did not run.
	PeakRSS    int64 `json:"peak_rss_bytes"`
	LoadRSS    int64 `json:"load_rss_bytes"`
	BuildRSS   int64 `json:"build_rss_bytes"`
	ServingRSS int64 `json:"serving_rss_bytes"`
	// IndexBuildCPU is the CPU time of the ANN index build and save, user
	// and system, every core's.
	IndexBuildCPU time.Duration `json:"index_build_cpu"`
	DBBytes       int64         `json:"db_bytes"`
	IndexBytes    int64         `json:"index_bytes"`
	EmbedderModel string        `json:"embedder"`
	Dimension     int           `json:"dimension"`

	// When generated: the bulk load acknowledged without vectors (async
	// embedding, the Write Guard off as for an import), the first recall
	// right after it, and the background embedding that followed.
	AckRate     float64       `json:"ack_per_s"`
	FirstRecall time.Duration `json:"first_recall"`
	EmbedRate   float64       `json:"embed_per_s"`

	// BulkSync and BulkAsync are bulk loads as a user posts them (POST
	// /v1/memories/batch into a fresh store, the Write Guard on), with
	// vectors made before each answer and after it.
	BulkSync  Bulk `json:"bulk_sync"`
	BulkAsync Bulk `json:"bulk_async"`

	Stages Stages `json:"stages"` // medians of the timed recalls
	// TailStages is the median of each stage over the slowest 5 % of the
	// timed recalls (those at or above p95): where the tail's time goes.
	TailStages Stages `json:"tail_stages"`

	// Recall (with its access record) quiet and beside a writer posting
	// WriteBatch memories every second into another agent of the store
	// (WriterScope; async embedding), in this run.
	QuietP50   time.Duration `json:"quiet_p50"`
	QuietP95   time.Duration `json:"quiet_p95"`
	WritesP50  time.Duration `json:"writes_p50"`
	WritesP95  time.Duration `json:"writes_p95"`
	WriteBatch int           `json:"write_batch"`
	// The median of each stage, quiet and beside the writer, over all the
	// recalls and over the slowest 5 % (the tail the p95 ratio is of).
	QuietStages  Stages `json:"quiet_stages"`
	WritesStages Stages `json:"writes_stages"`
	QuietTail    Stages `json:"quiet_tail_stages"`
	WritesTail   Stages `json:"writes_tail_stages"`
	WritesDone   int    `json:"writes_done"` // memories the writer wrote meanwhile

	// Store is "postgres" when measured there (Config.Postgres), else
	// empty; then PostgresLoad is the copy into it without its indexes,
	// PostgresIndex the full-text and HNSW build after it.
	Store         string        `json:"store,omitempty"`
	PostgresLoad  time.Duration `json:"postgres_load,omitempty"`
	PostgresIndex time.Duration `json:"postgres_index,omitempty"`
}

// Scope is the agent that holds the generated memories.
var Scope = mnemo.Scope{TenantID: "bench", AgentID: "scale"}

// WriterScope is the agent the writer of "recall beside writes" writes to:
// another agent of the same store (the same writer connection, index
// and CPU), so that the kept store's agent stays as generated.
var WriterScope = mnemo.Scope{TenantID: "bench", AgentID: "scale-writer"}

// vocabulary is how many of the embedder's most frequent words text is made
// of.
const vocabulary = 20000

// openStore opens the store at path with the built-in embedder.
func openStore(ctx context.Context, path string, emb mnemo.Embedder, efSearch int) (*service.Mnemo, *sqlite.DB, error) {
	// As mnemo serve opens it: the saved vector index loads as the store
	// opens (reopen + first recall).
	db, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL", SearchEffort: efSearch, PreloadVectors: true})
	if err != nil {
		return nil, nil, err
	}
	// Generated text is loaded as an import is: past the Write Guard.
	svc := service.New(db, service.Options{Embedder: emb, Guard: memory.GuardOptions{Off: true}})
	if err := svc.Init(ctx); err != nil {
		svc.Close()
		return nil, nil, err
	}
	return svc, db, nil
}

// Generate makes the store of n memories under dir with GloVe, unless an
// earlier run did, and returns its path, whether it was made now, and the
// write rate (memories/s, embedding included) if so.
func Generate(ctx context.Context, dir string, n int, log io.Writer) (path string, generated bool, rate float64, err error) {
	g, err := generate(ctx, Config{Dir: dir, N: n, Log: log, Embedder: EmbedderGloVe})
	return g.path, g.generated, g.rate, err
}

// generated is what generate did.
type generated struct {
	path      string
	generated bool
	rate      float64 // memories/s acknowledged (GloVe: embedded on write)
	first     time.Duration
	embedRate float64 // builtin: memories/s embedded in the background
}

// generate makes the store of cfg.N memories with cfg's embedder. GloVe
// embeds on write; the built-in embedder loads as a bulk load does in
// async mode: acknowledged first, embedded by the worker, then the first
// recall is timed at once and the run waits for every vector.
func generate(ctx context.Context, cfg Config) (generated, error) {
	emb, err := embedder(cfg.Embedder)
	if err != nil {
		return generated{}, err
	}
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		return generated{}, err
	}
	n, log := cfg.N, cfg.Log
	gen := newGenerator(words, 1)
	name := fmt.Sprintf("scale-v3-%d", n)
	async := cfg.Embedder != EmbedderGloVe
	if async {
		name = fmt.Sprintf("scale-v3-%s-%d", EmbedderBuiltin, n)
	}
	dir := filepath.Join(cfg.Dir, name)
	g := generated{path: filepath.Join(dir, "mnemo.db")}
	done := filepath.Join(dir, "generated")
	if _, err := os.Stat(done); err == nil {
		return g, nil
	}
	os.RemoveAll(dir)
	if log != nil {
		fmt.Fprintf(log, "generating %d memories in %s\n", n, dir)
	}
	svc, db, err := openStore(ctx, g.path, emb, 0)
	if err != nil {
		return g, err
	}
	start := time.Now()
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i += 1000 {
		drafts := make([]mnemo.Draft, min(1000, n-i))
		for j := range drafts {
			s := gen.sentence()
			at := created.Add(time.Duration(i+j) * 30 * time.Second)
			drafts[j] = mnemo.Draft{Content: &s, CreatedAt: &at, Tags: []string{gen.tag()}}
			vary(&drafts[j], i+j)
		}
		if _, err := svc.WriteWith(ctx, Scope, drafts, memory.WriteOptions{AsyncEmbedding: async}); err != nil {
			svc.Close()
			return g, err
		}
		if cfg.Progress != nil {
			cfg.Progress("load", i+len(drafts), n)
		}
		if log != nil && cfg.Progress == nil && (i/1000)%100 == 99 {
			fmt.Fprintf(log, "  %d written, %.0f/s\n", i+1000, float64(i+1000)/time.Since(start).Seconds())
		}
	}
	g.rate = float64(n) / time.Since(start).Seconds()
	if async {
		t0 := time.Now()
		if _, err := svc.Recall(ctx, Scope, memory.Query{Text: gen.query(), Limit: 10}); err != nil {
			svc.Close()
			return g, err
		}
		g.first = time.Since(t0)
		if log != nil {
			fmt.Fprintf(log, "acknowledged %d at %.0f/s; first recall %v; embedding in the background\n", n, g.rate, g.first.Round(time.Millisecond))
		}
		t0 = time.Now()
		if err := waitEmbedded(ctx, svc, db, n, cfg.Progress); err != nil {
			svc.Close()
			return g, err
		}
		g.embedRate = float64(n) / time.Since(t0).Seconds()
	}
	if err := svc.Close(); err != nil {
		return g, err
	}
	g.generated = true
	return g, os.WriteFile(done, nil, 0o644)
}

// waitEmbedded waits for the worker to embed every memory, telling
// progress how many have their vector.
func waitEmbedded(ctx context.Context, svc *service.Mnemo, db *sqlite.DB, n int, progress func(string, int, int)) error {
	if progress == nil {
		return svc.WaitEmbedded(ctx)
	}
	errc := make(chan error, 1)
	go func() { errc <- svc.WaitEmbedded(ctx) }()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case err := <-errc:
			if err == nil {
				progress("embed", n, n)
			}
			return err
		case <-t.C:
			if left, err := db.CountUnembedded(ctx); err == nil {
				progress("embed", n-left, n)
			}
		}
	}
}

// vary sets the filterable fields of memory i, so that every filter kind
// has something to select (BenchmarkFilteredRecall): 1 in 100 pinned,
// confidence spread over 0.01–1, 1 in 50 restricted and 1 in 10
// confidential, four types, 25 categories, 40 sessions, 1 in 10 keyed.
// Vitality starts at 1 for every memory, as on any write.
func vary(d *mnemo.Draft, i int) {
	d.Pinned = i%100 == 0
	c := float64(i%100+1) / 100
	d.Confidence = &c
	switch {
	case i%50 == 0:
		d.SecurityLevel = "restricted"
	case i%10 == 1:
		d.SecurityLevel = "confidential"
	}
	d.Type = []string{"fact", "event", "preference", "knowledge"}[i%4]
	d.Category = fmt.Sprintf("c%d", i%25)
	d.SessionID = fmt.Sprintf("s%d", i%40)
	if i%10 == 3 {
		d.Key = fmt.Sprintf("/doc/%d/%d", i%7, i)
	}
}

// Run generates the store if needed and measures it.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.N <= 0 {
		return Report{}, fmt.Errorf("scale: n must be positive")
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 500
	}
	if cfg.Exact <= 0 {
		cfg.Exact = 100
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	if cfg.WriteBatch == 0 {
		cfg.WriteBatch = 500
	}
	emb, err := embedder(cfg.Embedder)
	if err != nil {
		return Report{}, err
	}
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		return Report{}, err
	}
	gen := newGenerator(words, 1)
	rep := Report{N: cfg.N, EmbedderModel: emb.Model(), Dimension: emb.Dimension(), EfSearch: cfg.SearchEffort}
	var meter stageMeter
	meter.start()
	g, err := generate(ctx, cfg)
	if err != nil {
		return rep, err
	}
	if load, _ := meter.end(); g.generated {
		rep.LoadRSS = load
	}
	meter.start()
	path := g.path
	rep.Generated, rep.WriteRate = g.generated, g.rate
	rep.AckRate, rep.FirstRecall, rep.EmbedRate = g.rate, g.first, g.embedRate

	if err := bulkLoads(ctx, &cfg, emb, words, &rep, logf); err != nil {
		return rep, err
	}
	open := func() (*service.Mnemo, *sqlite.DB, error) {
		return openStore(ctx, path, emb, cfg.SearchEffort)
	}
	// The store searched: the SQLite file, or its copy in PostgreSQL.
	var (
		svc *service.Mnemo
		vs  mnemo.VectorStore
	)
	if cfg.Postgres != "" {
		rep.Store = "postgres"
		pgSvc, pg, closePG, err := openPostgres(ctx, cfg, path, emb, &rep)
		if err != nil {
			return rep, err
		}
		defer closePG()
		svc, vs = pgSvc, pg
		rep.BuildRSS, rep.IndexBuildCPU = meter.end()
		meter.start()
		logf("copied in %v, indexes built in %v", rep.PostgresLoad.Round(time.Millisecond), rep.PostgresIndex.Round(time.Millisecond))
	} else {
		s, db, err := openSQLite(ctx, cfg, path, open, gen, &rep, &meter)
		if err != nil {
			return rep, err
		}
		defer s.Close()
		svc, vs = s, db
	}

	qgen := newGenerator(words, 2)
	if err := steadyRecalls(ctx, cfg, svc, emb, words, qgen, &rep, logf); err != nil {
		return rep, err
	}

	if cfg.WriteBatch > 0 {
		if err := recallsBesideWrites(ctx, cfg, svc, words, qgen, &rep, logf); err != nil {
			return rep, err
		}
	}

	rep.ServingRSS, _ = meter.end()
	meter.start()

	if err := annRecall(ctx, cfg, emb, vs, path, qgen, &rep, logf); err != nil {
		return rep, err
	}

	meter.end()
	rep.PeakRSS = meter.overall
	rep.DBBytes = size(path) + size(path+"-wal")
	filepath.Walk(path+"-vectors", func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rep.IndexBytes += info.Size()
		}
		return nil
	})
	return rep, nil
}

// bulkLoads times bulk loads through HTTP, synchronous and asynchronous,
// in a process where nothing else runs yet: PERF-8's rates are what a
// user posting batches sees, in the default configuration (SQLite: not
// with Config.Postgres).
func bulkLoads(ctx context.Context, cfg *Config, emb mnemo.Embedder, words []string, rep *Report, logf func(string, ...any)) error {
	if cfg.Bulk == 0 {
		cfg.Bulk = 10_000
	}
	if cfg.Bulk > 0 && cfg.Postgres == "" {
		bgen := newGenerator(words, 21)
		for _, async := range []bool{false, true} {
			b, err := bulkHTTP(ctx, cfg.Dir, emb, bgen, cfg.Bulk, async, cfg.RequestTimeout, cfg.Progress)
			if err != nil {
				return err
			}
			if async {
				rep.BulkAsync = b
			} else {
				rep.BulkSync = b
			}
			logf("bulk load through HTTP (async %v): %.0f memories/s, %.0f per CPU-second", async, b.PerSecond, b.PerCPUSecond)
		}
	}
	return nil
}

// steadyRecalls times hybrid recall and the query embedding alone, in the
// steady state, in process and through HTTP, with the stages of the
// median and of the slowest 5 %.
func steadyRecalls(ctx context.Context, cfg Config, svc *service.Mnemo, emb mnemo.Embedder, words []string, qgen *generator, rep *Report, logf func(string, ...any)) error {
	// 4. Hybrid recall, and the query embedding alone, in the steady state:
	// the first queries after opening fill SQLite's page caches (reopen
	// above times the first one).
	warm := newGenerator(words, 4)
	for range 100 {
		if _, err := svc.Surface(ctx, Scope, memory.Query{Text: warm.query(), Limit: 10}); err != nil {
			return err
		}
	}
	recall := make([]time.Duration, cfg.Queries)
	embed := make([]time.Duration, cfg.Queries)
	var traces []*memory.Trace
	for i := range recall {
		q := qgen.query()
		t0 := time.Now()
		if _, err := emb.Embed(ctx, []string{q}); err != nil {
			return err
		}
		embed[i] = time.Since(t0)
		t0 = time.Now()
		res, err := svc.Recall(ctx, Scope, memory.Query{Text: q, Limit: 10, Trace: true})
		if err != nil {
			return err
		}
		recall[i] = time.Since(t0)
		traces = append(traces, res.Trace)
		if cfg.Progress != nil {
			cfg.Progress("recall", i+1, cfg.Queries)
		}
	}
	rep.RecallP50, rep.RecallP95 = percentile(recall, 0.5), percentile(recall, 0.95)
	rep.EmbedP50, rep.EmbedP95 = percentile(embed, 0.5), percentile(embed, 0.95)

	// 4a. The same through HTTP, as a client of `mnemo serve` recalls.
	logf("recall through HTTP")
	viaHTTP, err := timeHTTPRecalls(ctx, svc, newGenerator(words, 5), cfg.Queries, cfg.RequestTimeout, cfg.Progress)
	if err != nil {
		return err
	}
	rep.HTTPP50, rep.HTTPP95 = percentile(viaHTTP, 0.5), percentile(viaHTTP, 0.95)
	rep.Stages = medians(traces)
	rep.TailStages = medians(slowest(recall, traces, 0.95))

	return nil
}

// recallsBesideWrites times recall quiet, then beside a writer posting a
// batch every second, one after the other in this run (PERF-2: the
// access record and the index catch-up must not make recall wait on the
// writer).
func recallsBesideWrites(ctx context.Context, cfg Config, svc *service.Mnemo, words []string, qgen *generator, rep *Report, logf func(string, ...any)) error {
	logf("recall quiet, then beside a writer of %d memories a second", cfg.WriteBatch)
	rep.WriteBatch = cfg.WriteBatch
	// $MNEMO_SCALE_QUIET_PROFILE names a file for the CPU profile of the
	// process while recall runs quiet: where recall's CPU goes.
	stopQuiet := startProfile("MNEMO_SCALE_QUIET_PROFILE")
	quiet, qtr, err := timeRecalls(ctx, svc, qgen, cfg.Queries, cfg.Progress, "quiet")
	stopQuiet()
	if err != nil {
		return err
	}
	rep.QuietStages, rep.QuietTail = medians(qtr), medians(slowest(quiet, qtr, 0.95))
	rep.QuietP50, rep.QuietP95 = percentile(quiet, 0.5), percentile(quiet, 0.95)
	// The writer finishes the batch it is writing when the recalls end
	// (a batch cut short would count for nothing), so that the figure
	// always sits beside real writes, even where one batch outlasts the
	// recalls (a small run under the race detector).
	done := make(chan struct{})
	wgen := newGenerator(words, 9)
	written := make(chan int, 1)
	go func() {
		n, tick := 0, time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			drafts := make([]mnemo.Draft, cfg.WriteBatch)
			for j := range drafts {
				s := wgen.sentence()
				drafts[j] = mnemo.Draft{Content: &s}
			}
			if _, err := svc.WriteWith(ctx, WriterScope, drafts, memory.WriteOptions{AsyncEmbedding: true}); err == nil {
				n += len(drafts)
			}
			select {
			case <-done:
				written <- n
				return
			case <-tick.C:
			}
		}
	}()
	// $MNEMO_SCALE_BESIDE_PROFILE names a file for the CPU profile of
	// the process while recall runs beside the writer: where the
	// writer's CPU goes.
	stopProfile := startProfile("MNEMO_SCALE_BESIDE_PROFILE")
	busy, btr, err := timeRecalls(ctx, svc, qgen, cfg.Queries, cfg.Progress, "beside writes")
	stopProfile()
	close(done)
	rep.WritesDone = <-written
	if err != nil {
		return err
	}
	rep.WritesStages, rep.WritesTail = medians(btr), medians(slowest(busy, btr, 0.95))
	// The writer's memories go, queued ones included: the kept store
	// stays as generated, and no background embedding runs on.
	if _, err := svc.Clear(ctx, WriterScope); err != nil {
		return err
	}
	rep.WritesP50, rep.WritesP95 = percentile(busy, 0.5), percentile(busy, 0.95)
	return nil
}

// annRecall measures the ANN index's recall@10 against exact search over
// every stored vector.
func annRecall(ctx context.Context, cfg Config, emb mnemo.Embedder, vs mnemo.VectorStore, path string, qgen *generator, rep *Report, logf func(string, ...any)) error {
	logf("measuring ANN recall@10 on %d queries", cfg.Exact)
	queries := make([][]float32, cfg.Exact)
	for i := range queries {
		vs, err := emb.Embed(ctx, []string{qgen.query()})
		if err != nil {
			return err
		}
		queries[i] = vs[0]
	}
	exact, err := exactTop10(ctx, path, queries)
	if err != nil {
		return err
	}
	found, close := 0, 0
	for i, q := range queries {
		hits, err := vs.SearchVectors(ctx, Scope, mnemo.VectorQuery{Vector: q, Limit: 10})
		for _, h := range hits {
			if cos(q, h.Memory.Embedding) >= exact[i].tenth-0.001 {
				close++
			}
		}
		if err != nil {
			return err
		}
		for _, h := range hits {
			if slices.Contains(exact[i].ids, h.Memory.ID) {
				found++
			}
		}
	}
	rep.ANNRecall10 = float64(found) / float64(10*len(queries))
	rep.ANNRecall10Ties = float64(close) / float64(10*len(queries))
	return nil
}

// openSQLite builds (or loads) the ANN index of the store at path, saves
// it, and reopens the store, timing each; the build is a stage of meter
// (started by the caller), the reopen starts the next.
func openSQLite(ctx context.Context, cfg Config, path string, open func() (*service.Mnemo, *sqlite.DB, error), gen *generator, rep *Report, meter *stageMeter) (*service.Mnemo, *sqlite.DB, error) {
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	// 2. Build the index from the table, and save it.
	if !cfg.ReuseIndex {
		os.RemoveAll(path + "-vectors")
	}
	rep.IndexReused = cfg.ReuseIndex
	svc, db, err := open()
	if err != nil {
		return nil, nil, err
	}
	logf("building (or loading) the ANN index")
	start := time.Now()
	// The first search loads the index file, if any, and wakes the
	// indexer; IndexVectors waits for it to insert what the file lacks.
	if _, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query(), Profile: "semantic"}); err != nil {
		svc.Close()
		return nil, nil, err
	}
	if err := db.IndexVectors(ctx); err != nil {
		svc.Close()
		return nil, nil, err
	}
	rep.IndexBuild = time.Since(start)
	start = time.Now()
	if err := svc.Close(); err != nil {
		return nil, nil, err
	}
	rep.IndexSave = time.Since(start)
	rep.BuildRSS, rep.IndexBuildCPU = meter.end()
	meter.start()

	// 3. Reopen: open, load the index, answer.
	start = time.Now()
	svc, db, err = open()
	if err != nil {
		return nil, nil, err
	}
	if _, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query()}); err != nil {
		svc.Close()
		return nil, nil, err
	}
	rep.Reopen = time.Since(start)
	logf("reopened in %v", rep.Reopen)
	// Recall is timed with the in-memory full-text index, which is built
	// in the background after the reopen; FTS5 ranks until it is.
	for !db.LexicalIndex().Ready && time.Since(start) < 10*time.Minute && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	lex := db.LexicalIndex()
	rep.LexicalReady, rep.LexicalBytes = time.Since(start), lex.Bytes
	logf("in-memory full-text index ready %v after the reopen", rep.LexicalReady)

	return svc, db, nil
}

// timeRecalls times n recalls (limit 10, access recorded), and returns
// their times and traces.
func timeRecalls(ctx context.Context, svc *service.Mnemo, g *generator, n int, progress func(string, int, int), stage string) ([]time.Duration, []*memory.Trace, error) {
	out := make([]time.Duration, n)
	traces := make([]*memory.Trace, n)
	for i := range out {
		q := memory.Query{Text: g.query(), Limit: 10, Trace: true}
		t0 := time.Now()
		res, err := svc.Recall(ctx, Scope, q)
		if err != nil {
			return nil, nil, err
		}
		out[i], traces[i] = time.Since(t0), res.Trace
		if progress != nil {
			progress(stage, i+1, n)
		}
	}
	return out, traces, nil
}

// slowest returns the traces of the recalls that took at least the p
// percentile of d; traces[i] is recall i's.
func slowest(d []time.Duration, traces []*memory.Trace, p float64) []*memory.Trace {
	cut := percentile(d, p)
	var out []*memory.Trace
	for i, t := range traces {
		if d[i] >= cut {
			out = append(out, t)
		}
	}
	return out
}

// medians is the median of each stage over traces.
func medians(traces []*memory.Trace) Stages {
	med := func(f func(*memory.Trace) time.Duration) time.Duration {
		d := make([]time.Duration, 0, len(traces))
		for _, t := range traces {
			if t != nil {
				d = append(d, f(t))
			}
		}
		if len(d) == 0 {
			return 0
		}
		return percentile(d, 0.5)
	}
	return Stages{
		Analyse: med(func(t *memory.Trace) time.Duration { return t.Analyse }),
		Lexical: med(func(t *memory.Trace) time.Duration { return t.Lexical }),
		Embed:   med(func(t *memory.Trace) time.Duration { return t.Embed }),
		Vector:  med(func(t *memory.Trace) time.Duration { return t.Vector }),
		Find:    med(func(t *memory.Trace) time.Duration { return t.Find }),
		Fuse:    med(func(t *memory.Trace) time.Duration { return t.Fuse }),
		MMR:     med(func(t *memory.Trace) time.Duration { return t.MMR }),
		Access:  med(func(t *memory.Trace) time.Duration { return t.Access }),
		Total:   med(func(t *memory.Trace) time.Duration { return t.Total }),
	}
}

// WriteText prints r as a table.
func (r Report) WriteText(w io.Writer) {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) + " ms"
	}
	ef := "default"
	if r.EfSearch > 0 {
		ef = strconv.Itoa(r.EfSearch)
	}
	fmt.Fprintf(w, "scale: %d memories in one agent, embedder %s (%d d), efSearch %s\n\n", r.N, r.EmbedderModel, r.Dimension, ef)
	switch {
	case r.Generated && r.EmbedRate > 0:
		fmt.Fprintf(w, "generation, acknowledged     %.0f memories/s (in process, not HTTP: async embedding, guard off as for an import)\n", r.AckRate)
		fmt.Fprintf(w, "first recall after the load  %s\n", ms(r.FirstRecall))
		fmt.Fprintf(w, "background embedding         %.0f memories/s\n", r.EmbedRate)
	case r.Generated:
		fmt.Fprintf(w, "write (embedding included)   %.0f memories/s\n", r.WriteRate)
	}
	guard := func(b Bulk) string {
		if b.Guard {
			return "guard on"
		}
		return "guard off"
	}
	if b := r.BulkSync; b.Memories > 0 {
		fmt.Fprintf(w, "bulk load through HTTP, sync %.0f memories/s, %.0f per CPU-second (%d in batches of %d, embedded before each answer, %s)\n",
			b.PerSecond, b.PerCPUSecond, b.Memories, bulkBatch, guard(b))
	}
	if b := r.BulkAsync; b.Memories > 0 {
		fmt.Fprintf(w, "bulk load through HTTP, async %.0f memories/s acknowledged, %.0f per CPU-second (%d in batches of %d, async_embedding, %s); every vector made at %.0f/s\n",
			b.PerSecond, b.PerCPUSecond, b.Memories, bulkBatch, guard(b), b.Embedded)
	}
	if r.Store == "postgres" {
		fmt.Fprintf(w, "store                        postgres (the generated SQLite store copied into a temporary schema)\n")
		fmt.Fprintf(w, "copy, without its indexes    %.1f s\n", r.PostgresLoad.Seconds())
		fmt.Fprintf(w, "full-text + HNSW build       %.1f s\n", r.PostgresIndex.Seconds())
	} else if r.IndexReused {
		fmt.Fprintf(w, "ANN index load (reused)      %.1f s\n", r.IndexBuild.Seconds())
	} else {
		fmt.Fprintf(w, "ANN index build              %.1f s (build and save: %.1f CPU-s)\n", r.IndexBuild.Seconds(), r.IndexBuildCPU.Seconds())
		fmt.Fprintf(w, "ANN index save               %.1f s\n", r.IndexSave.Seconds())
	}
	if r.Store == "" {
		fmt.Fprintf(w, "reopen + first recall        %.2f s\n", r.Reopen.Seconds())
		fmt.Fprintf(w, "in-memory full-text index    built %.2f s after the reopen began, %.0f MB (%.0f bytes a memory)\n",
			r.LexicalReady.Seconds(), float64(r.LexicalBytes)/(1<<20), float64(r.LexicalBytes)/float64(max(r.N, 1)))
	}
	fmt.Fprintf(w, "hybrid recall p50 / p95      %s / %s\n", ms(r.RecallP50), ms(r.RecallP95))
	fmt.Fprintf(w, "  of which query embedding   %s / %s\n", ms(r.EmbedP50), ms(r.EmbedP95))
	if r.HTTPP50 > 0 {
		fmt.Fprintf(w, "recall through HTTP p50/p95  %s / %s\n", ms(r.HTTPP50), ms(r.HTTPP95))
	}
	stages := func(st Stages) string {
		return fmt.Sprintf("analyse %s, find %s (lexical %s beside embed %s + vector %s), fuse %s, MMR %s, access record %s; total %s",
			ms(st.Analyse), ms(st.Find), ms(st.Lexical), ms(st.Embed), ms(st.Vector), ms(st.Fuse), ms(st.MMR), ms(st.Access), ms(st.Total))
	}
	fmt.Fprintf(w, "stages (medians)             %s\n", stages(r.Stages))
	if r.TailStages.Total > 0 {
		fmt.Fprintf(w, "  of the slowest 5 %%         %s\n", stages(r.TailStages))
	}
	if r.WriteBatch > 0 {
		ratio := func(a, b time.Duration) float64 {
			if b <= 0 {
				return 0
			}
			return float64(a) / float64(b)
		}
		fmt.Fprintf(w, "recall quiet p50 / p95       %s / %s\n", ms(r.QuietP50), ms(r.QuietP95))
		fmt.Fprintf(w, "  stages (medians)           %s\n", stages(r.QuietStages))
		fmt.Fprintf(w, "  of the slowest 5 %%         %s\n", stages(r.QuietTail))
		fmt.Fprintf(w, "beside %d writes/s           %s / %s (p95 ×%.2f; %d memories written meanwhile)\n",
			r.WriteBatch, ms(r.WritesP50), ms(r.WritesP95), ratio(r.WritesP95, r.QuietP95), r.WritesDone)
		fmt.Fprintf(w, "  stages (medians)           %s\n", stages(r.WritesStages))
		fmt.Fprintf(w, "  of the slowest 5 %%         %s\n", stages(r.WritesTail))
	}
	fmt.Fprintf(w, "ANN recall@10 vs exact       %.3f (%.3f counting ties within 0.001)\n", r.ANNRecall10, r.ANNRecall10Ties)
	mb := func(b int64) string {
		if b <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
	}
	build := "ANN build"
	if r.IndexReused {
		build = "ANN load"
	}
	fmt.Fprintf(w, "peak RSS by stage            bulk load %s, %s %s, serving %s; whole run %s\n",
		mb(r.LoadRSS), build, mb(r.BuildRSS), mb(r.ServingRSS), mb(r.PeakRSS))
	if r.Store == "" {
		fmt.Fprintf(w, "database / index files       %.0f MB / %.0f MB\n", float64(r.DBBytes)/(1<<20), float64(r.IndexBytes)/(1<<20))
	}
}

// generator makes English-looking memories and queries from a frequency-
// ordered vocabulary, the same for the same seed. Memories are about
// topics, as real ones are: each topic has its own words (drawn from the
// whole vocabulary), and a memory mixes words of one topic with common
// words; a query is a few words of one topic. Text with no topics at all —
// every memory an independent bag of the same frequent words — is a worst
// case no real store looks like, and one where vector neighbourhoods carry
// little meaning (docs/BENCHMARKS.md has what the index does there).
type generator struct {
	words  []string
	topics [][]string
	common *rand.Zipf // over words: the function-word-like part of a sentence
	topic  *rand.Zipf // over topics: some are talked about far more than others
	rng    *rand.Rand
}

const (
	topicCount = 5000
	topicWords = 40
)

func newGenerator(words []string, seed uint64) *generator {
	// Topics are the same for every seed: queries are about the memories'
	// topics.
	trng := rand.New(rand.NewPCG(1, 17))
	topics := make([][]string, topicCount)
	for t := range topics {
		topics[t] = make([]string, topicWords)
		for i := range topics[t] {
			topics[t][i] = words[200+trng.IntN(len(words)-200)]
		}
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	return &generator{
		words: words, topics: topics, rng: rng,
		common: rand.NewZipf(rng, 1.07, 10, 199),
		topic:  rand.NewZipf(rng, 1.01, 50, topicCount-1),
	}
}

func (g *generator) sentence() string {
	t := g.topics[g.topic.Uint64()]
	n := 8 + g.rng.IntN(18)
	w := make([]string, n)
	for i := range w {
		if g.rng.IntN(5) < 3 {
			w[i] = t[g.rng.IntN(len(t))]
		} else {
			w[i] = g.words[g.common.Uint64()]
		}
	}
	return strings.Join(w, " ")
}

// query is 2–5 words of one topic, like a question's content words.
func (g *generator) query() string {
	t := g.topics[g.topic.Uint64()]
	n := 2 + g.rng.IntN(4)
	w := make([]string, n)
	for i := range w {
		w[i] = t[g.rng.IntN(len(t))]
	}
	return strings.Join(w, " ")
}

func (g *generator) tag() string { return g.words[200+g.rng.IntN(50)] }

// top10 is the exact answer to one query: the ids of the ten most similar
// vectors and the similarity of the tenth.
type top10 struct {
	ids   []string
	tenth float64
}

// exactTop10 returns, for each query, the 10 stored vectors of highest
// cosine similarity, reading every vector once.
func exactTop10(ctx context.Context, path string, queries [][]float32) ([]top10, error) {
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	type hit struct {
		id  string
		sim float64
	}
	top := make([][]hit, len(queries))
	qn := make([]float64, len(queries))
	for i, q := range queries {
		qn[i] = vector.Norm(q)
	}
	err = db.EachVectorIn(ctx, Scope, func(id string, v []float32) error {
		vn := vector.Norm(v)
		if vn == 0 {
			return nil
		}
		for i, q := range queries {
			s := vector.Dot64(q, v) / (qn[i] * vn)
			t := top[i]
			if len(t) < 10 || s > t[len(t)-1].sim {
				t = append(t, hit{id, s})
				sort.Slice(t, func(a, b int) bool { return t[a].sim > t[b].sim })
				if len(t) > 10 {
					t = t[:10]
				}
				top[i] = t
			}
		}
		return nil
	})
	out := make([]top10, len(queries))
	for i, t := range top {
		for _, h := range t {
			out[i].ids = append(out[i].ids, h.id)
			out[i].tenth = h.sim
		}
	}
	return out, err
}

func cos(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	if na, nb := vector.Norm(a), vector.Norm(b); na > 0 && nb > 0 {
		return vector.Dot64(a, b) / (na * nb)
	}
	return 0
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func size(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// startProfile starts the process's CPU profile into the file the
// environment variable env names, if it names one, and returns what stops
// it.
func startProfile(env string) (stop func()) {
	p := os.Getenv(env)
	if p == "" {
		return func() {}
	}
	f, err := os.Create(p)
	if err != nil {
		return func() {}
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
