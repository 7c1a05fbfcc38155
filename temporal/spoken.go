package temporal

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The ways people say a time in speech more than in writing (REC-32): a
// unit two before or after this one, half units, hours, the day of a
// month by its ordinal word, holidays, and their Chinese forms.

// enBeforeLast is "the week before last" (two weeks ago), "the Friday
// after next", "the night before last".
func enBeforeLast(sub []string, text string, loc []int, c ctx) (Window, bool) {
	switch strings.TrimSuffix(strings.TrimSuffix(wordAfter(text, loc[1]), "'s"), "’s") {
	case "year", "month", "week", "weekend", "night", "time", "summer", "winter", "spring", "fall", "autumn",
		"decade", "fortnight", "christmas", "easter", "thanksgiving", "halloween":
		return Window{}, false // "the week before last year's trip": enRelativeTo's point, not this
	}
	dir := 2
	if strings.HasPrefix(lower(sub[2]), "before") {
		dir = -2
	}
	u := lower(sub[1])
	if day, ok := weekdays[u]; ok {
		if dir < 0 {
			return dayW(lastWeekday(c.ref, day).Start.AddDate(0, 0, -7)), true
		}
		return dayW(nextWeekday(c.ref, day).Start.AddDate(0, 0, 7)), true
	}
	switch u {
	case "spring", "summer", "autumn", "fall", "winter":
		// The one before the last one over, or after the next to start.
		if u == "fall" {
			u = "autumn"
		}
		w := seasonNear(u, c, dir/2)
		return seasonW(u, w.Start.Year()+dir/2, c.ref.Location()), true
	case "day", "night":
		return dayW(c.ref.AddDate(0, 0, dir)), true
	case "weekend":
		return weekendW(c.ref.AddDate(0, 0, 7*dir)), true
	}
	return unitW(u, shift(u, c.ref, dir)), true
}

// enHalfAgo is "a week and a half ago", "two and a half years ago", "half
// a year ago": so many days back, a tenth either side.
func enHalfAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	n, u := 0.5, sub[5]
	switch {
	case sub[1] != "":
		k, _, ok := number(sub[1])
		if !ok {
			return Window{}, false
		}
		n, u = float64(k)+0.5, sub[2]
	case sub[3] != "":
		k, _, ok := number(sub[3])
		if !ok {
			return Window{}, false
		}
		n, u = float64(k)+0.5, sub[4]
	}
	days := n * map[string]float64{"day": 1, "week": 7, "month": 30.44, "year": 365.25}[lower(u)]
	lo, hi := int(days*0.9+0.5), int(days*1.1+0.5)
	return span("day", c.ref, lo, hi), true
}

// enHoursAgo is "three hours ago", "20 minutes ago": that time, half a unit
// either side.
func enHoursAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := number(sub[1])
	if !ok || hi > 200 {
		return Window{}, false
	}
	u := time.Hour
	if lower(sub[2]) == "minute" {
		u = time.Minute
	}
	return Window{c.ref.Add(-time.Duration(hi)*u - u/2), c.ref.Add(-time.Duration(lo)*u + u/2)}, true
}

// enPastHours is "the past 24 hours", "the last hour": up to the time said.
func enPastHours(sub []string, text string, loc []int, c ctx) (Window, bool) {
	n := 1
	if sub[1] != "" {
		_, hi, ok := number(sub[1])
		if !ok || hi == 0 || hi > 200 {
			return Window{}, false
		}
		n = hi
	}
	u := time.Hour
	if lower(sub[2]) == "minute" {
		u = time.Minute
	}
	return Window{c.ref.Add(-time.Duration(n) * u), c.ref.Add(time.Second)}, true
}

// enThisTimeLast is "this time last year" (a fortnight either side of the
// day a year before), "a year ago today" (that day).
func enThisTimeLast(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if sub[1] != "" {
		dir := -1
		if lower(sub[1]) == "next" {
			dir = 1
		}
		u := lower(sub[2])
		d := dayStart(addUnits(u, c.ref, dir))
		around := map[string]int{"year": 14, "month": 3, "week": 1}[u]
		return Window{d.AddDate(0, 0, -around), d.AddDate(0, 0, around+1)}, true
	}
	lo, hi, ok := number(sub[3])
	if !ok || lo != hi || hi > 200 {
		return Window{}, false
	}
	return dayW(addUnits(lower(sub[4]), c.ref, -hi)), true
}

