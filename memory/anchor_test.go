package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
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
		check(t, svc, alice, q.text, ids[q.want], written[q.want].text)
	}
	zh := []struct {
		at   time.Time
		text string
	}{
		{day(3), "我们带孩子去山里徒步了"},
		{day(4), "今天是表哥的婚礼，在海边举行，非常美"},
		{day(5), "我们沿着海岸徒步，跳了一晚上舞腿还酸着"},
		{day(11), "今天跑完了城市马拉松，不到四个小时"},
		{day(12), "睡了一整天，傍晚去面包店走了走"},
		{day(18), "和朋友去森林里徒步"},
	}
	zhIDs := make([]string, len(zh))
	for i, w := range zh {
		c.T = w.at
		m, err := svc.Remember(ctx, bob, mnemo.Draft{Content: str(w.text)})
		if err != nil {
			t.Fatal(err)
		}
		zhIDs[i] = m.ID
	}
	c.T = day(25)
	for _, q := range []struct {
		text string
		want int
	}{
		{"婚礼的第二天我们去哪里徒步了？", 2},
		{"婚礼的前一天我们去哪里徒步了？", 0},
		{"马拉松的第二天我做了什么？", 4},
	} {
		check(t, svc, bob, q.text, zhIDs[q.want], zh[q.want].text)
	}
}

// check fails t unless recall's first answer to q in scope is the memory
// with id want.
func check(t *testing.T, svc *service.Mnemo, scope mnemo.Scope, q, want, text string) {
	t.Helper()
	res, err := svc.Recall(context.Background(), scope, memory.Query{Text: q, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].ID != want {
		first := "nothing"
		if len(res.Results) > 0 {
			first = res.Results[0].Content
		}
		t.Errorf("%q: first %q, want %q", q, first, text)
	}
}
