//go:build linux

package vector

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkIndexFile searches an index file a store saved (a SQLite
// store's <db>-vectors/<scope>.ann, whose own header is skipped, or a bare
// index) with the query vectors in $MNEMO_BENCH_QUERIES (float32s, as
// bench/scale's TestWriteQueries writes them), one search at a time. It
// reports recall@10 and recall@k against an exact scan of the index (the
// truth cached beside the queries) and the CPU time of a search, the
// searching thread's, which other work on a shared machine does not
// inflate (PERF-14). $MNEMO_BENCH_EF lists the efSearch values (default
// 256,512,1024); $MNEMO_BENCH_K is the k asked (default 20, as bench
// scale's ANN recall; a store's recall asks 62).
//
//	MNEMO_BENCH_INDEX=$dir/scale-v3-builtin-100000/mnemo.db-vectors/1.ann \
//	MNEMO_BENCH_QUERIES=/tmp/q.bin \
//	go test -run '^$' -bench IndexFile -benchtime 1000x ./vector
func BenchmarkIndexFile(b *testing.B) {
	path, qpath := os.Getenv("MNEMO_BENCH_INDEX"), os.Getenv("MNEMO_BENCH_QUERIES")
	if path == "" || qpath == "" {
		b.Skip("MNEMO_BENCH_INDEX or MNEMO_BENCH_QUERIES not set")
	}
	x := readIndexFile(b, path)
	qs := readQueries(b, qpath, x.dim)
	k := 20
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_K")); err == nil && v > 0 {
		k = v
	}
	efs := []int{256, 512, 1024}
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
	truth := exactTruth(b, x, qs, max(k, 10), fmt.Sprintf("%s.truth-n%d-k%d", qpath, x.live, max(k, 10)))
	for _, ef := range efs {
		b.Run(fmt.Sprintf("ef=%d/k=%d", ef, k), func(b *testing.B) {
			x.SetEfSearch(ef)
			var r10, rk float64
			for i, q := range qs {
				res := x.Search(q, k, nil)
				r10 += recall(res[:min(10, len(res))], truth[i][:10])
				rk += recall(res, truth[i][:k])
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			i := 0
			c0 := threadTime()
			for b.Loop() {
				x.Search(qs[i%len(qs)], k, nil)
				i++
			}
			cpu := threadTime() - c0
			b.ReportMetric(r10/float64(len(qs)), "recall@10")
			b.ReportMetric(rk/float64(len(qs)), "recall@k")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkIndexFileBuild builds, as the SQLite store's indexer does
// (AddBatch of 32, M 32, efConstruction 200), an index of the first
// $MNEMO_BENCH_BUILD vectors of the index file at $MNEMO_BENCH_INDEX,
// decoded from their two codes, and reports the CPU seconds of a build
// (PERF-12). $MNEMO_BENCH_M and $MNEMO_BENCH_EFC change
// M and efConstruction. With $MNEMO_BENCH_DIM set, $MNEMO_BENCH_INDEX is
// a file of raw vectors of that dimension instead (little-endian
// float32s, as bench/scale's TestWriteVectors writes a store's). With
// $MNEMO_BENCH_QUERIES set it also reports the
// built graph's recall@10 against an exact scan of the vectors built, at
// each efSearch of $MNEMO_BENCH_EF (default 512), asking 20 as bench
// scale's ANN recall does. The build is a bulk one (BeginBulk), as the
// store's first, unless $MNEMO_BENCH_BULK is 0; $MNEMO_BENCH_COMPACT
// changes the compact codes' dimension.
//
//	MNEMO_BENCH_INDEX=… MNEMO_BENCH_BUILD=20000 go test -run '^$' -bench IndexFileBuild -benchtime 1x ./vector
func BenchmarkIndexFileBuild(b *testing.B) {
	path := os.Getenv("MNEMO_BENCH_INDEX")
	n, _ := strconv.Atoi(os.Getenv("MNEMO_BENCH_BUILD"))
	if path == "" || n <= 0 {
		b.Skip("MNEMO_BENCH_INDEX or MNEMO_BENCH_BUILD not set")
	}
	opts := Options{M: 32, EfConstruction: 200, Seed: 1}
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_M")); err == nil && v > 0 {
		opts.M = v
	}
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_EFC")); err == nil && v > 0 {
		opts.EfConstruction = v
	}
	ids := make([]uint64, 0, n)
	vs := make([][]float32, 0, n)
	if dim, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_DIM")); err == nil && dim > 0 {
		// Raw vectors (bench/scale's TestWriteVectors), not an index.
		for i, v := range readQueries(b, path, dim) {
			if i == n {
				break
			}
			ids, vs = append(ids, uint64(i)), append(vs, v)
		}
	} else {
		x := readIndexFile(b, path)
		for node := range uint32(len(x.ids)) {
			if len(ids) == n {
				break
			}
			if x.state[node] != live {
				continue
			}
			v := make([]float32, x.dim)
			c, f := x.code(node), x.fineCode(node)
			for i := range v {
				v[i] = x.scales[node]*float32(c[i]) + x.fineSc[node]*float32(f[i])
			}
			ids, vs = append(ids, x.ids[node]), append(vs, v)
		}
	}
	bulk := os.Getenv("MNEMO_BENCH_BULK") != "0"
	compact, _ := strconv.Atoi(os.Getenv("MNEMO_BENCH_COMPACT"))
	var y *Index
	c0 := cpuTime()
	start := time.Now()
	for b.Loop() {
		y = New(len(vs[0]), opts)
		y.compactDim = compact
		y.pruneFull = os.Getenv("MNEMO_BENCH_PRUNE") == "full"
		if bulk {
			y.BeginBulk()
		}
		for i := 0; i < len(ids); i += 32 {
			j := min(len(ids), i+32)
			if err := y.AddBatch(ids[i:j], vs[i:j]); err != nil {
				b.Fatal(err)
			}
		}
		if bulk {
			if y.proj != nil {
				b.ReportMetric(y.proj.kept, "kept")
			}
			y.EndBulk()
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "wall-s/op")
	qpath := os.Getenv("MNEMO_BENCH_QUERIES")
	if qpath == "" {
		return
	}
	qs := readQueries(b, qpath, y.dim)
	truth := exactTruth(b, y, qs, 10, fmt.Sprintf("%s.truth-%s-n%d-k10", qpath, filepath.Base(path), y.live))
	efs := []int{512}
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
	for _, ef := range efs {
		y.SetEfSearch(ef)
		var r10 float64
		for i, q := range qs {
			res := y.Search(q, 20, nil)
			r10 += recall(res[:min(10, len(res))], truth[i])
		}
		b.ReportMetric(r10/float64(len(qs)), fmt.Sprintf("recall@10-ef%d", ef))
	}
}

// readIndexFile reads the index in the file at path, after whatever header
// a store put before it.
func readIndexFile(b testing.TB, path string) *Index {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	at := bytes.Index(head[:n], []byte(magic))
	if at < 0 {
		b.Fatalf("%s: no index in the first %d bytes", path, n)
	}
	if _, err := f.Seek(int64(at), 0); err != nil {
		b.Fatal(err)
	}
	x, err := Read(f)
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// readQueries reads little-endian float32 vectors of dim.
func readQueries(b testing.TB, path string, dim int) [][]float32 {
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	qs := make([][]float32, len(raw)/4/dim)
	for i := range qs {
		qs[i] = make([]float32, dim)
		for j := range qs[i] {
			qs[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(i*dim+j):]))
		}
	}
	if len(qs) == 0 {
		b.Fatalf("%s: no query of dimension %d", path, dim)
	}
	return qs
}

// exactTruth is the ids of the k nearest live nodes to each query by an
// exact scan (both codes, within about 1e-5 of float32), cached at path.
func exactTruth(b *testing.B, x *Index, qs [][]float32, k int, path string) [][]uint64 {
	if truth, _, err := readTruth(path, len(qs), k); err == nil {
		return truth
	}
	truth := make([][]uint64, len(qs))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(qs); i += workers {
				for _, r := range x.exact(x.normalized(qs[i]), k, nil) {
					truth[i] = append(truth[i], r.ID)
				}
			}
		})
	}
	wg.Wait()
	err := writeFile(path, func(w io.Writer) (int64, error) {
		out := binary.LittleEndian.AppendUint64(nil, 0)
		for _, t := range truth {
			for _, id := range t {
				out = binary.LittleEndian.AppendUint64(out, id)
			}
		}
		n, err := w.Write(out)
		return int64(n), err
	})
	if err != nil {
		b.Fatal(err)
	}
	return truth
}

// threadTime is the CPU time of the calling thread.
func threadTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
