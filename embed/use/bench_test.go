package use

import (
	"context"
	"fmt"
	"testing"
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
func BenchmarkEmbed(b *testing.B) {
	e := New()
	if _, err := e.Load(); err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1, 8, 64} {
		texts := make([]string, size)
		for i := range texts {
			texts[i] = shortTexts[i%len(shortTexts)]
		}
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}

// BenchmarkKernel compares the matmul kernels on the largest layer.
func BenchmarkKernel(b *testing.B) {
	e := New()
	if _, err := e.Load(); err != nil {
		b.Fatal(err)
	}
	l := e.model.layers[1].ffn1
	const rows = 64
	x := make([]float32, rows*l.in)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	y := make([]float32, rows*l.out)
	for _, k := range []struct {
		name string
		k    kernel
	}{{"go", gemmGo}, {"picked", pickKernel()}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				l.apply(k.k, y, x, rows)
			}
			b.ReportMetric(float64(b.N)*rows*float64(l.in*l.out)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
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
