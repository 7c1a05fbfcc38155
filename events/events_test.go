package events_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/service"
)

func allEvents(t testing.TB, svc *service.Mnemo, scope mnemo.Scope, q mnemo.EventQuery) []mnemo.Event {
	t.Helper()
	var out []mnemo.Event
	for {
		p, err := svc.QueryEvents(context.Background(), scope, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Events...)
		if p.Next == "" {
			return out
		}
		q.Cursor = p.Next
	}
}

func eventIDs(es []mnemo.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestAppendEventValidation(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{Strict: true, KnownTypes: []string{"AgentStarted", "AgentStopped"}})
	big := `"` + strings.Repeat("x", mnemo.MaxEventData) + `"`
	tests := []struct {
		name  string
		e     mnemo.Event
		code  string
		inMsg string
	}{
		{"no type", mnemo.Event{}, mnemo.EINVALID, "type is required"},
		{"unknown type in strict mode", mnemo.Event{Type: "Whatever"}, mnemo.EINVALID, `unknown event type "Whatever" in strict mode`},
		{"data not JSON", mnemo.Event{Type: "AgentStarted", Data: json.RawMessage(`{nope`)}, mnemo.EINVALID, "data is not valid JSON"},
		{"metadata not an object", mnemo.Event{Type: "AgentStarted", Metadata: json.RawMessage(`[1]`)}, mnemo.EINVALID, "metadata must be a JSON object"},
		{"data too large", mnemo.Event{Type: "AgentStarted", Data: json.RawMessage(big)}, mnemo.ETOOLARGE, "at most"},
		{"control character in source", mnemo.Event{Type: "AgentStarted", Source: "a\x00b"}, mnemo.EINVALID, "control characters"},
		{"another scope", mnemo.Event{Type: "AgentStarted", Scope: bob}, mnemo.EINVALID, "must be the request's"},
		{"id with spaces", mnemo.Event{Type: "AgentStarted", ID: "a b"}, mnemo.EINVALID, "spaces"},
		{"time out of range", mnemo.Event{Type: "AgentStarted", TS: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}, mnemo.EINVALID, "ts 3000-01-01T00:00:00Z is outside the supported range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.AppendEvent(ctx, alice, tt.e)
			if mnemo.ErrorCode(err) != tt.code || !strings.Contains(mnemo.ErrorMessage(err), tt.inMsg) {
				t.Fatalf("got %v, want %s containing %q", err, tt.code, tt.inMsg)
			}
		})
	}
	// A bad event fails its whole batch, named by index.
	_, err := svc.AppendEvents(ctx, alice, []mnemo.Event{{Type: "AgentStarted"}, {Type: "Nope"}})
	if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.HasPrefix(mnemo.ErrorMessage(err), "event 1: ") {
		t.Fatalf("batch: %v", err)
	}
	if p, _ := svc.QueryEvents(ctx, alice, mnemo.EventQuery{}); len(p.Events) != 0 {
		t.Fatalf("a failed batch stored %d events", len(p.Events))
	}
	// The same id twice is a conflict, and the first stays as it was.
	e, err := svc.AppendEvent(ctx, alice, mnemo.Event{ID: "e1", Type: "AgentStarted", Data: json.RawMessage(` {"a": 1} `)})
	if err != nil || e.ID != "e1" || string(e.Data) != `{"a":1}` || !e.TS.Equal(c.T) {
		t.Fatalf("append: %+v %v", e, err)
	}
	if _, err := svc.AppendEvent(ctx, alice, mnemo.Event{ID: "e1", Type: "AgentStopped"}); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("same id: %v", err)
	}
	if got, err := svc.GetEvent(ctx, alice, "e1"); err != nil || got.Type != "AgentStarted" {
		t.Fatalf("get: %+v %v", got, err)
	}
	// Scopes are isolated: ids are unique within one.
	if _, err := svc.GetEvent(ctx, bob, "e1"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("bob sees alice's event: %v", err)
	}
	if _, err := svc.AppendEvent(ctx, bob, mnemo.Event{ID: "e1", Type: "AgentStopped"}); err != nil {
		t.Fatalf("bob's own e1: %v", err)
	}
}