// enOtherDay is "the other day": a few days before, within the week; "the
// other week": a week or a few before this one.
func enOtherDay(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if w := wordBefore(text, loc[0]); w == "every" || w == "each" {
		return Window{}, false // every other day: how often (REC-30)
	}
	if lower(sub[1]) == "week" {
		return Window{weekStart(c.ref).AddDate(0, 0, -21), weekStart(c.ref)}, true
	}
	return Window{dayStart(c.ref.AddDate(0, 0, -7)), dayStart(c.ref)}, true
}

// enWeekdaysAgo is "two weekends ago", "three Saturdays back": counted
// back from the last one over before the day written (one weekend ago is
// the last weekend), a range of counts ("two or three") a span of them.
func enWeekdaysAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := number(sub[1])
	if !ok || lo < 1 || hi > 200 {
		return Window{}, false
	}
	today := dayStart(c.ref)
	var last Window
	if u := lower(sub[2]); u == "weekend" {
		if last = weekendW(c.ref); last.End.After(today) {
			last = weekendW(c.ref.AddDate(0, 0, -7))
		}
	} else {
		d := (int(today.Weekday()) - int(weekdays[u]) + 7) % 7
		if d == 0 {
			d = 7
		}
		last = dayW(today.AddDate(0, 0, -d))
	}
	first := Window{last.Start.AddDate(0, 0, -7*(hi-1)), last.End.AddDate(0, 0, -7*(hi-1))}
	return Window{first.Start, last.End.AddDate(0, 0, -7*(lo-1))}, true
}

// enOverTheLast is "over the last month", "during the past year": the
// unit before this one, or the same span back from today, as people mean
// either (REC-29's "last week"); not "the last month of the year".
func enOverTheLast(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if rest := strings.Fields(lower(text[loc[1]:])); len(rest) > 0 && rest[0] == "of" {
		return Window{}, false
	}
	u := lower(sub[1])
	return Window{unitW(u, shift(u, c.ref, -1)).Start, dayW(c.ref).End}, true
}

// enJustGone is "the weekend just gone", "this week just passed": the
// one before this one.
func enJustGone(sub []string, text string, loc []int, c ctx) (Window, bool) {
	return enModUnit([]string{sub[0], "last", sub[1]}, text, loc, c)
}

// enSeasonsAgo is "two summers ago", "three winters back": the last such
// season over, and the ones before it back to the count.
func enSeasonsAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := number(sub[1])
	if !ok || lo < 1 || hi > 100 {
		return Window{}, false
	}
	s := lower(sub[2])
	if s == "fall" {
		s = "autumn"
	}
	last := seasonNear(s, c, -1)
	y := last.Start.Year()
	return Window{seasonW(s, y-(hi-1), c.ref.Location()).Start, seasonW(s, y-(lo-1), c.ref.Location()).End}, true
}

// enRecent is "in recent weeks": as "the past few weeks".
func enRecent(sub []string, text string, loc []int, c ctx) (Window, bool) {
	return Window{dayStart(back(lower(sub[1]), c.ref, 4)), dayW(c.ref).End}, true
}

// enTheWeekend is "over the weekend": in a query, the latest one begun
// (a question asks about the past); in a text, the one its sentence's
// tense picks ("we went hiking over the weekend", said on a Wednesday:
// the one just over), else the nearest (said on a Friday, the one to
// come).
func enTheWeekend(sub []string, text string, loc []int, c ctx) (Window, bool) {
	w, ok := choose([]Window{weekendW(c.ref.AddDate(0, 0, -7)), weekendW(c.ref), weekendW(c.ref.AddDate(0, 0, 7))}, c)
	if ok && sub[1] != "" {
		// A long weekend: with its Friday and its Monday.
		w = Window{w.Start.AddDate(0, 0, -1), w.End.AddDate(0, 0, 1)}
	}
	return w, ok
}

