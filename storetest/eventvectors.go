package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The EventVectorStore part of the suite (L3: EVT-8, EVT-15). Beyond its doc
// comments it pins:
//
//   - AppendEvents stores Event.Vectors in the append's transaction; reads
//     of events leave them out.
//   - A search compares only vectors of its model, filters by window, type,
//     source and modality, returns each event once (its best vector) and
//     never another scope's.
//   - A row without a vector waits (PendingEventVectors) until
//     SetEventVectors fills it, and is searched only then.
//   - PruneEventVectors drops old vectors found fewer than minAccess times
//     (TouchEventVectors counts) and no event.

func testEventVectors(t *testing.T, s mnemo.Store) {
	vs, ok := s.(mnemo.EventVectorStore)
	if !ok {
		t.Skip("not an EventVectorStore")
	}
	if vi, ok := s.(VectorIndexer); ok && vi.VectorIndex() != nil {
		testNoEventVectorIndex(t, vs)
		return
	}
	ctx := t.Context()
	scope := mnemo.Scope{TenantID: "t", AgentID: "vec"}
	other := mnemo.Scope{TenantID: "t", AgentID: "vec-other"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	vec := func(mod, model string, v ...float32) mnemo.EventVector {
		return mnemo.EventVector{Modality: mod, Model: model, Vector: v, Input: mod + " input"}
	}
	evs := []mnemo.Event{
		{ID: "v1", Type: "note", Source: "chat", TS: t0, Vectors: []mnemo.EventVector{vec("text", "m", 1, 0, 0)}},
		{ID: "v2", Type: "photo", Source: "cam", TS: t0.Add(time.Hour), Vectors: []mnemo.EventVector{vec("image", "m", 0, 1, 0), vec("text", "m", 0.9, 0.1, 0)}},
		{ID: "v3", Type: "note", Source: "chat", TS: t0.Add(2 * time.Hour), Vectors: []mnemo.EventVector{vec("text", "other-model", 1, 0, 0)}},
		{ID: "v4", Type: "note", Source: "chat", TS: t0.Add(3 * time.Hour), Vectors: []mnemo.EventVector{{Modality: "text", Model: "m", Input: "later"}}},
	}
	out, err := vs.AppendEvents(ctx, scope, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out[1].Vectors != nil {
		t.Error("AppendEvents returned the vectors")
	}
	if _, err := vs.AppendEvents(ctx, other, []mnemo.Event{{ID: "o1", Type: "note", TS: t0, Vectors: []mnemo.EventVector{vec("text", "m", 1, 0, 0)}}}, nil); err != nil {
		t.Fatal(err)
	}
	if e, err := vs.GetEvent(ctx, scope, "v2"); err != nil || e.Vectors != nil {
		t.Errorf("GetEvent = %+v, %v; want the event without vectors", e, err)
	}
	search := func(q mnemo.EventVectorQuery) []string {
		t.Helper()
		hits, err := vs.SearchEventVectors(ctx, scope, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.EventID+":"+h.Modality)
		}
		return ids
	}
	q := []float32{1, 0, 0}
	for _, tc := range []struct {
		name string
		q    mnemo.EventVectorQuery
		want []string
	}{
		{"model", mnemo.EventVectorQuery{Vector: q, Model: "m", Limit: 10}, []string{"v1:text", "v2:text"}},
		{"other model", mnemo.EventVectorQuery{Vector: q, Model: "other-model", Limit: 10}, []string{"v3:text"}},
		{"modality", mnemo.EventVectorQuery{Vector: q, Model: "m", Modalities: []string{"image"}, Limit: 10}, []string{"v2:image"}},
		{"window", mnemo.EventVectorQuery{Vector: q, Model: "m", From: new(t0.Add(time.Minute)), Limit: 10}, []string{"v2:text"}},
		{"type", mnemo.EventVectorQuery{Vector: q, Model: "m", Types: []string{"photo"}, Limit: 10}, []string{"v2:text"}},
		{"source", mnemo.EventVectorQuery{Vector: q, Model: "m", Sources: []string{"chat"}, Limit: 10}, []string{"v1:text"}},
		{"limit", mnemo.EventVectorQuery{Vector: q, Model: "m", Limit: 1}, []string{"v1:text"}},
	} {
		if got := search(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
	models, err := vs.EventVectorModels(ctx, scope)
	if err != nil || !slices.Equal(models["text"], []string{"m", "other-model"}) || !slices.Equal(models["image"], []string{"m"}) {
		t.Errorf("EventVectorModels = %v, %v", models, err)
	}
	// The waiting row, then filled.
	jobs, err := vs.PendingEventVectors(ctx, 10)
	if err != nil || len(jobs) != 1 || jobs[0].EventID != "v4" || jobs[0].Input != "later" || jobs[0].Scope != scope {
		t.Fatalf("PendingEventVectors = %+v, %v", jobs, err)
	}
	if err := vs.SetEventVectors(ctx, jobs, [][]float32{{0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if jobs, _ := vs.PendingEventVectors(ctx, 10); len(jobs) != 0 {
		t.Errorf("still pending: %+v", jobs)
	}
	if got := search(mnemo.EventVectorQuery{Vector: []float32{0, 0, 1}, Model: "m", Limit: 1}); !slices.Equal(got, []string{"v4:text"}) {
		t.Errorf("filled vector: %v", got)
	}
	stored, err := vs.EventVectorsOf(ctx, scope, []string{"v2", "o1"})
	if err != nil || len(stored) != 2 || stored[0].Modality != "image" || stored[1].Modality != "text" {
		t.Errorf("EventVectorsOf = %+v, %v", stored, err)
	}
	// Cleanup: v1 found twice stays at minAccess 2; the rest before v4 go.
	for range 2 {
		if err := vs.TouchEventVectors(ctx, scope, []string{"v1"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	n, err := vs.PruneEventVectors(ctx, t0.Add(150*time.Minute), 2)
	if err != nil || n != 3+1 { // v2's two, v3's, and o1's (every scope)
		t.Errorf("PruneEventVectors = %d, %v; want 4", n, err)
	}
	if got := search(mnemo.EventVectorQuery{Vector: q, Model: "m", Limit: 10}); !slices.Equal(got, []string{"v1:text", "v4:text"}) {
		t.Errorf("after pruning: %v", got)
	}
	if e, err := vs.GetEvent(ctx, scope, "v2"); err != nil || e.ID != "v2" {
		t.Errorf("pruning took the event: %v", err)
	}
}

// testNoEventVectorIndex checks an EventVectorStore without a vector index
// (postgres without pgvector, PG-2): events are stored all the same,
// without their vectors; searches, the embedding queue and cleanup are
// EUNAVAILABLE, and no vector is returned.
func testNoEventVectorIndex(t *testing.T, vs mnemo.EventVectorStore) {
	ctx := t.Context()
	scope := mnemo.Scope{TenantID: "t", AgentID: "vec"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := mnemo.Event{ID: "v1", Type: "note", Source: "chat", TS: t0, Vectors: []mnemo.EventVector{
		{Modality: "text", Model: "m", Vector: []float32{1, 0, 0}, Input: "text"}, {Modality: "image", Model: "m", Input: "later"}}}
	if _, err := vs.AppendEvents(ctx, scope, []mnemo.Event{e}, nil); err != nil {
		t.Fatalf("an event with vectors, without a vector index: %v", err)
	}
	if got, err := vs.GetEvent(ctx, scope, "v1"); err != nil || got.ID != "v1" || got.Vectors != nil {
		t.Errorf("GetEvent = %+v, %v", got, err)
	}
	_, err := vs.SearchEventVectors(ctx, scope, mnemo.EventVectorQuery{Vector: []float32{1, 0, 0}, Model: "m", Limit: 1})
	wantCode(t, "SearchEventVectors without a vector index", err, mnemo.EUNAVAILABLE)
	_, err = vs.EventVectorModels(ctx, scope)
	wantCode(t, "EventVectorModels without a vector index", err, mnemo.EUNAVAILABLE)
	_, err = vs.PendingEventVectors(ctx, 10)
	wantCode(t, "PendingEventVectors without a vector index", err, mnemo.EUNAVAILABLE)
	_, err = vs.PruneEventVectors(ctx, t0.AddDate(1, 0, 0), 3)
	wantCode(t, "PruneEventVectors without a vector index", err, mnemo.EUNAVAILABLE)
	if got, err := vs.EventVectorsOf(ctx, scope, []string{"v1"}); err != nil || len(got) != 0 {
		t.Errorf("EventVectorsOf without a vector index = %+v, %v; want none", got, err)
	}
}
