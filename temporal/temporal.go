// Package temporal finds time expressions in English and Chinese text and
// resolves each, against a reference time, into a window [Start, End)
// (REC-23).
//
//	Extract("I went to the support group yesterday", 8 May 2023 13:56)
//	  -> "yesterday" [2023-05-07, 2023-05-08)
//	Query("What did Caroline do in January 2022?", now)
//	  -> window [2022-01-01, 2022-02-01), text "What did Caroline do?"
//
// What it understands: absolute dates ("2022-01-21", "January 21, 2022",
// "21 Jan 2022", "on the 15th", "in 2019", "January 2022", "May"), relative
// days and units ("yesterday", "last Friday", "next month", "three years
// ago", "this weekend", "the past two weeks", "the week before 9 June
// 2023"), weeks of a month ("the second week of November"), ranges
// ("between August 11 and 15", "from March to May 2023", "2019-2021"),
// vague spans ("the beginning of November 2022", "early 2023", "late last
// year", seasons) and their Chinese forms ("昨天", "上周五", "去年三月",
// "2022年1月", "三年前", "上个月", "下周", "11月初", "8月11日到15日");
// spoken forms (REC-32): two units back or on ("the week before last",
// "the Friday after next", "上上个月"), fortnights, spans of counts ("two
// or three weeks ago", "a month or two ago"), weekends and weekdays
// counted back ("two weekends ago", "three Saturdays ago"), "the other
// week", "the long weekend", hours, ordinal days ("the
// fifth of May", "the 5th of last month"), holidays ("last Christmas",
// "国庆节"), the next few days, the first Monday of May, decades,
// quarters, Chinese spans of counts ("两三天前", "两个多月前", "过几天"); a range of
// any two times ("from last Monday to Wednesday",
// "五月和七月之间"); and, in a query, a window open on one side ("after
// March 5", "before last Monday", "3月5日以后", "今年以来").
// A date without a year takes the year that puts it nearest the reference
// (a question asks about the past: Query takes the latest one not after
// it; a text with future cues, "will", "明天", the earliest one after it).
// Weeks start on Monday; a weekend is Saturday and Sunday; the windows are
// in the reference time's location.
//
// Why hand-written rules and not a library: the Go date-expression
// libraries (olebedev/when, markusmobius/go-dateparser, ...) cover English
// (dateparser also Chinese) but resolve one point in time, not a window
// with its extent ("May" is a month, "last week" seven days), and none
// parses ranges or vague spans; go-dateparser brings hundreds of language
// tables (megabytes of data loaded at start-up, paid by every CLI call).
// These rules are regular expressions compiled on first use (nothing at
// start-up: a CLI call that never resolves a time pays nothing), each
// skipped unless the text has one of its words; about 60 µs for a
// two-sentence memory (BenchmarkExtract), and their behaviour is listed
// expression by expression in testdata/expressions.txt.
package temporal

import (
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/internal/shorthand"
)

// Window is a span of time [Start, End).
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Valid reports whether w is a non-empty span.
func (w Window) Valid() bool { return !w.Start.IsZero() && w.End.After(w.Start) }

// Overlaps reports whether w and o share an instant.
func (w Window) Overlaps(o Window) bool { return w.Start.Before(o.End) && o.Start.Before(w.End) }

// Contains reports whether o lies within w.
func (w Window) Contains(o Window) bool { return !o.Start.Before(w.Start) && !o.End.After(w.End) }

// Duration is End − Start.
func (w Window) Duration() time.Duration { return w.End.Sub(w.Start) }

// Expr is one time expression found in a text.
type Expr struct {
	// Text is the expression as written; Pos and EndPos its byte offsets.
	Text   string `json:"expression"`
	Pos    int    `json:"-"`
	EndPos int    `json:"-"`
	Window
}

// bias says which of several readings of an incomplete date ("May", "on
// Friday") to take.
type bias int

const (
	nearest bias = iota // the reading nearest the reference
	past                // the latest reading that starts at or before it
	future              // the earliest reading that ends after it
)

// ctx is what the rules resolve against.
type ctx struct {
	ref  time.Time
	bias bias
	// tense, when set, is the bias instead: the tense of a text, guessed
	// on first use. Most texts have no incomplete date to read by it, and
	// the guess runs two regular expressions over the text, on every
	// write (PERF-1).
	tense *lazyTense
	// every runs every rule, its quick lists unread: what the lists must
	// not change (TestQuickListsAreSound).
	every bool
	// query is set for a query's text: a time there may bound what is
	// asked on one side only ("after March 5"), see combine.
	query bool
}

