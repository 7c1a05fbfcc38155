package temporal

import (
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// combine joins what the rules found alone into what two of them, or one
// and the words around it, say together (REC-32): a range of two
// expressions ("from last Monday to Wednesday", "between March 5 and last
// week", "五月和七月之间") and, in a query, a window open on one side
// ("after March 5", "before last Monday", "3月5日以后", "今年以来"); in
// a memory's text only "since" opens one, up to the time it was written,
// the window of what has held since then.
func combine(text string, ms []match, c ctx) []match {
	if len(ms) == 0 {
		return ms
	}
	out := make([]match, 0, len(ms))
	for i := 0; i < len(ms); i++ {
		if i+1 < len(ms) {
			if r, ok := joinRange(text, ms[i], ms[i+1]); ok {
				out = append(out, r)
				i++
				continue
			}
		}
		out = append(out, ms[i])
	}
	for i := range out {
		out[i] = relativeToAny(text, out[i])
		out[i] = partOfDay(text, out[i])
		if rest := text[out[i].end:]; strings.HasPrefix(rest, "之间") && strings.ContainsAny(text[out[i].pos:out[i].end], "到至~～-—–") {
			out[i].end += len("之间") // 五月到七月之间
		}
		out[i] = openWindow(text, out[i], c)
	}
	return out
}

// English words between the ends of a range; "and" only after "between".
var rangeJoins = map[string]bool{"to": true, "until": true, "till": true, "through": true, "thru": true, "and": true, "-": true, "–": true, "—": true}

// Chinese ones; 和, 与, 跟 and 及 only before 之间.
var zhRangeJoins = map[string]bool{"到": true, "至": true, "~": true, "～": true, "-": true, "—": true, "–": true, "和": true, "与": true, "跟": true, "及": true}

// joinRange is a and b as one range when the text between them joins
// them ("to", "到") and b ends after a starts.
func joinRange(text string, a, b match) (match, bool) {
	gap := strings.TrimSpace(text[a.end:b.pos])
	lg := strings.ToLower(gap)
	pos, end := a.pos, b.end
	switch {
	case rangeJoins[lg]:
		prefix := ""
		if p, w, ok := wordEnding(text, a.pos, "between", "from"); ok {
			pos, prefix = p, w
		}
		if lg == "and" && prefix != "between" {
			return match{}, false // "yesterday and today": two times
		}
	case zhRangeJoins[gap]:
		if s, ok := cutPrefixRune(text[:a.pos], "从", "自", "在"); ok {
			pos = s
		}
		rest := text[b.end:]
		after := ""
		for _, suf := range []string{"之间", "期间"} {
			if strings.HasPrefix(rest, suf) {
				end, after = b.end+len(suf), suf
				break
			}
		}
		if !strings.ContainsAny(gap, "到至~～-—–") && after != "之间" {
			return match{}, false // 周一和周三: two days
		}
	default:
		return match{}, false
	}
	bw := b.w
	if _, weekday := weekdays[strings.TrimPrefix(strings.ToLower(text[b.pos:b.end]), "on ")]; weekday && !bw.End.After(a.w.Start) {
		// A weekday read alone ("to Friday" after "from Wednesday",
		// written in the past tense): the right end is the next one.
		bw = Window{bw.Start.AddDate(0, 0, 7), bw.End.AddDate(0, 0, 7)}
	}
	if !bw.End.After(a.w.Start) && bw.Duration() < 366*24*time.Hour {
		// An incomplete date read alone ("七月" said in May): the right
		// end follows the left, as in enRange.
		bw = Window{bw.Start.AddDate(1, 0, 0), bw.End.AddDate(1, 0, 0)}
	}
	if !bw.End.After(a.w.Start) {
		return match{}, false
	}
	return match{pos: pos, end: end, prio: a.prio, w: Window{a.w.Start, bw.End}}, true
}

// How a window opens from the time named: after its end, from its start,
// up to its start, or up to its end.
type opening int

const (
	notOpen opening = iota
	afterEnd
	fromStart
	toStart
	toEnd
	// around is no opening but a margin: the time named and some days
	// either side (前后, 左右).
	around
)

// English words before a time that open its window, longest first. Not
// "up to", which is also what someone is up to ("what was I up to on the
// 8th?"), nor "as of", which asks for the state then ("how many pets did
// he have as of May?"), best told by what was said about that time.
var openBefore = []struct {
	words string
	o     opening
}{
	{"no earlier than", fromStart}, {"not earlier than", fromStart}, {"no later than", toEnd}, {"not later than", toEnd},
	{"on or after", fromStart}, {"on or before", toEnd}, {"starting from", fromStart}, {"starting on", fromStart},
	{"ever since", fromStart}, {"starting", fromStart}, {"beginning", fromStart}, {"since", fromStart},
	{"later than", afterEnd}, {"after", afterEnd},
	{"up until", toEnd}, {"until", toEnd}, {"till", toEnd},
	{"earlier than", toStart}, {"prior to", toStart}, {"before", toStart},
}

// English words after a time that open its window ("from May on").
var openAfter = []string{"onwards", "onward", "on", "and later", "or later", "and after"}

// openWindow is m with its window opened by the words around it; only
// "since" does in a memory's text (see combine).
func openWindow(text string, m match, c ctx) match {
	o, pos, end := notOpen, m.pos, m.end
	if p, w, ok := wordEnding(text, m.pos, "from"); ok && w == "from" {
		rest := strings.ToLower(text[m.end:])
		for _, s := range openAfter {
			if r := strings.TrimLeft(rest, " "); strings.HasPrefix(r, s) && (len(r) == len(s) || !isWordByte(r[len(s)])) {
				o, pos, end = fromStart, p, m.end+len(rest)-len(r)+len(s)
				break
			}
		}
	}
	if o == notOpen {
		for _, ob := range openBefore {
			if p, _, ok := wordEnding(text, m.pos, ob.words); ok {
				o, pos = ob.o, p
				break
			}
		}
	}
	if o == notOpen {
		o, pos, end = zhOpening(text, m)
	}
	if o == around {
		// As said in a text too: the time and a quarter of its length
		// either side, at least three days (元旦前后: 29 December to 4
		// January).
		days := max(3, int(m.w.End.Sub(m.w.Start).Hours()/24/4+0.5))
		return match{pos: pos, end: end, prio: m.prio, w: Window{m.w.Start.AddDate(0, 0, -days), m.w.End.AddDate(0, 0, days)}}
	}
	if o == notOpen || !c.query && o != fromStart {
		return m
	}
	w := m.w
	open := Window{Start: mnemo.EarliestTime, End: dayW(c.ref).End}
	switch o {
	case afterEnd:
		w = Window{w.End, open.End}
	case fromStart:
		if !c.query {
			open.End = c.ref // what has held since then, up to when it was said
		}
		w = Window{w.Start, open.End}
	case toStart:
		w = Window{open.Start, w.Start}
	case toEnd:
		w = Window{open.Start, w.End}
	}
	if (o == afterEnd || o == fromStart) && !w.End.After(w.Start) {
		if !c.query {
			return m // since a time not yet come: the time itself
		}
		w.End = mnemo.LatestTime // after a time to come: all that follows
	}
	if !w.Valid() {
		return m
	}
	return match{pos: pos, end: end, prio: m.prio, w: w}
}

// zhOpening reads the Chinese words around m that open its window:
// 以后, 之后, 后 (after), 以来, 起, 开始 and a leading 自从 (since), 以前,
// 之前, 前 (before), 为止 and a leading 截至 or 直到 (until); or, after
// it, 前后 and 左右 (around).
func zhOpening(text string, m match) (opening, int, int) {
	r, _ := utf8.DecodeLastRuneInString(text[m.pos:m.end])
	if r < utf8.RuneSelf {
		return notOpen, m.pos, m.end // an English time: its words are English
	}
	pos, end, rest := m.pos, m.end, text[m.end:]
	lead := ""
	if p, ok := cutPrefixRune(text[:m.pos], "自从", "截至", "截止到", "截止", "直到", "从", "自", "到"); ok {
		lead, pos = text[p:m.pos], p
	}
	if lead == "" && hasAnyPrefix(rest, "前后", "左右") {
		return around, pos, end + len("前后")
	}
	for _, s := range []struct {
		suf string
		o   opening
	}{
		{"以来", fromStart}, {"开始", fromStart}, {"起", fromStart},
		{"以后", afterEnd}, {"之后", afterEnd},
		{"以前", toStart}, {"之前", toStart},
		{"为止", toEnd}, {"止", toEnd},
		{"后", afterEnd}, {"前", toStart},
	} {
		if !strings.HasPrefix(rest, s.suf) {
			continue
		}
		next := rest[len(s.suf):]
		if s.suf == "前" && hasAnyPrefix(next, "往", "进", "来", "去", "夕") || s.suf == "后" && hasAnyPrefix(next, "来", "面") {
			break // 前往 (go to), 后来 (later): not a bound
		}
		if (s.suf == "开始" || s.suf == "起") && lead != "从" && lead != "自" && lead != "自从" {
			break // 三月开始: what began then, the time itself
		}
		if (s.suf == "为止" || s.suf == "止") && lead != "到" && lead != "截至" && lead != "截止到" && lead != "截止" && lead != "直到" {
			break
		}
		if lead == "从" || lead == "自" || lead == "自从" {
			if s.o == toStart || s.o == toEnd {
				break
			}
		}
		return s.o, pos, end + len(s.suf)
	}
	switch lead {
	case "自从", "自":
		return fromStart, pos, end
	case "截至", "截止到", "截止", "直到":
		return toEnd, pos, end
	}
	return notOpen, m.pos, m.end
}

// wordEnding reports whether the text before i ends in one of words, as
// whole words (case aside, spaces between); it returns where that word
// starts and which it is.
func wordEnding(text string, i int, words ...string) (int, string, bool) {
	before := strings.TrimRight(text[:i], " \t")
	low := strings.ToLower(before)
	for _, w := range words {
		if !strings.HasSuffix(low, w) {
			continue
		}
		p := len(low) - len(w)
		if p > 0 && isWordByte(low[p-1]) {
			continue
		}
		if len(before) != len(low) { // a byte changed length in ToLower: not ASCII, not one of words
			continue
		}
		return p, w, true
	}
	return i, "", false
}

// cutPrefixRune reports whether s ends in one of the (Chinese) words,
// and where that word starts.
func cutPrefixRune(s string, words ...string) (int, bool) {
	for _, w := range words {
		if strings.HasSuffix(s, w) {
			return len(s) - len(w), true
		}
	}
	return len(s), false
}

func hasAnyPrefix(s string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// The parts of a day said with it: "yesterday afternoon", "the morning of
// May 5", "昨天下午". The window stays the day's (a memory's is a day at
// best), but the words are the time's, not what is asked about.
var (
	enDayParts = []string{"morning", "afternoon", "evening", "night"}
	zhDayParts = []string{"早上", "早晨", "上午", "中午", "下午", "傍晚", "晚上", "夜里", "凌晨", "夜间"}
)

// partOfDay is m with the part of the day said before or after it, when m
// is a day.
func partOfDay(text string, m match) match {
	if m.w.Duration() > 25*time.Hour {
		return m
	}
	rest := text[m.end:]
	if r, _ := utf8.DecodeLastRuneInString(text[m.pos:m.end]); r >= utf8.RuneSelf {
		for _, p := range zhDayParts {
			if strings.HasPrefix(rest, p) {
				m.end += len(p)
				break
			}
		}
		return m
	}
	low := strings.ToLower(rest)
	for _, p := range enDayParts {
		if t := strings.TrimLeft(low, " "); strings.HasPrefix(t, p) && (len(t) == len(p) || !isWordByte(t[len(p)])) {
			m.end += len(low) - len(t) + len(p)
			break
		}
	}
	for _, p := range enDayParts {
		if s, _, ok := wordEnding(text, m.pos, "the "+p+" of"); ok {
			m.pos = s
			break
		}
	}
	return m
}

// relBeforeRe is the words that put a unit just before or after a time, or
// so many units, at the end of the text before it: "the day after
// (Christmas)", "two weeks before (the 5th of last month)".
var relBeforeRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:the\s+(day|night|week|weekend|month|year|` + wd + `)|(` + count + `)\s+` + unit + `)\s+(before|after)\s*$`)
})

// relativeToAny is m moved by the words before it that the rules of
// REC-29 read only before the dates they know: "the day after
// Christmas", "the week before the first Monday of May".
func relativeToAny(text string, m match) match {
	before := text[max(0, m.pos-48):m.pos]
	if !strings.Contains(before, "before") && !strings.Contains(before, "after") && !strings.Contains(before, "Before") && !strings.Contains(before, "After") {
		return m
	}
	loc := relBeforeRe().FindStringSubmatchIndex(before)
	if loc == nil {
		return m
	}
	sub := make([]string, len(loc)/2)
	for k := range sub {
		if loc[2*k] >= 0 {
			sub[k] = before[loc[2*k]:loc[2*k+1]]
		}
	}
	isBefore := lower(sub[4]) == "before"
	var w Window
	if sub[1] != "" {
		w = relativeTo(lower(sub[1]), isBefore, m.w)
	} else {
		lo, hi, ok := number(sub[2])
		if !ok || hi == 0 || hi > 200 {
			return m
		}
		u, lo, hi := perUnit(sub[3], lo, hi)
		w = countFrom(m.w, u, lo, hi, isBefore)
	}
	if !w.Valid() {
		return m
	}
	return match{pos: m.pos - len(before) + loc[0], end: m.end, prio: m.prio, w: w}
}
