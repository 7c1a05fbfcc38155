package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// linkWorld is a small graph around the memory at /proj/a:
//
//	p1 -related 0.9-> m1 -about-> m2 -about-> m3
//	p1 -related 0.5-> e1 (an event)
//	p1 -> archived, p1 -> expired (both skipped), archived -> behind
//	p1 -> ghost (neither a memory nor an event)
type linkWorld struct {
	svc                                  *service.Mnemo
	db                                   *sqlite.DB
	clock                                *clock
	p1, m1, m2, m3, e1, archived, behind string
	expired, bobMemory                   string
}

func newLinkWorld(t *testing.T) *linkWorld {
	t.Helper()
	ctx := context.Background()
	c := newClock()
	svc, db := newEventService(t, c, events.Options{})
	w := &linkWorld{svc: svc, db: db, clock: c}
	remember := func(sc mnemo.Scope, key, content string, expires *time.Time) string {
		d := draft(content)
		d.Key = key
		d.ExpiresAt = expires
		m, err := svc.Remember(ctx, sc, d)
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	soon := c.Now().Add(time.Hour)
	w.p1 = remember(alice, "/proj/a", "project alpha ships in may", nil)
	w.m1 = remember(alice, "", "alpha depends on the billing service", nil)
	w.m2 = remember(alice, "", "the billing service is owned by carol", nil)
	w.m3 = remember(alice, "", "carol is on leave in june", nil)
	w.archived = remember(alice, "", "an old plan for alpha", nil)
	w.behind = remember(alice, "", "reached only through the archived plan", nil)
	w.expired = remember(alice, "", "alpha demo tomorrow", &soon)
	w.bobMemory = remember(bob, "", "bob's own note about alpha", nil)
	w.e1 = mustAppend(t, svc, alice, ev("deploy", "ci", c.Now(), `{"text":"alpha deployed"}`))[0].ID
	link := func(from, to, typ string, conf float64) {
		if _, err := svc.Link(ctx, alice, mnemo.Relation{Source: from, Target: to, Type: typ, Confidence: conf}); err != nil {
			t.Fatalf("link %s %s: %v", from, to, err)
		}
	}
	link(w.p1, w.m1, "related", 0.9)
	link(w.m1, w.m2, "about", 1)
	link(w.m3, w.m2, "about", 1) // walked against its direction
	link(w.p1, w.e1, "related", 0.5)
	link(w.p1, w.archived, "related", 1)
	link(w.archived, w.behind, "related", 1)
	link(w.p1, w.expired, "related", 1)
	// An orphan link, as a store may hold after a crash or an older
	// version: its far end is nothing.
	if err := db.AddRelations(ctx, alice, []mnemo.Relation{{Source: w.p1, Target: "ghost", Type: "related", Confidence: 1, CreatedAt: c.Now()}}); err != nil {
		t.Fatal(err)
	}
	// Bob's graph, with alice's ids: never walked from alice's scope.
	if err := db.AddRelations(ctx, bob, []mnemo.Relation{{Source: w.p1, Target: w.bobMemory, Type: "related", Confidence: 1, CreatedAt: c.Now()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SoftForget(ctx, alice, []string{w.archived}, nil, "test"); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Hour) // the expired memory expires
	return w
}

func linkedIDs(ls []memory.Linked) []string {
	out := []string{}
	for i := range ls {
		out = append(out, ls[i].ID())
	}
	return out
}

func TestRecallPathTraverseHops(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	for _, tc := range []struct {
		name        string
		limit, hops int
		want        []string
		code        string
	}{
		{name: "no expansion", hops: 0, want: []string{}},
		{name: "one hop: nearest, surest first; archived, expired, ghost and bob's left out", hops: 1, want: []string{w.m1, w.e1}},
		{name: "two hops", hops: 2, want: []string{w.m1, w.e1, w.m2}},
		{name: "three hops, against a link's direction too", hops: 3, want: []string{w.m1, w.e1, w.m2, w.m3}},
		{name: "the limit counts direct hits first", limit: 2, hops: 3, want: []string{w.m1}},
		{name: "a full page of direct hits leaves no room", limit: 1, hops: 3, want: []string{}},
		{name: "too many hops", hops: memory.MaxTraverseHops + 1, code: mnemo.EINVALID},
		{name: "negative hops", hops: -1, code: mnemo.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := w.svc.RecallPathLinked(ctx, alice, "/proj", tc.limit, tc.hops)
			if tc.code != "" {
				if mnemo.ErrorCode(err) != tc.code {
					t.Fatalf("err %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Memories) != 1 || res.Memories[0].ID != w.p1 || res.Prefix != "/proj" {
				t.Fatalf("direct hits %+v", res)
			}
			if got := linkedIDs(res.Linked); !slices.Equal(got, tc.want) {
				t.Fatalf("linked %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExpandLinksMarksTheWay(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	ls, err := w.svc.ExpandLinks(ctx, alice, []string{w.p1}, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]memory.Linked{}
	for _, l := range ls {
		byID[l.ID()] = l
	}
	for _, tc := range []struct {
		id, via, rel string
		hops         int
		conf         float64
		event        bool
	}{
		{id: w.m1, via: w.p1, rel: "related", hops: 1, conf: 0.9},
		{id: w.e1, via: w.p1, rel: "related", hops: 1, conf: 0.5, event: true},
		{id: w.m2, via: w.m1, rel: "about", hops: 2, conf: 0.9},
		{id: w.m3, via: w.m2, rel: "about", hops: 3, conf: 0.9},
	} {
		l, ok := byID[tc.id]
		if !ok {
			t.Fatalf("%s not reached: %+v", tc.id, ls)
		}
		if l.From != w.p1 || l.Via != tc.via || l.Relation != tc.rel || l.Hops != tc.hops || l.Confidence != tc.conf || (l.Event != nil) != tc.event || (l.Memory != nil) == tc.event {
			t.Errorf("%s: %+v", tc.id, l)
		}
		if !strings.Contains(l.Reason, tc.rel) || !strings.Contains(l.Reason, w.p1) {
			t.Errorf("reason %q says neither the relation nor the hit", l.Reason)
		}
	}
	for _, id := range []string{w.archived, w.behind, w.expired, w.bobMemory, "ghost", w.p1} {
		if _, ok := byID[id]; ok {
			t.Errorf("%s returned", id)
		}
	}
	// Bob walks his own graph only.
	ls, err = w.svc.ExpandLinks(ctx, bob, []string{w.p1}, 1, 10)
	if err != nil || !slices.Equal(linkedIDs(ls), []string{w.bobMemory}) {
		t.Fatalf("bob: %v %v", linkedIDs(ls), err)
	}
}

func TestLinkErrors(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	for _, tc := range []struct {
		name string
		r    mnemo.Relation
		code string
	}{
		{"unknown id", mnemo.Relation{Source: w.p1, Target: "nope"}, mnemo.ENOTFOUND},
		{"another agent's memory", mnemo.Relation{Source: w.p1, Target: w.bobMemory}, mnemo.ENOTFOUND},
		{"self link", mnemo.Relation{Source: w.p1, Target: w.p1}, mnemo.EINVALID},
		{"no target", mnemo.Relation{Source: w.p1}, mnemo.EINVALID},
		{"confidence over 1", mnemo.Relation{Source: w.p1, Target: w.m3, Confidence: 2}, mnemo.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.svc.Link(ctx, alice, tc.r); mnemo.ErrorCode(err) != tc.code {
				t.Fatalf("err %v, want %s", err, tc.code)
			}
		})
	}
}

func TestLinksLifecycle(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	// A hard forget takes the memory's links with it.
	if _, err := w.svc.Forget(ctx, alice, []string{w.m1}, nil); err != nil {
		t.Fatal(err)
	}
	if rels, err := w.svc.Neighbours(ctx, alice, w.m1, events.GraphQuery{}); err != nil || len(rels) != 0 {
		t.Fatalf("links of a forgotten memory: %+v %v", rels, err)
	}
	if rels, err := w.svc.Neighbours(ctx, alice, w.m2, events.GraphQuery{}); err != nil || len(rels) != 1 {
		t.Fatalf("m2 keeps its link to m3: %+v %v", rels, err)
	}
	// Govern finds the one orphan left (the ghost); a dry run keeps it.
	for _, dry := range []bool{true, false} {
		rep, err := w.svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseGovern}, DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.OrphanLinks) != 1 || rep.OrphanLinks[0].Target != "ghost" || !strings.Contains(rep.Text, "Orphan links removed") {
			t.Fatalf("dry %v: %+v\n%s", dry, rep.OrphanLinks, rep.Text)
		}
	}
	rep, err := w.svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseGovern}})
	if err != nil || len(rep.OrphanLinks) != 0 {
		t.Fatalf("orphans after pruning: %+v %v", rep.OrphanLinks, err)
	}
	// Archived memories and events keep their links; bob's are untouched.
	if rels, err := w.svc.Neighbours(ctx, alice, w.archived, events.GraphQuery{}); err != nil || len(rels) != 2 {
		t.Fatalf("archived memory's links: %+v %v", rels, err)
	}
	if rels, err := w.svc.Neighbours(ctx, bob, w.p1, events.GraphQuery{}); err != nil || len(rels) != 1 {
		t.Fatalf("bob's link: %+v %v", rels, err)
	}
}

func TestRecallTraverseHops(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	for _, tc := range []struct {
		name        string
		limit, hops int
		want        []string
	}{
		{name: "off", limit: 5, hops: 0, want: nil},
		{name: "one hop", limit: 5, hops: 1, want: []string{w.m1, w.e1}},
		{name: "within the limit", limit: 2, hops: 2, want: []string{w.m1}},
		{name: "three hops", limit: 10, hops: 3, want: []string{w.m1, w.e1, w.m2, w.m3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := w.svc.Recall(ctx, alice, memory.Query{Text: "ships", Limit: tc.limit, TraverseHops: tc.hops})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 1 || res.Results[0].ID != w.p1 {
				t.Fatalf("results %+v", res.Results)
			}
			if got := linkedIDs(res.Linked); len(tc.want) > 0 && !slices.Equal(got, tc.want) || len(tc.want) == 0 && len(got) > 0 {
				t.Fatalf("linked %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := w.svc.Recall(ctx, alice, memory.Query{Text: "ships", TraverseHops: 4}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("hops 4: %v", err)
	}
	// Linked memories are not counted as recalled.
	m, err := w.svc.Get(ctx, alice, w.m1)
	if err != nil || m.AccessCount != 0 {
		t.Fatalf("m1 access count %d, %v", m.AccessCount, err)
	}
}

// Events moved to cold segments are still events: their links are walked
// and never pruned as orphans.
func TestLinksToColdEvents(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	w.clock.Advance(100 * 24 * time.Hour)
	if n, err := w.svc.ArchiveEvents(ctx, 0); err != nil || n != 1 {
		t.Fatalf("archived %d, %v", n, err)
	}
	ls, err := w.svc.ExpandLinks(ctx, alice, []string{w.p1}, 1, 10)
	if err != nil || !slices.Contains(linkedIDs(ls), w.e1) {
		t.Fatalf("cold event not reached: %v %v", linkedIDs(ls), err)
	}
	rep, err := w.svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseGovern}})
	if err != nil || len(rep.OrphanLinks) != 1 || rep.OrphanLinks[0].Target != "ghost" {
		t.Fatalf("orphans: %+v %v", rep.OrphanLinks, err)
	}
	if rels, err := w.svc.Neighbours(ctx, alice, w.e1, events.GraphQuery{}); err != nil || len(rels) != 1 {
		t.Fatalf("the cold event's link: %+v %v", rels, err)
	}
}

// Clearing an agent takes every link of its memories, and leaves the links
// between its events.
func TestClearDropsMemoryLinks(t *testing.T) {
	ctx := context.Background()
	w := newLinkWorld(t)
	e2 := mustAppend(t, w.svc, alice, ev("deploy", "ci", w.clock.Now(), ""))[0].ID
	if _, err := w.svc.Link(ctx, alice, mnemo.Relation{Source: w.e1, Target: e2}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.Clear(ctx, alice); err != nil {
		t.Fatal(err)
	}
	rels, err := w.svc.Neighbours(ctx, alice, w.e1, events.GraphQuery{})
	if err != nil || len(rels) != 2 { // related, and the rules' precedes
		t.Fatalf("e1's links after clear: %+v %v", rels, err)
	}
	for _, r := range rels {
		if r.Source != w.e1 || r.Target != e2 {
			t.Fatalf("a link of a cleared memory is left: %+v", r)
		}
	}
	rep, err := w.svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseGovern}, DryRun: true})
	if err != nil || len(rep.OrphanLinks) != 0 {
		t.Fatalf("orphans after clear: %+v %v", rep.OrphanLinks, err)
	}
}

// Reflect's govern phase (scheduled ones too) keeps the edges read from
// events' text — their entity, emotion and intent nodes are no records — and
// prunes only the links to records that are gone.
func TestReflectKeepsTextRelations(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, db := newEventService(t, c, events.Options{TextRelations: events.TextRelationOptions{On: true}})
	es := mustAppend(t, svc, alice, ev("user.message", "chat", c.Now(), `{"text":"I'm so happy: please plan my trip to Berlin"}`))
	if err := svc.WaitEventRelations(ctx); err != nil {
		t.Fatal(err)
	}
	text := func() []string {
		rels, err := svc.Neighbours(ctx, alice, es[0].ID, events.GraphQuery{Direction: mnemo.DirOut, Types: []string{events.RelMentions, events.RelEmotion, events.RelIntent}})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, r := range rels {
			out = append(out, r.Target)
		}
		slices.Sort(out)
		return out
	}
	before := text()
	if !slices.Contains(before, "entity:Berlin") || len(before) < 3 {
		t.Fatalf("text relations %v", before)
	}
	if err := db.AddRelations(ctx, alice, []mnemo.Relation{{Source: es[0].ID, Target: "ghost", Type: "related", Confidence: 1, CreatedAt: c.Now()}}); err != nil {
		t.Fatal(err)
	}
	rep, err := svc.Reflect(ctx, alice, lifecycle.ReflectOptions{Phases: []string{lifecycle.PhaseGovern}})
	if err != nil || len(rep.OrphanLinks) != 1 || rep.OrphanLinks[0].Target != "ghost" {
		t.Fatalf("orphans: %+v %v", rep.OrphanLinks, err)
	}
	if after := text(); !slices.Equal(after, before) {
		t.Fatalf("text relations after reflect %v, want %v", after, before)
	}
}
