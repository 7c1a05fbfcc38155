package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// BenchmarkDaySummary measures the day summary (EVT-10) over 100k events of
// one day (the goal: at most 2 s): events of six types from 10 sources,
// with task outcomes (completed and failed, tools, conditions) and tool
// errors among them.
func BenchmarkDaySummary(b *testing.B) {
	const n = 100_000
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{})
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	gap := 24 * time.Hour / n
	types := []string{"AgentStarted", "ToolCalled", "ToolError", "DeployCompleted", "DeployFailed", "AgentStopped"}
	datas := []string{``, `{"tool":"kubectl","note":"a short payload"}`, `{"error":"timeout","tool":"kubectl"}`,
		`{"tools":["kubectl","helm"],"conditions":{"env":"prod"},"description":"deployed the api"}`, `{"error":"image not found"}`, `{"status":"ok"}`}
	batch := make([]mnemo.Event, 0, 1000)
	for i := range n {
		e := mnemo.Event{Type: types[i%len(types)], Source: fmt.Sprintf("worker-%d", i%10), TS: day.Add(time.Duration(i) * gap)}
		if d := datas[i%len(datas)]; d != "" {
			e.Data = json.RawMessage(d)
		}
		if batch = append(batch, e); len(batch) == cap(batch) {
			if _, err := svc.AppendEvents(b.Context(), benchEventScope, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for b.Loop() {
		s, err := svc.Summarize(b.Context(), benchEventScope, mnemo.PeriodDay, day)
		if err != nil {
			b.Fatal(err)
		}
		if s.Events != n {
			b.Fatalf("summary of %d events, want %d", s.Events, n)
		}
	}
}
