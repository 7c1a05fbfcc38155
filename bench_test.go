package mnemo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// Benchmarks of the whole write and recall paths (analysis, validation,
// SQLite, ranking) at 10k and 100k memories in one agent. Run with
//
//	go test -run '^$' -bench . -benchtime 2000x .
//
// Per-operation latency percentiles are reported as p50-ms and p95-ms.

// corpus generates chat-like sentences from a Zipf-distributed vocabulary,
// the same for every run.
type corpus struct {
	words []string
	zipf  *rand.Zipf
	rng   *rand.Rand
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "lo", "mi", "ren", "ta", "vos", "pel", "dri", "su", "nor", "bex", "qui", "fa", "zen", "ho", "lut"}
	words := make([]string, 5000)
	for i := range words {
		var b strings.Builder
		for j := 0; j < 2+i%3; j++ {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		words[i] = b.String()
	}
	return &corpus{words: words, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1)), rng: rng}
}

func (c *corpus) sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = c.words[c.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// query picks 2–4 words of middling frequency, like a real question's
// content words.
func (c *corpus) query() string {
	n := 2 + c.rng.IntN(3)
	w := make([]string, n)
	for i := range w {
		w[i] = c.words[20+c.rng.IntN(2000)]
	}
	return strings.Join(w, " ")
}

var benchScope = mnemo.Scope{TenantID: "bench", AgentID: "agent"}

// keptStore returns the path of a store that fill filled once, kept in the
// temp dir as name for later runs.
var fixtureMu sync.Mutex

func keptStore(b *testing.B, name string, fill func(svc *service.Mnemo) error) string {
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	dir := filepath.Join(os.TempDir(), name)
	path := filepath.Join(dir, "mnemo.db")
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return path
	}
	os.RemoveAll(dir)
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	// Generated data is loaded as an import is: past the Write Guard.
	if err := fill(service.New(db, service.Options{Guard: memory.GuardOptions{Off: true}})); err != nil {
		b.Fatal(err)
	}
	db.Close()
	os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
	return path
}

// fixture returns the path of a store holding n generated memories in one
// agent, built once and kept in the temp dir for later runs.
func fixture(b *testing.B, n int) string {
	return keptStore(b, fmt.Sprintf("mnemo-bench-v2-%d", n), func(svc *service.Mnemo) error {
		c := newCorpus(1)
		start := time.Now().Add(-time.Duration(n) * time.Minute)
		for i := 0; i < n; i += 1000 {
			drafts := make([]mnemo.Draft, min(1000, n-i))
			for j := range drafts {
				s := c.sentence(8 + c.rng.IntN(20))
				at := start.Add(time.Duration(i+j) * time.Minute)
				drafts[j] = mnemo.Draft{Content: &s, CreatedAt: &at, Tags: []string{c.words[c.rng.IntN(50)]}}
			}
			if _, err := svc.RememberBatch(context.Background(), benchScope, drafts); err != nil {
				return err
			}
		}
		return nil
	})
}

// openCopy opens a private copy of a fixture, so benchmarks that write do
// not change it.
func openCopy(b *testing.B, path string, opts service.Options) (*service.Mnemo, *sqlite.DB) {
	dst := filepath.Join(b.TempDir(), "mnemo.db")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), dst, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return service.New(db, opts), db
}

// reportPercentiles adds p50-ms and p95-ms metrics.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(p float64) float64 { return float64(d[min(len(d)-1, int(p*float64(len(d))))]) / 1e6 }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
}

// BenchmarkRemember writes one memory at a time (synchronous=FULL, the
// default: each write is durable when acknowledged) into a 10k store,
// through the Write Guard; BenchmarkRememberNoGuard without it, so that the
// two in one run give the guard's cost.
func BenchmarkRemember(b *testing.B)        { benchmarkRemember(b, memory.GuardOptions{}) }
func BenchmarkRememberNoGuard(b *testing.B) { benchmarkRemember(b, memory.GuardOptions{Off: true}) }

func benchmarkRemember(b *testing.B, g memory.GuardOptions) {
	svc, _ := openCopy(b, fixture(b, 10_000), service.Options{Guard: g})
	c := newCorpus(2)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := c.sentence(15)
		t0 := time.Now()
		if _, err := svc.Remember(ctx, benchScope, mnemo.Draft{Content: &s, Tags: []string{"bench"}}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

// BenchmarkImport stores batches of 1,000 memories (as import does) and
// reports memories per second.
func BenchmarkImport(b *testing.B) {
	svc, _ := openCopy(b, fixture(b, 10_000), service.Options{Guard: memory.GuardOptions{Off: true}})
	c := newCorpus(3)
	ctx := context.Background()
	batches := make([][]mnemo.Draft, b.N)
	for i := range batches {
		batches[i] = make([]mnemo.Draft, 1000)
		for j := range batches[i] {
			s := c.sentence(15)
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
	b.ReportMetric(float64(b.N*1000)/time.Since(start).Seconds(), "memories/s")
}

func benchmarkRecall(b *testing.B, n int, surface bool) {
	svc, _ := openCopy(b, fixture(b, n), service.Options{})
	c := newCorpus(4)
	ctx := context.Background()
	find := svc.Recall
	if surface {
		find = svc.Surface
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := memory.Query{Text: c.query(), Limit: 10}
		t0 := time.Now()
		if _, err := find(ctx, benchScope, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

func BenchmarkRecall10k(b *testing.B)   { benchmarkRecall(b, 10_000, false) }
func BenchmarkRecall100k(b *testing.B)  { benchmarkRecall(b, 100_000, false) }
func BenchmarkSurface100k(b *testing.B) { benchmarkRecall(b, 100_000, true) }
