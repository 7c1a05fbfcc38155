package temporal

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestExpressions resolves every expression of testdata/expressions.txt
// (REC-23).
func TestExpressions(t *testing.T) {
	f, err := os.Open("testdata/expressions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ref time.Time
	mode := "query"
	n := 0
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); {
		line++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "":
			continue
		case strings.HasPrefix(l, "@ref "):
			if ref, err = time.Parse(time.RFC3339, strings.TrimPrefix(l, "@ref ")); err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
			continue
		case strings.HasPrefix(l, "@mode "):
			mode = strings.TrimPrefix(l, "@mode ")
			continue
		}
		text, want, ok := strings.Cut(l, " => ")
		if !ok {
			if text, want, ok = strings.Cut(l, "=> "); !ok {
				t.Fatalf("line %d: no =>: %q", line, l)
			}
		}
		text = strings.TrimSpace(text)
		n++
		var got []Expr
		if mode == "extract" {
			got = Extract(text, ref)
		} else {
			a := Query(text, ref)
			if a.Found {
				got = []Expr{{Text: a.Expr, Window: a.Window}}
			}
		}
		if want == "none" {
			if len(got) > 0 {
				t.Errorf("line %d: %q: want none, got %q %s", line, text, got[0].Text, show(got[0].Window))
			}
			continue
		}
		f := strings.Fields(want)
		if len(f) < 2 {
			t.Fatalf("line %d: want 'start end [expression]': %q", line, want)
		}
		start, end := parseTime(t, line, f[0], ref), parseTime(t, line, f[1], ref)
		expr := ""
		if i := strings.Index(want, "["); i >= 0 {
			expr = strings.TrimSuffix(want[i+1:], "]")
		}
		if len(got) == 0 {
			t.Errorf("line %d: %q: found nothing, want %s", line, text, show(Window{start, end}))
			continue
		}
		g := got[0]
		if !g.Start.Equal(start) || !g.End.Equal(end) || (expr != "" && g.Text != expr) {
			t.Errorf("line %d: %q: got %q %s, want %q %s", line, text, g.Text, show(g.Window), expr, show(Window{start, end}))
		}
	}
	if n < 300 {
		t.Errorf("only %d expressions", n)
	}
	t.Logf("%d expressions", n)
}

func parseTime(t *testing.T, line int, s string, ref time.Time) time.Time {
	if len(s) == 10 {
		d, err := time.ParseInLocation("2006-01-02", s, ref.Location())
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		return d
	}
	d, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("line %d: %v", line, err)
	}
	return d
}

func show(w Window) string {
	return "[" + w.Start.Format(time.RFC3339) + ", " + w.End.Format(time.RFC3339) + ")"
}

// TestQuery checks the query left once the time is taken out, and "when"
// questions (REC-23, REC-26).
func TestQuery(t *testing.T) {
	now := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		q, text string
		found   bool
		when    bool
	}{
		{"What did Caroline do in January 2022?", "What did Caroline do?", true, false},
		{"What did we talk about yesterday", "What did we talk about", true, false},
		{"yesterday's meeting notes", "'s meeting notes", true, false},
		{"Where did Melanie go on her trip last summer?", "Where did Melanie go on her trip?", true, false},
		{"Which book did she read between August 11 and 15?", "Which book did she read?", true, false},
		{"When did Melanie paint a sunrise?", "When did Melanie paint a sunrise?", false, true},
		{"when did he move", "when did he move", false, true},
		{"What date is the concert?", "What date is the concert?", false, true},
		{"How long ago was Caroline's 18th birthday?", "How long ago was Caroline's 18th birthday?", false, true},
		{"In which year did she graduate?", "In which year did she graduate?", false, true},
		{"When did she go to Paris in 2022?", "When did she go to Paris?", true, true},
		{"What is her favourite colour?", "What is her favourite colour?", false, false},
		{"Do you know what time it is?", "Do you know what time it is?", false, false},
		{"我去年三月做了什么", "我做了什么", true, false},
		{"他什么时候去的北京", "他什么时候去的北京", false, true},
		{"上周五在公司开会了吗", "在公司开会了吗", true, false},
		{"她哪天生日", "她哪天生日", false, true},
	} {
		a := Query(c.q, now)
		if a.Found != c.found || a.Text != c.text || a.When != c.when {
			t.Errorf("Query(%q) = found %v %q text %q when %v; want found %v text %q when %v",
				c.q, a.Found, a.Expr, a.Text, a.When, c.found, c.text, c.when)
		}
	}
}