func TestQueryEventsOrderFiltersAndPaging(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	t0 := c.T
	// Appended out of time order: queries return time order, and arrival
	// order among equal times.
	in := mustAppend(t, svc, alice,
		ev("b", "s2", t0.Add(3*time.Second), ""),
		ev("a", "s1", t0.Add(1*time.Second), `{"n":1}`),
		ev("a", "s2", t0.Add(2*time.Second), ""),
		ev("c", "s1", t0.Add(2*time.Second), ""),
	)
	mustAppend(t, svc, bob, ev("a", "s1", t0, ""))
	want := []string{in[1].ID, in[2].ID, in[3].ID, in[0].ID}
	if got := eventIDs(allEvents(t, svc, alice, mnemo.EventQuery{})); !slices.Equal(got, want) {
		t.Fatalf("order: got %v, want %v", got, want)
	}
	if got := eventIDs(allEvents(t, svc, alice, mnemo.EventQuery{Limit: 1})); !slices.Equal(got, want) {
		t.Fatalf("paged by 1: got %v, want %v", got, want)
	}
	from, to := t0.Add(2*time.Second), t0.Add(3*time.Second)
	tests := []struct {
		name string
		q    mnemo.EventQuery
		want []string
	}{
		{"window", mnemo.EventQuery{From: &from, To: &to}, []string{in[2].ID, in[3].ID}},
		{"type", mnemo.EventQuery{Types: []string{"a"}}, []string{in[1].ID, in[2].ID}},
		{"source", mnemo.EventQuery{Sources: []string{"s2"}}, []string{in[2].ID, in[0].ID}},
		{"type and source", mnemo.EventQuery{Types: []string{"a", "b"}, Sources: []string{"s2"}}, []string{in[2].ID, in[0].ID}},
		{"empty window", mnemo.EventQuery{From: &from, To: &from}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eventIDs(allEvents(t, svc, alice, tt.q)); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	bad := []struct {
		name  string
		q     mnemo.EventQuery
		inMsg string
	}{
		{"backwards window", mnemo.EventQuery{From: &to, To: &from}, "time window runs backwards"},
		{"bad cursor", mnemo.EventQuery{Cursor: "zzz"}, "cursor"},
		{"limit", mnemo.EventQuery{Limit: mnemo.MaxListLimit + 1}, "limit"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.QueryEvents(ctx, alice, tt.q)
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(mnemo.ErrorMessage(err), tt.inMsg) {
				t.Fatalf("got %v, want invalid_input containing %q", err, tt.inMsg)
			}
		})
	}
}

// TestEventsColdSegments moves old events to compressed cold segments and
// reads them back through every path: queries spanning hot and cold, paged
// across the boundary, by id, replay and export. Nothing is lost, nothing
// doubled, and the lifecycle never deletes an event.
func TestEventsColdSegments(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{ColdAfter: 90 * 24 * time.Hour})
	start := c.T.Add(-200 * 24 * time.Hour)
	var batch []mnemo.Event
	for i := range 200 {
		// Several events a day, some at the same instant, two sources.
		ts := start.Add(time.Duration(i) * 24 * time.Hour).Add(time.Duration(i%3) * time.Hour)
		batch = append(batch, ev(fmt.Sprintf("t%d", i%4), fmt.Sprintf("s%d", i%2), ts, fmt.Sprintf(`{"i":%d}`, i)))
		batch = append(batch, ev("same", "s0", ts, fmt.Sprintf(`{"i":%d,"twin":true}`, i)))
	}
	in := mustAppend(t, svc, alice, batch...)
	mustAppend(t, svc, bob, ev("bob", "s0", start, ""))
	before := allEvents(t, svc, alice, mnemo.EventQuery{})
	if len(before) != len(in) {
		t.Fatalf("%d events before archival, want %d", len(before), len(in))
	}

	n, err := svc.ArchiveEvents(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 110 days of alice's older than 90 days, two events a day, and bob's.
	if n != 221 {
		t.Fatalf("archived %d, want 221", n)
	}
	if again, err := svc.ArchiveEvents(ctx, 0); err != nil || again != 0 {
		t.Fatalf("second archival moved %d, %v", again, err)
	}
	// The lifecycle of memories never touches events.
	if _, err := svc.Clear(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reset(ctx, alice, "test"); err != nil {
		t.Fatal(err)
	}

	for _, limit := range []int{0, 7, 1000} {
		after := allEvents(t, svc, alice, mnemo.EventQuery{Limit: limit})
		if !slices.EqualFunc(after, before, func(a, b mnemo.Event) bool {
			return a.ID == b.ID && a.Seq == b.Seq && a.TS.Equal(b.TS) && a.Type == b.Type && a.Source == b.Source && bytes.Equal(a.Data, b.Data)
		}) {
			t.Fatalf("limit %d: hot+cold query differs from the events before archival (%d vs %d)", limit, len(after), len(before))
		}
	}
	// A window across the boundary, filtered.
	from, to := c.T.Add(-100*24*time.Hour), c.T.Add(-80*24*time.Hour)
	var want []string
	for _, e := range before {
		if !e.TS.Before(from) && e.TS.Before(to) && e.Type == "same" {
			want = append(want, e.ID)
		}
	}
	if got := eventIDs(allEvents(t, svc, alice, mnemo.EventQuery{From: &from, To: &to, Types: []string{"same"}, Limit: 3})); !slices.Equal(got, want) || len(want) != 20 {
		t.Fatalf("window across cold and hot: got %d, want %d", len(got), len(want))
	}
	// By id, cold and hot.
	for _, e := range []mnemo.Event{in[0], in[len(in)-1]} {
		got, err := svc.GetEvent(ctx, alice, e.ID)
		if err != nil || got.Type != e.Type || string(got.Data) != string(e.Data) {
			t.Fatalf("get %s: %+v %v", e.ID, got, err)
		}
	}
	// A late event for an archived day is hot until the next archival,
	// which merges it into the day's segment; its id stays unique.
	late := mustAppend(t, svc, alice, ev("late", "s0", in[0].TS, ""))[0]
	if _, err := svc.AppendEvent(ctx, alice, mnemo.Event{ID: in[0].ID, Type: "dup"}); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("a cold event's id reused: %v", err)
	}
	if n, err := svc.ArchiveEvents(ctx, 0); err != nil || n != 1 {
		t.Fatalf("archiving the late event: %d %v", n, err)
	}
	got := allEvents(t, svc, alice, mnemo.EventQuery{Limit: 50})
	if len(got) != len(before)+1 || got[2].ID != late.ID {
		t.Fatalf("after merging the late event: %d events, third %s, want %d and %s", len(got), got[2].ID, len(before)+1, late.ID)
	}
	// Replay and export read cold events too.
	var replayed []string
	if _, err := svc.Replay(ctx, alice, events.ReplayOptions{}, events.SinkFunc(func(_ context.Context, e mnemo.Event) error {
		replayed = append(replayed, e.ID)
		return nil
	})); err != nil || !slices.Equal(replayed, eventIDs(got)) {
		t.Fatalf("replay: %d events, %v", len(replayed), err)
	}
	var buf bytes.Buffer
	if n, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{}, events.ExportJSON, &buf); err != nil || n.Events != len(got) {
		t.Fatalf("export: %+v %v", n, err)
	}
	if bobs := allEvents(t, svc, bob, mnemo.EventQuery{}); len(bobs) != 1 || bobs[0].Type != "bob" {
		t.Fatalf("bob's cold events: %+v", bobs)
	}
}

