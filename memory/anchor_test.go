package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestEventAsTime: a question that places its time by another event ("the
// day after the wedding", "after the marathon") is asked at the time a
// memory of that event says it happened (REC-32).
func TestEventAsTime(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newTimeService(t, c)
	day := func(d int) time.Time { return time.Date(2024, 5, d, 20, 0, 0, 0, time.UTC) }
	written := []struct {
		at   time.Time
		text string
	}{
		{day(3), "We went hiking in the hills with the kids"},
		{day(4), "My cousin's wedding was today, a beautiful ceremony by the sea"},
		{day(5), "We went hiking along the coast, sore legs from dancing"},
		{day(11), "Ran the city marathon today in under four hours"},
		{day(12), "Slept most of the day, then a short walk to the bakery"},
		{day(18), "We went hiking in the forest with friends"},
	}
	ids := make([]string, len(written))
	for i, w := range written {
		c.T = w.at
		m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(w.text)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = m.ID
	}
	c.T = day(25)
	for _, q := range []struct {
		text string
		want int
	}{
		{"Where did we go hiking the day after the wedding?", 2},
		{"Where did we go hiking the day before the wedding?", 0},
		{"What did I do the day after the marathon?", 4},
	} {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: q.text, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].ID != ids[q.want] {
			first := "nothing"
			if len(res.Results) > 0 {
				first = res.Results[0].Content
			}
			t.Errorf("%q: first %q, want %q", q.text, first, written[q.want].text)
		}
	}
}
