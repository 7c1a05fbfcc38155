package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// The SQL stores read their event layers back for migrate-store (PG-6).
var (
	_ eventDumper = (*sqlite.DB)(nil)
	_ eventDumper = (*postgres.DB)(nil)
)

// eventScopes are the scopes seedEvents fills: alice has memories too,
// carol only events, every one of them archived (cold), which the
// InsightStore's EventScopes would not find.
var eventScopes = []mnemo.Scope{{TenantID: "t1", AgentID: "alice"}, {TenantID: "t1", AgentID: "carol"}}

// seedEvents fills the SQLite store at path with event layers: alice
// 1,500 events over January 2026 (more than one append batch and one
// page), those before the 15th archived, every tenth with a text vector
// and one with a vector still waiting, relations between events and to a
// memory id, three summaries and two capabilities; carol 3 cold events.
func seedEvents(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var evs []mnemo.Event
	for i := range 1500 {
		e := mnemo.Event{ID: fmt.Sprintf("ev-%04d", i), TS: start.Add(time.Duration(i) * 29 * time.Minute), Type: "tool_call",
			Source: []string{"shell", "browser"}[i%2], Data: json.RawMessage(fmt.Sprintf(`{"n":%d,"text":"step %d"}`, i, i))}
		if i%3 == 0 {
			e.Metadata = json.RawMessage(`{"host":"a"}`)
		}
		if i%10 == 0 {
			v := make([]float32, 8)
			for k := range v {
				v[k] = float32(math.Sin(float64(i + k)))
			}
			e.Vectors = []mnemo.EventVector{{Modality: mnemo.ModalityText, Model: "test-8", Vector: v, Input: fmt.Sprintf("step %d", i)}}
		}
		if i == 1 {
			e.Vectors = []mnemo.EventVector{{Modality: mnemo.ModalityImage, Model: "clip-test", Input: "file:///tmp/a.png"}}
		}
		evs = append(evs, e)
	}
	// Two events at one time: the copy keeps their order.
	evs[7].TS = evs[6].TS
	for b := range slices.Chunk(evs, mnemo.MaxEventBatch) {
		if _, err := db.AppendEvents(ctx, eventScopes[0], b, nil); err != nil {
			t.Fatal(err)
		}
	}
	var rels []mnemo.Relation
	for i := 1; i < 300; i++ {
		rels = append(rels, mnemo.Relation{Source: evs[i-1].ID, Target: evs[i].ID, Type: mnemo.RelPrecedes, Confidence: 0.5 + float64(i%5)/10, CreatedAt: evs[i].TS})
	}
	rels = append(rels, mnemo.Relation{Source: "ev-0010", Target: "some-memory-id", Type: mnemo.RelRelated, Confidence: 1, CreatedAt: start})
	if err := db.AddRelations(ctx, eventScopes[0], rels); err != nil {
		t.Fatal(err)
	}
	for i, p := range []mnemo.Period{mnemo.PeriodHour, mnemo.PeriodDay, mnemo.PeriodWeek} {
		s := mnemo.Summary{Period: p, Start: start, End: start.Add(time.Hour * time.Duration([]int{1, 24, 168}[i])), Events: 2 + i,
			Types: map[string]int{"tool_call": 2 + i}, Sources: map[string]int{"shell": 2 + i}, GeneratedAt: start.Add(200 * time.Hour)}
		if err := db.PutSummary(ctx, eventScopes[0], s); err != nil {
			t.Fatal(err)
		}
	}
	caps := []mnemo.Capability{
		{TaskType: "deploy", Name: "Deploying", Description: "ships it", Tools: []string{"shell"}, Successes: 4, Failures: 1, Ready: true, Extractor: "rules", FirstSeen: start, LastSeen: start.Add(time.Hour)},
		{TaskType: "review", Name: "Reviewing", Successes: 1, Extractor: "rules", FirstSeen: start, LastSeen: start},
	}
	if err := db.ReplaceCapabilities(ctx, eventScopes[0], caps); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := db.AppendEvents(ctx, eventScopes[1], []mnemo.Event{{ID: fmt.Sprintf("c-%d", i), TS: start.Add(time.Duration(i) * time.Hour), Type: "note"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.ArchiveEvents(ctx, time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC))
	if err != nil || n < 600 {
		t.Fatalf("archived %d events: %v", n, err)
	}
}

// sameEventLayers fails t unless dst holds src's event layers for the
// scopes: events in order (ids, times, payloads), relations, summaries,
// capabilities, and, when vectors is set, the event vectors (close:
// both stores keep them compressed).
func sameEventLayers(t *testing.T, src, dst mnemo.EventStore, vectors bool) {
	t.Helper()
	ctx := context.Background()
	for _, sc := range eventScopes {
		want, err := allEvents(ctx, src, sc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := allEvents(ctx, dst, sc)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: %d events, want %d", sc.AgentID, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.ID != w.ID || !g.TS.Equal(w.TS) || g.Type != w.Type || g.Source != w.Source || string(g.Data) != string(w.Data) || string(g.Metadata) != string(w.Metadata) {
				t.Fatalf("%s: event %d is %+v, want %+v", sc.AgentID, i, g, w)
			}
		}
		rw, err := src.(eventDumper).AllRelations(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		rg, err := dst.(eventDumper).AllRelations(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		key := func(r mnemo.Relation) string {
			return fmt.Sprintf("%s %s %s %g %d", r.Source, r.Target, r.Type, r.Confidence, r.CreatedAt.UnixNano())
		}
		var kw, kg []string
		for _, r := range rw {
			kw = append(kw, key(r))
		}
		for _, r := range rg {
			kg = append(kg, key(r))
		}
		slices.Sort(kw)
		slices.Sort(kg)
		if !slices.Equal(kw, kg) {
			t.Fatalf("%s: relations differ: %d, want %d", sc.AgentID, len(kg), len(kw))
		}
		js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
		sw, err := allSummaries(ctx, src.(mnemo.InsightStore), sc)
		if err != nil {
			t.Fatal(err)
		}
		sg, err := allSummaries(ctx, dst.(mnemo.InsightStore), sc)
		if err != nil {
			t.Fatal(err)
		}
		if js(sw) != js(sg) {
			t.Fatalf("%s: summaries\n got %s\nwant %s", sc.AgentID, js(sg), js(sw))
		}
		cw, _ := src.(mnemo.InsightStore).Capabilities(ctx, sc)
		cg, _ := dst.(mnemo.InsightStore).Capabilities(ctx, sc)
		if js(cw) != js(cg) {
			t.Fatalf("%s: capabilities\n got %s\nwant %s", sc.AgentID, js(cg), js(cw))
		}
		ids := make([]string, len(want))
		for i, e := range want {
			ids[i] = e.ID
		}
		vw, err := src.(mnemo.EventVectorStore).EventVectorsOf(ctx, sc, ids)
		if err != nil {
			t.Fatal(err)
		}
		vg, err := dst.(mnemo.EventVectorStore).EventVectorsOf(ctx, sc, ids)
		if err != nil {
			t.Fatal(err)
		}
		if !vectors {
			if len(vg) != 0 {
				t.Fatalf("%s: %d event vectors where none are kept", sc.AgentID, len(vg))
			}
			continue
		}
		if len(vg) != len(vw) {
			t.Fatalf("%s: %d event vectors, want %d", sc.AgentID, len(vg), len(vw))
		}
		for i, w := range vw {
			g := vg[i]
			if g.EventID != w.EventID || g.Modality != w.Modality || g.Model != w.Model || g.Input != w.Input || len(g.Vector) != len(w.Vector) {
				t.Fatalf("%s: event vector %d is %+v, want %+v", sc.AgentID, i, g, w)
			}
			for k := range w.Vector {
				if math.Abs(float64(g.Vector[k]-w.Vector[k])) > 0.02 {
					t.Fatalf("%s: event vector of %s: %v, want %v", sc.AgentID, w.EventID, g.Vector, w.Vector)
				}
			}
		}
	}
}

// migrateEventsInto seeds a SQLite store with memories and event layers,
// copies it into the PostgreSQL at dsn through the CLI, twice, and checks
// what arrived.
func migrateEventsInto(t *testing.T, dsn string, vectors bool) {
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a := t.TempDir()
	seedStore(t, a)
	src := filepath.Join(a, "mnemo.db")
	seedEvents(t, src)
	mustRun := runner(t, t.TempDir())
	out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "postgres:"+dsn)
	vecs := 0 // without pgvector, events come without their vectors
	if vectors {
		vecs = 151
	}
	for _, want := range []string{
		"copied 6 memories of 2 scopes and 1 ledger entry; counts match",
		fmt.Sprintf("t1/alice: 1500 events, 300 relations, 3 summaries, 2 capabilities, %d event vectors", vecs),
		"t1/carol: 3 events, 0 relations, 0 summaries, 0 capabilities, 0 event vectors",
		fmt.Sprintf("copied 1503 events, 300 relations, 3 summaries, 2 capabilities, %d event vectors of 2 scopes; counts match", vecs),
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("sqlite → postgres: no %q in\n%s", want, out)
		}
	}
	// Again: nothing is appended twice, the counts still match.
	if out := mustRun("migrate-store", "--from", "sqlite:"+a, "--to", "postgres:"+dsn); !strings.Contains(out, "copied 1503 events") || !strings.Contains(out, "counts match") {
		t.Fatalf("a second copy: %s", out)
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, src, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sameEventLayers(t, s, p, vectors)
}

// sqlite → PostgreSQL 15 (no pgvector): the event layers arrive, the
// event vectors do not (PG-2, PG-6).
func TestMigrateStoreEventsSQLiteToPostgres(t *testing.T) {
	t.Parallel()
	migrateEventsInto(t, pgtest.Native(t), false)
}

// sqlite → PGlite with pgvector: the event layers with their vectors
// (PG-6).
func TestMigrateStoreEventsSQLiteToPgvector(t *testing.T) {
	t.Parallel()
	migrateEventsInto(t, pgtest.Vector(t), true)
}

// An event too many in the destination fails the count check (exit 1).
func TestMigrateStoreEventCountMismatch(t *testing.T) {
	t.Parallel()
	setenv(t, "MNEMO_EMBEDDING", "hashed")
	a, d := t.TempDir(), t.TempDir()
	seedStore(t, a)
	seedEvents(t, filepath.Join(a, "mnemo.db"))
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(d, "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendEvents(ctx, eventScopes[1], []mnemo.Event{{ID: "extra", TS: time.Now(), Type: "note"}}, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errs := run(t, t.TempDir(), "", "migrate-store", "--from", "sqlite:"+a, "--to", "sqlite:"+d)
	if code != 1 || !strings.Contains(errs, "count check failed: t1/carol has 3 events in the source and 4 in the destination") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}
