package memory

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestFindAnchor(t *testing.T) {
	for _, tt := range []struct {
		text               string
		ok                 bool
		expr, unit, rel, e string
	}{
		{"Where did we go the day after the wedding?", true, "the day after the wedding", "day", "after", "the wedding"},
		{"What did Melanie do after the road trip to relax?", true, "after the road trip", "", "after", "the road trip"},
		{"What did I buy before my trip to Lisbon?", true, "before my trip", "", "before", "my trip"},
		{"How has he felt since the accident?", true, "since the accident", "", "since", "the accident"},
		{"What happened the week following her promotion", true, "the week following her promotion", "week", "after", "her promotion"},
		{"What did she do prior to the move?", true, "prior to the move", "", "before", "the move"},
		{"What did she do after lunch?", false, "", "", "", ""},
		{"What did she do after March 5?", false, "", "", "", ""},
		{"after the", false, "", "", "", ""},
		{"What does she do after the kids go to bed?", false, "", "", "", ""},
		{"What does she eat after the gym?", false, "", "", "", ""},
		{"Where will they live after the wedding?", true, "after the wedding", "", "after", "the wedding"},
		{"What did she do after the kids went to bed?", false, "", "", "", ""},
		{"What did she do after the party finished?", false, "", "", "", ""},
		{"What did he do after the long boring annual company meeting?", false, "", "", "", ""},
		{"What did she do after the end of the semester?", false, "", "", "", ""},
		{"婚礼的第二天我们去哪里徒步了？", true, "婚礼的第二天", "day", "after", "婚礼"},
		{"我们在婚礼之后去了哪里？", true, "婚礼之后", "", "after", "婚礼"},
		{"她搬家以前住在哪里？", true, "搬家以前", "", "before", "搬家"},
		{"马拉松的前一天我做了什么？", true, "马拉松的前一天", "day", "before", "马拉松"},
		{"三天以前她做了什么？", false, "", "", "", ""},
		{"五月之后她去了哪里？", false, "", "", "", ""},
	} {
		a, ok := findAnchor(tt.text)
		if ok != tt.ok || ok && (a.expr != tt.expr || a.unit != tt.unit || a.relation != tt.rel || a.event != tt.e) {
			t.Errorf("findAnchor(%q) = %+v, %v; want %q %q %q %q, %v", tt.text, a, ok, tt.expr, tt.unit, tt.rel, tt.e, tt.ok)
		}
	}
}

// FuzzFindAnchor: any text, no panic; an anchor found is written in the
// text, and its event opens with a determiner within it.
func FuzzFindAnchor(f *testing.F) {
	for _, s := range []string{"the day after the wedding", "after the road trip to relax?", "prior to the", "since her 2nd  marathon", "我们在婚礼之后去了哪里？", "马拉松的前一天"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, ok := findAnchor(text)
		if !ok {
			return
		}
		if !strings.Contains(text, a.phrase) || !strings.HasPrefix(a.phrase, a.expr) || !strings.Contains(a.expr, a.event) || !utf8.ValidString(a.expr) && utf8.ValidString(text) {
			t.Fatalf("findAnchor(%q) = %+v", text, a)
		}
		if f := strings.Fields(a.event); len(f) < 2 && !strings.ContainsFunc(a.event, func(r rune) bool { return unicode.Is(unicode.Han, r) }) || utf8.RuneCountInString(a.event) < 2 {
			t.Fatalf("findAnchor(%q): event %q", text, a.event)
		}
	})
}
