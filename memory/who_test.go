package memory_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/rank"
)

// TestWho checks REC-28 over a real SQLite store: a memory's entities are
// its speaker, the names in its text and its writer's aliases; a query
// naming a person prefers what is by or about them, with a who component
// in explain, and an alias finds the memory.
func TestWho(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{
		{Role: "user", Name: "Ana", Content: "I adopted a dog last week"},
		{Role: "user", Name: "Bruno", Content: "I adopted a cat last week"},
	}); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("The wedding was in a small chapel by the sea with Leo"), Entities: []string{"Ana Silva", "sis"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Ana Silva", "sis", "Leo"}; !slices.Equal(m.Entities, want) {
		t.Fatalf("entities %q, want %q", m.Entities, want)
	}
	turns, _, err := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{Types: []string{mnemo.TypeEvent}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range turns {
		if len(tm.Entities) != 1 || (tm.Entities[0] != "Ana" && tm.Entities[0] != "Bruno") {
			t.Fatalf("a turn's entities: %q", tm.Entities)
		}
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "What pet did Bruno adopt?", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) < 2 || res.Results[0].Content != "I adopted a cat last week" || !slices.Equal(res.Who, []string{"Bruno"}) {
		t.Fatalf("who: %+v", res)
	}
	who := func(r memory.Scored) float64 {
		for _, c := range r.Explain.Components {
			if c.Name == "who" {
				return c.Value
			}
		}
		return -1
	}
	if who(res.Results[0]) != 1 || who(res.Results[1]) >= 1 {
		t.Fatalf("who components: %v, %v", who(res.Results[0]), who(res.Results[1]))
	}
	// The alias alone finds the memory, and matches it.
	res, err = svc.Recall(ctx, alice, memory.Query{Text: "where was sis married", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].ID != m.ID {
		t.Fatalf("by alias: %+v", res.Results)
	}
	// A query that names no one has no who component.
	res, _ = svc.Recall(ctx, alice, memory.Query{Text: "adopted a pet", Explain: true})
	if len(res.Results) == 0 || who(res.Results[0]) != -1 || res.Who != nil {
		t.Fatalf("no names: %+v", res)
	}
	// Who said it: "What did Bruno say about Ana's dog?" ranks Bruno's
	// words first, then Ana's own about her dog.
	if _, err := svc.AddMessages(ctx, alice, "s2", []memory.Message{
		{Role: "user", Name: "Ana", Content: "My dog Rex chews every shoe"},
		{Role: "user", Name: "Bruno", Content: "Your dog Rex is cute"},
	}); err != nil {
		t.Fatal(err)
	}
	res, err = svc.Recall(ctx, alice, memory.Query{Text: "What did Bruno say about Ana's dog Rex?", Explain: true, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].Content != "Your dog Rex is cute" || who(res.Results[1]) != rank.WhoAbout {
		t.Fatalf("said by: %+v", res.Results)
	}
	// Too many entities are refused.
	many := make([]string, mnemo.MaxEntities+1)
	for i := range many {
		many[i] = "x"
	}
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("a memory with too many names"), Entities: many}); mnemo.ErrorCode(err) != mnemo.ETOOLARGE {
		t.Fatalf("too many entities: %v", err)
	}
}
