package temporal

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The expected windows below are worked out here, with the calendar
// arithmetic written anew, not with the package's: the test is a second
// reading of what each phrase means, not a copy of the first.

// phrasingRefs are the reference times the phrasings are read against:
// mid-week, the turn of a year, the end of a month, a leap day and the day
// after it, a Sunday and a Monday, and a zone east of UTC.
var phrasingRefs = []time.Time{
	time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC),  // a Wednesday
	time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC),    // a Sunday, New Year's Day
	time.Date(2022, 12, 31, 20, 0, 0, 0, time.UTC), // a Saturday, New Year's Eve
	time.Date(2023, 3, 31, 18, 0, 0, 0, time.UTC),  // the last day of a month
	time.Date(2024, 2, 29, 10, 0, 0, 0, time.UTC),  // a leap day, a Thursday
	time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC),   // the day after it
	time.Date(2025, 7, 14, 8, 0, 0, 0, time.UTC),   // a Monday
	time.Date(2026, 11, 29, 23, 30, 0, 0, time.FixedZone("CST", 8*3600)),
}

// phrasing is one phrase and the window it names against ref.
type phrasing struct {
	text string
	w    Window
}

func d0(y int, m time.Month, d int, loc *time.Location) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// oneDay is the day holding t.
func oneDay(t time.Time) Window {
	s := d0(t.Year(), t.Month(), t.Day(), t.Location())
	return Window{s, d0(s.Year(), s.Month(), s.Day()+1, s.Location())}
}

// monday is the Monday on or before t's day.
func monday(t time.Time) time.Time {
	s := oneDay(t).Start
	for s.Weekday() != time.Monday {
		s = d0(s.Year(), s.Month(), s.Day()-1, s.Location())
	}
	return s
}

func weekOf(t time.Time) Window {
	s := monday(t)
	return Window{s, d0(s.Year(), s.Month(), s.Day()+7, s.Location())}
}

func weekendOf(t time.Time) Window {
	s := monday(t)
	return Window{d0(s.Year(), s.Month(), s.Day()+5, s.Location()), d0(s.Year(), s.Month(), s.Day()+7, s.Location())}
}

func monthOf(y int, m time.Month, loc *time.Location) Window {
	return Window{d0(y, m, 1, loc), d0(y, m+1, 1, loc)}
}

func yearOfW(y int, loc *time.Location) Window {
	return Window{d0(y, 1, 1, loc), d0(y+1, 1, 1, loc)}
}

// daysFrom is t's day moved n days.
func daysFrom(t time.Time, n int) time.Time {
	return d0(t.Year(), t.Month(), t.Day()+n, t.Location())
}

// lastDate is the latest m/d (d 0: the month) that starts by ref.
func lastDate(ref time.Time, m time.Month, d int) Window {
	for y := ref.Year(); ; y-- {
		var w Window
		if d == 0 {
			w = monthOf(y, m, ref.Location())
		} else {
			s := d0(y, m, d, ref.Location())
			if s.Month() != m { // 29 February of a common year
				continue
			}
			w = oneDay(s)
		}
		if !w.Start.After(ref) {
			return w
		}
	}
}

