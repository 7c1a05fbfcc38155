package temporal

import (
	"fmt"
	"strings"
	"testing"
)

// shorthandTimes are times as a chat writes them, each with the words a
// message written out in full says (REC-39).
var shorthandTimes = []struct{ short, full string }{
	{"tmrw", "tomorrow"},
	{"tmr", "tomorrow"},
	{"2moro", "tomorrow"},
	{"tommorow", "tomorrow"},
	{"yday", "yesterday"},
	{"yest", "yesterday"},
	{"tonite", "tonight"},
	{"2nite", "tonight"},
	{"last nite", "last night"},
	{"this wknd", "this weekend"},
	{"over the wknd", "over the weekend"},
	{"nxt wk", "next week"},
	{"last wk", "last week"},
	{"nxt mnth", "next month"},
	{"last yr", "last year"},
	{"2 wks ago", "2 weeks ago"},
	{"3 yrs ago", "3 years ago"},
	{"a couple hrs ago", "a couple hours ago"},
	{"in 2 wks", "in 2 weeks"},
	{"nxt fri", "next fri"},
	{"on xmas", "on Christmas"},
}

// shorthandSentences are what a chat says around a time.
var shorthandSentences = []string{
	"omg c u %s!",
	"we went hiking %s w/ leo",
	"%s was sooo fun",
	"r u free %s?",
	"I'm gonna call her %s, idk what to say",
	"my bday party is %s",
	"%s we finally finished it, congrats to us",
}

// TestShorthandTimes: a time in a chat's shorthand is read as the same
// time written out, and the expression found is what the chat wrote.
func TestShorthandTimes(t *testing.T) {
	n := 0
	for _, ref := range phrasingRefs {
		for _, st := range shorthandTimes {
			for _, sentence := range shorthandSentences {
				chat := fmt.Sprintf(sentence, st.short)
				full := strings.NewReplacer("c u", "see you", "r u", "are you", "w/", "with", "gonna", "going to",
					"idk", "i don't know", "bday", "birthday", "congrats", "congratulations").Replace(fmt.Sprintf(sentence, st.full))
				got, want := Extract(chat, ref), Extract(full, ref)
				n++
				if len(want) == 0 {
					t.Fatalf("%q: nothing found written out", full)
				}
				if len(got) != len(want) || got[0].Window != want[0].Window {
					t.Errorf("at %s: %q reads %v; written out, %q reads %v", ref.Format("Mon 2006-01-02"), chat, got, full, want)
					continue
				}
				if strings.Contains(st.short, " ") || !strings.Contains(want[0].Text, " ") {
					if wantText := strings.TrimPrefix(st.short, "on "); !strings.HasSuffix(got[0].Text, wantText) || chat[got[0].Pos:got[0].EndPos] != got[0].Text {
						t.Errorf("%q: found %q at [%d, %d), want the chat's %q", chat, got[0].Text, got[0].Pos, got[0].EndPos, wantText)
					}
				}
			}
		}
	}
	t.Logf("%d sentences", n)
}

// TestShorthandQuery: a question in shorthand asks about the same time,
// and its text loses the time as the chat wrote it.
func TestShorthandQuery(t *testing.T) {
	ref := phrasingRefs[0]
	for _, tc := range []struct{ short, full, text string }{
		{"what did she do yday?", "what did she do yesterday?", "what did she do?"},
		{"where did they go over the wknd?", "where did they go over the weekend?", "where did they go?"},
		{"who did he meet 2 wks ago?", "who did he meet 2 weeks ago?", "who did he meet?"},
	} {
		got, want := Query(tc.short, ref), Query(tc.full, ref)
		if !got.Found || got.Window != want.Window || got.Text != tc.text {
			t.Errorf("Query(%q) = %+v; want the window of %q, %v, and text %q", tc.short, got, tc.full, want.Window, tc.text)
		}
	}
}

// TestSpokenChineseDays: the northern spoken day words (昨儿, 今儿个,
// 明儿) and 明晚, 昨夜 are the days they say.
func TestSpokenChineseDays(t *testing.T) {
	for _, tc := range []struct{ spoken, written string }{
		{"昨儿", "昨天"}, {"昨儿个", "昨天"}, {"今儿", "今天"}, {"今儿个", "今天"}, {"明儿", "明天"},
		{"明儿个", "明天"}, {"前儿个", "前天"}, {"后儿个", "后天"}, {"明晚", "明天"}, {"昨夜", "昨天"}, {"今夜", "今天"},
	} {
		for _, sentence := range []string{"我们%s去爬山", "%s见！", "你%s有空吗？", "%s的会开得很顺利"} {
			for _, ref := range phrasingRefs {
				spoken, written := fmt.Sprintf(sentence, tc.spoken), fmt.Sprintf(sentence, tc.written)
				got, want := Extract(spoken, ref), Extract(written, ref)
				if len(got) != 1 || len(want) != 1 || got[0].Window != want[0].Window || got[0].Text != tc.spoken {
					t.Errorf("at %s: %q reads %v; %q reads %v", ref.Format("2006-01-02"), spoken, got, written, want)
				}
			}
		}
	}
}
