// Package scale measures mnemo at scale: it generates a store of N memories
// in one agent (English sentences from the built-in embedder's vocabulary,
// embedded on write), then measures what a user of a large store waits for:
// building and saving the ANN index, reopening the store, hybrid recall
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
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
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
	Log          io.Writer // progress; nil for none
}

// Report is what was measured. Durations are wall-clock on this machine.
type Report struct {
	N           int           `json:"n"`
	Generated   bool          `json:"generated"`     // the store was written in this run
	IndexReused bool          `json:"index_reused"`  // IndexBuild is a load of an earlier run's index
	EfSearch    int           `json:"ef_search"`     // the ANN search effort; 0 = the store's default
	WriteRate   float64       `json:"write_per_s"`   // memories/s, embedding included, when generated
	IndexBuild  time.Duration `json:"index_build"`   // ANN index built from the table
	IndexSave   time.Duration `json:"index_save"`    // written to its file
	Reopen      time.Duration `json:"reopen"`        // open + load the index file + first recall
	RecallP50   time.Duration `json:"recall_p50"`    // hybrid recall (surface), embedding included
	RecallP95   time.Duration `json:"recall_p95"`    //
	EmbedP50    time.Duration `json:"embed_p50"`     // the query embedding alone
	EmbedP95    time.Duration `json:"embed_p95"`     //
	ANNRecall10 float64       `json:"ann_recall_10"` // vector search vs exact top 10
	// ANNRecall10Ties counts a result as found when its exact similarity
	// is within 0.001 of the exact tenth's: on a topic, many memories tie.
	ANNRecall10Ties float64 `json:"ann_recall_10_ties"`
	PeakRSS         int64   `json:"peak_rss_bytes"` // VmHWM of this process, at the end
	// ServingRSS is the peak before the exact-search baseline: what
	// opening the store, loading the index and answering recalls took
	// (plus generating and building, when this run did those).
	ServingRSS    int64  `json:"serving_rss_bytes"`
	DBBytes       int64  `json:"db_bytes"`
	IndexBytes    int64  `json:"index_bytes"`
	EmbedderModel string `json:"embedder"`
}

// Scope is the agent that holds the generated memories.
var Scope = mnemo.Scope{TenantID: "bench", AgentID: "scale"}

// vocabulary is how many of the embedder's most frequent words text is made
// of.
const vocabulary = 20000