func relationsOf(t testing.TB, svc *service.Mnemo, scope mnemo.Scope, id string) map[string]string {
	t.Helper()
	rels, err := svc.Neighbours(context.Background(), scope, id, events.GraphQuery{Direction: mnemo.DirIn})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rels {
		out[r.Type] += r.Source + " "
	}
	for k, v := range out {
		out[k] = strings.TrimSpace(v)
	}
	return out
}

func TestRelationRules(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	t0 := c.T
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	es := mustAppend(t, svc, alice,
		mnemo.Event{ID: "start", Type: "AgentStarted", Source: "agent", TS: at(0)},
		mnemo.Event{ID: "child", Type: "ToolCalled", Source: "tools", TS: at(1), Data: json.RawMessage(`{"parent_id":"start"}`)},
		mnemo.Event{ID: "fail", Type: "ToolFailed", Source: "tools", TS: at(2)},
		mnemo.Event{ID: "retry", Type: "ToolRetry", Source: "tools", TS: at(3)},
		mnemo.Event{ID: "meta-child", Type: "note", Source: "other", TS: at(4), Metadata: json.RawMessage(`{"parent_id":"child"}`)},
		mnemo.Event{ID: "stop", Type: "AgentStopped", Source: "agent", TS: at(5)},
		mnemo.Event{ID: "t.start", Type: "task.started", Source: "q", TS: at(6)},
		mnemo.Event{ID: "t.end", Type: "task.completed", Source: "q", TS: at(7)},
		mnemo.Event{ID: "explicit-retry", Type: "again", Source: "z", TS: at(8), Data: json.RawMessage(`{"retry_of":"fail"}`)},
		// Late: its predecessor is by time, not by arrival.
		mnemo.Event{ID: "late", Type: "ToolCalled", Source: "tools", TS: at(1).Add(time.Millisecond)},
	)
	if len(es) != 10 {
		t.Fatal(len(es))
	}
	tests := []struct {
		id   string
		want map[string]string
	}{
		{"start", map[string]string{}},
		{"child", map[string]string{mnemo.RelParent: "start"}},
		// Relations are drawn when an event arrives: the late event
		// does not rewire the edges drawn before it came.
		{"fail", map[string]string{mnemo.RelPrecedes: "child"}},
		{"retry", map[string]string{mnemo.RelPrecedes: "fail", mnemo.RelCauses: "fail"}},
		{"meta-child", map[string]string{mnemo.RelParent: "child"}},
		{"stop", map[string]string{mnemo.RelPrecedes: "start", mnemo.RelCauses: "start"}},
		{"t.end", map[string]string{mnemo.RelPrecedes: "t.start", mnemo.RelCauses: "t.start"}},
		{"explicit-retry", map[string]string{mnemo.RelCauses: "fail"}},
		{"late", map[string]string{mnemo.RelPrecedes: "child"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got := relationsOf(t, svc, alice, tt.id)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("relations into %s: got %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

// TestAppendEventsAtomic injects failures between L1 and L2: an event and
// its relations commit together or not at all, the whole batch with them.
func TestAppendEventsAtomic(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, db := newEventService(t, c, events.Options{})
	first := mustAppend(t, svc, alice, ev("AgentStarted", "a", c.T, ""))[0]
	boom := errors.New("injected failure")
	tests := []struct {
		name   string
		relate func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error)
	}{
		{"relation extraction fails on the second event", func(_ context.Context, _ mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
			if e.ID == "b" {
				return nil, boom
			}
			return []mnemo.Relation{{Source: first.ID, Target: e.ID, Type: "x", Confidence: 1, CreatedAt: c.T}}, nil
		}},
		{"relation write fails after its event was written", func(_ context.Context, _ mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
			conf := 1.0
			if e.ID == "b" {
				conf = 2 // refused by the store
			}
			return []mnemo.Relation{{Source: first.ID, Target: e.ID, Type: "x", Confidence: conf, CreatedAt: c.T}}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.AppendEvents(ctx, alice, []mnemo.Event{
				{ID: "a", Type: "AgentStopped", Source: "a", TS: c.T.Add(time.Second)},
				{ID: "b", Type: "AgentStopped", Source: "a", TS: c.T.Add(2 * time.Second)},
			}, tt.relate)
			if err == nil {
				t.Fatal("append succeeded")
			}
			if got := allEvents(t, svc, alice, mnemo.EventQuery{}); len(got) != 1 {
				t.Fatalf("%d events after a failed append, want 1", len(got))
			}
			if rels := relationsOf(t, svc, alice, "a"); len(rels) != 0 {
				t.Fatalf("relations of an event never stored: %v", rels)
			}
			if rels, _ := svc.Neighbours(ctx, alice, first.ID, events.GraphQuery{}); len(rels) != 0 {
				t.Fatalf("relations left behind: %v", rels)
			}
		})
	}
}

func TestEventGraph(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{Rules: &events.RelationRules{}}) // no rules: the test draws the graph
	var es []mnemo.Event
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		es = append(es, mnemo.Event{ID: id, Type: "x"})
	}
	mustAppend(t, svc, alice, es...)
	m, err := svc.Remember(ctx, alice, draft("the deploy on friday failed because of a missing secret"))
	if err != nil {
		t.Fatal(err)
	}
	// a -> b -> c -> d (next), a -> e (other), d <- f (next)
	for _, r := range []mnemo.Relation{
		{Source: "a", Target: "b", Type: "next"}, {Source: "b", Target: "c", Type: "next"},
		{Source: "c", Target: "d", Type: "next"}, {Source: "a", Target: "e", Type: "other"},
		{Source: "f", Target: "d", Type: "next"}, {Source: m.ID, Target: "e"},
	} {
		if _, err := svc.Link(ctx, alice, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Link(ctx, alice, mnemo.Relation{Source: "a", Target: "nope"}); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("link to nothing: %v", err)
	}
	if _, err := svc.Link(ctx, bob, mnemo.Relation{Source: "a", Target: "b"}); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("link across scopes: %v", err)
	}
	nb := func(id string, q events.GraphQuery) []string {
		rels, err := svc.Neighbours(ctx, alice, id, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rels {
			out = append(out, r.Source+">"+r.Target)
		}
		slices.Sort(out)
		return out
	}
	if got := nb("a", events.GraphQuery{}); fmt.Sprint(got) != "[a>b a>e]" {
		t.Fatalf("neighbours of a: %v", got)
	}
	if got := nb("a", events.GraphQuery{Types: []string{"other"}}); fmt.Sprint(got) != "[a>e]" {
		t.Fatalf("neighbours of a by type: %v", got)
	}
	if got := nb("e", events.GraphQuery{Direction: mnemo.DirIn}); fmt.Sprint(got) != fmt.Sprint([]string{m.ID + ">e", "a>e"}) && fmt.Sprint(got) != fmt.Sprint([]string{"a>e", m.ID + ">e"}) {
		t.Fatalf("into e: %v", got)
	}
	if got := nb("e", events.GraphQuery{Direction: mnemo.DirOut}); len(got) != 0 {
		t.Fatalf("out of e: %v", got)
	}

	g, err := svc.Traverse(ctx, alice, "a", events.GraphQuery{Direction: mnemo.DirOut, Types: []string{"next"}, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(g.Nodes) != "[{a 0} {b 1} {c 2}]" || len(g.Edges) != 2 {
		t.Fatalf("traverse: %+v", g)
	}
	g, err = svc.Traverse(ctx, alice, "a", events.GraphQuery{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 6 { // a, b, e, c, the memory, d
		t.Fatalf("traverse both ways, depth 3: %+v", g.Nodes)
	}

	path := func(from, to string, q events.GraphQuery) (string, error) {
		rels, err := svc.ShortestPath(ctx, alice, from, to, q)
		var s []string
		for _, r := range rels {
			s = append(s, r.Source+">"+r.Target)
		}
		return strings.Join(s, " "), err
	}
	if p, err := path("a", "d", events.GraphQuery{Direction: mnemo.DirOut}); err != nil || p != "a>b b>c c>d" {
		t.Fatalf("path a-d: %q %v", p, err)
	}
	if p, err := path("f", "a", events.GraphQuery{}); err != nil || p != "f>d c>d b>c a>b" {
		t.Fatalf("path f-a: %q %v", p, err)
	}
	if p, err := path("b", "e", events.GraphQuery{}); err != nil || p != "a>b a>e" {
		t.Fatalf("path b-e: %q %v", p, err)
	}
	if _, err := path("f", "a", events.GraphQuery{Direction: mnemo.DirOut}); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("no path along the arrows: %v", err)
	}
	if _, err := path("a", "d", events.GraphQuery{Depth: 2}); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("path longer than depth: %v", err)
	}
	if p, err := path(m.ID, "b", events.GraphQuery{}); err != nil || p != m.ID+">e a>e a>b" {
		t.Fatalf("memory to event: %q %v", p, err)
	}
	if _, err := svc.Traverse(ctx, alice, "a", events.GraphQuery{Direction: "up"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("bad direction: %v", err)
	}
}

func TestReplay(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	t0 := c.T.Add(-time.Hour)
	in := mustAppend(t, svc, alice,
		ev("a", "s", t0, ""), ev("b", "s", t0.Add(time.Millisecond), ""),
		ev("c", "s", t0.Add(2*time.Millisecond), ""), ev("d", "s", t0.Add(time.Hour), ""))

	var got []string
	collect := events.SinkFunc(func(_ context.Context, e mnemo.Event) error { got = append(got, e.ID); return nil })
	res, err := svc.Replay(ctx, alice, events.ReplayOptions{Speed: 0}, collect)
	if err != nil || res.Published != 4 || !slices.Equal(got, eventIDs(in)) {
		t.Fatalf("replay: %+v %v %v", res, got, err)
	}

	// At real speed the hour between the third and fourth event is
	// waited for; cancelling stops the replay there, and Next resumes it.
	got = nil
	cctx, cancel := context.WithCancel(ctx)
	sink := events.SinkFunc(func(_ context.Context, e mnemo.Event) error {
		got = append(got, e.ID)
		if len(got) == 3 {
			cancel()
		}
		return nil
	})
	res, err = svc.Replay(cctx, alice, events.ReplayOptions{Speed: 1}, sink)
	if !errors.Is(err, context.Canceled) || res.Published != 3 {
		t.Fatalf("cancelled replay: %+v %v", res, err)
	}
	got = nil
	res, err = svc.Replay(ctx, alice, events.ReplayOptions{EventQuery: mnemo.EventQuery{Cursor: res.Next}, Speed: 1e9}, collect)
	if err != nil || !slices.Equal(got, eventIDs(in[3:])) {
		t.Fatalf("resumed replay: %v %v", got, err)
	}

	// A sink that fails stops the replay with its error.
	failing := events.SinkFunc(func(context.Context, mnemo.Event) error { return mnemo.Errorf(mnemo.EUNAVAILABLE, "down") })
	if res, err := svc.Replay(ctx, alice, events.ReplayOptions{}, failing); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE || res.Published != 0 {
		t.Fatalf("failing sink: %+v %v", res, err)
	}
	if _, err := svc.Replay(ctx, alice, events.ReplayOptions{Speed: -1}, collect); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("negative speed: %v", err)
	}
}

// TestReplayNeverBlocksWriters: while a sink hangs on an event, appends and
// queries go on.
func TestReplayNeverBlocksWriters(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	var batch []mnemo.Event
	for i := range 600 { // more than one page of the replay's reads
		batch = append(batch, ev("x", "s", c.T.Add(time.Duration(i)), ""))
	}
	mustAppend(t, svc, alice, batch...)
	hung := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		n := 0
		_, err := svc.Replay(ctx, alice, events.ReplayOptions{}, events.SinkFunc(func(ctx context.Context, e mnemo.Event) error {
			if n++; n == 300 {
				close(hung)
				<-release
			}
			return nil
		}))
		done <- err
	}()
	<-hung
	for i := range 50 {
		mustAppend(t, svc, alice, ev("y", "w", c.T.Add(time.Hour+time.Duration(i)), ""))
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestExportEvents(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	mustAppend(t, svc, alice,
		mnemo.Event{ID: "s", Type: "AgentStarted", Source: "a", TS: c.T, Data: json.RawMessage(`{"x":"a,b\"c"}`)},
		mnemo.Event{ID: "e", Type: "AgentStopped", Source: "a", TS: c.T.Add(time.Second), Metadata: json.RawMessage(`{"k":1}`)})

	var buf bytes.Buffer
	n, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{}, events.ExportJSON, &buf)
	if err != nil || n.Events != 2 || n.Relations != 2 {
		t.Fatalf("export: %+v %v", n, err)
	}
	var doc struct {
		Format   string `json:"format"`
		TenantID string `json:"tenant_id"`
		Layers   map[string][]json.RawMessage
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, buf.String())
	}
	if doc.Format != events.ExportFormat || doc.TenantID != "t1" || len(doc.Layers["l1_events"]) != 2 || len(doc.Layers["l2_relations"]) != 2 {
		t.Fatalf("export: %s", buf.String())
	}
	for _, l := range []string{"l3_embeddings", "l4_summaries", "l5_capabilities"} {
		if v, ok := doc.Layers[l]; !ok || v == nil {
			t.Fatalf("layer %s missing: %s", l, buf.String())
		}
	}

	buf.Reset()
	if _, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{}, events.ExportCSV, &buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[0][0] != "layer" || rows[1][0] != "L1" || rows[1][7] != `{"x":"a,b\"c"}` || rows[2][8] != `{"k":1}` || rows[3][0] != "L2" {
		t.Fatalf("csv: %q", rows)
	}
	if _, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{}, "xml", &buf); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("bad format: %v", err)
	}
}

// TestConcurrentEventWriters: many agents append at once; every event is
// stored once, each source's temporal chain is complete, and readers read
// meanwhile.
func TestConcurrentEventWriters(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	const agents, each = 6, 40
	var wg sync.WaitGroup
	errs := make(chan error, agents*2)
	for a := range agents {
		scope := mnemo.Scope{TenantID: "t1", AgentID: fmt.Sprintf("agent%d", a)}
		wg.Go(func() {
			for i := range each {
				if _, err := svc.AppendEvent(ctx, scope, ev("step", "s", c.T.Add(time.Duration(i)*time.Second), "")); err != nil {
					errs <- err
					return
				}
			}
		})
		wg.Go(func() {
			for range each {
				if _, err := svc.QueryEvents(ctx, scope, mnemo.EventQuery{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for a := range agents {
		scope := mnemo.Scope{TenantID: "t1", AgentID: fmt.Sprintf("agent%d", a)}
		es := allEvents(t, svc, scope, mnemo.EventQuery{})
		if len(es) != each {
			t.Fatalf("%s: %d events, want %d", scope.AgentID, len(es), each)
		}
		for i := 1; i < len(es); i++ {
			if got := relationsOf(t, svc, scope, es[i].ID)[mnemo.RelPrecedes]; got != es[i-1].ID {
				t.Fatalf("%s: event %d preceded by %q, want %s", scope.AgentID, i, got, es[i-1].ID)
			}
		}
	}
}

// TestLinkFirst links two memories as the first thing a fresh store does:
// the relation statement is prepared outside the write transaction.
func TestLinkFirst(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	a, err := svc.Remember(ctx, alice, draft("the quarterly report is due on friday"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Remember(ctx, alice, draft("the finance team reviews every report"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.Link(ctx, alice, mnemo.Relation{Source: a.ID, Target: b.ID, Type: "about"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-testwait.After(t, 30*time.Second):
		t.Fatal("Link never returned: the writer deadlocked")
	}
	if rels, err := svc.Neighbours(ctx, alice, b.ID, events.GraphQuery{}); err != nil || len(rels) != 1 || rels[0].Type != "about" {
		t.Fatalf("%+v %v", rels, err)
	}
}
