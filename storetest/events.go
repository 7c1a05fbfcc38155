package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The EventStore part of the suite. Beyond its doc comments it pins:
//
//   - Events come back in (TS, Seq) order, Seq counting arrivals; a page's
//     Next continues after its last event, "" at the end.
//   - Ids are unique within a scope, hot and cold: a second is ECONFLICT.
//   - AppendEvents runs relate for each event before storing it, seeing the
//     events before it (its batch's too), and stores nothing when relate or
//     a relation fails.
//   - ArchiveEvents changes no read: queries, pages and GetEvent answer the
//     same before and after.
//   - An event keeps its SecurityLevel as it came, "" included (SEC-11: the
//     Service classifies one stored without a level when it reads it),
//     hot and cold.

func eventStore(t *testing.T, s mnemo.Store) mnemo.EventStore {
	es, ok := s.(mnemo.EventStore)
	if !ok {
		t.Skip("not an EventStore")
	}
	return es
}

func event(n int, typ, source string, ts time.Time) mnemo.Event {
	return mnemo.Event{ID: fmt.Sprintf("ev-%04d", n), Type: typ, Source: source, TS: ts,
		Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
}

// pages reads every event of q, page by page.
func pages(t *testing.T, es mnemo.EventStore, scope mnemo.Scope, q mnemo.EventQuery) []string {
	t.Helper()
	var out []string
	for range 10000 {
		p, err := es.QueryEvents(t.Context(), scope, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Events {
			out = append(out, e.ID)
		}
		if p.Next == "" {
			return out
		}
		q.Cursor = p.Next
	}
	t.Fatal("paging never ended")
	return nil
}

func testEvents(t *testing.T, s mnemo.Store) {
	es := eventStore(t, s)
	ctx := t.Context()
	in := []mnemo.Event{
		event(1, "b", "s2", at(3*time.Second)),
		event(2, "a", "s1", at(time.Second)),
		event(3, "a", "s2", at(2*time.Second)),
		event(4, "c", "s1", at(2*time.Second)),
	}
	out, err := es.AppendEvents(ctx, scopeAX, in, nil)
	if err != nil || len(out) != 4 {
		t.Fatalf("append: %v", err)
	}
	for i := 1; i < len(out); i++ {
		if out[i].Seq <= out[i-1].Seq || out[i].TenantID != scopeAX.TenantID {
			t.Fatalf("append returned %+v", out)
		}
	}
	if _, err := es.AppendEvents(ctx, scopeBX, []mnemo.Event{event(1, "other", "s1", at(0))}, nil); err != nil {
		t.Fatalf("the same id in another scope: %v", err)
	}
	want := []string{"ev-0002", "ev-0003", "ev-0004", "ev-0001"}
	for _, limit := range []int{1, 3, 100} {
		if got := pages(t, es, scopeAX, mnemo.EventQuery{Limit: limit}); !slices.Equal(got, want) {
			t.Fatalf("limit %d: %v, want %v", limit, got, want)
		}
	}
	from, to := at(2*time.Second), at(3*time.Second)
	if got := pages(t, es, scopeAX, mnemo.EventQuery{From: &from, To: &to, Limit: 10}); !slices.Equal(got, want[1:3]) {
		t.Fatalf("window: %v", got)
	}
	if got := pages(t, es, scopeAX, mnemo.EventQuery{Types: []string{"a", "b"}, Sources: []string{"s2"}, Limit: 10}); !slices.Equal(got, []string{"ev-0003", "ev-0001"}) {
		t.Fatalf("types and sources: %v", got)
	}
	e, err := es.GetEvent(ctx, scopeAX, "ev-0002")
	if err != nil || e.Type != "a" || e.Source != "s1" || !e.TS.Equal(at(time.Second)) || string(e.Data) != `{"n":2}` || e.Scope != scopeAX {
		t.Fatalf("get: %+v %v", e, err)
	}
	if _, err := es.GetEvent(ctx, scopeAY, "ev-0002"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("another agent's event: %v", err)
	}
	if _, err := es.AppendEvents(ctx, scopeAX, []mnemo.Event{event(9, "x", "", at(0)), event(2, "x", "", at(0))}, nil); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("an id twice: %v", err)
	}
	if _, err := es.GetEvent(ctx, scopeAX, "ev-0009"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("a failed batch stored an event: %v", err)
	}
}

func testEventRelations(t *testing.T, s mnemo.Store) {
	es := eventStore(t, s)
	ctx := t.Context()
	// relate links each event to the previous of its source, as the
	// rules' lookup finds it.
	var seen []string
	relate := func(ctx context.Context, look mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
		seen = append(seen, e.ID)
		prev, ok, err := look.LastEvent(ctx, e.Scope, e.Source, nil, e.TS)
		if err != nil || !ok {
			return nil, err
		}
		return []mnemo.Relation{{Source: prev.ID, Target: e.ID, Type: "precedes", Confidence: 1, CreatedAt: at(0)}}, nil
	}
	_, err := es.AppendEvents(ctx, scopeAX, []mnemo.Event{
		event(1, "start", "s", at(0)), event(2, "step", "s", at(time.Second)), event(3, "stop", "s", at(2*time.Second)),
		event(4, "other", "t", at(time.Second)),
	}, relate)
	if err != nil {
		t.Fatal(err)
	}
	typed := func(ctx context.Context, look mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
		prev, ok, err := look.LastEvent(ctx, e.Scope, "s", []string{"start", "other"}, e.TS)
		if err != nil || !ok {
			return nil, err
		}
		return []mnemo.Relation{{Source: prev.ID, Target: e.ID, Type: "after_start", Confidence: 0.5, CreatedAt: at(0)}}, nil
	}
	if _, err := es.AppendEvents(ctx, scopeAX, []mnemo.Event{event(5, "late", "s", at(3*time.Second))}, typed); err != nil {
		t.Fatal(err)
	}
	rel := func(q mnemo.RelationQuery) []string {
		rels, err := es.Relations(ctx, scopeAX, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rels {
			out = append(out, r.Source+">"+r.Target+":"+r.Type)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		q    mnemo.RelationQuery
		want []string
	}{
		{mnemo.RelationQuery{IDs: []string{"ev-0002"}}, []string{"ev-0001>ev-0002:precedes", "ev-0002>ev-0003:precedes"}},
		{mnemo.RelationQuery{IDs: []string{"ev-0002"}, Direction: mnemo.DirOut}, []string{"ev-0002>ev-0003:precedes"}},
		{mnemo.RelationQuery{IDs: []string{"ev-0002"}, Direction: mnemo.DirIn}, []string{"ev-0001>ev-0002:precedes"}},
		{mnemo.RelationQuery{IDs: []string{"ev-0001"}, Types: []string{"after_start"}}, []string{"ev-0001>ev-0005:after_start"}},
		{mnemo.RelationQuery{IDs: []string{"ev-0004"}}, nil},
		{mnemo.RelationQuery{IDs: []string{"ev-0001", "ev-0003"}, Direction: mnemo.DirOut}, []string{"ev-0001>ev-0002:precedes", "ev-0001>ev-0005:after_start"}},
	}
	for _, tt := range tests {
		if got := rel(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.q, got, tt.want)
		}
	}
	if rels, _ := es.Relations(ctx, scopeAY, mnemo.RelationQuery{IDs: []string{"ev-0002"}}); len(rels) != 0 {
		t.Fatalf("another agent sees relations: %v", rels)
	}

	// A failing relate, or a relation the store refuses, stores nothing.
	boom := errors.New("injected")
	for _, bad := range []func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error){
		func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error) { return nil, boom },
		func(_ context.Context, _ mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
			return []mnemo.Relation{{Source: "ev-0001", Target: e.ID, Type: "x", Confidence: 7, CreatedAt: at(0)}}, nil
		},
	} {
		if _, err := es.AppendEvents(ctx, scopeAX, []mnemo.Event{event(6, "x", "s", at(4*time.Second))}, bad); err == nil {
			t.Fatal("append with a failing relation succeeded")
		}
		if _, err := es.GetEvent(ctx, scopeAX, "ev-0006"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Fatalf("the event of a failed append was stored: %v", err)
		}
		if got := rel(mnemo.RelationQuery{IDs: []string{"ev-0006"}}); len(got) != 0 {
			t.Fatalf("relations of a failed append: %v", got)
		}
	}
	// Links between any ids; the higher confidence stays.
	for _, c := range []float64{0.4, 0.9, 0.2} {
		if err := es.AddRelations(ctx, scopeAX, []mnemo.Relation{{Source: "memory-1", Target: "ev-0004", Type: "about", Confidence: c, CreatedAt: at(0)}}); err != nil {
			t.Fatal(err)
		}
	}
	if rels, err := es.Relations(ctx, scopeAX, mnemo.RelationQuery{IDs: []string{"memory-1"}}); err != nil || len(rels) != 1 || rels[0].Confidence != 0.9 {
		t.Fatalf("link: %+v %v", rels, err)
	}
}

