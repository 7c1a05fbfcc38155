package memory_test

import (
	"context"
	"fmt"
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

// TestWhoShortNames: a question may call a speaker by a short form of
// their name, or by the full name their partner shortens (REC-28): "Mel"
// asks about Melanie's turns, "Bob" about Robert's, "Deborah" about what
// is said of "Deb".
func TestWhoShortNames(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{
		{Role: "user", Name: "Melanie", Content: "We finally adopted a puppy from the shelter"},
		{Role: "user", Name: "Robert", Content: "I adopted a kitten from the shelter"},
		{Role: "user", Name: "Melanie", Content: "I heard Deb adopted an old greyhound"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddMessages(ctx, alice, "s2", []memory.Message{
		{Role: "user", Name: "Ana", Content: "I adopted a parrot from the shelter"},
		{Role: "user", Name: "Anabel", Content: "I adopted a hamster from the shelter"},
	}); err != nil {
		t.Fatal(err)
	}
	who := func(r memory.Scored) float64 {
		for _, c := range r.Explain.Components {
			if c.Name == "who" {
				return c.Value
			}
		}
		return -1
	}
	for _, c := range []struct {
		q, first string
		who      float64
		alias    string
	}{
		{"What did Mel adopt from the shelter?", "We finally adopted a puppy from the shelter", 1, "Melanie"},
		{"Mel adopted what?", "We finally adopted a puppy from the shelter", 1, "Melanie"},
		{"Which animal did Bob adopt from the shelter?", "I adopted a kitten from the shelter", 1, "Robert"},
		// What Melanie said of Deb is about Deborah.
		{"Did Deborah adopt a greyhound?", "I heard Deb adopted an old greyhound", rank.WhoAbout, "Deb"},
		// Ana and Anabel both speak: each is herself.
		{"What did Ana adopt from the shelter?", "I adopted a parrot from the shelter", 1, "Ana"},
		{"What did Anabel adopt from the shelter?", "I adopted a hamster from the shelter", 1, "Anabel"},
	} {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: c.q, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		other := map[string]string{"Ana": "Anabel", "Anabel": "Ana"}[c.alias] // not asked about
		if len(res.Results) == 0 || res.Results[0].Content != c.first || who(res.Results[0]) != c.who || !slices.Contains(res.Who, c.alias) || other != "" && slices.Contains(res.Who, other) {
			var got []string
			for _, r := range res.Results {
				got = append(got, fmt.Sprintf("%s (who %v)", r.Content, who(r)))
			}
			t.Errorf("%q: who %q, results %q; want %q first, who %v, with %q", c.q, res.Who, got, c.first, c.who, c.alias)
		}
	}
}
