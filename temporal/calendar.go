package temporal

import (
	"strconv"
	"strings"
	"time"
)

// Calendar arithmetic in the reference time's location.

func dayStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

func dayW(t time.Time) Window {
	s := dayStart(t)
	return Window{s, s.AddDate(0, 0, 1)}
}

// weekStart is the Monday of t's week.
func weekStart(t time.Time) time.Time {
	d := dayStart(t)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

func weekW(t time.Time) Window {
	s := weekStart(t)
	return Window{s, s.AddDate(0, 0, 7)}
}

// weekendW is the Saturday and Sunday of t's week.
func weekendW(t time.Time) Window {
	s := weekStart(t).AddDate(0, 0, 5)
	return Window{s, s.AddDate(0, 0, 2)}
}

func monthW(y int, m time.Month, loc *time.Location) Window {
	s := time.Date(y, m, 1, 0, 0, 0, 0, loc)
	return Window{s, s.AddDate(0, 1, 0)}
}

func yearW(y int, loc *time.Location) Window {
	s := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	return Window{s, s.AddDate(1, 0, 0)}
}

func decadeW(y int, loc *time.Location) Window {
	s := time.Date(y-y%10, 1, 1, 0, 0, 0, 0, loc)
	return Window{s, s.AddDate(10, 0, 0)}
}

// seasonW is the season (northern hemisphere, meteorological) named by s
// that starts in year y: spring March–May, summer June–August, autumn
// September–November, winter December–February.
func seasonW(s string, y int, loc *time.Location) Window {
	m := map[string]time.Month{"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}[s]
	st := time.Date(y, m, 1, 0, 0, 0, 0, loc)
	return Window{st, st.AddDate(0, 3, 0)}
}

// unitW is the calendar unit (day, week, month, year, decade) holding t.
func unitW(unit string, t time.Time) Window {
	switch unit {
	case "day":
		return dayW(t)
	case "week":
		return weekW(t)
	case "weekend":
		return weekendW(t)
	case "month":
		return monthW(t.Year(), t.Month(), t.Location())
	case "year":
		return yearW(t.Year(), t.Location())
	case "decade":
		return decadeW(t.Year(), t.Location())
	}
	return Window{}
}

// shift moves t by n units.
func shift(unit string, t time.Time, n int) time.Time {
	switch unit {
	case "day":
		return t.AddDate(0, 0, n)
	case "week", "weekend":
		return t.AddDate(0, 0, 7*n)
	case "month":
		// from the first of the month, so that 31 March − 1 month is February
		f := time.Date(t.Year(), t.Month(), 1, t.Hour(), t.Minute(), 0, 0, t.Location())
		return f.AddDate(0, n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	case "decade":
		return t.AddDate(10*n, 0, 0)
	}
	return t
}

// back is t n units earlier, day for day ("the past month" from 10 May
// starts on 10 April).
func back(unit string, t time.Time, n int) time.Time {
	if unit == "month" {
		return t.AddDate(0, -n, 0)
	}
	return shift(unit, t, -n)
}

// span is [unit holding ref−hi units, unit holding ref−lo units): "two to
// four days ago" with lo 2, hi 4 (negative for the future).
func span(unit string, ref time.Time, lo, hi int) Window {
	a := unitW(unit, shift(unit, ref, -hi))
	b := unitW(unit, shift(unit, ref, -lo))
	return Window{a.Start, b.End}
}

// part is a share of w: from a to b thirds (or halves when of is 2). A
// year's thirds are whole months (January–April, May–August,
// September–December); other windows' are whole days.
func part(w Window, a, b, of int) Window {
	if w.Start.Month() == 1 && w.Start.Day() == 1 && w.End.Equal(w.Start.AddDate(1, 0, 0)) {
		step := 12 / of
		return Window{w.Start.AddDate(0, a*step, 0), w.Start.AddDate(0, b*step, 0)}
	}
	days := int(w.End.Sub(w.Start).Hours()/24 + 0.5)
	if days < of {
		return w
	}
	s := w.Start.AddDate(0, 0, days*a/of)
	e := w.Start.AddDate(0, 0, days*b/of)
	if b == of {
		e = w.End
	}
	return Window{s, e}
}

// date is an absolute date as written, 0 for a part not given.
type date struct{ y, m, d int }

func daysIn(y, m int) int {
	if y == 0 {
		y = 2000 // a leap year: 29 February is a date
	}
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func (p date) ok() bool {
	if p.y != 0 && (p.y < 1000 || p.y > 9999) {
		return false
	}
	if p.m < 0 || p.m > 12 || p.d < 0 || p.d > 31 {
		return false
	}
	if p.d != 0 && p.m != 0 && p.d > daysIn(p.y, p.m) {
		return false
	}
	return p.y != 0 || p.m != 0 || p.d != 0
}

// window resolves p: a missing year (or month) is the one the bias picks.
func (p date) window(c ctx) (Window, bool) {
	if !p.ok() {
		return Window{}, false
	}
	loc := c.ref.Location()
	if p.y != 0 {
		switch {
		case p.m == 0 && p.d == 0:
			return yearW(p.y, loc), true
		case p.m == 0:
			return Window{}, false // a year and a day: no month
		case p.d == 0:
			return monthW(p.y, time.Month(p.m), loc), true
		}
		return dayW(time.Date(p.y, time.Month(p.m), p.d, 0, 0, 0, 0, loc)), true
	}
	var cands []Window
	if p.m != 0 {
		from, to := c.ref.Year()-1, c.ref.Year()+1
		if p.m == 2 && p.d == 29 { // a leap day: the leap years either side
			from, to = c.ref.Year()-4, c.ref.Year()+4
		}
		for y := from; y <= to; y++ {
			if p.d == 0 {
				cands = append(cands, monthW(y, time.Month(p.m), loc))
			} else if p.d <= daysIn(y, p.m) {
				cands = append(cands, dayW(time.Date(y, time.Month(p.m), p.d, 0, 0, 0, 0, loc)))
			}
		}
	} else {
		first := time.Date(c.ref.Year(), c.ref.Month(), 1, 0, 0, 0, 0, loc)
		for k := -1; k <= 1; k++ {
			f := first.AddDate(0, k, 0)
			if p.d <= daysIn(f.Year(), int(f.Month())) {
				cands = append(cands, dayW(f.AddDate(0, 0, p.d-1)))
			}
		}
	}
	return choose(cands, c)
}

// choose picks among the readings of an incomplete expression, in time
// order, by c's bias.
func choose(cands []Window, c ctx) (Window, bool) {
	if len(cands) == 0 {
		return Window{}, false
	}
	switch c.biasOf() {
	case past:
		for i := len(cands) - 1; i >= 0; i-- {
			if !cands[i].Start.After(c.ref) {
				return cands[i], true
			}
		}
	case future:
		for _, w := range cands {
			if w.End.After(c.ref) {
				return w, true
			}
		}
	}
	best, bestD := cands[0], time.Duration(-1)
	for _, w := range cands {
		var d time.Duration
		switch {
		case c.ref.Before(w.Start):
			d = w.Start.Sub(c.ref)
		case !c.ref.Before(w.End):
			d = c.ref.Sub(w.End)
		}
		if bestD < 0 || d < bestD {
			best, bestD = w, d
		}
	}
	return best, true
}

// weekdayW is the weekday wd in the week holding t, shifted by weeks.
func weekdayW(t time.Time, wd time.Weekday, weeks int) Window {
	s := weekStart(t).AddDate(0, 0, 7*weeks+(int(wd)+6)%7)
	return Window{s, s.AddDate(0, 0, 1)}
}

// lastWeekday is the latest wd strictly before the day holding t; nextWeekday
// the earliest strictly after it.
func lastWeekday(t time.Time, wd time.Weekday) Window {
	d := dayStart(t)
	back := (int(d.Weekday()) - int(wd) + 7) % 7
	if back == 0 {
		back = 7
	}
	return dayW(d.AddDate(0, 0, -back))
}

func nextWeekday(t time.Time, wd time.Weekday) Window {
	d := dayStart(t)
	fwd := (int(wd) - int(d.Weekday()) + 7) % 7
	if fwd == 0 {
		fwd = 7
	}
	return dayW(d.AddDate(0, 0, fwd))
}

var monthNames = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
	"sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
	"mon": time.Monday, "tue": time.Tuesday, "tues": time.Tuesday, "wed": time.Wednesday, "weds": time.Wednesday,
	"thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday, "fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
	"一": time.Monday, "二": time.Tuesday, "三": time.Wednesday, "四": time.Thursday,
	"五": time.Friday, "六": time.Saturday, "日": time.Sunday, "天": time.Sunday,
	"1": time.Monday, "2": time.Tuesday, "3": time.Wednesday, "4": time.Thursday,
	"5": time.Friday, "6": time.Saturday, "7": time.Sunday,
}

// number reads a count in English words or digits: lo..hi (a few = 2..4).
func number(s string) (lo, hi int, ok bool) {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	// Two counts bound one: "two or three", "2-3", "two to three".
	for _, sep := range []string{" or ", " to ", "-", "–"} {
		if a, b, found := strings.Cut(s, sep); found && a != "" && b != "" {
			l, _, ok1 := number(a)
			_, h, ok2 := number(b)
			if !ok1 || !ok2 || h <= l {
				return 0, 0, false
			}
			return l, h, true
		}
	}
	s = strings.TrimPrefix(s, "a ")
	switch s {
	case "a", "an", "one", "single":
		return 1, 1, true
	case "couple of", "couple", "two":
		return 2, 2, true
	case "few":
		return 2, 4, true
	case "several":
		return 3, 7, true
	}
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	for i, w := range words {
		if s == w {
			return i, i, true
		}
	}
	switch s {
	case "thirty":
		return 30, 30, true
	case "forty":
		return 40, 40, true
	case "fifty":
		return 50, 50, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 9999 {
		return n, n, true
	}
	return 0, 0, false
}

// cnNumber reads a Chinese or Arabic number: "三" 3, "十五" 15, "二十一" 21,
// "两" 2, "二〇二二" 2022 (digit by digit), "１２" 12, "几" a few (2..4).
func cnNumber(s string) (lo, hi int, ok bool) {
	if s == "" {
		return 0, 0, false
	}
	if s == "几" {
		return 2, 4, true
	}
	digits := map[rune]int{'〇': 0, '零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	rs := []rune(s)
	// Two neighbouring counts are a span of them: 两三 (two or three), 三四.
	if len(rs) == 2 {
		a, okA := digits[rs[0]]
		b, okB := digits[rs[1]]
		if okA && okB && a > 0 && b == a+1 {
			return a, b, true
		}
	}
	// Tens and a few: 十几 (eleven to nineteen), 二十几.
	if len(rs) >= 2 && rs[len(rs)-1] == '几' && rs[len(rs)-2] == '十' {
		if t, _, ok := cnNumber(string(rs[:len(rs)-1])); ok {
			return t + 1, t + 9, true
		}
		return 0, 0, false
	}
	allDigits := true
	n := 0
	for _, r := range rs {
		switch {
		case r >= '0' && r <= '9':
			n = n*10 + int(r-'0')
		case r >= '０' && r <= '９':
			n = n*10 + int(r-'０')
		default:
			allDigits = false
		}
		if n > 99999 {
			return 0, 0, false
		}
	}
	if allDigits {
		return n, n, true
	}
	if !strings.ContainsRune(s, '十') {
		n = 0
		for _, r := range rs {
			d, ok := digits[r]
			if !ok {
				return 0, 0, false
			}
			n = n*10 + d
		}
		return n, n, true
	}
	tens, units, seen := 1, 0, false
	before, after, _ := strings.Cut(s, "十")
	if before != "" {
		br := []rune(before)
		d, ok := digits[br[0]]
		if len(br) != 1 || !ok {
			return 0, 0, false
		}
		tens = d
	}
	if after != "" {
		ar := []rune(after)
		d, ok := digits[ar[0]]
		if len(ar) != 1 || !ok {
			return 0, 0, false
		}
		units, seen = d, true
	}
	_ = seen
	n = tens*10 + units
	return n, n, true
}
