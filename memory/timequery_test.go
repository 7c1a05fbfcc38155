package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// timeQuery is one generated question: what it asks, and the memory that
// answers it.
type timeQuery struct {
	text, want, subject string
}

// timeQueries generates questions about what a subject did at a time
// (REC-25, REC-28, REC-29): every question form, with every subject ("the
// user", "I", a named person) and every way of naming each day of the week
// before now (relative, absolute, by a neighbouring weekday, English and
// Chinese). did[s][d] is the content
// of what subject s did d days before now.
func timeQueries(now time.Time, did map[string][]string) []timeQuery {
	type subject struct {
		key, en, obj, zh string
	}
	subjects := []subject{
		{"user", "the user", "the user", "用户"},
		{"user", "I", "me", "我"},
		{"Caroline", "Caroline", "Caroline", "Caroline"},
		{"Melanie", "Melanie", "Melanie", "Melanie"},
	}
	en := []string{
		"What did {S} do {T}?",
		"what did {S} do {T}",
		"What was {S} up to {T}?",
		"Where was {S} {T}?",
		"{T}, what did {S} do?",
		"What did {S} get up to {T}?",
		"Tell me what {S} did {T}.",
		"What happened with {O} {T}?",
		"Remind me what {S} did {T}",
		"Do you remember what {S} did {T}?",
		"Can you recall what {S} did {T}?",
		"Any idea what {S} was up to {T}?",
		"Please tell me what {S} did {T}.",
	}
	zh := []string{"{S}{T}做了什么？", "{T}{S}去哪儿了？", "{S}{T}干什么了", "{T}{S}在做什么？", "你还记得{S}{T}做了什么吗？", "{T}{S}都干嘛了？"}
	var out []timeQuery
	for d := 1; d <= 6; d++ {
		day := now.AddDate(0, 0, -d)
		wd := day.Weekday().String()
		times := []string{
			"last " + wd,
			"on " + wd,
			fmt.Sprintf("%d days ago", d),
			"on " + day.Format("January 2"),
			"on " + day.Format("2 January 2006"),
			"on " + day.Format("2006-01-02"),
			"on the " + ordinal(day.Day()),
		}
		// A day said by its neighbour, a weekday other than today's.
		if d >= 2 {
			times = append(times, "the day before "+day.AddDate(0, 0, 1).Weekday().String())
		}
		if d <= 5 {
			times = append(times, "the day after "+day.AddDate(0, 0, -1).Weekday().String())
		}
		switch d {
		case 1:
			times = append(times, "yesterday")
		case 2:
			times = append(times, "the day before yesterday")
		}
		zhTimes := []string{fmt.Sprintf("%d月%d日", day.Month(), day.Day()), fmt.Sprintf("%d天前", d)}
		if d == 1 {
			zhTimes = append(zhTimes, "昨天")
		}
		if d == 2 {
			zhTimes = append(zhTimes, "前天")
		}
		for _, s := range subjects {
			want := did[s.key][d]
			for _, tmpl := range en {
				for _, tm := range times {
					q := strings.NewReplacer("{S}", s.en, "{O}", s.obj, "{T}", tm).Replace(tmpl)
					if strings.HasPrefix(tmpl, "{T}") {
						q = strings.ToUpper(q[:1]) + q[1:]
					}
					out = append(out, timeQuery{q, want, s.key})
				}
			}
			if s.zh == "" {
				continue
			}
			for _, tmpl := range zh {
				for _, tm := range zhTimes {
					out = append(out, timeQuery{strings.NewReplacer("{S}", s.zh, "{T}", tm).Replace(tmpl), want, s.key})
				}
			}
		}
	}
	return out
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

// TestTimeQuestions asks, in every wording the templates make, what the
// user or a named person did at a time, over a store where the user, two
// people and undated notes that say "the user", "I" and the names all
// compete: the memory of that subject on that day must come first, and
// the subject's words must not drown the time (REC-25, REC-28).
func TestTimeQuestions(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	now := time.Date(2026, 3, 12, 18, 0, 0, 0, time.UTC) // a Thursday
	did := map[string][]string{
		"user":     {"", "Went to the dentist for a filling", "Had lunch with an old colleague downtown", "Fixed the leaking kitchen tap", "Ran ten kilometres along the river", "Watched a documentary about whales", "Bought a second-hand bicycle"},
		"Caroline": {"", "Caroline went to a pottery class", "Caroline visited the science museum", "Caroline gave a talk at the library", "Caroline painted a sunset over the lake", "Caroline joined a choir rehearsal", "Caroline adopted a kitten"},
		"Melanie":  {"", "Melanie went camping with her kids", "Melanie baked bread for the neighbours", "Melanie took a salsa lesson", "Melanie repaired her fence", "Melanie read a novel in the park", "Melanie planted tomatoes"},
	}
	notes := []string{
		"The user prefers dark mode in every editor",
		"The user's favourite colour is green",
		"The user lives in Lisbon and works from home",
		"The user asked to be reminded about taxes",
		"I like my coffee black",
		"I am allergic to peanuts",
		"Caroline loves painting and pottery",
		"Caroline said she feels more confident lately",
		"Caroline is thinking about adopting a child",
		"Melanie has two kids and a dog",
		"Melanie enjoys camping and salsa",
		"用户喜欢喝绿茶",
		"我住在里斯本",
	}
	c.T = now.AddDate(0, 0, -30)
	svc := newTimeService(t, c)
	var drafts []mnemo.Draft
	for _, n := range notes {
		drafts = append(drafts, mnemo.Draft{Content: str(n)})
	}
	if _, err := svc.RememberBatch(ctx, alice, drafts); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	sameDay := map[string]int{} // a memory's id -> its day; 0 for the notes
	for d := 1; d <= 6; d++ {
		// Each written the evening it happened, with its day.
		c.T = now.AddDate(0, 0, -d).Add(2 * time.Hour)
		for _, who := range []string{"user", "Caroline", "Melanie"} {
			text := did[who][d]
			m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(text), OccurredAt: &mnemo.When{Text: now.AddDate(0, 0, -d).Format("2006-01-02")}})
			if err != nil {
				t.Fatal(err)
			}
			ids[text], sameDay[m.ID] = m.ID, d
		}
	}
	c.T = now
	if dbg := os.Getenv("DATES_DEBUG"); dbg != "" {
		res, _ := svc.Recall(ctx, alice, memory.Query{Text: dbg, Limit: 5, Explain: true})
		for _, r := range res.Results {
			b, _ := json.Marshal(r.Explain)
			t.Logf("%.4f %s %s", r.Score, r.Content, b)
		}
	}
	qs := timeQueries(now, did)
	if raceEnabled {
		// Every seventh wording under the detector; all of them in make
		// unit's run without it (FULLSIZE).
		var some []timeQuery
		for i := 0; i < len(qs); i += 7 {
			some = append(some, qs[i])
		}
		qs = some
	}
	var misses []string
	for _, q := range qs {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: q.text, Limit: 5})
		if err != nil {
			t.Fatalf("%q: %v", q.text, err)
		}
		rank := -1
		for i, r := range res.Results {
			if r.ID == ids[q.want] {
				rank = i
				break
			}
		}
		// A named person's memory of that day comes first; the user's,
		// whom no name marks, comes among that day's memories, which
		// all come before any other.
		ok := rank == 0
		if q.subject == "user" {
			ok = rank >= 0
			for _, r := range res.Results[:min(len(res.Results), len(did))] {
				ok = ok && sameDay[r.ID] == sameDay[ids[q.want]]
			}
		}
		if !ok {
			first := "nothing"
			if len(res.Results) > 0 {
				first = res.Results[0].Content
			}
			misses = append(misses, fmt.Sprintf("%q: %q at %d, first %q", q.text, q.want, rank+1, first))
		}
	}
	if len(misses) > 0 {
		t.Errorf("%d of %d questions do not find first what happened then:\n%s", len(misses), len(qs), strings.Join(misses, "\n"))
	}
}

