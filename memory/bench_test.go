package memory_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// Benchmarks of the whole write and recall paths (analysis, validation,
// SQLite, ranking) at 10k and 100k memories in one agent. Run with
//
//	go test -run '^$' -bench . -benchtime 2000x ./memory
//
// Per-operation latency percentiles are reported as p50-ms and p95-ms.

// fixture returns the path of a store holding n generated memories in one
// agent, built once and kept in the temp dir for later runs.
func fixture(b *testing.B, n int) string {
	return keptStore(b, fmt.Sprintf("mnemo-bench-v2-%d", n), func(svc *service.Mnemo) error {
		c := newCorpus(1)
		start := time.Now().Add(-time.Duration(n) * time.Minute)
		for i := 0; i < n; i += 1000 {
			drafts := make([]mnemo.Draft, min(1000, n-i))
			for j := range drafts {
				s := c.Sentence(8 + c.Rng.IntN(20))
				at := start.Add(time.Duration(i+j) * time.Minute)
				drafts[j] = mnemo.Draft{Content: &s, CreatedAt: &at, Tags: []string{c.Words[c.Rng.IntN(50)]}}
			}
			if _, err := svc.RememberBatch(context.Background(), benchScope, drafts); err != nil {
				return err
			}
		}
		return nil
	})
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
		s := c.Sentence(15)
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
		q := memory.Query{Text: c.Query(), Limit: 10}
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

// BenchmarkRecallMatch measures what the match of an answer (API-17:
// analysing the results' and the best lexical candidates' words, the
// model) costs a recall of 10 results. Each iteration recalls with it on
// or off, alternately, so that both see the same machine;
// on-p95-ms minus off-p95-ms is its cost.
func BenchmarkRecallMatch10k(b *testing.B)  { benchmarkRecallMatch(b, 10_000) }
func BenchmarkRecallMatch100k(b *testing.B) { benchmarkRecallMatch(b, 100_000) }

func benchmarkRecallMatch(b *testing.B, n int) {
	svc, _ := openCopy(b, fixture(b, n), service.Options{})
	c := newCorpus(4)
	ctx := context.Background()
	var on, off []time.Duration
	for i := 0; i < b.N; i++ {
		q := memory.Query{Text: c.Query(), Limit: 10}
		match := i%2 == 0
		memory.SetMatch(svc.Memories, match)
		t0 := time.Now()
		if _, err := svc.Recall(ctx, benchScope, q); err != nil {
			b.Fatal(err)
		}
		if match {
			on = append(on, time.Since(t0))
		} else {
			off = append(off, time.Since(t0))
		}
	}
	memory.SetMatch(svc.Memories, true)
	slices.Sort(on)
	slices.Sort(off)
	if len(on) > 0 && len(off) > 0 {
		p := func(d []time.Duration, q float64) float64 {
			return float64(d[min(len(d)-1, int(q*float64(len(d))))]) / 1e6
		}
		b.ReportMetric(p(on, 0.5), "on-p50-ms")
		b.ReportMetric(p(off, 0.5), "off-p50-ms")
		b.ReportMetric(p(on, 0.95), "on-p95-ms")
		b.ReportMetric(p(off, 0.95), "off-p95-ms")
	}
}

// BenchmarkRecallTimeWho100k measures what recall's time and people stages
// (REC-25 … REC-29: parsing the query's time and names, the memories of
// the named window, a "when" question's second search, the time_match,
// when_dated and who factors) cost at 100k memories, for each kind of
// query: plain, naming a time, naming a person, asking when. Each
// iteration recalls with the stages on or off, alternately, so that both
// see the same machine; on-p95-ms minus off-p95-ms is their cost.
func BenchmarkRecallTimeWho100k(b *testing.B) {
	svc, _ := openCopy(b, fixture(b, 100_000), service.Options{})
	ctx := context.Background()
	for _, form := range []struct{ name, text string }{
		{"plain", "%s"},
		{"time", "%s last week"},
		{"person", "What did Ana say about %s?"},
		{"when", "When did we talk about %s?"},
	} {
		b.Run(form.name, func(b *testing.B) {
			c := newCorpus(4)
			var on, off []time.Duration
			for i := 0; i < b.N; i++ {
				q := memory.Query{Text: fmt.Sprintf(form.text, c.Query()), Limit: 10}
				timeWho := i%2 == 0
				memory.SetTimeWho(svc.Memories, timeWho)
				t0 := time.Now()
				if _, err := svc.Recall(ctx, benchScope, q); err != nil {
					b.Fatal(err)
				}
				if timeWho {
					on = append(on, time.Since(t0))
				} else {
					off = append(off, time.Since(t0))
				}
			}
			b.StopTimer()
			for _, x := range []struct {
				name string
				d    []time.Duration
			}{{"on", on}, {"off", off}} {
				if len(x.d) == 0 {
					continue
				}
				slices.Sort(x.d)
				ms := func(p float64) float64 { return float64(x.d[min(len(x.d)-1, int(p*float64(len(x.d))))]) / 1e6 }
				b.ReportMetric(ms(0.50), x.name+"-p50-ms")
				b.ReportMetric(ms(0.95), x.name+"-p95-ms")
			}
		})
	}
	memory.SetTimeWho(svc.Memories, true)
}
