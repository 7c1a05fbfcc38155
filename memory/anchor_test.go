package memory_test

import (
	"testing"
	"time"
)

// TestEventAsTime: a question that places its time by another event ("the
// day after the wedding", "婚礼的第二天") is asked at the time a memory of
// that event says it happened (REC-32).
func TestEventAsTime(t *testing.T) {
	c := newClock()
	svc := newTimeService(t, c)
	day := func(d int) time.Time { return time.Date(2024, 5, d, 20, 0, 0, 0, time.UTC) }
	en := []dated{
		{day(3), "We went hiking in the hills with the kids"},
		{day(4), "My cousin's wedding was today, a beautiful ceremony by the sea"},
		{day(5), "We went hiking along the coast, sore legs from dancing"},
		{day(11), "Ran the city marathon today in under four hours"},
		{day(12), "Slept most of the day, then a short walk to the bakery"},
		{day(18), "We went hiking in the forest with friends"},
	}
	zh := []dated{
		{day(3), "我们带孩子去山里徒步了"},
		{day(4), "今天是表哥的婚礼，在海边举行，非常美"},
		{day(5), "我们沿着海岸徒步，跳了一晚上舞腿还酸着"},
		{day(11), "今天跑完了城市马拉松，不到四个小时"},
		{day(12), "睡了一整天，傍晚去面包店走了走"},
		{day(18), "和朋友去森林里徒步"},
	}
	enIDs, zhIDs := rememberAt(t, svc, c, alice, en), rememberAt(t, svc, c, bob, zh)
	c.T = day(25)
	firstAnswers(t, svc, alice, en, enIDs, []asked{
		{"Where did we go hiking the day after the wedding?", 2},
		{"Where did we go hiking the day before the wedding?", 0},
		{"What did I do the day after the marathon?", 4},
	})
	firstAnswers(t, svc, bob, zh, zhIDs, []asked{
		{"婚礼的第二天我们去哪里徒步了？", 2},
		{"婚礼的前一天我们去哪里徒步了？", 0},
		{"马拉松的第二天我做了什么？", 4},
	})
}