// enPartIn is "early in the year", "later in the week", "late in 2022".
func enPartIn(sub []string, text string, loc []int, c ctx) (Window, bool) {
	w, ok := resolveInner(sub[2], c)
	if !ok {
		return Window{}, false
	}
	p := lower(sub[1])
	if (p == "earlier" || p == "later") && w.Contains(dayW(c.ref)) {
		return enEarlierThis([]string{"", p, unitOf(w)}, text, loc, c)
	}
	switch p {
	case "early", "earlier":
		return part(w, 0, 1, 3), true
	case "mid":
		return part(w, 1, 2, 3), true
	}
	return part(w, 2, 3, 3), true
}

// unitOf names the calendar unit w spans.
func unitOf(w Window) string {
	switch d := w.Duration(); {
	case d <= 8*24*time.Hour:
		return "week"
	case d <= 32*24*time.Hour:
		return "month"
	}
	return "year"
}

// ordinalStems are in every ordinal word of ordw.
const ordinalStems = `first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|teenth|twentieth|thirtieth|twenty|thirty`

// ordinalWords are the days of a month by their ordinal words.
var ordinalWords = func() map[string]int {
	m := map[string]int{}
	ones := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
		"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"}
	for i, w := range ones {
		m[w] = i + 1
	}
	for i, w := range ones[:9] {
		m["twenty"+w], m["twenty "+w], m["twenty-"+w] = 21+i, 21+i, 21+i
	}
	m["thirtieth"], m["thirtyfirst"], m["thirty first"], m["thirty-first"] = 30, 31, 31, 31
	return m
}()

// dayNumber reads "5th", "fifth", "twenty-first".
func dayNumber(s string) int {
	s = lower(s)
	if d, ok := ordinalWords[s]; ok {
		return d
	}
	n, _, _ := number(strings.TrimRight(s, "stndrh"))
	return n
}

// enDayOf is "the fifth of May", "the 5th of last month".
func enDayOf(sub []string, text string, loc []int, c ctx) (Window, bool) {
	d := dayNumber(sub[1])
	if d < 1 || d > 31 {
		return Window{}, false
	}
	of := lower(sub[2])
	if k, u, ok := strings.Cut(of, " "); ok && u == "month" {
		mw := unitW("month", shift("month", c.ref, map[string]int{"last": -1, "this": 0, "the": 0, "next": 1}[k]))
		day := mw.Start.AddDate(0, 0, d-1)
		if !day.Before(mw.End) {
			return Window{}, false
		}
		return dayW(day), true
	}
	if isDigit(sub[1][0]) {
		return Window{}, false // "the 5th of May": absDate's
	}
	p := parseAbs(of)
	p.d = d
	return p.window(c)
}

// enMonthOrdinal is "May the 5th", "March first", "June the twenty-first, 2022".
func enMonthOrdinal(sub []string, text string, loc []int, c ctx) (Window, bool) {
	name := strings.TrimSpace(sub[1])
	if sub[3] != "" && (name[0] < 'A' || name[0] > 'Z' || len(name) <= 3 && strings.ToLower(name) != "may") ||
		strings.ToLower(name) == "may" && name[0] != 'M' {
		return Window{}, false // "you may first …", "we march first", "Jan first …"
	}
	d := dayNumber(sub[2] + sub[3])
	if d < 1 || d > 31 {
		return Window{}, false
	}
	p := parseAbs(name)
	p.d = d
	if sub[4] != "" {
		p.y, _, _ = number(sub[4])
	}
	return p.window(c)
}

