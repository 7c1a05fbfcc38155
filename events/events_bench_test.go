package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

var benchEventScope = mnemo.Scope{TenantID: "bench", AgentID: "agent"}

// cpuTime is the CPU time (user and system) the process has used. The
// machine is shared: wall time per operation grows with its load, CPU time
// much less, so the benchmarks report both.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchEvents returns n structured events from 10 sources: starts, tool
// calls with a parent, failures, retries and stops, a second apart.
func benchEvents(start time.Time, from, n int) []mnemo.Event {
	types := []string{"AgentStarted", "ToolCalled", "ToolFailed", "ToolRetry", "ToolCalled", "AgentStopped"}
	out := make([]mnemo.Event, n)
	for i := range n {
		k := from + i
		out[i] = mnemo.Event{
			Type:   types[k%len(types)],
			Source: fmt.Sprintf("worker-%d", k%10),
			TS:     start.Add(time.Duration(k) * time.Second),
			Data:   json.RawMessage(fmt.Sprintf(`{"step":%d,"parent_id":"p-%d","note":"tool call with a short payload"}`, k, k/6)),
		}
	}
	return out
}

func benchEventService(b *testing.B) *service.Mnemo {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return service.New(db, service.Options{})
}

// BenchmarkAppendEvent measures the event append (EVT-2, EVT-6) with rule
// relations (parent, temporal, causal), batch events per transaction, in
// the default synchronous=FULL.
func BenchmarkAppendEvent(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			svc := benchEventService(b)
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

// BenchmarkQueryEvents10k reads a time window of 10,000 events (in pages of
// 1,000) out of 50,000, hot or moved to cold segments.
func BenchmarkQueryEvents10k(b *testing.B) {
	for _, cold := range []bool{false, true} {
		b.Run(fmt.Sprintf("cold=%v", cold), func(b *testing.B) {
			now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
			db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{Synchronous: "NORMAL"})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			svc := service.New(db, service.Options{Now: func() time.Time { return now }})
			// 50k events a second apart, starting 100 days ago: all of
			// them are older than 90 days.
			start := now.Add(-100 * 24 * time.Hour)
			for i := 0; i < 50_000; i += 1000 {
				if _, err := svc.AppendEvents(b.Context(), benchEventScope, benchEvents(start, i, 1000)); err != nil {
					b.Fatal(err)
				}
			}
			if cold {
				if n, err := svc.ArchiveEvents(b.Context(), 0); err != nil || n != 50_000 {
					b.Fatal(n, err)
				}
			}
			from, to := start.Add(20_000*time.Second), start.Add(30_000*time.Second)
			cpu := cpuTime()
			for b.Loop() {
				q := mnemo.EventQuery{From: &from, To: &to, Limit: 1000}
				n := 0
				for {
					p, err := svc.QueryEvents(b.Context(), benchEventScope, q)
					if err != nil {
						b.Fatal(err)
					}
					n += len(p.Events)
					if p.Next == "" {
						break
					}
					q.Cursor = p.Next
				}
				if n != 10_000 {
					b.Fatalf("read %d events, want 10000", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/10k")
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/10k")
		})
	}
}
