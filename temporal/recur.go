package temporal

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Recurrence is a time that repeats (REC-30), as mnemo.Recurrence
// describes it, with the methods that find its occurrences.
type Recurrence mnemo.Recurrence

// RRule is r as an iCalendar RRULE (RFC 5545).
func (r Recurrence) RRule() string {
	var b strings.Builder
	b.WriteString("FREQ=" + strings.ToUpper(r.Freq))
	if r.Interval > 1 {
		b.WriteString(";INTERVAL=" + itoa(r.Interval))
	}
	if r.Month > 0 {
		b.WriteString(";BYMONTH=" + itoa(r.Month))
	}
	if r.MonthDay > 0 {
		b.WriteString(";BYMONTHDAY=" + itoa(r.MonthDay))
	}
	if len(r.Weekdays) > 0 {
		b.WriteString(";BYDAY=")
		for i, d := range r.Weekdays {
			if i > 0 {
				b.WriteByte(',')
			}
			if r.Ordinal != 0 {
				b.WriteString(itoa(r.Ordinal))
			}
			b.WriteString(strings.ToUpper(d[:2]))
		}
	}
	if from, to := partHours(r.Part); to > 0 {
		b.WriteString(";BYHOUR=")
		for h := from; h < to; h++ {
			if h > from {
				b.WriteByte(',')
			}
			b.WriteString(itoa(h))
		}
	}
	return b.String()
}

func itoa(n int) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

// partHours is the hours [from, to) of a part of the day; 0, 0 for the
// whole day.
func partHours(p string) (int, int) {
	switch p {
	case "morning":
		return 6, 12
	case "afternoon":
		return 12, 18
	case "evening", "night":
		return 18, 24
	}
	return 0, 0
}

// maxScan bounds the days Next looks through: two leap years and a week,
// what the longest period (every two years) needs.
const maxScan = 2*366 + 7

// Next is the first occurrence of r that ends after t (at the anchor or
// later), and whether there is one within reach.
func (r Recurrence) Next(t time.Time) (Window, bool) {
	if r.Anchor.IsZero() || r.Interval < 1 {
		return Window{}, false
	}
	loc := r.Anchor.Location()
	t = t.In(loc)
	if t.Before(r.Anchor) {
		t = r.Anchor
	}
	if !r.daily() { // whole periods: the one holding t, or the next on the interval
		w := r.period(t)
		for range 2*r.Interval + 1 {
			if r.onInterval(w.Start) && w.End.After(t) && !w.End.Before(r.Anchor) {
				return w, true
			}
			w = r.period(w.End)
		}
		return Window{}, false
	}
	d := dayStart(t)
	for range maxScan {
		if r.onDay(d) && r.onInterval(d) {
			w := dayW(d)
			if from, to := partHours(r.Part); to > 0 {
				w = Window{d.Add(time.Duration(from) * time.Hour), d.Add(time.Duration(to) * time.Hour)}
			}
			if w.End.After(t) {
				return w, true
			}
		}
		d = d.AddDate(0, 0, 1)
	}
	return Window{}, false
}

// Overlaps reports whether an occurrence of r shares an instant with w.
func (r Recurrence) Overlaps(w Window) bool {
	o, ok := r.Next(w.Start)
	return ok && o.Start.Before(w.End)
}

// daily reports whether r's occurrences are days (or parts of them), not
// whole periods.
func (r Recurrence) daily() bool {
	return r.Freq == "daily" || len(r.Weekdays) > 0 || r.MonthDay > 0 || r.Part != ""
}

// period is the whole period of r's frequency that holds t.
func (r Recurrence) period(t time.Time) Window {
	switch r.Freq {
	case "weekly":
		return weekW(t)
	case "monthly":
		return monthW(t.Year(), t.Month(), t.Location())
	case "yearly":
		if r.Month > 0 {
			if w := monthW(t.Year(), time.Month(r.Month), t.Location()); w.End.After(t) {
				return w
			}
			return monthW(t.Year()+1, time.Month(r.Month), t.Location())
		}
		return yearW(t.Year(), t.Location())
	}
	return dayW(t)
}