// lazyTense is the tense of text, guessed once.
type lazyTense struct {
	text string
	done bool
	b    bias
	// whole, when set, is the tense of the text that text is a sentence
	// of: what a sentence that says nothing of its time is read by.
	whole *lazyTense
}

func (t *lazyTense) get() bias {
	if !t.done {
		t.b, t.done = tense(t.text), true
		if t.b == nearest && t.whole != nil {
			t.b = t.whole.get()
		}
	}
	return t.b
}

// biasOf returns c's bias.
func (c ctx) biasOf() bias {
	if c.tense == nil {
		return c.bias
	}
	return c.tense.get()
}

// inSentence is c for a time at [lo, hi) of text: its tense, if it reads
// one, is its sentence's, where a message says what one did and then
// asks about a plan ("We went to the lake. Are you free on Saturday?").
func (c ctx) inSentence(text string, lo, hi int) ctx {
	if c.tense != nil {
		if s := sentenceAt(text, lo, hi); len(s) < len(text) {
			c.tense = &lazyTense{text: s, whole: c.tense}
		}
	}
	return c
}

// sentenceAt is the sentence of text that holds [lo, hi): from the end
// of the one before it to its own end (". ", "! ", "? ", "; ", a line
// break, 。！？；).
func sentenceAt(text string, lo, hi int) string {
	start, end := 0, len(text)
	for i := lo - 1; i >= 0; i-- {
		if n := sentenceEnd(text, i); n > 0 {
			start = i + n
			break
		}
	}
	for i := hi; i < len(text); i++ {
		if n := sentenceEnd(text, i); n > 0 {
			end = i + n
			break
		}
	}
	return text[start:end]
}

// sentenceEnd is the length of the mark that ends a sentence at text[i:],
// or 0.
func sentenceEnd(text string, i int) int {
	switch b := text[i]; b {
	case '\n':
		return 1
	case '.', '!', '?', ';':
		if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
			return 1
		}
		return 0
	case 0xE3, 0xEF: // 。 and the full-width ！？；
		for _, m := range []string{"。", "！", "？", "；"} {
			if strings.HasPrefix(text[i:], m) {
				return len(m)
			}
		}
	}
	return 0
}

// Extract returns every time expression in text, in order, each resolved
// against ref (a memory's text against its creation time).
func Extract(text string, ref time.Time) []Expr {
	read, off, short := shorthand.Expand(text)
	exprs := find(read, ctx{ref: ref, tense: &lazyTense{text: read}})
	if short {
		pointAt(text, exprs, off)
	}
	return exprs
}

// pointAt points exprs, found in the text shorthand.Expand wrote of text, at
// text: a chat's "tmrw" is read as "tomorrow" (REC-39), and is what a
// time expression there says.
func pointAt(text string, exprs []Expr, off shorthand.Offsets) {
	for i := range exprs {
		e := &exprs[i]
		e.Pos, e.EndPos = off.Start(e.Pos), off.End(e.EndPos)
		e.Text = text[e.Pos:e.EndPos]
	}
}

// Asked is the time constraint of a query.
type Asked struct {
	// Found is set when the query names a time; Expr and Window are then
	// the (first) expression and its window.
	Found  bool   `json:"found"`
	Expr   string `json:"expression,omitempty"`
	Window Window `json:"window"`
	// Text is the query without the time expression (and the preposition
	// that introduced it), so that "January" is not also searched as a word.
	Text string `json:"text"`
	// When is set when the query asks for a time ("when did…", "what
	// date…", "how long ago…", "什么时候…") rather than naming one.
	When bool `json:"when,omitempty"`
}

// Query finds the time a query asks about, resolved against now with a
// bias to the past, and the query's text without it.
func Query(text string, now time.Time) Asked {
	read, off, short := shorthand.Expand(text)
	a := Asked{Text: text, When: asksWhen(read)}
	exprs := find(read, ctx{ref: now, bias: past, query: true})
	if len(exprs) == 0 {
		return a
	}
	if short {
		pointAt(text, exprs, off)
	}
	e := exprs[0]
	a.Found, a.Expr, a.Window = true, e.Text, e.Window
	a.Text = removeSpan(text, e.Pos, e.EndPos)
	return a
}

// match is one candidate expression of a rule.
type match struct {
	pos, end int
	prio     int // the rule's place: earlier wins a tie
	w        Window
}