func testEventsCold(t *testing.T, s mnemo.Store) {
	es := eventStore(t, s)
	ctx := t.Context()
	var in []mnemo.Event
	for i := range 120 {
		// Three days, two events at each instant, two sources.
		in = append(in, event(i, fmt.Sprintf("t%d", i%3), fmt.Sprintf("s%d", i%2), at(time.Duration(i/2)*time.Hour)))
	}
	if _, err := es.AppendEvents(ctx, scopeAX, in, nil); err != nil {
		t.Fatal(err)
	}
	queries := []mnemo.EventQuery{
		{Limit: 7}, {Limit: 1000}, {Types: []string{"t1"}, Limit: 5},
		{From: ptr(at(20 * time.Hour)), To: ptr(at(50 * time.Hour)), Sources: []string{"s0"}, Limit: 4},
	}
	before := make([][]string, len(queries))
	for i, q := range queries {
		before[i] = pages(t, es, scopeAX, q)
	}
	n, err := es.ArchiveEvents(ctx, at(48*time.Hour))
	if err != nil || n != 96 {
		t.Fatalf("archived %d, %v; want 96", n, err)
	}
	for i, q := range queries {
		if got := pages(t, es, scopeAX, q); !slices.Equal(got, before[i]) {
			t.Fatalf("query %+v after archival: %v, want %v", q, got, before[i])
		}
	}
	for _, id := range []string{in[0].ID, in[100].ID} {
		e, err := es.GetEvent(ctx, scopeAX, id)
		if err != nil || e.ID != id || string(e.Data) == "" {
			t.Fatalf("get %s: %+v %v", id, e, err)
		}
	}
	if _, err := es.AppendEvents(ctx, scopeAX, []mnemo.Event{event(0, "again", "", at(0))}, nil); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("an archived id reused: %v", err)
	}
	if n, err := es.ArchiveEvents(ctx, at(48*time.Hour)); err != nil || n != 0 {
		t.Fatalf("archiving again: %d %v", n, err)
	}
}

