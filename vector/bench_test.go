package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Benchmarks run on dataset's clustered vectors. Indexes of 100k vectors
// and more, and their ground truth, are cached under os.TempDir() keyed by
// size, dimension, options and format version, so reruns only load them.
// Set MNEMO_BENCH_1M=1 to include 1M vectors (the first build takes
// minutes).
//
//	go test -run '^$' -bench 'Search/n=100k' -benchtime 2000x ./vector
//	MNEMO_BENCH_1M=1 go test -run '^$' -bench 'Search/n=1M/dim=100' -benchtime 2000x -timeout 60m ./vector

const benchSeed = 42

var benchSizes = []struct {
	name string
	n    int
}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}

func BenchmarkBuild(b *testing.B) {
	for _, dim := range []int{100, 384} {
		b.Run(fmt.Sprintf("n=10k/dim=%d", dim), func(b *testing.B) {
			data := dataset(10_000, dim, benchSeed)
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				build(b, data, Options{Seed: benchSeed})
				total += time.Since(start)
			}
			b.ReportMetric(float64(len(data)*b.N)/total.Seconds(), "vectors/s")
		})
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, sz := range benchSizes {
		for _, dim := range []int{100, 384} {
			b.Run(fmt.Sprintf("n=%s/dim=%d", sz.name, dim), func(b *testing.B) {
				if sz.n >= 1_000_000 && os.Getenv("MNEMO_BENCH_1M") == "" {
					b.Skip("set MNEMO_BENCH_1M=1 to run")
				}
				benchSearch(b, sz.n, dim)
			})
		}
	}
}

// benchSearch reports, for graph search over n vectors of dim:
// recall@10 against a float64 exact search over the original vectors,
// recall@10 of an exact scan over the quantised vectors (the quantisation
// ceiling), latency percentiles of graph, filtered and exact search, the
// build rate, the index's heap per vector and the time to load it.
//
// MNEMO_BENCH_SPREAD overrides the clusters' spread (default 0.6; larger
// is harder: neighbours are farther and less distinct).
func benchSearch(b *testing.B, n, dim int) {
	if v, err := strconv.ParseFloat(os.Getenv("MNEMO_BENCH_SPREAD"), 64); err == nil {
		defer func(old float64) { spread = old }(spread)
		spread = v
	}
	opts := Options{Seed: benchSeed, ExactBelow: 1}
	const nq, k = 200, 10
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mnemo-vector-v%d-n%d-d%d-m%d-efc%d-seed%d-spread%g",
		version, n, dim, New(1, opts).opts.M, New(1, opts).opts.EfConstruction, benchSeed, spread))
	qs := queries(nq, n, dim, benchSeed)
	truth, buildRate := cached(b, path, n, dim, opts, qs, k)

	// Load, measuring time and retained heap.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f, err := os.Open(path + ".idx")
	if err != nil {
		b.Fatal(err)
	}
	x, err := Read(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	load := time.Since(start)
	x.SetEfSearch(0) // the default of this build, whatever the file says
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)

	var graphRecall, exactRecall, coarseRecall float64
	exactQ := min(nq, max(20, 20_000_000/n)) // exact scans are slow at 1M
	var exactLat []time.Duration
	for i, q := range qs {
		graphRecall += recall(x.Search(q, k, nil), truth[i])
		if i < exactQ {
			start := time.Now()
			r := x.exact(x.normalized(q), k, nil)
			exactLat = append(exactLat, time.Since(start))
			exactRecall += recall(r, truth[i])
			coarseRecall += recall(coarseExact(x, q, k), truth[i])
		}
	}
	tenth := func(id uint64) bool { return id%10 == 3 }
	var filterLat []time.Duration
	for _, q := range qs {
		start := time.Now()
		x.Search(q, k, tenth)
		filterLat = append(filterLat, time.Since(start))
	}

	lat := make([]time.Duration, 0, 1<<16)
	i := 0
	for b.Loop() {
		start := time.Now()
		x.Search(qs[i%nq], k, nil)
		lat = append(lat, time.Since(start))
		i++
	}
	b.ReportMetric(graphRecall/nq, "recall@10")
	b.ReportMetric(exactRecall/float64(exactQ), "recall@10-exact-quantised")
	b.ReportMetric(coarseRecall/float64(exactQ), "recall@10-exact-int8-only")
	b.ReportMetric(pct(lat, 50), "p50-ms")
	b.ReportMetric(pct(lat, 95), "p95-ms")
	b.ReportMetric(pct(filterLat, 95), "p95-filter10%-ms")
	b.ReportMetric(pct(exactLat, 50), "exact-p50-ms")
	b.ReportMetric(buildRate, "build-vectors/s")
	b.ReportMetric(heap/float64(n), "heap-bytes/vector")
	b.ReportMetric(heap/(1<<20), "heap-MB")
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
	debug.FreeOSMemory()
	if rss := rssMB(); rss > 0 {
		b.ReportMetric(rss, "process-rss-MB")
	}
	runtime.KeepAlive(x)
}