// onDay reports whether day d is one r names, the interval aside.
func (r Recurrence) onDay(d time.Time) bool {
	if r.Month > 0 && int(d.Month()) != r.Month {
		return false
	}
	if r.MonthDay > 0 && d.Day() != r.MonthDay {
		return false
	}
	if len(r.Weekdays) > 0 {
		name := strings.ToLower(d.Weekday().String())
		found := false
		for _, w := range r.Weekdays {
			found = found || w == name
		}
		if !found {
			return false
		}
		switch {
		case r.Ordinal > 0 && (d.Day()-1)/7+1 != r.Ordinal:
			return false
		case r.Ordinal < 0 && d.AddDate(0, 0, 7).Month() == d.Month():
			return false
		}
	}
	return true
}

// onInterval reports whether the period holding t is one of every
// Interval counted from the anchor's.
func (r Recurrence) onInterval(t time.Time) bool {
	if r.Interval <= 1 {
		return true
	}
	a := r.Anchor
	var n int
	switch r.Freq {
	case "daily":
		n = int(dayStart(t).Sub(dayStart(a)).Hours()+12) / 24
	case "weekly":
		n = int(weekStart(t).Sub(weekStart(a)).Hours()+12) / (24 * 7)
	case "monthly":
		n = (t.Year()-a.Year())*12 + int(t.Month()) - int(a.Month())
	case "yearly":
		n = t.Year() - a.Year()
	}
	return n >= 0 && n%r.Interval == 0
}

// A recurring expression found in a text.
type RecurringExpr struct {
	Text       string
	Pos, End   int
	Recurrence Recurrence
	// First is its first occurrence: the one before the reference it was
	// read against, or the next after it.
	First Window
}

// ExtractRecurrence returns the first recurring time expression in text,
// resolved against ref: its Anchor and First are the latest occurrence
// within one of its periods before ref (a habit stated on a Wednesday
// held the Sunday before), or the next one.
func ExtractRecurrence(text string, ref time.Time) (RecurringExpr, bool) {
	if len(text) > maxText {
		text = text[:maxText]
	}
	if ref.IsZero() {
		ref = time.Now()
	}
	if !mayRecur(text) {
		return RecurringExpr{}, false
	}
	best := RecurringExpr{Pos: -1}
	for _, p := range recurPatterns() {
		loc := p.re.FindStringSubmatchIndex(text)
		if loc == nil || best.Pos >= 0 && (loc[0] > best.Pos || loc[0] == best.Pos && loc[1]-loc[0] <= best.End-best.Pos) {
			continue
		}
		sub := make([]string, len(loc)/2)
		for k := range sub {
			if loc[2*k] >= 0 {
				sub[k] = text[loc[2*k]:loc[2*k+1]]
			}
		}
		r, ok := p.build(sub)
		if !ok {
			continue
		}
		best = RecurringExpr{Text: strings.TrimSpace(text[loc[0]:loc[1]]), Pos: loc[0], End: loc[1], Recurrence: r}
	}
	if best.Pos < 0 {
		return RecurringExpr{}, false
	}
	r := &best.Recurrence
	if r.Interval < 1 {
		r.Interval = 1
	}
	// Anchor on a period before ref, then take the last occurrence that
	// starts by ref, else the first after it: which of every other week
	// is meant is not said, and the latest is the likeliest.
	each := *r
	each.Interval = 1
	each.Anchor = each.back(ref)
	first, ok := each.Next(each.Anchor)
	if !ok {
		return RecurringExpr{}, false
	}
	for {
		next, ok := each.Next(first.End)
		if !ok || next.Start.After(ref) {
			break
		}
		first = next
	}
	r.Anchor = first.Start
	r.Rule = r.RRule()
	best.First = first
	return best, true
}

// ParseRecurrence reads s as one recurring expression, the whole of it
// ("every Sunday morning", "每月第一个周一"), resolved against ref.
func ParseRecurrence(s string, ref time.Time) (RecurringExpr, bool) {
	e, ok := ExtractRecurrence(s, ref)
	if !ok || !whole(s, e.Pos, e.End) {
		return RecurringExpr{}, false
	}
	return e, true
}