// openStore opens the store at path with the built-in embedder.
func openStore(ctx context.Context, path string, emb mnemo.Embedder, efSearch int) (*service.Mnemo, *sqlite.DB, error) {
	db, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL", SearchEffort: efSearch})
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

// Generate makes the store of n memories under dir, unless an earlier run
// did, and returns its path, whether it was made now, and the write rate
// (memories/s, embedding included) if so.
func Generate(ctx context.Context, dir string, n int, log io.Writer) (path string, generated bool, rate float64, err error) {
	emb := glove.New()
	words, err := emb.Words(vocabulary)
	if err != nil {
		return "", false, 0, err
	}
	gen := newGenerator(words, 1)
	dir = filepath.Join(dir, fmt.Sprintf("scale-v3-%d", n))
	path = filepath.Join(dir, "mnemo.db")
	done := filepath.Join(dir, "generated")
	if _, err := os.Stat(done); err == nil {
		return path, false, 0, nil
	}
	os.RemoveAll(dir)
	if log != nil {
		fmt.Fprintf(log, "generating %d memories in %s\n", n, dir)
	}
	svc, _, err := openStore(ctx, path, emb, 0)
	if err != nil {
		return "", false, 0, err
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
		if _, err := svc.RememberBatch(ctx, Scope, drafts); err != nil {
			svc.Close()
			return "", false, 0, err
		}
		if log != nil && (i/1000)%100 == 99 {
			fmt.Fprintf(log, "  %d written, %.0f/s\n", i+1000, float64(i+1000)/time.Since(start).Seconds())
		}
	}
	rate = float64(n) / time.Since(start).Seconds()
	if err := svc.Close(); err != nil {
		return "", false, 0, err
	}
	return path, true, rate, os.WriteFile(done, nil, 0o644)
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
	emb := glove.New()
	words, err := emb.Words(vocabulary)
	if err != nil {
		return Report{}, err
	}
	gen := newGenerator(words, 1)
	rep := Report{N: cfg.N, EmbedderModel: emb.Model(), EfSearch: cfg.SearchEffort}
	path, generated, rate, err := Generate(ctx, cfg.Dir, cfg.N, cfg.Log)
	if err != nil {
		return rep, err
	}
	rep.Generated, rep.WriteRate = generated, rate
	open := func() (*service.Mnemo, *sqlite.DB, error) {
		return openStore(ctx, path, emb, cfg.SearchEffort)
	}

	// 2. Build the index from the table, and save it.
	if !cfg.ReuseIndex {
		os.RemoveAll(path + "-vectors")
	}
	rep.IndexReused = cfg.ReuseIndex
	svc, db, err := open()
	if err != nil {
		return rep, err
	}
	logf("building (or loading) the ANN index")
	start := time.Now()
	// The first search loads the index file, if any, and wakes the
	// indexer; IndexVectors waits for it to insert what the file lacks.
	if _, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query(), Profile: "semantic"}); err != nil {
		svc.Close()
		return rep, err
	}
	if err := db.IndexVectors(ctx); err != nil {
		svc.Close()
		return rep, err
	}
	rep.IndexBuild = time.Since(start)
	start = time.Now()
	if err := svc.Close(); err != nil {
		return rep, err
	}
	rep.IndexSave = time.Since(start)

	// 3. Reopen: open, load the index, answer.
	start = time.Now()
	svc, db, err = open()
	if err != nil {
		return rep, err
	}
	defer svc.Close()
	if _, err := svc.Surface(ctx, Scope, memory.Query{Text: gen.query()}); err != nil {
		return rep, err
	}
	rep.Reopen = time.Since(start)
	logf("reopened in %v", rep.Reopen)

	// 4. Hybrid recall, and the query embedding alone, in the steady state:
	// the first queries after opening fill SQLite's page caches (reopen
	// above times the first one).
	warm := newGenerator(words, 4)
	for range 100 {
		if _, err := svc.Surface(ctx, Scope, memory.Query{Text: warm.query(), Limit: 10}); err != nil {
			return rep, err
		}
	}
	qgen := newGenerator(words, 2)
	recall := make([]time.Duration, cfg.Queries)
	embed := make([]time.Duration, cfg.Queries)
	for i := range recall {
		q := qgen.query()
		t0 := time.Now()
		if _, err := emb.Embed(ctx, []string{q}); err != nil {
			return rep, err
		}
		embed[i] = time.Since(t0)
		t0 = time.Now()
		if _, err := svc.Surface(ctx, Scope, memory.Query{Text: q, Limit: 10}); err != nil {
			return rep, err
		}
		recall[i] = time.Since(t0)
	}
	rep.RecallP50, rep.RecallP95 = percentile(recall, 0.5), percentile(recall, 0.95)
	rep.EmbedP50, rep.EmbedP95 = percentile(embed, 0.5), percentile(embed, 0.95)

	rep.ServingRSS = peakRSS()

	// 5. ANN recall@10 against exact search over every stored vector.
	logf("measuring ANN recall@10 on %d queries", cfg.Exact)
	queries := make([][]float32, cfg.Exact)
	for i := range queries {
		vs, err := emb.Embed(ctx, []string{qgen.query()})
		if err != nil {
			return rep, err
		}
		queries[i] = vs[0]
	}
	exact, err := exactTop10(ctx, path, queries)
	if err != nil {
		return rep, err
	}
	found, close := 0, 0
	for i, q := range queries {
		hits, err := db.SearchVectors(ctx, Scope, mnemo.VectorQuery{Vector: q, Limit: 10})
		for _, h := range hits {
			if cos(q, h.Memory.Embedding) >= exact[i].tenth-0.001 {
				close++
			}
		}
		if err != nil {
			return rep, err
		}
		for _, h := range hits {
			if slices.Contains(exact[i].ids, h.Memory.ID) {
				found++
			}
		}
	}
	rep.ANNRecall10 = float64(found) / float64(10*len(queries))
	rep.ANNRecall10Ties = float64(close) / float64(10*len(queries))

	rep.PeakRSS = peakRSS()
	rep.DBBytes = size(path) + size(path+"-wal")
	filepath.Walk(path+"-vectors", func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rep.IndexBytes += info.Size()
		}
		return nil
	})
	return rep, nil
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
	fmt.Fprintf(w, "scale: %d memories in one agent, embedder %s, efSearch %s\n\n", r.N, r.EmbedderModel, ef)
	if r.Generated {
		fmt.Fprintf(w, "write (embedding included)   %.0f memories/s\n", r.WriteRate)
	}
	if r.IndexReused {
		fmt.Fprintf(w, "ANN index load (reused)      %.1f s\n", r.IndexBuild.Seconds())
	} else {
		fmt.Fprintf(w, "ANN index build              %.1f s\n", r.IndexBuild.Seconds())
		fmt.Fprintf(w, "ANN index save               %.1f s\n", r.IndexSave.Seconds())
	}
	fmt.Fprintf(w, "reopen + first recall        %.2f s\n", r.Reopen.Seconds())
	fmt.Fprintf(w, "hybrid recall p50 / p95      %s / %s\n", ms(r.RecallP50), ms(r.RecallP95))
	fmt.Fprintf(w, "  of which query embedding   %s / %s\n", ms(r.EmbedP50), ms(r.EmbedP95))
	fmt.Fprintf(w, "ANN recall@10 vs exact       %.3f (%.3f counting ties within 0.001)\n", r.ANNRecall10, r.ANNRecall10Ties)
	fmt.Fprintf(w, "peak RSS serving / overall   %.0f MB / %.0f MB\n", float64(r.ServingRSS)/(1<<20), float64(r.PeakRSS)/(1<<20))
	fmt.Fprintf(w, "database / index files       %.0f MB / %.0f MB\n", float64(r.DBBytes)/(1<<20), float64(r.IndexBytes)/(1<<20))
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
		qn[i] = norm(q)
	}
	err = db.EachVector(ctx, func(id string, v []float32) error {
		vn := norm(v)
		if vn == 0 {
			return nil
		}
		for i, q := range queries {
			var dot float64
			for k := range q {
				dot += float64(q[k]) * float64(v[k])
			}
			s := dot / (qn[i] * vn)
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
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	if na, nb := norm(a), norm(b); na > 0 && nb > 0 {
		return d / (na * nb)
	}
	return 0
}

func norm(v []float32) float64 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
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

// peakRSS is the process's peak resident set (VmHWM), 0 where /proc has no
// such line.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
