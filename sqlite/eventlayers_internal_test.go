package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/vector"
)

// layerCounts counts the rows of each layer.
func layerCounts(t *testing.T, db *DB) (events, relations, vectors int) {
	t.Helper()
	for _, c := range []struct {
		n     *int
		query string
	}{{&events, `SELECT count(*) FROM events`}, {&relations, `SELECT count(*) FROM relations`}, {&vectors, `SELECT count(*) FROM event_vectors`}} {
		if err := db.reader.QueryRow(c.query).Scan(c.n); err != nil {
			t.Fatal(err)
		}
	}
	return
}

func textEvents(n int, ts time.Time) []mnemo.Event {
	out := make([]mnemo.Event, n)
	for i := range out {
		out[i] = mnemo.Event{Type: "user.message", Source: "chat", TS: ts.Add(time.Duration(i) * time.Second),
			Data: []byte(fmt.Sprintf(`{"text":"message number %d about the deployment"}`, i))}
	}
	return out
}

// TestAppendLayersAtomic fails an append after each of its layers (the
// event, its vectors, its relations) and checks that nothing of the
// batch remains; then the same append goes through whole.
func TestAppendLayersAtomic(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	svc := events.New(mnemo.NewBackend(db), events.Options{}, events.Deps{Embedder: hashed.New(32)})
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := svc.AppendEvents(ctx, evScope, textEvents(2, ts)); err != nil {
		t.Fatal(err)
	}
	e0, r0, v0 := layerCounts(t, db)
	if e0 != 2 || r0 != 1 || v0 != 2 {
		t.Fatalf("before: %d events, %d relations, %d vectors; want 2, 1, 2", e0, r0, v0)
	}
	injected := errors.New("injected failure")
	for _, layer := range []string{"event", "vectors", "relations"} {
		t.Run(layer, func(t *testing.T) {
			seen := 0
			db.failAt = func(l string) error {
				if l != layer {
					return nil
				}
				if seen++; seen == 2 || layer == "relations" { // mid-batch, or after the batch's relations
					return injected
				}
				return nil
			}
			defer func() { db.failAt = nil }()
			_, err := svc.AppendEvents(ctx, evScope, textEvents(3, ts.Add(time.Hour)))
			if !errors.Is(err, injected) {
				t.Fatalf("append = %v; want the injected failure", err)
			}
			if e, r, v := layerCounts(t, db); e != e0 || r != r0 || v != v0 {
				t.Errorf("after a failure at %s: %d events, %d relations, %d vectors; want %d, %d, %d", layer, e, r, v, e0, r0, v0)
			}
		})
	}
	if _, err := svc.AppendEvents(ctx, evScope, textEvents(3, ts.Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if e, r, v := layerCounts(t, db); e != 5 || r != 4 || v != 5 {
		t.Errorf("after: %d events, %d relations, %d vectors; want 5, 4, 5", e, r, v)
	}
}

// TestConcurrentAgentsAllLayers: many agents append at once; every event
// gets its relation and its vector, none twice.
func TestConcurrentAgentsAllLayers(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	svc := events.New(mnemo.NewBackend(db), events.Options{}, events.Deps{Embedder: hashed.New(32)})
	const agents, per = 8, 40
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for a := range agents {
		scope := mnemo.Scope{TenantID: "t", AgentID: fmt.Sprintf("agent-%d", a)}
		wg.Go(func() {
			for i, e := range textEvents(per, ts) {
				if _, err := svc.AppendEvent(ctx, scope, e); err != nil {
					t.Errorf("%s event %d: %v", scope.AgentID, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if e, r, v := layerCounts(t, db); e != agents*per || r != agents*(per-1) || v != agents*per {
		t.Errorf("%d events, %d relations, %d vectors; want %d, %d, %d", e, r, v, agents*per, agents*(per-1), agents*per)
	}
	hits, err := svc.SearchEvents(ctx, mnemo.Scope{TenantID: "t", AgentID: "agent-3"}, events.Search{Query: "message number 7 deployment", Limit: 100})
	if err != nil || len(hits) != per {
		t.Errorf("search of one agent = %d hits, %v; want %d", len(hits), err, per)
	}
}

// TestReadsNotBlockedByWrites holds an append's transaction open, between
// its layers, while readers query events, search vectors and read the
// profile: they answer from what was committed before, and the write then
// commits.
func TestReadsNotBlockedByWrites(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	svc := events.New(mnemo.NewBackend(db), events.Options{}, events.Deps{Embedder: hashed.New(32)})
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := svc.AppendEvents(ctx, evScope, textEvents(10, ts)); err != nil {
		t.Fatal(err)
	}
	inTx, release := make(chan struct{}), make(chan struct{})
	db.failAt = func(l string) error {
		if l == "relations" {
			close(inTx)
			<-release
		}
		return nil
	}
	writeDone := make(chan error, 1)
	go func() {
		_, err := svc.AppendEvents(ctx, evScope, textEvents(500, ts.Add(time.Hour)))
		writeDone <- err
	}()
	<-inTx
	// The write holds the writer. Reads must answer anyway; a deadline
	// turns a blocked read into a failure instead of a hung test.
	rctx, cancel := testwait.Context(ctx, time.Minute)
	defer cancel()
	for i := range 20 {
		p, err := svc.QueryEvents(rctx, evScope, mnemo.EventQuery{Limit: 1000})
		if err != nil || len(p.Events) != 10 {
			t.Fatalf("read %d during the write: %d events, %v; want the 10 committed", i, len(p.Events), err)
		}
		hits, err := svc.SearchEvents(rctx, evScope, events.Search{Query: "deployment", Limit: 100})
		if err != nil || len(hits) != 10 {
			t.Fatalf("search %d during the write: %d hits, %v; want 10", i, len(hits), err)
		}
		if _, err := svc.Profile(rctx, evScope); err != nil {
			t.Fatalf("profile during the write: %v", err)
		}
	}
	close(release)
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	db.failAt = nil
	if e, _, v := layerCounts(t, db); e != 510 || v != 510 {
		t.Errorf("after the write: %d events, %d vectors; want 510", e, v)
	}
}

// TestEventVectorInt8: stored vectors keep their direction: a decoded
// vector and the cosine of the scan stay within 0.01 of the float32 ones.
func TestEventVectorInt8(t *testing.T) {
	for _, v := range [][]float32{
		{1, 0, 0},
		{0.3, -0.7, 0.01, 0.5, -0.002},
		{1e-6, 2e-6, -3e-6},
		{0, 0, 0},
	} {
		b := encodeEventVector(v).([]byte)
		if eventVectorDim(b) != len(v) {
			t.Fatalf("dim %d of %v", eventVectorDim(b), v)
		}
		d := decodeEventVector(b)
		q := []float32{0.2, -0.5, 0.1}
		q = append(q, make([]float32, max(0, len(v)-3))...)[:len(v)]
		exact, got := cosine(q, v), cosineBlob(q, vector.Norm(q), b)
		if math.Abs(exact-got) > 0.01 || math.Abs(cosine(q, d)-exact) > 0.01 {
			t.Errorf("%v: cosine %g stored, %g exact", v, got, exact)
		}
	}
	if eventVectorDim([]byte{0, 1}) != -1 || decodeEventVector([]byte{9, 0, 0, 0, 0, 1}) != nil {
		t.Error("a foreign blob was read as a vector")
	}
}

func cosine(a, b []float32) float64 {
	na, nb := vector.Norm(a), vector.Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot / (na * nb)
}