// Holidays by their names: fixed days, and those a rule of the calendar
// sets (Easter, Thanksgiving, Mother's Day).
const (
	holidayNames = `(?:chinese|lunar)\s+new\s+year(?:'?s\s+eve)?|spring\s+festival|lantern\s+festival|qingming(?:\s+festival)?|tomb[\s-]sweeping\s+day|dragon\s+boat\s+festival|qixi(?:\s+festival)?|mid[\s-]autumn\s+festival|moon(?:cake)?\s+festival|double\s+ninth\s+festival|christmas\s+eve|christmas\s+day|(?:christmas|xmas)(?:\s+(?:holidays?|break|vacation))?|boxing\s+day|new\s+year'?s\s+eve|new\s+year'?s(?:\s+day)?|valentine'?s(?:\s+day)?|halloween|thanksgiving|easter(?:\s+(?:sunday|monday|weekend|holidays?|break|vacation))?|independence\s+day|mother'?s\s+day|father'?s\s+day|labou?r\s+day|memorial\s+day`
	holidayQuick = `new|festival|qingming|tomb|qixi|christmas|xmas|boxing|valentine|halloween|thanksgiving|easter|independence|mother|father|labor|labour|memorial`
)

// holidayW is the holiday named in year y.
func holidayW(name string, y int, loc *time.Location) Window {
	n := strings.NewReplacer("'", "", "’", "").Replace(lower(name))
	day := func(m time.Month, d int) Window { return dayW(time.Date(y, m, d, 0, 0, 0, 0, loc)) }
	// nth weekday wd of month m (n < 0: the last)
	nth := func(m time.Month, wd time.Weekday, n int) Window {
		if n < 0 {
			last := time.Date(y, m+1, 0, 0, 0, 0, 0, loc)
			return dayW(last.AddDate(0, 0, -((int(last.Weekday()) - int(wd) + 7) % 7)))
		}
		first := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		return dayW(first.AddDate(0, 0, (int(wd)-int(first.Weekday())+7)%7+7*(n-1)))
	}
	if w, ok := enLunarW(n, y, loc); ok {
		return w
	}
	switch {
	case n == "christmas eve":
		return day(12, 24)
	case strings.HasPrefix(n, "christmas ") && n != "christmas day", strings.HasPrefix(n, "xmas "):
		return Window{day(12, 24).Start, day(12, 24).Start.AddDate(0, 0, 9)} // to 1 January
	case strings.HasPrefix(n, "christmas"), n == "xmas":
		return day(12, 25)
	case n == "boxing day":
		return day(12, 26)
	case strings.HasPrefix(n, "new years eve"):
		return day(12, 31)
	case strings.HasPrefix(n, "new years"):
		return day(1, 1)
	case strings.HasPrefix(n, "valentine"):
		return day(2, 14)
	case n == "halloween":
		return day(10, 31)
	case n == "independence day":
		return day(7, 4)
	case n == "thanksgiving":
		return nth(11, time.Thursday, 4)
	case strings.HasPrefix(n, "mothers"):
		return nth(5, time.Sunday, 2)
	case strings.HasPrefix(n, "fathers"):
		return nth(6, time.Sunday, 3)
	case strings.HasPrefix(n, "labo"):
		return nth(9, time.Monday, 1)
	case n == "memorial day":
		return nth(5, time.Monday, -1)
	case strings.HasPrefix(n, "easter"):
		e := easter(y, loc)
		switch strings.TrimSpace(strings.TrimPrefix(n, "easter")) {
		case "monday":
			return dayW(e.AddDate(0, 0, 1))
		case "weekend":
			return Window{e.AddDate(0, 0, -2), e.AddDate(0, 0, 2)} // Good Friday to Easter Monday
		case "holiday", "holidays", "break", "vacation":
			return Window{e.AddDate(0, 0, -7), e.AddDate(0, 0, 8)} // the week before and the week after
		}
		return dayW(e)
	}
	return Window{}
}

// easter is Easter Sunday of year y (the Gregorian computus).
func easter(y int, loc *time.Location) time.Time {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(y, time.Month(month), day, 0, 0, 0, 0, loc)
}

