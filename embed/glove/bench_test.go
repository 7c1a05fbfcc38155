package glove

import (
	"context"
	"testing"
)

// Texts of about 15 words, the size of a short memory or a query.
var benchTexts = []string{
	"Caroline went to the LGBTQ support group yesterday and said it was really powerful.",
	"Melanie is painting a sunset with her kids this weekend at the lake house.",
	"Remember that the flight to Tokyo leaves at 7:45 from gate B27 on Friday.",
	"I don't think the new pottery class is worth it, the teacher isn't great.",
	"急跌后反弹信号2小时内有效，市场暴跌后的反弹规律值得研究。",
}

// BenchmarkEmbed reports short texts embedded per second on one core.
func BenchmarkEmbed(b *testing.B) {
	e := New()
	ctx := context.Background()
	if _, err := e.Embed(ctx, benchTexts[:1]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, benchTexts); err != nil {
			b.Fatal(err)
		}
		n += len(benchTexts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkLoad measures what the first Embed pays on top of embedding:
// parsing the model header and checking its layout.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseModel(modelData); err != nil {
			b.Fatal(err)
		}
	}
}
