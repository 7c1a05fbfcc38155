package files_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/service"
)

// Benchmarks of PERF-5, PERF-6 and PERF-15 over a files store of synthetic
// memories: words drawn with a Zipf distribution from a 5,000-word
// vocabulary, from a fixed seed; half have keys (/user/note/<n>), half
// not, as a Service writes them (analysed index text, tags).
//
//	go test -run '^$' -bench . -benchtime 20x ./files

func TestMain(m *testing.M) {
	code := m.Run()
	roots.remove()
	os.Exit(code)
}

// roots caches the benchmark roots for the life of the process.
var roots = &rootCache{paths: map[int]string{}}

type rootCache struct {
	mu    sync.Mutex
	dir   string
	paths map[int]string
}

func (c *rootCache) remove() {
	if c.dir != "" && os.Getenv("MNEMO_FILES_BENCH_DIR") == "" {
		os.RemoveAll(c.dir)
	}
}

// root returns a compacted memory root of n memories, building it the
// first time.
func (c *rootCache) root(b *testing.B, n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.paths[n]; ok {
		return p
	}
	if c.dir == "" && os.Getenv("MNEMO_FILES_BENCH_DIR") != "" {
		// Kept between runs, for profiling: remove it when the format changes.
		c.dir = os.Getenv("MNEMO_FILES_BENCH_DIR")
		p := filepath.Join(c.dir, fmt.Sprint(n))
		if _, err := os.Stat(filepath.Join(p, files.StateName)); err == nil {
			c.paths[n] = p
			return p
		}
	}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "mnemo-files-bench-")
		if err != nil {
			b.Fatal(err)
		}
		c.dir = d
	}
	p := filepath.Join(c.dir, fmt.Sprint(n))
	s, err := files.OpenStore(b.Context(), p, files.StoreOptions{NoSync: true, CompactEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	recs := records(n)
	for start := 0; start < n; start += 1000 {
		if _, err := s.Write(b.Context(), home, recs[start:min(n, start+1000)]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Compact(b.Context()); err != nil {
		b.Fatal(err)
	}
	s.Close()
	c.paths[n] = p
	return p
}

// vocabulary is 5,000 made-up words.
var vocabulary = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 5000)
	const letters = "abcdefghijklmnopqrstuvwxyz"
	for i := range words {
		var sb strings.Builder
		for range 4 + r.IntN(6) {
			sb.WriteByte(letters[r.IntN(len(letters))])
		}
		words[i] = sb.String()
	}
	return words
}()

// records returns n memories of home, created a minute apart.
func records(n int) []mnemo.Record {
	r := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocabulary)-1))
	an := analysis.New()
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	types := []string{"fact", "event", "preference", "knowledge"}
	recs := make([]mnemo.Record, n)
	for i := range recs {
		words := make([]string, 12+r.IntN(20))
		for j := range words {
			words[j] = vocabulary[zipf.Uint64()]
		}
		text := strings.Join(words, " ")
		m := mnemo.Memory{
			ID: fmt.Sprintf("01959581-0000-7000-8000-%012d", i), Content: text, Type: types[i%len(types)],
			Priority: 2, Importance: float64(i%10) / 10, Confidence: 1, Vitality: 1, Stability: 90,
			SecurityLevel: mnemo.SecurityInternal, Version: mnemo.FormatVersion,
			Tags: []string{"t" + fmt.Sprint(i%50)}, CreatedAt: t.Add(time.Duration(i) * time.Minute),
		}
		m.UpdatedAt = m.CreatedAt
		if i%2 == 0 {
			m.Key = fmt.Sprintf("/user/note/%d", i)
		}
		recs[i] = mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: an.IndexString(text), Meta: an.IndexString("user note " + m.Tags[0])}}
	}
	return recs
}

// BenchmarkGrep10k runs a shell search (FS-12), grep -r over index/ of a
// 10,000-memory root (PERF-6: ≤ 1 s), for a word in about one memory in a
// hundred.
func BenchmarkGrep10k(b *testing.B) {
	root := roots.root(b, 10_000)
	word := vocabulary[200]
	for b.Loop() {
		out, err := exec.Command("grep", "-rlw", word, filepath.Join(root, files.IndexName)).Output()
		if err != nil {
			b.Fatal(err)
		}
		if len(out) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkGrepLog10k is grep over the log of the same root.
func BenchmarkGrepLog10k(b *testing.B) {
	root := roots.root(b, 10_000)
	word := vocabulary[200]
	for b.Loop() {
		if err := exec.Command("grep", "-cw", word, filepath.Join(root, files.LogName)).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func openBench(b *testing.B, n int) *files.Store {
	b.Helper()
	s, err := files.OpenStore(b.Context(), roots.root(b, n), files.StoreOptions{NoSync: true, CompactEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkSearch10k is the store's lexical search over the same 10,000
// memories: two words, 20 hits.
func BenchmarkSearch10k(b *testing.B) {
	s := openBench(b, 10_000)
	an := analysis.New()
	q := an.Query(vocabulary[200] + " " + vocabulary[40])
	for b.Loop() {
		res, err := s.Search(b.Context(), home, mnemo.TextQuery{Terms: q.Terms, Prefixes: q.Prefixes, Limit: 20})
		if err != nil || len(res.Hits) == 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkDefaultRead10k is the default read (CTX-19, PERF-5: ≤ 500 ms)
// over a files store of 10,000 memories, 2,000 tokens.
func BenchmarkDefaultRead10k(b *testing.B) {
	s := openBench(b, 10_000)
	svc := service.New(s, service.Options{})
	for b.Loop() {
		res, err := svc.DefaultRead(b.Context(), home, agentcontext.ReadQuery{TokenLimit: 2000, Tags: []string{"t7"}})
		if err != nil || len(res.Lines) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen100k opens a compacted root of 100,000 memories (PERF-15:
// ≤ 3 s): the state folded into memory, indexes built.
func BenchmarkOpen100k(b *testing.B) {
	root := roots.root(b, 100_000)
	for b.Loop() {
		s, err := files.OpenStore(b.Context(), root, files.StoreOptions{NoSync: true, CompactEvery: -1})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkWrite is one memory written: a log line appended, its index
// file, and the in-memory indexes; with the default fsync and without.
func BenchmarkWrite(b *testing.B) {
	for _, sync := range []bool{true, false} {
		b.Run(fmt.Sprintf("sync=%v", sync), func(b *testing.B) {
			s, err := files.OpenStore(b.Context(), b.TempDir(), files.StoreOptions{NoSync: !sync, CompactEvery: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			recs := records(1000)
			i := 0
			for b.Loop() {
				r := recs[i%len(recs)]
				r.Memory.ID = ""
				r.Memory.Key = fmt.Sprintf("/bench/%d", i)
				if _, err := s.Write(b.Context(), home, []mnemo.Record{r}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkForget10k is a forget in a root of 10,000 memories: its line,
// and the log and state rewritten without the memory.
func BenchmarkForget10k(b *testing.B) {
	src := roots.root(b, 10_000)
	dst := b.TempDir()
	if out, err := exec.Command("cp", "-a", src+"/.", dst).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	s, err := files.OpenStore(b.Context(), dst, files.StoreOptions{NoSync: true, CompactEvery: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	i := 0
	for b.Loop() {
		if n, err := s.Forget(b.Context(), home, nil, []string{fmt.Sprintf("/user/note/%d", 2*i)}); err != nil || n != 1 {
			b.Fatal(n, err)
		}
		i++
	}
}