func testEventLevels(t *testing.T, s mnemo.Store) {
	es := eventStore(t, s)
	ctx := t.Context()
	levels := []string{mnemo.SecurityRestricted, mnemo.SecurityConfidential, mnemo.SecurityPublic, ""}
	var in []mnemo.Event
	for i, l := range levels {
		e := event(i, "note", "s", at(time.Duration(i)*time.Hour))
		e.SecurityLevel = l
		in = append(in, e)
	}
	out, err := es.AppendEvents(ctx, scopeAX, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for i, e := range out {
			if e.SecurityLevel != levels[i] {
				t.Errorf("%s: append returned level %q for %s, want %q", when, e.SecurityLevel, e.ID, levels[i])
			}
		}
		p, err := es.QueryEvents(ctx, scopeAX, mnemo.EventQuery{Limit: 10})
		if err != nil || len(p.Events) != len(levels) {
			t.Fatalf("%s: query: %d events, %v", when, len(p.Events), err)
		}
		for i, e := range p.Events {
			if e.SecurityLevel != levels[i] {
				t.Errorf("%s: query read level %q for %s, want %q", when, e.SecurityLevel, e.ID, levels[i])
			}
			g, err := es.GetEvent(ctx, scopeAX, e.ID)
			if err != nil || g.SecurityLevel != levels[i] {
				t.Errorf("%s: get %s: level %q, %v; want %q", when, e.ID, g.SecurityLevel, err, levels[i])
			}
		}
	}
	check("hot")
	if n, err := es.ArchiveEvents(ctx, at(2*time.Hour)); err != nil || n != 2 {
		t.Fatalf("archived %d, %v; want 2", n, err)
	}
	check("after archiving half")
}

