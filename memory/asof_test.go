package memory_test

import (
	"context"
	"slices"
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

// TestAsOfDeleted checks REC-27 for what was deleted since the time asked:
// a tombstoned key answers recall and list with the value it held then,
// its valid_to the deletion; a key revived since answers with the value
// of the time asked; a memory archived since (soft forgetting) answers as
// it was; a key forgotten for good answers with nothing.
func TestAsOfDeleted(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	day := func(d int) time.Time { return c.Now().Add(time.Duration(d) * 24 * time.Hour) }
	write := func(key string, content *string) {
		t.Helper()
		if _, err := svc.Write(ctx, alice, []mnemo.Draft{{Key: key, Content: content}}); err != nil {
			t.Fatal(err)
		}
	}
	d0 := day(0)
	write("/user/pet", str("Ana has a cat named Miso"))
	write("/user/job", str("Ben works at the bakery"))
	write("/user/car", str("Cleo drives a red Fiat"))
	violin, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("Dan plays the violin")})
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(24 * time.Hour)
	write("/user/pet", str("Ana has a dog named Rex"))
	c.Advance(24 * time.Hour)
	d2 := c.Now()
	write("/user/pet", nil) // tombstones
	write("/user/job", nil)
	write("/user/car", nil)
	if _, err := svc.Forget(ctx, alice, nil, []string{"/user/car"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Update(ctx, alice, violin.ID, memory.Patch{Archived: new(true)}, "test"); err != nil { // soft forgetting
		t.Fatal(err)
	}
	c.Advance(24 * time.Hour)
	write("/user/job", str("Ben works at the library")) // revived
	c.Advance(24 * time.Hour)

	for _, tt := range []struct {
		name  string
		at    time.Time // zero: now
		query string
		want  []string
	}{
		{"a deleted key's first value", d0.Add(time.Hour), "a cat or a dog", []string{"Ana has a cat named Miso"}},
		{"a deleted key's second value", d0.Add(25 * time.Hour), "a cat or a dog", []string{"Ana has a dog named Rex"}},
		{"after the deletion", d2.Add(time.Hour), "a cat or a dog", nil},
		{"a revived key's earlier value", d0.Add(time.Hour), "where does Ben work", []string{"Ben works at the bakery"}},
		{"while the revived key was deleted", d2.Add(time.Hour), "where does Ben work", nil},
		{"the revived value", d2.Add(25 * time.Hour), "where does Ben work", []string{"Ben works at the library"}},
		{"now", time.Time{}, "where does Ben work", []string{"Ben works at the library"}},
		{"forgotten for good", d0.Add(time.Hour), "Cleo red Fiat", nil},
		{"archived since", d0.Add(time.Hour), "violin", []string{"Dan plays the violin"}},
		{"archived then", d2.Add(time.Hour), "violin", nil},
		{"archived now", time.Time{}, "violin", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := memory.Query{Text: tt.query, Limit: 10}
			if !tt.at.IsZero() {
				q.AsOf = &tt.at
			}
			res, err := svc.Recall(ctx, alice, q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res.Results {
				got = append(got, r.Content)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("recall %q as of %v = %q, want %q", tt.query, tt.at, got, tt.want)
			}
		})
	}

	t.Run("valid_to", func(t *testing.T) {
		at := d0.Add(25 * time.Hour)
		res, err := svc.Recall(ctx, alice, memory.Query{Text: "dog", Limit: 10, Filter: mnemo.Filter{AsOf: &at}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 1 || res.Results[0].ValidTo == nil || !res.Results[0].ValidTo.Equal(d2) {
			t.Fatalf("recall as of day 1: %+v, want the dog valid to %v", res.Results, d2)
		}
	})

	for _, tt := range []struct {
		name          string
		at            time.Time
		offset, limit int
		want          []string
		total         int
	}{
		{"day 0", d0.Add(time.Hour), 0, 10, []string{"Dan plays the violin", "Ben works at the bakery", "Ana has a cat named Miso"}, 3},
		{"day 1, a page", d0.Add(25 * time.Hour), 2, 1, []string{"Ana has a dog named Rex"}, 3},
		{"day 2", d2.Add(time.Hour), 0, 10, nil, 0},
		{"day 3", d2.Add(25 * time.Hour), 0, 10, []string{"Ben works at the library"}, 1},
	} {
		t.Run("list "+tt.name, func(t *testing.T) {
			ms, total, err := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{AsOf: &tt.at}, Order: mnemo.OrderKey, Offset: tt.offset, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.Content)
			}
			if !slices.Equal(got, tt.want) || total != tt.total {
				t.Fatalf("list as of %v = %q (total %d), want %q (total %d)", tt.at, got, total, tt.want, tt.total)
			}
		})
	}
}
