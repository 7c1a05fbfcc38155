package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestWhenFindsDated checks REC-29 over a real SQLite store: a "when"
// question brings in the memories that match its words and say when they
// happened, though many undated ones match its words better.
func TestWhenFindsDated(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	// A hundred notes whose words match better, written long before.
	var drafts []mnemo.Draft
	for i := range 100 {
		drafts = append(drafts, mnemo.Draft{Content: str(fmt.Sprintf("ferry trip ferry trip note %d", i))})
	}
	// And some that match only one word: relevance is relative to the
	// candidates, so that the least of them scores nothing.
	for i := range 10 {
		drafts = append(drafts, mnemo.Draft{Content: str(fmt.Sprintf("a long ferry queue on a rainy grey morning, note %d", i))})
	}
	if _, err := svc.RememberUnguarded(ctx, alice, drafts); err != nil {
		t.Fatal(err)
	}
	c.Advance(200 * 24 * time.Hour)
	dated, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("we took the ferry trip ferry trip together on 3 May 2025")})
	if err != nil {
		t.Fatal(err)
	}
	if dated.OccurredOf().Source != mnemo.OccurredText {
		t.Fatalf("not dated by its text: %+v", dated.Occurred)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "When did we take the ferry trip?", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.ID == dated.ID {
			return
		}
	}
	t.Fatalf("the dated memory is not among %d results", len(res.Results))
}

// TestTimePrecision checks REC-29's time_match: of two memories whose
// occurred windows overlap the day a query names, the one lying inside it
// ranks first, the one much wider scores between 0.85 and 1 of its own.
func TestTimePrecision(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	day := time.Date(2025, 5, 7, 0, 0, 0, 0, time.UTC)
	year := mnemo.Draft{Content: str("The garden club planted tulips"), ValidFrom: tptr(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)), ValidTo: tptr(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	exact := mnemo.Draft{Content: str("The garden club planted roses"), OccurredAt: mnemo.At(day.Add(10 * time.Hour))}
	ms, err := svc.RememberBatch(ctx, alice, []mnemo.Draft{year, exact})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "What did the garden club plant on 7 May 2025?", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].ID != ms[1].ID {
		t.Fatalf("the precise memory is not first: %+v", res.Results)
	}
	tm := func(r memory.Scored) float64 {
		for _, c := range r.Explain.Components {
			if c.Name == "time_match" {
				return c.Value
			}
		}
		return -1
	}
	if a, b := tm(res.Results[0]), tm(res.Results[1]); a != 1 || b <= 0.85 || b >= 0.86 {
		t.Fatalf("time_match: %v (inside), %v (a year)", a, b)
	}
}
