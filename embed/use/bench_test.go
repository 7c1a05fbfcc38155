package use

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shortTexts are memory-sized sentences of about 15 words.
var shortTexts = []string{
	"Caroline went to the LGBTQ support group on Sunday and found it really helpful.",
	"Melanie painted a sunrise over the lake last year and hung it in her kitchen.",
	"The user prefers dark mode, vim keybindings, and two-space indentation in every editor.",
	"We agreed to ship the billing migration after the security review next Thursday.",
	"My sister is allergic to peanuts, so the birthday cake must be nut free.",
	"John started training for the Berlin marathon in March and runs five times a week.",
	"The staging database was restored from the backup taken at midnight on Friday.",
	"Remember that the dentist appointment moved from Tuesday morning to Wednesday afternoon.",
}

// BenchmarkEmbed reports texts per second for batches of short texts. Embed
// spreads a batch over GOMAXPROCS goroutines; run with -cpu 1 for the
// figure per core.
//
// Each supported path (go, avx2, avxvnni, vnni) runs as its own sub-benchmark, so
// one run compares them on the same machine at the same load; texts/cpu-s
// divides by the process's CPU time instead of wall time, which a shared
// machine inflates.
func BenchmarkEmbed(b *testing.B) {
	es, err := pathEmbedders()
	if err != nil {
		b.Fatal(err)
	}
	// batch=64x3 joins three short texts into each: about 57 tokens, as
	// many as the 15 made-up words of a bulk benchmark's memory, where
	// attention weighs more.
	for _, c := range []struct {
		name       string
		size, join int
	}{{"1", 1, 1}, {"8", 8, 1}, {"64", 64, 1}, {"64x3", 64, 3}} {
		size := c.size
		texts := make([]string, size)
		for i := range texts {
			parts := make([]string, c.join)
			for j := range parts {
				parts[j] = shortTexts[(i*c.join+j)%len(shortTexts)]
			}
			texts[i] = strings.Join(parts, " ")
		}
		l0, err := int8Layer0Embedder()
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range append(allPaths, -1) {
			e, name := es[p], p.String()
			if p == -1 { // the VNNI path with layer 0 in int8 (off by default)
				e, name = l0, "vnni-int8-layer0"
			}
			if e == nil || p == pathGo && size > 8 { // the portable path takes seconds a batch
				continue
			}
			b.Run(fmt.Sprintf("batch=%s/path=%v", c.name, name), func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					if _, err := e.Embed(context.Background(), texts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "texts/s")
				if cpu := cpuTime() - c0; cpu > 0 {
					b.ReportMetric(float64(b.N*size)/cpu.Seconds(), "texts/cpu-s")
				}
			})
		}
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

// BenchmarkKernel compares the matmul kernels on the largest layer.
func BenchmarkKernel(b *testing.B) {
	es, err := pathEmbedders()
	if err != nil {
		b.Fatal(err)
	}
	l := es[pathGo].model.layers[1].ffn1 // the int8 paths keep no float32 weights
	const rows = 64
	x := make([]float32, rows*l.in)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	y := make([]float32, rows*l.out)
	kernels := []struct {
		name string
		k    kernel
	}{{"go", gemmGo}, {"picked", bestPath().kernel()}}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				l.apply(k.k, y, x, rows)
			}
			b.ReportMetric(float64(b.N)*rows*float64(l.in*l.out)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}

// BenchmarkQKernel measures the int8 kernels on the largest layer, the
// activations' quantisation included: VNNI's, AVX-VNNI's and AVX2's.
func BenchmarkQKernel(b *testing.B) {
	es, err := pathEmbedders()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []path{pathAVX2, pathAVXVNNI, pathVNNI} {
		b.Run("path="+p.String(), func(b *testing.B) {
			e := es[p]
			if e == nil {
				b.Skipf("this CPU has no %v path", p)
			}
			m := e.model
			l := m.layers[1].ffn1
			const rows = 64
			x := make([]float32, rows*l.in)
			for i := range x {
				x[i] = float32(i%7) - 3
			}
			y := make([]float32, rows*l.out)
			sc := getScratch(rows)
			for b.Loop() {
				m.apply(l, y, x, rows, sc)
			}
			b.ReportMetric(float64(b.N)*rows*float64(l.in*l.out)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}

// BenchmarkAttention measures attention over one text of n tokens at
// layer 0's width (256) and layer 1's (512), in multiply-adds a second.
func BenchmarkAttention(b *testing.B) {
	for _, n := range []int{20, 55, 110} {
		for _, dim := range []int{embedDim, modelDim} {
			b.Run(fmt.Sprintf("tokens=%d/width=%d", n, dim), func(b *testing.B) {
				qkv := make([]float32, n*3*dim)
				for i := range qkv {
					qkv[i] = float32(i%13)/6 - 1
				}
				att := make([]float32, n*dim)
				vec := bestPath().vec()
				for b.Loop() {
					attention(att, qkv, dim, []span{{0, n}}, vec)
				}
				b.ReportMetric(float64(b.N)*float64(2*n*n*dim)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}

// BenchmarkLoad measures decoding the embedded model, which the first Embed
// (or Load) of every Embedder pays once.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := New().Load(); err != nil {
			b.Fatal(err)
		}
	}
}