// find runs every rule over text and keeps the longest non-overlapping
// matches, leftmost first.
func find(text string, c ctx) []Expr {
	if len(text) > maxText {
		text = text[:maxText]
	}
	if c.ref.IsZero() {
		c.ref = time.Now()
	}
	var ms []match
	low, nonASCII, digit := strings.ToLower(text), false, hasDigit(text)
	for i := range len(text) {
		if text[i] >= 0x80 {
			nonASCII = true
			break
		}
	}
	for i, r := range rules() {
		if r.cjk && !nonASCII {
			continue
		}
		if !c.every && (r.quick != "" && !quick(low, r.quick, digit, !nonASCII) || r.pre != nil && !r.pre(low, digit, !nonASCII)) {
			continue
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			sub := make([]string, len(loc)/2)
			for k := range sub {
				if loc[2*k] >= 0 {
					sub[k] = text[loc[2*k]:loc[2*k+1]]
				}
			}
			start, end := loc[0], loc[1]
			if r.trim > 0 && loc[2*r.trim] >= 0 { // the expression proper is a group
				start, end = loc[2*r.trim], loc[2*r.trim+1]
			}
			w, ok := r.resolve(sub, text, loc, c.inSentence(text, loc[0], loc[1]))
			if !ok || !w.Valid() {
				continue
			}
			ms = append(ms, match{pos: start, end: end, prio: i, w: w})
		}
	}
	sort.Slice(ms, func(i, j int) bool {
		li, lj := ms[i].end-ms[i].pos, ms[j].end-ms[j].pos
		if li != lj {
			return li > lj
		}
		if ms[i].prio != ms[j].prio {
			return ms[i].prio < ms[j].prio
		}
		return ms[i].pos < ms[j].pos
	})
	var kept []match
	for _, m := range ms {
		overlap := false
		for _, k := range kept {
			if m.pos < k.end && k.pos < m.end {
				overlap = true
				break
			}
		}
		if !overlap {
			kept = append(kept, m)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].pos < kept[j].pos })
	kept = combine(text, kept, c)
	out := make([]Expr, len(kept))
	for i, m := range kept {
		out[i] = Expr{Text: text[m.pos:m.end], Pos: m.pos, EndPos: m.end, Window: m.w}
	}
	return out
}

// maxText bounds the text searched: a memory's content is at most 2,000
// characters (MEM limits); a longer input is cut, never slow.
const maxText = 16 << 10

// quick reports whether s (lower case) holds one of the "|"-separated
// strings of any; "#" stands for a digit. With words set, a string after
// \b counts only at the start of a word; it is set for ASCII text alone,
// where s has the text's bytes where they were (strings.ToLower turns the
// Kelvin sign, a \b for the regexps, into a k, a letter).
func quick(s, any string, digit, words bool) bool {
	for any != "" {
		var part string
		part, any, _ = strings.Cut(any, "|")
		switch {
		case part == "#":
			if digit {
				return true
			}
		case strings.HasPrefix(part, `\b`):
			if words && atWordStart(s, part[2:]) || !words && strings.Contains(s, part[2:]) {
				return true
			}
		case strings.Contains(s, part):
			return true
		}
	}
	return false
}

// atWordStart reports whether w occurs in s where a regexp's \b may come
// before it: at the start, or after a byte that is not an ASCII letter,
// digit or underscore (Go's \b is ASCII's).
func atWordStart(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		if i += j; i == 0 || !isWordByte(s[i-1]) {
			return true
		}
		i++
	}
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// removeSpan cuts text[pos:end] out of text, with a preposition just
// before it ("in", "on", "during", "在"), and tidies the spaces left.
func removeSpan(text string, pos, end int) string {
	before, after := strings.TrimRight(text[:pos], " "), strings.TrimLeft(text[end:], " ")
	lower := strings.ToLower(before)
	for _, p := range []string{"in", "on", "during", "at", "since", "from", "of", "around", "by", "for", "between", "over", "within"} {
		if strings.HasSuffix(lower, " "+p) || lower == p {
			before = strings.TrimRight(before[:len(before)-len(p)], " ")
			break
		}
	}
	for _, p := range []string{"在", "于", "从"} {
		before = strings.TrimSuffix(before, p)
	}
	sep := " "
	if before == "" || after == "" || !isASCIIEnd(before) || after[0] >= 0x80 || strings.ContainsAny(after[:1], "?,.!;:") {
		sep = ""
	}
	return strings.Join(strings.Fields(before+sep+after), " ")
}

func isASCIIEnd(s string) bool {
	return s != "" && s[len(s)-1] < 0x80
}