func newTimeService(t *testing.T, c *clock) *service.Mnemo {
	t.Helper()
	return newSemantic(t, c, "", service.Options{})
}

// TestRecallRecurring: a memory of what recurs ("every Sunday morning",
// written weeks before) answers a question about a day it occurs on, and
// not one about a day between its occurrences (REC-30, REC-31).
func TestRecallRecurring(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	now := time.Date(2026, 3, 12, 18, 0, 0, 0, time.UTC) // a Thursday
	c.T = now.AddDate(0, 0, -40)
	svc := newTimeService(t, c)
	choir, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("I sing in the church choir every Sunday morning")})
	if err != nil {
		t.Fatal(err)
	}
	if choir.Occurred == nil || choir.Occurred.Recurrence == nil {
		t.Fatalf("not a recurrence: %+v", choir.Occurred)
	}
	monday := now.AddDate(0, 0, -3)
	c.T = monday.Add(20 * time.Hour)
	dentist, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("Went to the dentist for a filling"), OccurredAt: &mnemo.When{Text: monday.Format("2006-01-02")}})
	if err != nil {
		t.Fatal(err)
	}
	c.T = now
	for _, tt := range []struct {
		q, first string
		absent   string
	}{
		{"What did I do last Sunday?", choir.ID, ""},
		{"what did the user do on Sunday morning", choir.ID, ""},
		{"我上周日做了什么？", choir.ID, ""},
		{"What did I do last Monday?", dentist.ID, ""},
		{"What did I do on Tuesday?", "", choir.ID},
	} {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: tt.q, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(res.Results) > 0 {
			got = res.Results[0].ID
		}
		if tt.first != "" && got != tt.first || tt.absent != "" && got == tt.absent {
			t.Errorf("%q: first %q, want %q (not %q)", tt.q, got, tt.first, tt.absent)
		}
	}
	// A list of what happened on a Sunday weeks later finds it; of a
	// Tuesday, not.
	sunday, tuesday := now.AddDate(0, 0, -4).Truncate(24*time.Hour), now.AddDate(0, 0, -2).Truncate(24*time.Hour)
	for _, tt := range []struct {
		day  time.Time
		want bool
	}{{sunday, true}, {tuesday, false}} {
		end := tt.day.AddDate(0, 0, 1)
		ms, _, err := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{OccurredAfter: &tt.day, OccurredBefore: &end}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range ms {
			found = found || m.ID == choir.ID
		}
		if found != tt.want {
			t.Errorf("List on %s: found %v, want %v", tt.day.Weekday(), found, tt.want)
		}
	}
}

