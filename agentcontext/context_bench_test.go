package agentcontext_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// Benchmarks of what is built for prompts (PERF-3, PERF-5):
//
//	go test -run '^$' -bench 'Snapshot|Boot|DefaultRead|RunAppend' -benchtime 500x .
//
// The store mixes types as an assistant's would (2% identity, 8% emotion,
// 40% knowledge, fact and preference, 50% events) over 60 days, with one
// memory in a thousand pinned.

var contextTypes = []string{"identity", "emotion", "emotion", "emotion", "emotion",
	"knowledge", "knowledge", "knowledge", "knowledge", "knowledge", "knowledge", "knowledge", "knowledge", "fact", "fact", "fact", "fact", "fact", "fact", "preference",
	"event", "event", "event", "event", "event", "event", "event", "event", "event", "event",
	"event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event", "event"}

// contextFixture returns a store of n memories in one agent, generated once
// and kept in the temp dir; the generation is relative to end, the time the
// benchmarks run at.
func contextFixture(b *testing.B, n int, end time.Time) string {
	return keptStore(b, fmt.Sprintf("mnemo-bench-context-v2-%d", n), func(svc *service.Mnemo) error {
		c := newCorpus(11)
		step := 60 * 24 * time.Hour / time.Duration(n)
		start := end.Add(-60 * 24 * time.Hour)
		for i := 0; i < n; i += 1000 {
			drafts := make([]mnemo.Draft, min(1000, n-i))
			for j := range drafts {
				k := i + j
				s := c.Sentence(8 + c.Rng.IntN(20))
				at := start.Add(time.Duration(k) * step)
				imp := c.Rng.Float64()
				drafts[j] = mnemo.Draft{Content: &s, CreatedAt: &at, Type: contextTypes[k%len(contextTypes)],
					Importance: &imp, Pinned: k%1000 == 999, Tags: []string{c.Words[c.Rng.IntN(50)]}}
				if k%4 == 0 {
					drafts[j].Key = fmt.Sprintf("/notes/%d", k)
				}
			}
			if _, err := svc.RememberBatch(context.Background(), benchScope, drafts); err != nil {
				return err
			}
		}
		return nil
	})
}

// benchEnd is the time the context benchmarks run at: fixed, so that the
// kept fixture stays valid.
var benchEnd = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func openContext(b *testing.B, n int) *service.Mnemo {
	db, err := sqlite.Open(context.Background(), contextFixture(b, n, benchEnd), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return service.New(db, service.Options{Now: func() time.Time { return benchEnd }, Guard: memory.GuardOptions{Off: true}})
}

func timed(b *testing.B, fn func(i int) error) {
	lat := make([]time.Duration, 0, b.N)
	if err := fn(-1); err != nil { // warm: the tokenizer's ranks, the page cache
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := fn(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

// BenchmarkSnapshot100k builds a run's snapshot (pinned, 3 related, 5
// recent, 500 tokens) at 100k memories.
func BenchmarkSnapshot100k(b *testing.B) {
	svc := openContext(b, 100_000)
	c := newCorpus(12)
	ctx := context.Background()
	timed(b, func(int) error {
		payload, _ := json.Marshal(c.Query())
		_, err := svc.Snapshot(ctx, benchScope, agentcontext.SnapshotQuery{Trigger: agentcontext.Trigger{Type: "message", Payload: payload}})
		return err
	})
}

// BenchmarkBoot100k builds the warm-start narrative at 100k memories.
func BenchmarkBoot100k(b *testing.B) {
	svc := openContext(b, 100_000)
	ctx := context.Background()
	timed(b, func(int) error {
		_, err := svc.Boot(ctx, benchScope, agentcontext.BootQuery{})
		return err
	})
}

// BenchmarkDefaultRead10k builds the default read (CTX-19) (2,000 tokens, two
// context tags) at 10k memories.
func BenchmarkDefaultRead10k(b *testing.B) {
	svc := openContext(b, 10_000)
	c := newCorpus(13)
	ctx := context.Background()
	timed(b, func(int) error {
		_, err := svc.DefaultRead(ctx, benchScope, agentcontext.ReadQuery{TokenLimit: 2000, Tags: []string{c.Words[c.Rng.IntN(50)], c.Words[c.Rng.IntN(50)]}})
		return err
	})
}

// BenchmarkRunAppend records a function call (a JSON input and a 60-word
// output) in a run's short-term memory and renders it, as an agent does
// every round; the run compacts as it goes.
func BenchmarkRunAppend(b *testing.B) {
	c := newClock()
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{Now: c.Now})
	ctx := context.Background()
	r, err := svc.OpenRun(ctx, benchScope, agentcontext.RunOptions{Trigger: agentcontext.Trigger{Type: "message", Payload: json.RawMessage(`"plan a trip"`)}})
	if err != nil {
		b.Fatal(err)
	}
	cp := newCorpus(14)
	timed(b, func(i int) error {
		out, _ := json.Marshal(cp.Sentence(60))
		if _, err := svc.RecordCall(ctx, benchScope, r.ID, agentcontext.ToolCall{Name: "search", Input: json.RawMessage(`{"q":"` + strings.ReplaceAll(cp.Query(), `"`, "") + `"}`), Output: out}); err != nil {
			return err
		}
		_, err := svc.GetRun(ctx, benchScope, r.ID)
		return err
	})
}

// BenchmarkReflect100k runs the whole sleep cycle (decay, tidy, govern,
// retention, capacity over 10,000, compaction, purge) over 100k memories,
// each run on a fresh copy of the store; the target is 5 s:
//
//	go test -run '^$' -bench Reflect100k -benchtime 3x .
func BenchmarkReflect100k(b *testing.B) {
	path := contextFixture(b, 100_000, benchEnd)
	ctx := context.Background()
	var archived, decayed int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		svc, _ := openCopy(b, path, service.Options{Now: func() time.Time { return benchEnd }})
		b.StartTimer()
		rep, err := svc.Reflect(ctx, benchScope, lifecycle.ReflectOptions{})
		if err != nil {
			b.Fatal(err)
		}
		archived, decayed = len(rep.Archived), len(rep.Decayed)
	}
	b.ReportMetric(float64(archived), "archived")
	b.ReportMetric(float64(decayed), "decayed")
}
