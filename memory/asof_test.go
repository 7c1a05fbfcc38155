package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestAsOf checks REC-27 over a real SQLite store: a key rewritten, a
// memory contradicted (the Write Guard's conflict) and a writer's valid_to
// end what they said, and recall and list as of a past time answer with
// what held then, the key's earlier value included; without as_of nothing
// changes.
func TestAsOf(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	t0 := c.Now()
	write := func(d mnemo.Draft) memory.WriteResult {
		t.Helper()
		res, err := svc.Write(ctx, alice, []mnemo.Draft{d})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	lisbon := write(mnemo.Draft{Key: "/user/city", Content: str("Ana lives in Lisbon")})
	port := write(draft("The staging database runs on port 5432"))
	c.Advance(24 * time.Hour)
	t1 := c.Now()
	write(mnemo.Draft{Key: "/user/city", Content: str("Ana lives in Porto")})
	conflict := write(draft("The staging database runs on port 6543"))
	if conflict.Guard.Action != memory.GuardConflict {
		t.Fatalf("no conflict: %+v", conflict.Guard)
	}
	gym := write(mnemo.Draft{Content: str("Ana goes to the gym on Mondays"), ValidTo: tptr(t1.Add(12 * time.Hour))})
	c.Advance(24 * time.Hour)

	old, err := svc.Get(ctx, alice, port.ID)
	if err != nil {
		t.Fatal(err)
	}
	if old.ValidTo == nil || !old.ValidTo.Equal(conflict.CreatedAt) {
		t.Fatalf("the contradicted memory's valid_to = %v, want %v", old.ValidTo, conflict.CreatedAt)
	}
	if g, _ := svc.Get(ctx, alice, gym.ID); g.ValidTo == nil || !g.ValidTo.Equal(t1.Add(12*time.Hour)) {
		t.Fatalf("the writer's valid_to: %v", g.ValidTo)
	}

	recall := func(text string, at *time.Time) []mnemo.Memory {
		t.Helper()
		q := memory.Query{Text: text, Limit: 10}
		q.AsOf = at
		res, err := svc.Recall(ctx, alice, q)
		if err != nil {
			t.Fatal(err)
		}
		var ms []mnemo.Memory
		for _, r := range res.Results {
			ms = append(ms, r.Memory)
		}
		return ms
	}
	contents := func(ms []mnemo.Memory) map[string]bool {
		set := map[string]bool{}
		for _, m := range ms {
			set[m.Content] = true
		}
		return set
	}
	// As of the first day: Lisbon (valid until the rewrite), port 5432.
	at := t0.Add(time.Hour)
	got := recall("where does Ana live", &at)
	if len(got) != 1 || got[0].Content != "Ana lives in Lisbon" || got[0].ID != lisbon.ID || got[0].ValidTo == nil || !got[0].ValidTo.Equal(t1) {
		t.Fatalf("as of day 1, where Ana lives: %+v", got)
	}
	if cs := contents(recall("staging database port", &at)); !cs["The staging database runs on port 5432"] || cs["The staging database runs on port 6543"] {
		t.Fatalf("as of day 1, the port: %v", cs)
	}
	// As of the second day: Porto, 6543, the gym (until noon).
	at = t1.Add(time.Hour)
	if cs := contents(recall("where does Ana live", &at)); !cs["Ana lives in Porto"] || cs["Ana lives in Lisbon"] {
		t.Fatalf("as of day 2, where Ana lives: %v", cs)
	}
	if cs := contents(recall("staging database port", &at)); cs["The staging database runs on port 5432"] || !cs["The staging database runs on port 6543"] {
		t.Fatalf("as of day 2, the port: %v", cs)
	}
	if cs := contents(recall("Ana gym", &at)); !cs["Ana goes to the gym on Mondays"] {
		t.Fatalf("as of day 2, the gym: %v", cs)
	}
	at = t1.Add(13 * time.Hour)
	if cs := contents(recall("Ana gym", &at)); cs["Ana goes to the gym on Mondays"] {
		t.Fatalf("after its valid_to, the gym: %v", cs)
	}
	// Before anything was written: nothing.
	at = t0.Add(-time.Hour)
	if got := recall("where does Ana live", &at); len(got) != 0 {
		t.Fatalf("before any write: %+v", got)
	}
	// Without as_of: now, both ports (the newest first), Porto.
	if cs := contents(recall("staging database port", nil)); !cs["The staging database runs on port 5432"] || !cs["The staging database runs on port 6543"] {
		t.Fatalf("now, the port: %v", cs)
	}
	// List as of day 1.
	at = t0.Add(time.Hour)
	ms, _, err := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{AsOf: &at}})
	if err != nil {
		t.Fatal(err)
	}
	if cs := contents(ms); len(ms) != 2 || !cs["Ana lives in Lisbon"] || !cs["The staging database runs on port 5432"] {
		t.Fatalf("list as of day 1: %v", cs)
	}
}