// TestExtractAll finds every expression of a text, in order.
func TestExtractAll(t *testing.T) {
	ref := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	got := Extract("I went to the support group yesterday, and next month I start a course; in 2019 I moved. 上周五我们见面了。", ref)
	want := []string{"yesterday", "next month", "2019", "上周五"}
	if len(got) != len(want) {
		t.Fatalf("got %d expressions %v, want %v", len(got), got, want)
	}
	for i, e := range got {
		if e.Text != want[i] {
			t.Errorf("expression %d: %q, want %q", i, e.Text, want[i])
		}
	}
}

// TestQuickListsAreSound: the rules' quick lists and pre tests skip only
// rules that would find nothing: every expression of
// testdata/expressions.txt, and texts made of pairs of date-like pieces,
// resolve alike with every rule run.
func TestQuickListsAreSound(t *testing.T) {
	if raceEnabled {
		t.Skip("checks rules, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a sixtieth")
	}
	data, err := os.ReadFile("testdata/expressions.txt")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, l := range strings.Split(string(data), "\n") {
		if text, _, ok := strings.Cut(l, "=>"); ok && !strings.HasPrefix(l, "#") {
			texts = append(texts, strings.TrimSpace(text))
		}
	}
	pieces := []string{"market", "may", "May", "maybe", "Mayor", "in May", "mar", "Mar 5", "5 mar", "March", "decided",
		"Dec.", "sept", "Sept. 2021", "jan - feb", "from jan to mar", "between 3 and 5", "1999", "2020-05-01", "3/4",
		"15", "2150", "1850s", "\u212amay", "x_may", "4th of July", "the 3rd", "since 2019", "7 days ago", "-", "–",
		"through", "of", "last week", "next Friday", "summer", "昨天", "2022年1月"}
	for _, a := range pieces {
		for _, b := range pieces {
			texts = append(texts, a+" "+b, "we met "+a+", then "+b+".")
		}
	}
	ref := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC)
	for _, text := range texts {
		for _, c := range []ctx{{ref: ref, bias: past}, {ref: ref, tense: &lazyTense{text: text}}} {
			got := find(text, c)
			c.every = true
			if want := find(text, c); !slices.Equal(got, want) {
				t.Errorf("%q: %v with the quick lists, %v with every rule", text, got, want)
			}
		}
	}
}

// FuzzExtract: any text, any reference: no panic, every window well-formed,
// every expression a part of the text.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"yesterday", "between August 11 and 15", "the second week of November",
		"2022年1月21日", "去年三月", "8月11日到15日", "three years ago", "late last year", "on the 31st",
		"from December to February", "the week before 9 June 2023", "二〇二二年十二月底", "99999999年", "十十十月",
		"after March 5", "before last Monday", "from last Monday to Wednesday", "the week before last", "two or three weeks ago",
		"the fifth of May", "last Christmas", "三月五号以后", "五月和七月之间", "自从去年", "3号到5号", "a week and a half ago"} {
		f.Add(s, int64(1683720000))
	}
	f.Fuzz(func(t *testing.T, text string, unix int64) {
		ref := time.Unix(unix%(1<<35), 0).UTC() // within years 1 to ~3000
		for _, e := range Extract(text, ref) {
			if !e.Valid() {
				t.Fatalf("%q: empty window %v", e.Text, e.Window)
			}
			if e.Pos < 0 || e.EndPos > len(text) || e.Pos >= e.EndPos || text[e.Pos:e.EndPos] != e.Text {
				t.Fatalf("%q: not the text at %d:%d", e.Text, e.Pos, e.EndPos)
			}
		}
		a := Query(text, ref)
		if a.Found && !a.Window.Valid() {
			t.Fatalf("query window %v", a.Window)
		}
		if utf8.ValidString(text) && !utf8.ValidString(a.Text) {
			t.Fatalf("query text %q is not UTF-8", a.Text)
		}
	})
}

// BenchmarkExtract is the cost a memory's text pays at write: a text with
// dates, one of plain words, most memories' kind, and one with numbers
// that are not dates.
func BenchmarkExtract(b *testing.B) {
	ref := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	for _, bb := range []struct{ name, text string }{
		{"dated", "Hey Mel! Good to see you! I went to a LGBTQ support group yesterday and it was so powerful. We're planning a trip next month."},
		{"plain", "the team moved the weekly planning meeting to the larger room after lunch because more people joined"},
		{"figures", "the 3 new lamps cost 40 dollars each, and the old ones went to a neighbour for a decent price"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				Extract(bb.text, ref)
			}
		})
	}
}
