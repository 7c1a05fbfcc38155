package temporal

import (
	"fmt"
	"testing"
	"time"
)

// weekdaySentences are sentences that name a day by its weekday alone,
// as people write them in a chat: what they did, read back to the last
// such day before the message's, and what they plan, propose or ask
// about, read forward to the next. The verbs are regular and irregular;
// a plan may have no future tense at all ("Let's…", "How about…").
var weekdaySentences = struct{ past, future []string }{
	past: []string{
		"We met on %s.",
		"I saw her on %s and we talked for hours.",
		"On %s I went to the lake with the kids.",
		"She told me all about it on %s.",
		"I finally finished the painting on %s!",
		"%s was so much fun.",
		"My brother came over on %s and brought cookies.",
		"We took the dogs to the beach on %s.",
		"I got the job offer on %s!",
		"He ran his first half marathon on %s.",
		// A sentence's own tense, where the message's others say another.
		"Let's catch up soon! We met on %s.",
		// A sentence that says nothing of its time: the message's.
		"It was a long week. %s, the big storm.",
	},
	future: []string{
		"Are you free on %s?",
		"Let's meet on %s.",
		"Does %s sound good?",
		"How about %s?",
		"See you on %s!",
		"I'm going to the farmers market on %s.",
		"I'll call you on %s.",
		"Can't wait for %s!",
		"We're planning to go hiking on %s.",
		"Would you like to come over on %s?",
		"I went to the lake with the kids. Are you free on %s?",
		"We had a blast at the wedding! See you %s!",
		"I'm so excited for %s!",
		"Any plans for %s?",
	},
}

// TestBareWeekdayByTense checks that a weekday alone ("on Friday") is
// read by what the sentence says of it: the last one for what was done,
// the next for what is planned, and never the message's own day, which
// people call "today" (REC-23).
func TestBareWeekdayByTense(t *testing.T) {
	n := 0
	for _, ref := range phrasingRefs {
		for wd := time.Sunday; wd <= time.Saturday; wd++ {
			back := (int(ref.Weekday()) - int(wd) + 7) % 7
			if back == 0 {
				back = 7
			}
			fwd := (int(wd) - int(ref.Weekday()) + 7) % 7
			if fwd == 0 {
				fwd = 7
			}
			for _, c := range []struct {
				forms []string
				want  Window
			}{
				{weekdaySentences.past, oneDay(daysFrom(ref, -back))},
				{weekdaySentences.future, oneDay(daysFrom(ref, fwd))},
			} {
				for _, f := range c.forms {
					n++
					text := fmt.Sprintf(f, wd)
					exprs := Extract(text, ref)
					if len(exprs) != 1 {
						t.Errorf("ref %s: %q: %d expressions, want 1", ref.Format("Mon 2006-01-02"), text, len(exprs))
						continue
					}
					if w := exprs[0].Window; !w.Start.Equal(c.want.Start) || !w.End.Equal(c.want.End) {
						t.Errorf("ref %s: %q: %s, want %s", ref.Format("Mon 2006-01-02"), text, show(w), show(c.want))
					}
				}
			}
		}
	}
	t.Logf("%d sentences", n)
}

// TestTodaysWeekday checks that a weekday named on that weekday, by a
// sentence that says nothing of when, is the next one: on the day
// itself people say "today".
func TestTodaysWeekday(t *testing.T) {
	for _, ref := range phrasingRefs {
		wd := ref.Weekday()
		for _, f := range []string{"%s is my birthday.", "The market is open on %s.", "%s works for me."} {
			text := fmt.Sprintf(f, wd)
			want := oneDay(daysFrom(ref, 7))
			exprs := Extract(text, ref)
			if len(exprs) != 1 || !exprs[0].Window.Start.Equal(want.Start) || !exprs[0].Window.End.Equal(want.End) {
				t.Errorf("ref %s: %q: %v, want %s", ref.Format("Mon 2006-01-02"), text, exprs, show(want))
			}
		}
	}
}

// TestWeekdayRangeEnd checks that a range's end named by the day's own
// weekday is that day: "from Monday to Wednesday", written on a Wednesday.
func TestWeekdayRangeEnd(t *testing.T) {
	ref := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC) // a Wednesday
	for text, want := range map[string]Window{
		"I was in Lisbon from Monday to Wednesday.": {d0(2023, 5, 8, time.UTC), d0(2023, 5, 11, time.UTC)},
		"I was in Lisbon from Wednesday to Friday.": {d0(2023, 5, 10, time.UTC), d0(2023, 5, 13, time.UTC)},
	} {
		exprs := Extract(text, ref)
		if len(exprs) != 1 || !exprs[0].Window.Start.Equal(want.Start) || !exprs[0].Window.End.Equal(want.End) {
			t.Errorf("%q: %v, want %s", text, exprs, show(want))
		}
	}
}

// TestTheWeekendByTense checks that "the weekend" in a message written
// mid-week is the one its sentence speaks of: just over for what was
// done, the coming one for a plan (REC-23).
func TestTheWeekendByTense(t *testing.T) {
	past := []string{
		"We went hiking over the weekend.",
		"I did something fun with my pups over the weekend, took them to the beach.",
		"Let's catch up soon! I met her parents on the weekend.",
	}
	future := []string{
		"Are you free over the weekend?",
		"Let's go camping on the weekend.",
		"It was a long week. I can't wait for the weekend!",
	}
	n := 0
	for _, ref := range phrasingRefs {
		if wd := ref.Weekday(); wd < time.Tuesday || wd > time.Thursday {
			continue // next to a weekend the nearest one is meant whatever the tense
		}
		sat := daysFrom(ref, -(int(ref.Weekday())+1)%7)
		for _, c := range []struct {
			texts []string
			want  Window
		}{
			{past, Window{sat, daysFrom(sat, 2)}},
			{future, Window{daysFrom(sat, 7), daysFrom(sat, 9)}},
		} {
			for _, text := range c.texts {
				n++
				exprs := Extract(text, ref)
				if len(exprs) != 1 || !exprs[0].Window.Start.Equal(c.want.Start) || !exprs[0].Window.End.Equal(c.want.End) {
					t.Errorf("ref %s: %q: %v, want %s", ref.Format("Mon 2006-01-02"), text, exprs, show(c.want))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no reference time mid-week")
	}
}

// TestTodaysWeekdayChinese checks 周五 alone written on a Friday as
// TestTodaysWeekday does in English: the last one for what was done (了,
// 过), else the next.
func TestTodaysWeekdayChinese(t *testing.T) {
	for _, ref := range phrasingRefs {
		day := zhDays[ref.Weekday()]
		for text, want := range map[string]Window{
			"我们周" + day + "去了公园。":  oneDay(daysFrom(ref, -7)),
			"星期" + day + "我去过那家店。": oneDay(daysFrom(ref, -7)),
			"周" + day + "见！":       oneDay(daysFrom(ref, 7)),
			"周" + day + "我们打算去爬山。": oneDay(daysFrom(ref, 7)),
		} {
			exprs := Extract(text, ref)
			if len(exprs) != 1 || !exprs[0].Window.Start.Equal(want.Start) || !exprs[0].Window.End.Equal(want.End) {
				t.Errorf("ref %s: %q: %v, want %s", ref.Format("Mon 2006-01-02"), text, exprs, show(want))
			}
		}
	}
}