// nearHoliday is the holiday named by f in year y: off −1 the last one
// over by the day of ref, 1 the next one after it, 0 that of ref's year;
// without a modifier, the one c's bias picks.
func nearHoliday(f func(y int) Window, mod string, c ctx) (Window, bool) {
	var cands []Window
	for y := c.ref.Year() - 2; y <= c.ref.Year()+2; y++ {
		if w := f(y); w.Valid() {
			cands = append(cands, w)
		}
	}
	today := dayW(c.ref)
	switch mod {
	case "last":
		for i := len(cands) - 1; i >= 0; i-- {
			if !cands[i].End.After(today.Start) {
				return cands[i], true
			}
		}
		return Window{}, false
	case "next":
		for _, w := range cands {
			if !w.Start.Before(today.End) {
				return w, true
			}
		}
		return Window{}, false
	case "this":
		for _, w := range cands {
			if w.Start.Year() == c.ref.Year() {
				return w, true
			}
		}
	}
	return choose(cands, c)
}

func enHoliday(sub []string, text string, loc []int, c ctx) (Window, bool) {
	n := lower(sub[2])
	if n == "thanksgiving" || n == "easter" || n == "halloween" || strings.HasPrefix(n, "christmas") || strings.HasPrefix(n, "valentine") {
		// these lower-case words are names too: a capital is not needed
	} else if r, _ := utf8.DecodeRuneInString(sub[2]); r < 'A' || r > 'Z' {
		return Window{}, false // "my mother's day off", "labor day" as words
	}
	f := func(y int) Window { return holidayW(n, y, c.ref.Location()) }
	y, said := yearSaidAfter(sub[4], sub[5], c.ref)
	if sub[3] != "" {
		y, _, _ = number(sub[3])
		said = true
	}
	if said {
		w := f(y)
		return w, w.Valid()
	}
	return nearHoliday(f, lower(sub[1]), c)
}

// Chinese.

var zhYearOff = map[string]int{"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "大后年": 3}

// zhPartAlone is 月初, 年底 said alone: of this month, this year.
func zhPartAlone(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if strings.HasSuffix(text[:loc[0]], "每") || strings.HasSuffix(text[:loc[0]], "个") {
		return Window{}, false // 每月初: how often
	}
	if strings.HasSuffix(sub[1], "中") {
		// 中 is "in" as often: 一年中, 岁月中, 五月中 are no middles said
		// alone; after a word that leads a time (在月中, 到年中) it is.
		if r, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); unicode.Is(unicode.Han, r) && !strings.ContainsRune("在到等是于从至就才再约", r) {
			return Window{}, false
		}
	}
	w := monthW(c.ref.Year(), c.ref.Month(), c.ref.Location())
	if strings.HasPrefix(sub[1], "年") {
		w = yearW(c.ref.Year(), c.ref.Location())
	}
	return zhMod(w, sub[1]), true
}

// zhTheseDays is 这几天 (the last few days), 这两天 (the last two or three).
func zhTheseDays(sub []string, text string, loc []int, c ctx) (Window, bool) {
	n := 4
	if sub[1] == "两" {
		n = 2
	}
	return Window{dayStart(c.ref.AddDate(0, 0, -n)), dayW(c.ref).End}, true
}

// zhDayAlone is a day of the month alone (3号, 十五日), when what follows
// does not make it a number of something (3号楼, 一日三餐).
func zhDayAlone(sub []string, text string, loc []int, c ctx) (Window, bool) {
	prev, _ := utf8.DecodeLastRuneInString(text[:loc[0]])
	if prev != utf8.RuneError && strings.ContainsRune("0123456789０１２３４５６７８９〇零一二两三四五六七八九十几月年第个每周期拜礼", prev) {
		return Window{}, false
	}
	rest := text[loc[1]:]
	next, _ := utf8.DecodeRuneInString(rest)
	if rest != "" && !strings.ContainsRune("，。？！,.?! 、；;：:那的晚早上下中去来到回见在是有要会就和跟我你他她我们做干吃买看", next) {
		return Window{}, false
	}
	d := cn(sub[1])
	if d < 1 || d > 31 {
		return Window{}, false
	}
	return date{d: d}.window(c)
}