// back is the start of the day one whole interval of periods before ref.
func (r Recurrence) back(ref time.Time) time.Time {
	d := dayStart(ref)
	switch r.Freq {
	case "weekly":
		return weekStart(d).AddDate(0, 0, -7*r.Interval)
	case "monthly":
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location()).AddDate(0, -r.Interval, 0)
	case "yearly":
		return time.Date(d.Year()-r.Interval, 1, 1, 0, 0, 0, 0, d.Location())
	}
	return d.AddDate(0, 0, -r.Interval)
}

// Whole returns the window of s when s is one time expression and nothing
// else (a preposition before it and punctuation after it aside): what a
// client may type into a time field ("last Tuesday", "3 days ago",
// "2022年1月"), resolved as Extract resolves a text's.
func Whole(s string, ref time.Time) (Window, bool) {
	exprs := Extract(s, ref)
	if len(exprs) != 1 || !whole(s, exprs[0].Pos, exprs[0].EndPos) {
		return Window{}, false
	}
	return exprs[0].Window, true
}

// whole reports whether text[pos:end] is all of text but a leading
// preposition and surrounding spaces and punctuation.
func whole(text string, pos, end int) bool {
	before := strings.ToLower(strings.TrimSpace(text[:pos]))
	for _, p := range []string{"on", "in", "at", "during", "since", "from", "around", "在", "于"} {
		if before == p {
			before = ""
		}
	}
	after := strings.Trim(text[end:], " \t\r\n.,;!?。，；！？")
	return before == "" && after == ""
}

