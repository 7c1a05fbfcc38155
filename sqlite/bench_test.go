package sqlite_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// Benchmarks measure one agent's store filled with synthetic chat-like
// memories: words drawn from a 5,000-word vocabulary with a Zipf
// distribution, from a fixed seed, so that every run sees the same data.
//
// The 100 most frequent words play the stopwords: about 45% of the words
// written, as a stopword list covers of English. The analyser drops them, so
// "analysed" fixtures index and query without them; "raw" ones keep them,
// to show what an unanalysed query costs.
//
//	go test -run '^$' -bench . -benchtime 2000x ./sqlite

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.remove()
	os.Exit(code)
}

// fixtures caches the benchmark databases for the life of the process: a
// benchmark runs several times as b.N grows, and building 100k memories
// takes seconds.
var fixtures = &fixtureCache{paths: map[fixture]string{}}

// fixture describes a benchmark database: n memories of benchScope, others
// of another agent, analysed or raw.
type fixture struct {
	n, others int
	raw       bool
}

type fixtureCache struct {
	mu    sync.Mutex
	dir   string
	paths map[fixture]string
}

// path returns the path of the database f, building it the first time.
func (c *fixtureCache) path(b *testing.B, f fixture) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.paths[f]; ok {
		return p
	}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "mnemo-bench-")
		if err != nil {
			b.Fatal(err)
		}
		c.dir = dir
	}
	p := filepath.Join(c.dir, fmt.Sprintf("%d-%d-%v.db", f.n, f.others, f.raw))
	db, err := sqlite.Open(context.Background(), p, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	fill := func(scope mnemo.Scope, n int, seed uint64) {
		gen := newCorpus(seed, f.raw)
		for i := 0; i < n; i += 1000 {
			if _, err := db.Write(context.Background(), scope, gen.records(min(1000, n-i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	fill(mnemo.Scope{TenantID: "bench-tenant", AgentID: "other-agent"}, f.others, 11)
	fill(benchScope, f.n, 1)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %+v in %v", f, time.Since(start).Round(time.Millisecond))
	c.paths[f] = p
	return p
}

// copy returns a private copy of the database f, for benchmarks that write.
func (c *fixtureCache) copy(b *testing.B, f fixture) string {
	src, err := os.Open(c.path(b, f))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	p := filepath.Join(b.TempDir(), "copy.db")
	dst, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

func (c *fixtureCache) remove() {
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

var benchScope = mnemo.Scope{TenantID: "bench-tenant", AgentID: "bench-agent"}

// stopwords is how many of the most frequent words are stopwords.
const stopwords = 100

// corpus generates memories and queries.
type corpus struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string // by frequency rank
	raw   bool     // index and query stopwords too
	n     int
	t     time.Time
}

func newCorpus(seed uint64, raw bool) *corpus {
	r := rand.New(rand.NewPCG(seed, 0x6d6e656d6f))
	c := &corpus{r: r, zipf: rand.NewZipf(r, 1.07, 2, 4999), raw: raw, t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	// Words of two to four syllables, a fixed vocabulary for any seed.
	syl := strings.Fields("ka lo mi nu pe ra si to vu we ya ze bo da fi gu he jo ki lu ma ne po qu re sa ti un ve xo")
	wr := rand.New(rand.NewPCG(42, 42))
	seen := map[string]bool{}
	for len(c.vocab) < 5000 {
		var w strings.Builder
		for range 2 + wr.IntN(3) {
			w.WriteString(syl[wr.IntN(len(syl))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			c.vocab = append(c.vocab, w.String())
		}
	}
	return c
}

// words returns lo to hi words of text, and the terms the index sees.
func (c *corpus) words(lo, hi int) (text, terms string) {
	var all, indexed []string
	for range lo + c.r.IntN(hi-lo+1) {
		rank := c.zipf.Uint64()
		all = append(all, c.vocab[rank])
		if c.raw || rank >= stopwords {
			indexed = append(indexed, c.vocab[rank])
		}
	}
	return strings.Join(all, " "), strings.Join(indexed, " ")
}

// records returns n new memories, one in five with a key, in sessions of 20.
func (c *corpus) records(n int) []mnemo.Record {
	recs := make([]mnemo.Record, n)
	for i := range recs {
		c.n++
		c.t = c.t.Add(time.Minute)
		text, terms := c.words(8, 30)
		_, context := c.words(5, 15)
		m := mnemo.Memory{
			Content:       text,
			SessionID:     fmt.Sprintf("session-%d", c.n/20),
			Type:          mnemo.TypeEvent,
			Priority:      2,
			Importance:    0.5,
			Confidence:    0.8,
			Tags:          []string{c.vocab[stopwords+c.r.IntN(50)]},
			SecurityLevel: mnemo.SecurityInternal,
			CreatedAt:     c.t,
			UpdatedAt:     c.t,
			Vitality:      1,
			Stability:     90,
			Version:       mnemo.FormatVersion,
		}
		if c.n%5 == 0 {
			m.Key = fmt.Sprintf("/chat/%s/%d", c.vocab[c.r.IntN(100)], c.n)
		}
		recs[i] = mnemo.Record{Memory: m, Index: mnemo.IndexText{
			Text:    terms,
			Context: context,
			Meta:    "event " + m.Tags[0],
		}}
	}
	return recs
}

// query returns a query of two to four terms, as the analyser leaves them.
func (c *corpus) query() mnemo.TextQuery {
	terms := make([]string, 2+c.r.IntN(3))
	for i := range terms {
		rank := c.zipf.Uint64()
		for !c.raw && rank < stopwords {
			rank = c.zipf.Uint64()
		}
		terms[i] = c.vocab[rank]
	}
	return mnemo.TextQuery{Terms: terms, Limit: 100}
}

// reportLatency reports the median and 95th percentile of durs.
func reportLatency(b *testing.B, durs []time.Duration) {
	if len(durs) == 0 {
		return
	}
	slices.Sort(durs)
	at := func(q float64) float64 {
		return float64(durs[int(q*float64(len(durs)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}

// BenchmarkWrite measures remember: one record, one transaction, in a store
// of 10k memories, with the default synchronous=FULL.
func BenchmarkWrite(b *testing.B) {
	db, err := sqlite.Open(b.Context(), fixtures.copy(b, fixture{n: 10_000}), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	gen := newCorpus(2, false)
	var durs []time.Duration
	for b.Loop() {
		rec := gen.records(1)
		start := time.Now()
		if _, err := db.Write(b.Context(), benchScope, rec); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	reportLatency(b, durs)
}

// BenchmarkWriteBatch1000 measures import: 1,000 records per transaction.
func BenchmarkWriteBatch1000(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	gen := newCorpus(3, false)
	var elapsed, cpu time.Duration
	for b.Loop() {
		recs := gen.records(1000)
		start, c0 := time.Now(), cpuTime()
		if _, err := db.Write(b.Context(), benchScope, recs); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - c0
	}
	b.ReportMetric(float64(1000*b.N)/elapsed.Seconds(), "memories/s")
	if cpu > 0 {
		// What a shared machine inflates least.
		b.ReportMetric(float64(1000*b.N)/cpu.Seconds(), "memories/cpu-s")
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

// BenchmarkSearch measures lexical candidates: 2 to 4 Zipf-drawn terms,
// OR-ed, 100 candidates, in one agent's memories; others=100000 adds another
// agent's 100k memories to the file, raw keeps the stopwords.
func BenchmarkSearch(b *testing.B) {
	for _, f := range []fixture{
		{n: 10_000},
		{n: 100_000},
		{n: 100_000, others: 100_000},
		{n: 100_000, raw: true},
	} {
		name := fmt.Sprintf("memories=%d", f.n)
		if f.others > 0 {
			name += fmt.Sprintf("/others=%d", f.others)
		}
		if f.raw {
			name += "/raw"
		}
		b.Run(name, func(b *testing.B) {
			db, err := sqlite.Open(b.Context(), fixtures.path(b, f), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			gen := newCorpus(4, f.raw)
			var durs []time.Duration
			for b.Loop() {
				q := gen.query()
				start := time.Now()
				res, err := db.Search(b.Context(), benchScope, q)
				if err != nil || res.Degraded {
					b.Fatalf("Search: %+v, %v", res, err)
				}
				durs = append(durs, time.Since(start))
			}
			reportLatency(b, durs)
		})
	}
}

// BenchmarkListTags measures a filtered page: one tag, newest first.
func BenchmarkListTags(b *testing.B) {
	db, err := sqlite.Open(b.Context(), fixtures.path(b, fixture{n: 100_000}), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	gen := newCorpus(5, false)
	var durs []time.Duration
	for b.Loop() {
		q := mnemo.ListQuery{Filter: mnemo.Filter{Tags: []string{gen.vocab[stopwords+gen.r.IntN(50)]}}, Limit: 20}
		start := time.Now()
		if _, _, err := db.List(b.Context(), benchScope, q); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	reportLatency(b, durs)
}

// BenchmarkWriteWhileSearching measures remember while two goroutines
// search 100k memories without pause: what the separate read pool is for. A
// single connection for both made writes wait behind searches.
func BenchmarkWriteWhileSearching(b *testing.B) {
	db, err := sqlite.Open(b.Context(), fixtures.copy(b, fixture{n: 100_000}), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			gen := newCorpus(uint64(60+i), false)
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := db.Search(context.Background(), benchScope, gen.query()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	gen := newCorpus(7, false)
	var durs []time.Duration
	for b.Loop() {
		recs := gen.records(1)
		start := time.Now()
		if _, err := db.Write(b.Context(), benchScope, recs); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	close(done)
	wg.Wait()
	reportLatency(b, durs)
}

// BenchmarkListLastTurn measures the read POST /v1/messages makes before
// each write: the newest turns of a session (eight, the most a message's
// context takes on a side), for agents taking turns; and one turn.
func BenchmarkListLastTurn(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "m.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const agents = 4
	scopes := make([]mnemo.Scope, agents)
	for a := range scopes {
		scopes[a] = mnemo.Scope{TenantID: "t", AgentID: fmt.Sprintf("agent-%d", a)}
		var recs []mnemo.Record
		for i := range 200 {
			rec := put("", "", fmt.Sprintf("turn %d of agent %d", i, a))
			rec.Memory.Type, rec.Memory.SessionID = mnemo.TypeEvent, "s1"
			recs = append(recs, rec)
		}
		if _, err := db.Write(b.Context(), scopes[a], recs); err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				ms, _, err := db.List(b.Context(), scopes[i%agents], mnemo.ListQuery{
					Filter: mnemo.Filter{SessionID: "s1", Types: []string{mnemo.TypeEvent}, IncludeArchived: true, IncludeExpired: true},
					Order:  mnemo.OrderNewest, Limit: n, NoTotal: true, NoVectors: true,
				})
				if err != nil || len(ms) != n {
					b.Fatalf("List: %d, %v", len(ms), err)
				}
				i++
			}
		})
	}
}
