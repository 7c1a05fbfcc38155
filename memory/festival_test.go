package memory_test

import (
	"testing"
	"time"
)

// TestFestivalQuestions: what happened on a festival of the Chinese
// calendar, written that day without its name, answers a question naming
// the festival and its year, in Chinese or English, before what happened
// on other days and what names the festival of another year (REC-32).
func TestFestivalQuestions(t *testing.T) {
	c := newClock()
	svc := newTimeService(t, c)
	at := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 21, 0, 0, 0, time.UTC) }
	written := []dated{
		{at(2022, 9, 10), "中秋节我们在家看了电视"},
		{at(2023, 1, 22), "今天回了成都老家，和爷爷奶奶一起包了饺子"},
		{at(2023, 6, 22), "今天去江边看了赛龙舟"},
		{at(2023, 9, 29), "今天全家去了外婆家，一起吃了月饼"},
		{at(2024, 2, 10), "今天去了哈尔滨，看了冰雕"},
		{at(2024, 3, 2), "今天去外婆家吃了饭"},
		{at(2024, 5, 20), "We went to my grandma's place and ate dumplings last weekend"},
	}
	ids := rememberAt(t, svc, c, alice, written)
	c.T = time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	firstAnswers(t, svc, alice, written, ids, []asked{
		{"去年中秋节我们做了什么？", 3},
		{"今年春节我们去了哪里？", 4},
		{"2023年春节我们做了什么？", 1},
		{"去年端午节我们干什么了？", 2},
		{"What did we do over Chinese New Year last year?", 1},
		{"What did we do at the Mid-Autumn Festival last year?", 3},
	})
}