// mayRecur is a cheap test that text may hold a recurring expression: most
// texts hold none, and the patterns are not run over them.
func mayRecur(text string) bool {
	low := strings.ToLower(text)
	for _, w := range []string{"every", "each", "daily", "weekly", "monthly", "yearly", "annually", "fortnight", "biweekly", "days", "once a", "twice a", "每"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

type recurPattern struct {
	re    *regexp.Regexp
	build func(sub []string) (Recurrence, bool)
}

var (
	recurOnce sync.Once
	recurList []recurPattern
)

func recurPatterns() []recurPattern {
	recurOnce.Do(func() { recurList = buildRecur() })
	return recurList
}

const (
	wdPlural = `(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)`
	dayPart  = `(?:\s+(morning|afternoon|evening|night)s?)?`
	every    = `(?:every|each)`
	interval = `(?:(other|second|2nd|third|3rd|two|three|four|five|six|2|3|4|5|6)\s+)?`
	ordWord  = `(first|1st|second|2nd|third|3rd|fourth|4th|last)`
	zhWD     = `(?:周|星期|礼拜)([一二三四五六日天1-7])`
	zhPart   = `(早上|上午|早晨|中午|下午|傍晚|晚上|夜里)?`
)

func buildRecur() []recurPattern {
	en := func(p string, f func(sub []string) (Recurrence, bool)) recurPattern {
		return recurPattern{re: regexp.MustCompile(`(?i)\b` + p + `\b`), build: f}
	}
	zh := func(p string, f func(sub []string) (Recurrence, bool)) recurPattern {
		return recurPattern{re: regexp.MustCompile(p), build: f}
	}
	return []recurPattern{
		// every Sunday (morning), every Monday and Thursday, every other Friday
		en(every+`\s+`+interval+`(`+wd+`(?:s)?(?:\s*(?:,|and|&|or)\s*`+wd+`s?)*)`+dayPart, func(s []string) (Recurrence, bool) {
			n, ok := intervalOf(s[1])
			return Recurrence{Freq: "weekly", Interval: n, Weekdays: weekdayList(s[2]), Part: lower(s[3])}, ok
		}),
		// on Sundays, Sunday mornings, on Tuesday and Thursday evenings
		en(`(?:on\s+)?(`+wdPlural+`(?:\s*(?:,|and|&|or)\s*`+wdPlural+`)*)`+dayPart, func(s []string) (Recurrence, bool) {
			return Recurrence{Freq: "weekly", Interval: 1, Weekdays: weekdayList(s[1]), Part: lower(s[2])}, true
		}),
		en(`(?:on\s+)?(`+wd+`)\s+(mornings|afternoons|evenings|nights)`, func(s []string) (Recurrence, bool) {
			return Recurrence{Freq: "weekly", Interval: 1, Weekdays: weekdayList(s[1]), Part: strings.TrimSuffix(lower(s[2]), "s")}, true
		}),
		// the first Monday of each month, the last Friday of every month
		en(`(?:the\s+|on\s+the\s+)?`+ordWord+`\s+(`+wd+`)\s+(?:of|in)\s+`+`(?:every|each|the)\s+month`+dayPart, func(s []string) (Recurrence, bool) {
			return Recurrence{Freq: "monthly", Interval: 1, Weekdays: weekdayList(s[2]), Ordinal: ordinalOf(s[1]), Part: lower(s[3])}, true
		}),
		// every month on the 15th, on the 15th of every month
		en(`(?:on\s+)?the\s+(`+dnum+`)`+ord+`\s+of\s+`+every+`\s+month`, func(s []string) (Recurrence, bool) {
			d, ok := atoi(s[1])
			return Recurrence{Freq: "monthly", Interval: 1, MonthDay: d}, ok
		}),
		// every day (morning), every two weeks, each month, every other year, every weekday, every weekend
		en(every+`\s+`+interval+`(day|week|month|year|weekday|weekend)s?`+dayPart, func(s []string) (Recurrence, bool) {
			n, ok := intervalOf(s[1])
			r := Recurrence{Interval: n, Part: lower(s[3])}
			switch lower(s[2]) {
			case "day":
				r.Freq = "daily"
			case "week":
				r.Freq = "weekly"
			case "month":
				r.Freq = "monthly"
			case "year":
				r.Freq = "yearly"
			case "weekday":
				r.Freq, r.Weekdays = "weekly", []string{"monday", "tuesday", "wednesday", "thursday", "friday"}
			case "weekend":
				r.Freq, r.Weekdays = "weekly", []string{"saturday", "sunday"}
			}
			return r, ok
		}),
		// every 3 days, every two months
		en(every+`\s+(\d{1,2}|two|three|four|five|six)\s+(day|week|month|year)s`, func(s []string) (Recurrence, bool) {
			n, ok := intervalOf(s[1])
			return Recurrence{Freq: freqOf(s[2]), Interval: n}, ok
		}),
		// every May, each December
		en(every+`\s+(`+monthName+`)`, func(s []string) (Recurrence, bool) {
			return Recurrence{Freq: "yearly", Interval: 1, Month: monthNames[lower(s[1])]}, true
		}),
		// daily, weekly, monthly, yearly, annually, fortnightly, biweekly,
		// once a week, twice a month
		en(`(daily|weekly|monthly|yearly|annually|fortnightly|bi-?weekly|(?:once|twice|(?:three|3|four|4)\s+times)\s+a\s+(?:day|week|month|year))`, func(s []string) (Recurrence, bool) {
			w := lower(s[1])
			switch {
			case w == "fortnightly" || strings.HasPrefix(w, "bi"):
				return Recurrence{Freq: "weekly", Interval: 2}, true
			case w == "annually":
				return Recurrence{Freq: "yearly", Interval: 1}, true
			case strings.HasSuffix(w, "ly"):
				return Recurrence{Freq: map[string]string{"daily": "daily", "weekly": "weekly", "monthly": "monthly", "yearly": "yearly"}[w], Interval: 1}, true
			}
			return Recurrence{Freq: freqOf(w[strings.LastIndexByte(w, ' ')+1:]), Interval: 1}, true
		}),
		// 每周日上午, 每个星期二和四, 每两周的周六, 每隔一周
		zh(`每(?:隔)?(?:([一两二三四五六2-6])个?)?(?:周|星期|礼拜)(?:的)?(?:([一二三四五六日天1-7])(?:[、和及,，]\s*(?:周|星期|礼拜)?([一二三四五六日天1-7]))?)?`+zhPart+`([次回遍])?`, func(s []string) (Recurrence, bool) {
			// 每周三次: three times a week, how often, not when.
			r := Recurrence{Freq: "weekly", Interval: zhInterval(s[1], strings.Contains(s[0], "隔")), Part: zhPartOf(s[4])}
			if s[5] != "" {
				return r, false
			}
			for _, d := range s[2:4] {
				if d != "" {
					r.Weekdays = append(r.Weekdays, strings.ToLower(weekdays[d].String()))
				}
			}
			return r, true
		}),
		// 每个月的第一个周一, 每月最后一个星期五
		zh(`每(?:个)?月(?:的)?(第[一二三四1-4]|最后)一?个?`+zhWD+zhPart, func(s []string) (Recurrence, bool) {
			ord := -1
			if s[1] != "最后" {
				ord = cn(strings.TrimPrefix(s[1], "第"))
			}
			return Recurrence{Freq: "monthly", Interval: 1, Ordinal: ord, Weekdays: []string{strings.ToLower(weekdays[s[2]].String())}, Part: zhPartOf(s[3])}, ord != 0
		}),
		// 每月15号, 每个月, 每两个月, 每隔一个月
		zh(`每(?:隔)?(?:([一两二三四五六2-6])个)?个?月(?:的)?(?:(`+cnum+`{1,3})[日号])?`, func(s []string) (Recurrence, bool) {
			r := Recurrence{Freq: "monthly", Interval: zhInterval(s[1], strings.Contains(s[0], "隔"))}
			if s[2] != "" {
				r.MonthDay = cn(s[2])
			}
			return r, r.MonthDay >= 0 && r.MonthDay <= 31
		}),
		// 每天早上, 每日, 每两天, 每年, 每隔一年
		zh(`每(?:隔)?(?:([一两二三四五六2-6]))?(天|日|年)`+zhPart, func(s []string) (Recurrence, bool) {
			f := "daily"
			if s[2] == "年" {
				f = "yearly"
			}
			return Recurrence{Freq: f, Interval: zhInterval(s[1], strings.Contains(s[0], "隔")), Part: zhPartOf(s[3])}, true
		}),
	}
}

const (
	monthName = `january|february|march|april|may|june|july|august|september|october|november|december`
)

func weekdayList(s string) []string {
	var out []string
	for _, f := range regexp.MustCompile(`(?i)monday|tuesday|wednesday|thursday|friday|saturday|sunday`).FindAllString(s, -1) {
		f = strings.ToLower(f)
		dup := false
		for _, o := range out {
			dup = dup || o == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

func intervalOf(s string) (int, bool) {
	switch lower(s) {
	case "":
		return 1, true
	case "other", "second", "2nd", "two", "2":
		return 2, true
	case "third", "3rd", "three", "3":
		return 3, true
	case "four", "4":
		return 4, true
	case "five", "5":
		return 5, true
	case "six", "6":
		return 6, true
	}
	n, ok := atoi(s)
	return n, ok && n >= 1 && n <= 99
}

func ordinalOf(s string) int {
	switch lower(s) {
	case "first", "1st":
		return 1
	case "second", "2nd":
		return 2
	case "third", "3rd":
		return 3
	case "fourth", "4th":
		return 4
	}
	return -1
}

func freqOf(unit string) string {
	switch lower(unit) {
	case "day":
		return "daily"
	case "week":
		return "weekly"
	case "month":
		return "monthly"
	}
	return "yearly"
}

func atoi(s string) (int, bool) {
	n := 0
	if s == "" {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// zhInterval is the interval of 每两周 (2) or 每隔一周 (every other: 2).
func zhInterval(n string, skip bool) int {
	k := 1
	if n != "" {
		k = cn(n)
		if k < 1 {
			k = 1
		}
	}
	if skip {
		k++
	}
	return k
}

func zhPartOf(p string) string {
	switch p {
	case "早上", "上午", "早晨":
		return "morning"
	case "中午", "下午":
		return "afternoon"
	case "傍晚", "晚上":
		return "evening"
	case "夜里":
		return "night"
	}
	return ""
}

// RecurrenceOf reads expr, one recurring expression as ExtractRecurrence
// found it, again, with its first occurrence starting at anchor: how a
// store that keeps the expression and the window gets the rule back.
func RecurrenceOf(expr string, anchor time.Time) (Recurrence, bool) {
	e, ok := ParseRecurrence(expr, anchor)
	if !ok {
		return Recurrence{}, false
	}
	r := e.Recurrence
	r.Anchor = anchor
	return r, true
}

// Data is r as the memory record holds it.
func (r Recurrence) Data() *mnemo.Recurrence {
	d := mnemo.Recurrence(r)
	return &d
}