// zhThisTimeLast is 去年这个时候 (a fortnight either side of the day a year
// ago), 去年的今天 (that day).
func zhThisTimeLast(sub []string, text string, loc []int, c ctx) (Window, bool) {
	u, n := "year", map[string]int{"前年": -2, "去年": -1, "上个月": -1, "上月": -1}[sub[1]]
	if strings.HasSuffix(sub[1], "月") {
		u = "month"
	}
	d := dayStart(addUnits(u, c.ref, n))
	switch sub[2] {
	case "今天", "今日", "这一天", "这天":
		return dayW(d), true
	}
	around := map[string]int{"year": 14, "month": 3}[u]
	return Window{d.AddDate(0, 0, -around), d.AddDate(0, 0, around+1)}, true
}

// The Chinese names of holidays on fixed days of the Gregorian calendar.
const zhHolidayNames = zhLunarNames + `|元旦|情人节|劳动节|五一|国庆节|国庆|万圣节|平安夜|圣诞节|圣诞|儿童节|妇女节|教师节`

func zhHolidayW(name string, y int, loc *time.Location) Window {
	day := func(m time.Month, d, days int) Window {
		s := time.Date(y, m, d, 0, 0, 0, 0, loc)
		return Window{s, s.AddDate(0, 0, days)}
	}
	if w, ok := zhLunarW(name, y, loc); ok {
		return w
	}
	switch name {
	case "元旦":
		return day(1, 1, 1)
	case "情人节":
		return day(2, 14, 1)
	case "妇女节":
		return day(3, 8, 1)
	case "劳动节", "五一":
		return day(5, 1, 5) // the May Day holiday
	case "儿童节":
		return day(6, 1, 1)
	case "教师节":
		return day(9, 10, 1)
	case "国庆节", "国庆":
		return day(10, 1, 7) // the golden week
	case "万圣节":
		return day(10, 31, 1)
	case "平安夜":
		return day(12, 24, 1)
	}
	return day(12, 25, 1) // 圣诞节
}

func zhHoliday(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if sub[3] == "五一" {
		// 五一 is the holiday, not five and one of a number (五一二),
		// a street (五一路), a square (五一广场) or a name of it.
		if r, _ := utf8.DecodeRuneInString(text[loc[1]:]); strings.ContainsRune("〇零一二两三四五六七八九十百千万0123456789点月日号路街广大村镇区", r) {
			return Window{}, false
		}
		if r, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); strings.ContainsRune("〇零一二两三四五六七八九十百千万0123456789第", r) {
			return Window{}, false
		}
	}
	if guardLunar(sub[3], text, loc) {
		return Window{}, false
	}
	f := func(y int) Window { return zhHolidayW(sub[3], y, c.ref.Location()) }
	switch {
	case sub[1] != "":
		w := f(c.ref.Year() + zhYearOff[sub[1]])
		return w, w.Valid()
	case sub[2] != "":
		w := f(cn(sub[2]))
		return w, w.Valid()
	}
	return nearHoliday(f, "", c)
}

// enNextCount is "the next few days", "over the next two weeks": from the
// day after the one said.
func enNextCount(sub []string, text string, loc []int, c ctx) (Window, bool) {
	_, hi, ok := number(sub[1])
	if !ok || hi == 0 || hi > 200 {
		return Window{}, false
	}
	u, _, hi := perUnit(sub[2], hi, hi)
	start := dayW(c.ref).End
	return Window{start, dayStart(addUnits(u, start, hi))}, true
}

// enComing is "in the coming weeks": as "the next few weeks".
func enComing(sub []string, text string, loc []int, c ctx) (Window, bool) {
	start := dayW(c.ref).End
	return Window{start, dayStart(addUnits(lower(sub[1]), start, 4))}, true
}

// enNthWeekdayOf is "the first Monday of May", "the last weekend of April".
func enNthWeekdayOf(sub []string, text string, loc []int, c ctx) (Window, bool) {
	m, ok := resolveInner(sub[3], c)
	if !ok || m.Duration() > 32*24*time.Hour {
		return Window{}, false
	}
	n := map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}[lower(sub[1])]
	wd, weekend := weekdays[lower(sub[2])], lower(sub[2]) == "weekend"
	if weekend {
		wd = time.Saturday
	}
	var days []time.Time
	for d := m.Start; d.Before(m.End); d = d.AddDate(0, 0, 1) {
		if d.Weekday() == wd {
			days = append(days, d)
		}
	}
	if n == 0 {
		n = len(days)
	}
	if n < 1 || n > len(days) {
		return Window{}, false
	}
	w := dayW(days[n-1])
	if weekend {
		w.End = w.End.AddDate(0, 0, 1)
	}
	return w, true
}