// rssMB returns the resident set size of the process on Linux, else 0.
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[(len(d)-1)*p/100].Microseconds()) / 1000
}

// cached returns the ground truth for qs and the build rate of the index at
// path, building and writing both first if needed.
func cached(b *testing.B, path string, n, dim int, opts Options, qs [][]float32, k int) ([][]uint64, float64) {
	truth, rate, err := readTruth(path+".truth", len(qs), k)
	if err == nil {
		if _, err = os.Stat(path + ".idx"); err == nil {
			return truth, rate
		}
	}
	data := dataset(n, dim, benchSeed)
	start := time.Now()
	x := New(dim, opts)
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	const batch = 50_000
	for i := 0; i < n; i += batch {
		j := min(n, i+batch)
		if err := x.AddBatch(ids[i:j], data[i:j]); err != nil {
			b.Fatal(err)
		}
		if n >= 1_000_000 {
			b.Logf("built %d in %v", j, time.Since(start).Round(time.Second))
		}
	}
	rate = float64(n) / time.Since(start).Seconds()
	if err := writeFile(path+".idx", x.WriteTo); err != nil {
		b.Fatal(err)
	}
	x = nil
	truth = make([][]uint64, len(qs))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(qs); i += workers {
				truth[i] = bruteForce(data, qs[i], k)
			}
		})
	}
	wg.Wait()
	err = writeFile(path+".truth", func(w io.Writer) (int64, error) {
		out := binary.LittleEndian.AppendUint64(nil, uint64(rate))
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
	return truth, rate
}

func readTruth(path string, nq, k int) ([][]uint64, float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if len(b) != 8*(1+nq*k) {
		return nil, 0, fmt.Errorf("%s: bad size", path)
	}
	rate := float64(binary.LittleEndian.Uint64(b))
	truth := make([][]uint64, nq)
	for i := range truth {
		for j := range k {
			truth[i] = append(truth[i], binary.LittleEndian.Uint64(b[8*(1+i*k+j):]))
		}
	}
	return truth, rate, nil
}

// writeFile writes atomically through a temporary file.
func writeFile(path string, write func(io.Writer) (int64, error)) error {
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// BenchmarkDelete deletes every tenth of 100k vectors, which runs three
// vacuums, and reports the delete rate and the recall@10 afterwards against
// an exact search over the remaining vectors.
func BenchmarkDelete(b *testing.B) {
	const n, dim, k = 100_000, 100, 10
	opts := Options{Seed: benchSeed, ExactBelow: 1}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mnemo-vector-v%d-n%d-d%d-m%d-efc%d-seed%d-spread%g",
		version, n, dim, New(1, opts).opts.M, New(1, opts).opts.EfConstruction, benchSeed, spread))
	qs := queries(200, n, dim, benchSeed)
	cached(b, path, n, dim, opts, qs, k)
	qs = qs[:100]
	data := dataset(n, dim, benchSeed)
	for b.Loop() {
		b.StopTimer()
		f, err := os.Open(path + ".idx")
		if err != nil {
			b.Fatal(err)
		}
		x, err := Read(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		for i := 0; i < n; i += 10 {
			x.Delete(uint64(i))
		}
		b.ReportMetric(float64(n/10)/time.Since(start).Seconds(), "deletes/s")
		b.StopTimer()
		left := slices.Clone(data)
		for i := 0; i < n; i += 10 {
			left[i] = nil
		}
		b.ReportMetric(meanRecall(x, left, qs, k, nil), "recall@10")
		b.StartTimer()
	}
}

// coarseExact is an exact scan scoring with the first int8 code alone, to
// measure what the residual code buys.
func coarseExact(x *Index, q []float32, k int) []Result {
	qn := x.normalized(q)
	top := heap{}
	for n, st := range x.state {
		if st == live {
			top.pushTop(k, item{s: dotFloatInt8(qn, x.code(uint32(n))) * x.scales[n], n: uint32(n)})
		}
	}
	return x.results(&top)
}

// BenchmarkEfSearch reports recall@10 and latency of graph search over the
// cached indexes of BenchmarkSearch for a range of efSearch values.
func BenchmarkEfSearch(b *testing.B) {
	for _, sz := range benchSizes[1:] {
		for _, dim := range []int{100, 384} {
			b.Run(fmt.Sprintf("n=%s/dim=%d", sz.name, dim), func(b *testing.B) {
				if sz.n >= 1_000_000 && os.Getenv("MNEMO_BENCH_1M") == "" {
					b.Skip("set MNEMO_BENCH_1M=1 to run")
				}
				efSweep(b, sz.n, dim)
			})
		}
	}
}

func efSweep(b *testing.B, n, dim int) {
	const k = 10
	opts := Options{Seed: benchSeed, ExactBelow: 1}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mnemo-vector-v%d-n%d-d%d-m%d-efc%d-seed%d-spread%g",
		version, n, dim, New(1, opts).opts.M, New(1, opts).opts.EfConstruction, benchSeed, spread))
	qs := queries(200, n, dim, benchSeed)
	truth, _ := cached(b, path, n, dim, opts, qs, k)
	f, err := os.Open(path + ".idx")
	if err != nil {
		b.Fatal(err)
	}
	x, err := Read(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, ef := range []int{32, 64, 96, 128, 160, 256} {
		b.Run(fmt.Sprintf("ef=%d", ef), func(b *testing.B) {
			x.SetEfSearch(ef)
			var r float64
			for i, q := range qs {
				r += recall(x.Search(q, k, nil), truth[i])
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				x.Search(qs[i%len(qs)], k, nil)
				lat = append(lat, time.Since(start))
				i++
			}
			b.ReportMetric(r/float64(len(qs)), "recall@10")
			b.ReportMetric(pct(lat, 50), "p50-ms")
			b.ReportMetric(pct(lat, 95), "p95-ms")
		})
	}
}