// TestTimePhrasings asks what the user did in the ways people name a time
// beyond a day (REC-32): two weeks or months back ("the week before last",
// "a fortnight ago", "上上个月"), a window open on one side ("after March
// 5", "2月1日之前", "since March 8"), a range of two days, an ordinal day
// of last month. Over a store with what the user did on each of the 70
// days before now, the results a question lists first must all have
// happened in its window.
func TestTimePhrasings(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	now := time.Date(2026, 3, 12, 18, 0, 0, 0, time.UTC) // a Thursday
	acts := []string{"Went to the dentist", "Baked sourdough bread", "Fixed the bicycle chain", "Visited the science museum",
		"Played chess with a neighbour", "Repainted the fence", "Read a novel in the park"}
	c.T = now.AddDate(0, 0, -80)
	svc := newTimeService(t, c)
	day := map[string]time.Time{}
	for d := 70; d >= 1; d-- {
		on := now.AddDate(0, 0, -d).Truncate(24 * time.Hour)
		c.T = on.Add(20 * time.Hour)
		text := fmt.Sprintf("%s (%s)", acts[d%len(acts)], on.Format("Jan 2"))
		m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(text), OccurredAt: &mnemo.When{Text: on.Format("2006-01-02")}})
		if err != nil {
			t.Fatal(err)
		}
		day[m.ID] = on
	}
	c.T = now
	d := func(m time.Month, dd int) time.Time { return time.Date(2026, m, dd, 0, 0, 0, 0, time.UTC) }
	for _, q := range []struct {
		text       string
		start, end time.Time
	}{
		{"What did I do the week before last?", d(2, 23), d(3, 2)},
		{"What did the user do a fortnight ago?", d(2, 23), d(3, 2)},
		{"我上上周做了什么？", d(2, 23), d(3, 2)},
		{"What did I do the weekend before last?", d(2, 28), d(3, 2)},
		{"What did I do the Monday before last?", d(3, 2), d(3, 3)},
		{"What did I get up to the month before last?", d(1, 1), d(2, 1)},
		{"用户上上个月做了什么", d(1, 1), d(2, 1)},
		{"What did I do after March 5?", d(3, 6), d(3, 12)},
		{"我3月5日以后做了什么？", d(3, 6), d(3, 12)},
		{"What did I do since March 8?", d(3, 8), d(3, 12)},
		{"What did I do before February 1?", d(1, 1), d(2, 1)},
		{"我2月1日之前做了什么？", d(1, 1), d(2, 1)},
		{"What did I do two or three days ago?", d(3, 9), d(3, 11)},
		{"What did the user do from last Monday to Wednesday?", d(3, 9), d(3, 12)},
		{"What did I do on the 5th of last month?", d(2, 5), d(2, 6)},
		{"What did I do on the first of March?", d(3, 1), d(3, 2)},
		{"我三月三号到五号做了什么", d(3, 3), d(3, 6)},
	} {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: q.text, Limit: 5})
		if err != nil {
			t.Fatalf("%q: %v", q.text, err)
		}
		in := int(q.end.Sub(q.start).Hours() / 24)
		if len(res.Results) < min(5, in) {
			t.Errorf("%q: %d results, want %d", q.text, len(res.Results), min(5, in))
			continue
		}
		for i, r := range res.Results[:min(5, in)] {
			if on := day[r.ID]; on.Before(q.start) || !on.Before(q.end) {
				t.Errorf("%q: result %d %q happened outside [%s, %s)", q.text, i+1, r.Content, q.start.Format("Jan 2"), q.end.Format("Jan 2"))
			}
		}
	}
}