// enDecade is a decade: "the 1990s", "the '80s", "the nineties"; "the
// 90s" only in a query (in a text it is as often a temperature or an age).
func enDecade(sub []string, text string, loc []int, c ctx) (Window, bool) {
	loc0 := c.ref.Location()
	if sub[1] != "" {
		y, _, _ := number(sub[1])
		return decadeW(y, loc0), true
	}
	var d int
	switch {
	case sub[2] != "":
		d, _, _ = number(sub[2])
	case sub[3] != "":
		d = map[string]int{"twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90}[lower(sub[3])]
	default:
		if !c.query {
			return Window{}, false
		}
		d, _, _ = number(sub[4])
	}
	if w := wordBefore(text, loc[0]); w == "his" || w == "her" || w == "my" || w == "their" || w == "your" || w == "our" {
		return Window{}, false // "in her twenties": an age
	}
	return lastDecade(d, c.ref), true
}

// lastDecade is the latest decade ending in d0 (20 for the twenties)
// that began by ref.
func lastDecade(d int, ref time.Time) Window {
	y := ref.Year()/100*100 + d
	if y > ref.Year() {
		y -= 100
	}
	return decadeW(y, ref.Location())
}

// enQuarter is "Q1 2023", "the second quarter of last year".
func enQuarter(sub []string, text string, loc []int, c ctx) (Window, bool) {
	q, y := 0, 0
	if sub[1] != "" {
		q, _, _ = number(sub[1])
		y, _, _ = number(sub[2])
	} else {
		q = map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": 4}[lower(sub[3])]
		w, ok := resolveInner(sub[4], c)
		if !ok {
			return Window{}, false
		}
		y = w.Start.Year()
	}
	s := time.Date(y, time.Month(3*q-2), 1, 0, 0, 0, 0, c.ref.Location())
	return Window{s, s.AddDate(0, 3, 0)}, true
}

// zhVacation is 暑假 (July and August) or 寒假 (15 January to the end of
// February) of the year named, or the one the bias picks.
func zhVacation(sub []string, text string, loc []int, c ctx) (Window, bool) {
	f := func(y int) Window {
		if sub[3] == "暑假" {
			return Window{time.Date(y, 7, 1, 0, 0, 0, 0, c.ref.Location()), time.Date(y, 9, 1, 0, 0, 0, 0, c.ref.Location())}
		}
		return Window{time.Date(y, 1, 15, 0, 0, 0, 0, c.ref.Location()), time.Date(y, 3, 1, 0, 0, 0, 0, c.ref.Location())}
	}
	switch {
	case sub[1] != "":
		return f(c.ref.Year() + zhYearOff[sub[1]]), true
	case sub[2] != "":
		return f(cn(sub[2])), true
	}
	return nearHoliday(f, "", c)
}

// zhQuarter is 2023年第一季度, 去年第四季度, 第二季度 (this year's).
func zhQuarter(sub []string, text string, loc []int, c ctx) (Window, bool) {
	y := c.ref.Year()
	switch {
	case sub[1] != "":
		y = cn(sub[1])
	case sub[2] != "":
		y += zhYearOff[sub[2]]
	}
	q := cn(sub[3])
	if q < 1 || q > 4 {
		return Window{}, false
	}
	s := time.Date(y, time.Month(3*q-2), 1, 0, 0, 0, 0, c.ref.Location())
	return Window{s, s.AddDate(0, 3, 0)}, true
}

// zhDecade is 90年代, 九十年代, 1990年代.
func zhDecade(sub []string, text string, loc []int, c ctx) (Window, bool) {
	d := cn(sub[1])
	if d >= 1000 {
		return decadeW(d, c.ref.Location()), true
	}
	return lastDecade(d, c.ref), true
}