func ptr[T any](v T) *T { return &v }

// testPruneLinks pins PruneLinks: a link is an orphan when an end is
// neither a memory (live or archived) nor an event of the scope; a node
// read from an event's text (mnemo.NodeEntity, NodeEmotion, NodeIntent) is
// no record and never gone — its edges go with their event.
func testPruneLinks(t *testing.T, s mnemo.Store) {
	es := eventStore(t, s)
	ctx := t.Context()
	if _, err := es.AppendEvents(ctx, scopeAX, []mnemo.Event{event(1, "said", "chat", at(0))}, nil); err != nil {
		t.Fatal(err)
	}
	m := write(t, s, scopeAX, put(newMemory(scopeAX, 1, "", "alice likes tea")))[0]
	edge := func(src, dst, typ string) mnemo.Relation {
		return mnemo.Relation{Source: src, Target: dst, Type: typ, Confidence: 1, CreatedAt: at(0)}
	}
	kept := []mnemo.Relation{
		edge("ev-0001", mnemo.NodeEntity+"alice", "mentions"),
		edge("ev-0001", mnemo.NodeEmotion+"joy", "emotion"),
		edge("ev-0001", mnemo.NodeIntent+"inform", "intent"),
		edge(m.ID, "ev-0001", "about"),
	}
	orphans := []mnemo.Relation{
		edge(m.ID, "ghost", "related"),                        // a record that never was
		edge("ev-gone", mnemo.NodeEntity+"alice", "mentions"), // a text node of an event that is gone
	}
	if err := es.AddRelations(ctx, scopeAX, append(slices.Clone(kept), orphans...)); err != nil {
		t.Fatal(err)
	}
	// The same text edges in another scope, whose event is not there.
	if err := es.AddRelations(ctx, scopeAY, kept[:1]); err != nil {
		t.Fatal(err)
	}
	key := func(rs []mnemo.Relation) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.Source+">"+r.Target+":"+r.Type)
		}
		slices.Sort(out)
		return out
	}
	for _, dry := range []bool{true, false} {
		got, err := es.PruneLinks(ctx, scopeAX, dry)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(key(got), key(orphans)) {
			t.Fatalf("dry %v: pruned %v, want %v", dry, key(got), key(orphans))
		}
	}
	if got, err := es.PruneLinks(ctx, scopeAX, false); err != nil || len(got) != 0 {
		t.Fatalf("pruning again: %v %v", key(got), err)
	}
	left, err := es.Relations(ctx, scopeAX, mnemo.RelationQuery{IDs: []string{"ev-0001", m.ID, mnemo.NodeEntity + "alice"}})
	if err != nil || !slices.Equal(key(left), key(kept)) {
		t.Fatalf("left %v %v, want %v", key(left), err, key(kept))
	}
	if got, err := es.PruneLinks(ctx, scopeAY, false); err != nil || !slices.Equal(key(got), key(kept[:1])) {
		t.Fatalf("other scope: pruned %v %v", key(got), err)
	}
}
