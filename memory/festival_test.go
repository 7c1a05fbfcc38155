package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestFestivalQuestions: what happened on a festival of the Chinese
// calendar, written that day without its name, answers a question naming
// the festival and its year, in Chinese or English, before what happened
// on other days and what names the festival of another year (REC-32).
func TestFestivalQuestions(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newTimeService(t, c)
	written := []struct {
		at   time.Time
		text string
	}{
		{time.Date(2022, 9, 10, 21, 0, 0, 0, time.UTC), "中秋节我们在家看了电视"},
		{time.Date(2023, 1, 22, 21, 0, 0, 0, time.UTC), "今天回了成都老家，和爷爷奶奶一起包了饺子"},
		{time.Date(2023, 6, 22, 21, 0, 0, 0, time.UTC), "今天去江边看了赛龙舟"},
		{time.Date(2023, 9, 29, 21, 0, 0, 0, time.UTC), "今天全家去了外婆家，一起吃了月饼"},
		{time.Date(2024, 2, 10, 21, 0, 0, 0, time.UTC), "今天去了哈尔滨，看了冰雕"},
		{time.Date(2024, 3, 2, 21, 0, 0, 0, time.UTC), "今天去外婆家吃了饭"},
		{time.Date(2024, 5, 20, 21, 0, 0, 0, time.UTC), "We went to my grandma's place and ate dumplings last weekend"},
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
	c.T = time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, q := range []struct {
		text string
		want int
	}{
		{"去年中秋节我们做了什么？", 3},
		{"今年春节我们去了哪里？", 4},
		{"2023年春节我们做了什么？", 1},
		{"去年端午节我们干什么了？", 2},
		{"What did we do over Chinese New Year last year?", 1},
		{"What did we do at the Mid-Autumn Festival last year?", 3},
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
