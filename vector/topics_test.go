package vector

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// topicData returns n memory vectors and nq query vectors of dim shaped as
// bench/scale's generated memories are under a bag-of-words embedder: 5,000
// topics of 40 words each, drawn Zipf-wise (s 1.01, as bench/scale does),
// so a few topics hold thousands of memories; a memory sums 8-25 word
// vectors, three in five from its topic and the rest from 200 common words
// (Zipf too), weighted down as SIF weights frequent words; a query sums 2-5
// words of one topic, so it lies near its topic's memories but on none of
// them. Memories of a popular topic are many near-equal vectors, which is
// what makes the true ten hard to find (sqlite/ann.go). The same arguments
// always give the same vectors; the first n memories of a larger call are
// the memories of a smaller one.
func topicData(n, nq, dim int, seed uint64) (data, qs [][]float32) {
	const (
		vocab      = 20_000
		common     = 200
		topicCount = 5000
		topicWords = 40
	)
	rng := rand.New(rand.NewPCG(seed, 21))
	words := make([]float32, vocab*dim)
	for i := range words {
		words[i] = float32(rng.NormFloat64())
	}
	word := func(w int) []float32 { return words[w*dim : (w+1)*dim] }
	topics := make([][]int, topicCount)
	for t := range topics {
		topics[t] = make([]int, topicWords)
		for i := range topics[t] {
			topics[t][i] = common + rng.IntN(vocab-common)
		}
	}
	add := func(v, w []float32, f float32) {
		for i := range v {
			v[i] += f * w[i]
		}
	}
	gen := func(count int, stream uint64, query bool) [][]float32 {
		r := rand.New(rand.NewPCG(seed, stream))
		topic := rand.NewZipf(r, 1.01, 50, topicCount-1)
		commonZ := rand.NewZipf(r, 1.07, 10, common-1)
		flat := make([]float32, count*dim)
		out := make([][]float32, count)
		for j := range out {
			v := flat[j*dim : (j+1)*dim : (j+1)*dim]
			t := topics[topic.Uint64()]
			if query {
				for range 2 + r.IntN(4) {
					add(v, word(t[r.IntN(len(t))]), 1)
				}
			} else {
				for range 8 + r.IntN(18) {
					if r.IntN(5) < 3 {
						add(v, word(t[r.IntN(len(t))]), 1)
					} else {
						add(v, word(int(commonZ.Uint64())), 0.4)
					}
				}
			}
			out[j] = v
		}
		return out
	}
	return gen(n, 22, false), gen(nq, 23, true)
}

// BenchmarkTopics measures graph search over topicData at the SQLite
// store's options (M 32, efConstruction 200) for a range of efSearch
// values: recall@10 against a float64 exact search over the original
// vectors, latency percentiles and the CPU time a search takes, one search
// at a time. The index and its ground truth are cached under os.TempDir().
// MNEMO_BENCH_TOPICS_N (default 100000), MNEMO_BENCH_TOPICS_DIM (612) and
// MNEMO_BENCH_EF (a comma-separated list) change the run.
//
//	go test -run '^$' -bench Topics -benchtime 2000x -cpu 1 ./vector
func BenchmarkTopics(b *testing.B) {
	n, dim := 100_000, 612
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_TOPICS_N")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_TOPICS_DIM")); err == nil && v > 0 {
		dim = v
	}
	efs := []int{64, 128, 256, 512, 1024}
	if s := os.Getenv("MNEMO_BENCH_EF"); s != "" {
		efs = efs[:0]
		for f := range strings.SplitSeq(s, ",") {
			ef, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			efs = append(efs, ef)
		}
	}
	const nq, k = 300, 10
	opts := Options{M: 32, EfConstruction: 200, Seed: benchSeed, ExactBelow: 1}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mnemo-vector-topics-v%d-n%d-d%d-m%d-efc%d-seed%d",
		version, n, dim, opts.M, opts.EfConstruction, benchSeed))
	x, qs, truth := topicIndex(b, path, n, dim, nq, k, opts)
	for _, ef := range efs {
		b.Run(fmt.Sprintf("n=%d/ef=%d", n, ef), func(b *testing.B) {
			x.SetEfSearch(ef)
			var r float64
			for i, q := range qs {
				r += recall(x.Search(q, k, nil), truth[i])
			}
			lat := make([]time.Duration, 0, 1<<14)
			i := 0
			c0 := cpuTime()
			for b.Loop() {
				start := time.Now()
				x.Search(qs[i%nq], k, nil)
				lat = append(lat, time.Since(start))
				i++
			}
			cpu := cpuTime() - c0
			b.ReportMetric(r/nq, "recall@10")
			b.ReportMetric(pct(lat, 50), "p50-ms")
			b.ReportMetric(pct(lat, 95), "p95-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// topicIndex loads the index at path and the queries and ground truth for
// it, building and caching them first if needed.
func topicIndex(b *testing.B, path string, n, dim, nq, k int, opts Options) (*Index, [][]float32, [][]uint64) {
	_, qs := topicData(0, nq, dim, benchSeed)
	truth, _, err := readTruth(path+".truth", nq, k)
	if err != nil {
		data, _ := topicData(n, 0, dim, benchSeed)
		start := time.Now()
		x := New(dim, opts)
		ids := make([]uint64, n)
		for i := range ids {
			ids[i] = uint64(i)
		}
		const batch = 10_000
		for i := 0; i < n; i += batch {
			j := min(n, i+batch)
			if err := x.AddBatch(ids[i:j], data[i:j]); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("built %d×%d in %v", n, dim, time.Since(start).Round(time.Second))
		if err := writeFile(path+".idx", x.WriteTo); err != nil {
			b.Fatal(err)
		}
		truth = make([][]uint64, nq)
		var wg sync.WaitGroup
		var next atomic.Int64
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < nq; i = int(next.Add(1)) - 1 {
					truth[i] = bruteForce(data, qs[i], k)
				}
			})
		}
		wg.Wait()
		err = writeFile(path+".truth", func(w io.Writer) (int64, error) {
			out := binary.LittleEndian.AppendUint64(nil, 0)
			for _, t := range truth {
				for _, id := range t {
					out = binary.LittleEndian.AppendUint64(out, id)
				}
			}
			m, err := w.Write(out)
			return int64(m), err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	f, err := os.Open(path + ".idx")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	x, err := Read(f)
	if err != nil {
		b.Fatal(err)
	}
	return x, qs, truth
}

// TestTopicData checks the generator's shape on a small sample: memories
// of one topic are far more alike than memories of two.
func TestTopicData(t *testing.T) {
	data, qs := topicData(2000, 50, 64, 1)
	small, _ := topicData(100, 0, 64, 1)
	for i := range small {
		for j := range small[i] {
			if small[i][j] != data[i][j] {
				t.Fatalf("memory %d differs between sizes", i)
			}
		}
	}
	if len(qs) != 50 {
		t.Fatalf("%d queries", len(qs))
	}
	var best float64
	for _, v := range data[1:] {
		var dot float64
		for i := range v {
			dot += float64(v[i]) * float64(data[0][i])
		}
		best = max(best, dot/(norm(v)*norm(data[0])))
	}
	if best < 0.3 || math.IsNaN(best) {
		t.Errorf("nearest neighbour of memory 0 at cosine %.2f; want topical neighbours", best)
	}
}