var (
	enNums = []string{"", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	enMons = []string{"", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	zhDigs = []string{"", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"}
	zhDays = map[time.Weekday]string{time.Monday: "一", time.Tuesday: "二", time.Wednesday: "三", time.Thursday: "四", time.Friday: "五", time.Saturday: "六", time.Sunday: "日"}
)

// zhNum writes n (1 to 31) in Chinese numerals.
func zhNum(n int) string {
	switch {
	case n <= 10:
		return zhDigs[n]
	case n < 20:
		return "十" + zhDigs[n-10]
	case n%10 == 0:
		return zhDigs[n/10] + "十"
	}
	return zhDigs[n/10] + "十" + zhDigs[n%10]
}

// phrasings generates the phrases and their windows against ref.
func phrasings(ref time.Time) []phrasing {
	loc := ref.Location()
	today := oneDay(ref)
	var ps []phrasing
	add := func(w Window, texts ...string) {
		for _, t := range texts {
			ps = append(ps, phrasing{text: t, w: w})
		}
	}

	// Counted units ago, in words and digits, and in Chinese.
	for n := 1; n <= 12; n++ {
		day := oneDay(daysFrom(ref, -n))
		add(day, fmt.Sprintf("%d days ago", n), enNums[n]+" days ago", fmt.Sprintf("%d天前", n), zhNum(n)+"天前", zhNum(n)+"天以前")
		week := weekOf(daysFrom(ref, -7*n))
		add(week, fmt.Sprintf("%d weeks ago", n), enNums[n]+" weeks ago", fmt.Sprintf("%d周前", n), zhNum(n)+"个星期前")
		month := monthOf(ref.Year(), ref.Month()-time.Month(n), loc)
		add(month, fmt.Sprintf("%d months ago", n), enNums[n]+" months ago", fmt.Sprintf("%d个月前", n), zhNum(n)+"个月之前")
		add(yearOfW(ref.Year()-n, loc), fmt.Sprintf("%d years ago", n), enNums[n]+" years ago", fmt.Sprintf("%d年前", n))
	}
	add(oneDay(daysFrom(ref, -1)), "a day ago", "yesterday", "昨天")
	add(oneDay(daysFrom(ref, -2)), "a couple days ago", "the day before yesterday", "the night before last", "前天", "两天前")
	add(weekOf(daysFrom(ref, -14)), "a fortnight ago", "two weeks ago", "a couple weeks ago", "the week before last", "两周前", "上上周", "上上个星期")
	add(weekOf(daysFrom(ref, -28)), "two fortnights ago", "four weeks ago")
	add(weekOf(daysFrom(ref, 14)), "the week after next", "in a fortnight", "下下周")
	add(weekendOf(daysFrom(ref, -14)), "the weekend before last", "上上周末")
	add(weekendOf(daysFrom(ref, -7)), "last weekend", "上周末")
	add(monthOf(ref.Year(), ref.Month()-2, loc), "the month before last", "上上个月")
	add(yearOfW(ref.Year()-2, loc), "the year before last", "前年")
	add(yearOfW(ref.Year()-3, loc), "大前年")
	add(oneDay(daysFrom(ref, 2)), "the day after tomorrow", "后天")
	add(Window{weekOf(daysFrom(ref, -21)).Start, weekOf(daysFrom(ref, -14)).End}, "two or three weeks ago", "2-3 weeks ago")
	add(Window{monthOf(ref.Year(), ref.Month()-2, loc).Start, monthOf(ref.Year(), ref.Month()-1, loc).End}, "a month or two ago")
	add(Window{daysFrom(ref, -14), today.End}, "the past fortnight", "over the last fortnight")

	// Weekdays: last, this, next, the one before last; 上周, 这周, 下周.
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		name := wd.String()
		back := (int(ref.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7
		}
		last := oneDay(daysFrom(ref, -back))
		fwd := (int(wd) - int(ref.Weekday()) + 7) % 7
		if fwd == 0 {
			fwd = 7
		}
		next := oneDay(daysFrom(ref, fwd))
		inWeek := func(weeks int) Window {
			return oneDay(daysFrom(monday(ref), 7*weeks+(int(wd)+6)%7))
		}
		add(last, "last "+name, "this past "+name)
		add(oneDay(daysFrom(last.Start, -7)), "the "+name+" before last")
		add(next, "next "+name, "this coming "+name)
		add(oneDay(daysFrom(next.Start, 7)), "the "+name+" after next")
		add(inWeek(0), "this "+name, "这周"+zhDays[wd], "本周"+zhDays[wd])
		add(inWeek(-1), "上周"+zhDays[wd], "上星期"+zhDays[wd], "上个礼拜"+zhDays[wd])
		add(inWeek(-2), "上上周"+zhDays[wd])
		add(inWeek(1), "下周"+zhDays[wd])
	}

	// Dates with and without a year, in every order, as ordinals.
	for _, md := range []struct {
		m time.Month
		d int
	}{{1, 1}, {2, 28}, {2, 29}, {3, 5}, {3, 31}, {5, 10}, {7, 4}, {11, 21}, {12, 25}, {12, 31}} {
		m, d, mon := md.m, md.d, enMons[md.m]
		last := lastDate(ref, m, d)
		add(last, fmt.Sprintf("%s %d", mon, d), fmt.Sprintf("%d %s", d, mon), fmt.Sprintf("the %s of %s", ordinal(d), mon),
			fmt.Sprintf("%s the %s", mon, ordinal(d)), fmt.Sprintf("%d月%d日", m, d), fmt.Sprintf("%s月%s号", zhNum(int(m)), zhNum(d)))
		if d <= 20 {
			add(last, fmt.Sprintf("the %s of %s", ordinalWord(d), mon))
		}
		y := 2021
		if m == 2 && d == 29 {
			y = 2020
		}
		withYear := oneDay(d0(y, m, d, loc))
		add(withYear, fmt.Sprintf("%s %d, %d", mon, d, y), fmt.Sprintf("%d %s %d", d, mon, y), fmt.Sprintf("%d-%02d-%02d", y, m, d),
			fmt.Sprintf("%d年%d月%d日", y, m, d), fmt.Sprintf("the %s of %s %d", ordinal(d), mon, y))

		// Open on one side: after, since, before, until, and the Chinese.
		for _, x := range []struct {
			en, zh string
			w      Window
		}{
			{fmt.Sprintf("%s %d", mon, d), fmt.Sprintf("%d月%d日", m, d), last},
			{fmt.Sprintf("%s %d, %d", mon, d, y), fmt.Sprintf("%d年%d月%d日", y, m, d), withYear},
		} {
			after := afterW(x.w, today)
			since := Window{x.w.Start, today.End}
			before := Window{mnemo.EarliestTime, x.w.Start}
			until := Window{mnemo.EarliestTime, x.w.End}
			add(after, "after "+x.en, "later than "+x.en, x.zh+"以后", x.zh+"之后", x.zh+"后")
			add(x.w, "as of "+x.en)
			add(since, "since "+x.en, "on or after "+x.en, "from "+x.en+" onwards", "starting from "+x.en, "ever since "+x.en,
				x.zh+"以来", "从"+x.zh+"开始", "自从"+x.zh, "自"+x.zh+"起")
			add(before, "before "+x.en, "prior to "+x.en, "earlier than "+x.en, x.zh+"以前", x.zh+"之前", x.zh+"前")
			add(until, "until "+x.en, "up until "+x.en, "no later than "+x.en, "on or before "+x.en, "截至"+x.zh, "到"+x.zh+"为止")
		}
	}

	// Months: alone, ranges of two, parts.
	for m := time.January; m <= time.December; m++ {
		last := lastDate(ref, m, 0)
		add(last, "in "+enMons[m], zhNum(int(m))+"月", fmt.Sprintf("%d月份", m))
		add(thirds(last, 0), "early "+enMons[m], "the beginning of "+enMons[m], zhNum(int(m))+"月初")
		add(thirds(last, 2), "late "+enMons[m], "the end of "+enMons[m], zhNum(int(m))+"月底")
		add(afterW(last, today), "after "+enMons[m])
		if m2 := m + 2; m2 <= 12 {
			to := monthOf(last.Start.Year(), m2, loc)
			r := Window{last.Start, to.End}
			add(r, "between "+enMons[m]+" and "+enMons[m2], "from "+enMons[m]+" to "+enMons[m2],
				zhNum(int(m))+"月到"+zhNum(int(m2))+"月之间", "在"+zhNum(int(m))+"月和"+zhNum(int(m2))+"月之间", fmt.Sprintf("从%d月到%d月", m, m2))
		}
	}

	// This month's, last year's parts; the recent past.
	thisMonth := monthOf(ref.Year(), ref.Month(), loc)
	add(Window{thisMonth.Start, today.End}, "earlier this month")
	add(thirds(thisMonth, 0), "这个月初", "本月初", "月初")
	lastYear := yearOfW(ref.Year()-1, loc)
	add(Window{d0(ref.Year()-1, 9, 1, loc), lastYear.End}, "late last year", "the end of last year", "去年年底", "去年底")
	add(Window{lastYear.Start, d0(ref.Year()-1, 5, 1, loc)}, "early last year", "去年年初")
	add(Window{d0(ref.Year(), 1, 1, loc), today.End}, "since the beginning of the year", "今年以来", "so far this year")
	for _, n := range []int{2, 3, 5, 7, 10} {
		add(Window{daysFrom(ref, -n), today.End}, fmt.Sprintf("in the past %d days", n), fmt.Sprintf("over the last %s days", enNums[n]),
			fmt.Sprintf("最近%d天", n), fmt.Sprintf("过去%s天", zhNum(n)))
	}
	add(Window{daysFrom(ref, -4), today.End}, "in the past few days", "over the last few days", "最近几天", "这几天")

	// Chinese spans of counts: 两三天前, 十几天前, 两个多月前, 一个多星期前.
	add(Window{daysFrom(ref, -3), daysFrom(ref, -1)}, "两三天前", "2-3 days ago", "two or three days ago")
	add(Window{daysFrom(ref, -19), daysFrom(ref, -10)}, "十几天前", "十多天前")
	add(Window{monthOf(ref.Year(), ref.Month()-3, loc).Start, monthOf(ref.Year(), ref.Month()-2, loc).End}, "两个多月前")
	add(Window{weekOf(daysFrom(ref, -14)).Start, weekOf(daysFrom(ref, -7)).End}, "一个多星期前")
	add(Window{daysFrom(ref, -4), daysFrom(ref, -1)}, "前几天", "a few days ago")
	add(Window{today.End, daysFrom(ref, 5)}, "the next few days", "over the next few days")
	add(Window{today.End, daysFrom(ref, 15)}, "over the next two weeks", "the coming fortnight")
	add(yearOfW(2019, loc), "in 2019", "2019年")
	add(Window{d0(2020, 1, 1, loc), today.End}, "after 2019", "2019年以后", "2019年之后")
	add(Window{mnemo.EarliestTime, d0(2019, 1, 1, loc)}, "before 2019", "2019年以前", "2019年之前")

	// Days with their parts: the day's window.
	add(oneDay(daysFrom(ref, -1)), "yesterday afternoon", "yesterday morning", "昨天下午", "昨天晚上")
	add(oneDay(ref), "earlier today", "this afternoon", "今天早上")

	// Weekdays of a month by their place, decades, quarters.
	for m := time.January; m <= time.December; m += 4 {
		month := lastDate(ref, m, 0)
		first := month.Start
		for first.Weekday() != time.Monday {
			first = daysFrom(first, 1)
		}
		last := daysFrom(month.End, -1)
		for last.Weekday() != time.Friday {
			last = daysFrom(last, -1)
		}
		add(oneDay(first), "the first Monday of "+enMons[m], "the 1st Monday in "+enMons[m])
		add(oneDay(last), "the last Friday of "+enMons[m])
	}
	// Holidays, and the day before or after one, of the year the last
	// one fell in.
	xmas := lastDate(ref, 12, 25)
	add(xmas, "Christmas", "Christmas Day", "圣诞节")
	add(oneDay(daysFrom(xmas.Start, 1)), "the day after Christmas", "Boxing Day")
	add(oneDay(daysFrom(xmas.Start, -1)), "Christmas Eve", "the day before Christmas", "平安夜")
	add(Window{daysFrom(xmas.Start, -7), xmas.Start}, "the week before Christmas")
	add(Window{daysFrom(xmas.Start, 2), daysFrom(xmas.Start, 4)}, "two or three days after Christmas")
	add(Window{d0(1990, 1, 1, loc), d0(2000, 1, 1, loc)}, "the 1990s", "the nineties", "the '90s", "90年代", "九十年代", "1990年代")
	add(Window{d0(1980, 1, 1, loc), d0(1990, 1, 1, loc)}, "the 1980s", "the eighties", "80年代")
	add(Window{d0(2023, 1, 1, loc), d0(2023, 4, 1, loc)}, "Q1 2023", "the first quarter of 2023", "2023年第一季度")
	add(Window{d0(ref.Year()-1, 10, 1, loc), d0(ref.Year(), 1, 1, loc)}, "the last quarter of last year", "去年第四季度")
	add(Window{daysFrom(ref, -28), today.End}, "in the past few weeks", "in recent weeks")
	add(Window{daysFrom(ref, -14), today.End}, "over the last couple of weeks", "最近两周")
	return ps
}

// afterW is the window after x, up to the end of today, or on for good
// when x ends later.
func afterW(x, today Window) Window {
	if !today.End.After(x.End) {
		return Window{x.End, mnemo.LatestTime}
	}
	return Window{x.End, today.End}
}

// thirds is the k-th third of a month, in whole days (a month of 31 days:
// the 1st to the 10th, the 11th to the 20th, the 21st to the end).
func thirds(month Window, k int) Window {
	n := int(month.End.Sub(month.Start).Hours()+12) / 24
	s := daysFrom(month.Start, n*k/3)
	if k == 2 {
		return Window{s, month.End}
	}
	return Window{s, daysFrom(month.Start, n*(k+1)/3)}
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

func ordinalWord(n int) string {
	return []string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
		"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"}[n]
}

// questionForms put a phrase in a question, English and Chinese.
var questionForms = struct{ en, zh []string }{
	en: []string{"%s", "What did Caroline do %s?", "%s, where did she go?", "Tell me what happened %s.", "what did the user buy %s"},
	zh: []string{"%s", "她%s做了什么？", "%s我们去哪儿了？"},
}

// TestPhrasings reads every phrasing, alone and in questions, against
// every reference time: the window it names, and the question's text
// without it (REC-23, REC-32).
func TestPhrasings(t *testing.T) {
	n, k := 0, 0
	for _, ref := range phrasingRefs {
		for _, p := range phrasings(ref) {
			forms := questionForms.en
			if p.text[0] >= 0x80 {
				forms = questionForms.zh
			}
			for _, f := range forms {
				if k++; raceEnabled && k%61 != 0 {
					continue // a sixty-first under the detector; all of them in make unit's run without it
				}
				q := fmt.Sprintf(f, p.text)
				if strings.HasPrefix(f, "%s") && f != "%s" && p.text[0] < 0x80 {
					q = strings.ToUpper(q[:1]) + q[1:]
				}
				n++
				a := Query(q, ref)
				if !a.Found {
					t.Errorf("ref %s: %q: found nothing, want %s", ref.Format(time.RFC3339), q, show(p.w))
					continue
				}
				if !a.Window.Start.Equal(p.w.Start) || !a.Window.End.Equal(p.w.End) {
					t.Errorf("ref %s: %q: got %q %s, want %s", ref.Format(time.RFC3339), q, a.Expr, show(a.Window), show(p.w))
					continue
				}
				if !strings.EqualFold(a.Expr, p.text) && !strings.HasSuffix(strings.ToLower(p.text), strings.ToLower(a.Expr)) {
					t.Errorf("ref %s: %q: the expression is %q, want %q", ref.Format(time.RFC3339), q, a.Expr, p.text)
				}
			}
		}
	}
	t.Logf("%d questions", n)
}

// TestHowLongAgo: a question for how long ago or since something was
// names no time; it asks for one, which a dated memory answers (REC-26).
// How long something has lasted, or how often, is not asked by a time.
func TestHowLongAgo(t *testing.T) {
	ref := phrasingRefs[0]
	for _, c := range []struct {
		q    string
		when bool
	}{
		{"How many days ago did Caroline go hiking?", true},
		{"how many weeks ago did she move to Lisbon", true},
		{"How many months ago did the user start the course?", true},
		{"How many years ago did Melanie get married?", true},
		{"How many weeks passed between adopting Coco and Shadow?", true},
		{"How much time has passed since the wedding?", true},
		{"How long has it been since he called?", true},
		{"How long since he called?", true},
		{"他多少天前去的北京？", true},
		{"她是多少年前搬家的", true},
		{"How long has she been painting?", false},
		{"How many years have they been married?", false},
		{"How many days a week does she run?", false},
		{"How many times a month do they meet?", false},
		{"How many books did she read?", false},
		{"Which weekend did she go camping?", true},
		{"What weekend did they meet?", true},
		{"Which season did they move in?", true},
		{"During which week was the trip?", true},
		{"Over what weekend did they paint the fence?", true},
		{"What weekends does she work?", false},
		{"Which seasonal fruit does she like?", false},
		{"At what point did she quit?", true},
		{"By when does she need the report?", true},
		{"Until when is she away?", true},
		{"How recently did she call?", true},
		{"What was the date of the concert?", true},
		{"What's the date of her exam?", true},
		{"Since what year has she lived there?", true},
		{"Was the party before or after the exam?", true},
		{"How old was she when she moved?", false},
		{"What was the best part of the concert?", false},
		{"她啥时候搬家的？", true},
		{"她什么时间去的北京？", true},
		{"她几点到的？", true},
		{"他们多久之前认识的？", true},
		{"她哪个周末去的？", true},
		{"她去了哪里？", false},
	} {
		a := Query(c.q, ref)
		if a.Found || a.When != c.when {
			t.Errorf("Query(%q) = found %v %q %s, when %v; want no time, when %v", c.q, a.Found, a.Expr, show(a.Window), a.When, c.when)
		}
	}
}
