package events_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func benchL3Service(b *testing.B) *service.Mnemo {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: hashed.New(512)})
	b.Cleanup(func() { svc.Close() })
	return svc
}

// BenchmarkAppendEventL3 is BenchmarkAppendEvent with L3 on: each event's
// text embedded by an in-process embedder (hashed, 512 dimensions) before
// the transaction and its vector written in it.
func BenchmarkAppendEventL3(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			svc := benchL3Service(b)
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			k := 0
			cpu := cpuTime()
			for b.Loop() {
				if _, err := svc.AppendEvents(b.Context(), benchEventScope, benchEvents(start, k, batch)); err != nil {
					b.Fatal(err)
				}
				k += batch
			}
			b.ReportMetric(float64(k)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(k)/(cpuTime()-cpu).Seconds(), "events/cpu-s")
		})
	}
}

// BenchmarkSearchEvents10k searches by meaning a scope of 10,000 events
// with 512-dimension vectors: the exact scan, top 10.
func BenchmarkSearchEvents10k(b *testing.B) {
	svc := benchL3Service(b)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := 0; k < 10000; k += 500 {
		if _, err := svc.AppendEvents(b.Context(), benchEventScope, benchEvents(start, k, 500)); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime()
	for b.Loop() {
		hits, err := svc.SearchEvents(b.Context(), benchEventScope, events.Search{Query: "tool call failed with a payload"})
		if err != nil || len(hits) != 10 {
			b.Fatal(len(hits), err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkAnalyzeTextRules reads one message for entities, emotion and
// intent without a model: the fallback of L2 text relations.
func BenchmarkAnalyzeTextRules(b *testing.B) {
	texts := []string{
		"Can you book a table at Luigi's in New York for Maria? I'm so excited about the trip!",
		"我很担心《三体》的电影版，阿里巴巴集团会投资吗？请帮我查一下上海市的新闻。",
	}
	for b.Loop() {
		for _, t := range texts {
			events.AnalyzeTextRules(t)
		}
	}
}