// BenchmarkBuild100k builds an index of 100k clustered vectors as the
// SQLite store's indexer does (sqlite/ann_indexer.go: AddBatch with batches of 32,
// M 32, efConstruction 200), and as one AddBatch of everything, and reports
// the build rate, CPU seconds per wall second and per build (the figure a
// shared machine does not inflate), the index's heap after the build and
// the most the heap grew during it, and recall@10 of 200 queries against
// a float64 exact search (efSearch 128). It is a timing, never a test
// (issue 20, PERF-2). MNEMO_BENCH_BUILD_N and MNEMO_BENCH_BUILD_DIM change
// the size and dimension (the name keeps saying 100k).
//
//	go test -run '^$' -bench Build100k -benchtime 1x ./vector
//	MNEMO_BENCH_BUILD_N=1000000 go test -run '^$' -bench 'Build100k/dim=100/batch=32$' -benchtime 1x -timeout 2h ./vector
func BenchmarkBuild100k(b *testing.B) {
	n, dim := 100_000, 100
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_BUILD_N")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_BUILD_DIM")); err == nil && v > 0 {
		dim = v
	}
	data := dataset(n, dim, benchSeed)
	qs := queries(200, n, dim, benchSeed)
	want := make([][]uint64, len(qs))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range runtime.GOMAXPROCS(0) { // each brute force holds n hits
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(qs); i = int(next.Add(1)) - 1 {
				want[i] = bruteForce(data, qs[i], 10)
			}
		})
	}
	wg.Wait()
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	for _, batch := range []int{32, n} {
		b.Run(fmt.Sprintf("dim=%d/batch=%d", dim, batch), func(b *testing.B) {
			var x *Index
			var wall, cpu time.Duration
			var index, peak uint64
			for b.Loop() {
				x = nil
				runtime.GC()
				base := heapBytes()
				stop := make(chan struct{})
				done := make(chan uint64)
				go func() { // the heap's high-water mark, sampled
					var hi uint64
					t := time.NewTicker(20 * time.Millisecond)
					defer t.Stop()
					for {
						hi = max(hi, heapBytes())
						select {
						case <-stop:
							done <- hi
							return
						case <-t.C:
						}
					}
				}()
				c0 := cpuTime()
				start := time.Now()
				x = New(dim, Options{M: 32, EfConstruction: 200, Seed: benchSeed})
				for lo := 0; lo < n; lo += batch {
					hi := min(n, lo+batch)
					if err := x.AddBatch(ids[lo:hi], data[lo:hi]); err != nil {
						b.Fatal(err)
					}
				}
				wall += time.Since(start)
				cpu += cpuTime() - c0
				close(stop)
				peak = max(peak, <-done-base)
				runtime.GC()
				index = heapBytes() - base
			}
			var r float64
			for i, q := range qs {
				r += recall(x.Search(q, 10, nil), want[i])
			}
			b.ReportMetric(float64(n*b.N)/wall.Seconds(), "vectors/s")
			b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cores")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(index)/(1<<20), "index-MB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(r/float64(len(qs)), "recall@10")
		})
	}
}

// heapBytes returns the bytes of live and not yet swept heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDot measures the int8 dot product of the graph walk at the
// dimensions mnemo uses (GloVe 100, builtin 612) and 384, with the kernel
// the CPU selects (BenchmarkDotInt8 compares them at 612).
func BenchmarkDot(b *testing.B) {
	for _, dim := range []int{100, 384, 612} {
		a, c := make([]int8, dim), make([]int8, dim)
		for i := range a {
			a[i], c[i] = int8(i%255-127), int8((i*7)%255-127)
		}
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) {
			var s int32
			for b.Loop() {
				s += dotInt8(a, c)
			}
			_ = s
		})
	}
}
