package memory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// shorthandChat is a chat typed as people type it, each line with its
// answer's question written out in full.
var shorthandChat = []struct{ name, text, question string }{
	{"Ana", "omg my bday party was amazing, thx for coming!!", "How was Ana's birthday party?"},
	{"Bo", "ofc! the cake was gr8. r u free this wknd?", ""},
	{"Ana", "yes! here r some pics from the lake trip", "Which pictures from the lake trip did Ana share?"},
	{"Bo", "my bf surprised me w/ flowers yday", "Who surprised Bo with flowers?"},
	{"Ana", "aww that's sweet. my mum is visiting nxt wk", "When is Ana's mom visiting?"},
	{"Bo", "nice, lmk if u need a hand w/ anything", ""},
	{"Ana", "will do. gotta run, my appt at the dentist is soon", "Where is Ana's appointment?"},
	{"Bo", "good luck at the dentist! ttyl", ""},
}

// TestShorthandFoundInFull: a question written out in full finds the
// chat line that says it in shorthand first, by its words alone (REC-39).
func TestShorthandFoundInFull(t *testing.T) {
	c := newClock()
	svc := newService(t, c)
	feedShorthand(t, svc, c, alice)
	for i, l := range shorthandChat {
		if l.question == "" {
			continue
		}
		res, err := svc.Surface(context.Background(), alice, memory.Query{Text: l.question, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].Content != l.text {
			var got []string
			for _, r := range res.Results {
				got = append(got, r.Content)
			}
			t.Errorf("%q (line %d) found %q first, want %q", l.question, i, got, l.text)
		}
	}
}

// TestShorthandTimes: a chat's "yday" and "nxt wk" date what it tells
// (REC-39, REC-23).
func TestShorthandTimes(t *testing.T) {
	c := newClock()
	svc := newService(t, c)
	feedShorthand(t, svc, c, alice)
	day := time.Date(c.T.Year(), c.T.Month(), c.T.Day(), 0, 0, 0, 0, c.T.Location())
	for _, tc := range []struct {
		text       string
		start, end time.Time
		expr       string
	}{
		{"my bf surprised me w/ flowers yday", day.AddDate(0, 0, -1), day, "yday"},
		{"aww that's sweet. my mum is visiting nxt wk", time.Time{}, time.Time{}, "nxt wk"},
	} {
		m := lineByText(t, svc, alice, tc.text)
		if m.Occurred == nil || m.Occurred.Expression != tc.expr {
			t.Errorf("%q occurred %+v, want %q", tc.text, m.Occurred, tc.expr)
			continue
		}
		if !tc.start.IsZero() && (!m.Occurred.Start.Equal(tc.start) || !m.Occurred.End.Equal(tc.end)) {
			t.Errorf("%q occurred [%s, %s), want [%s, %s)", tc.text, m.Occurred.Start, m.Occurred.End, tc.start, tc.end)
		}
		if tc.start.IsZero() && !m.Occurred.Start.After(c.T) {
			t.Errorf("%q occurred from %s, want after %s", tc.text, m.Occurred.Start, c.T)
		}
	}
}

// TestShorthandEmbedded: a line in shorthand is embedded as the line
// written out is, so that its meaning is as near a question's (REC-39).
func TestShorthandEmbedded(t *testing.T) {
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{Embedder: builtin.New()})
	short := []memory.Message{{Role: "user", Name: "Ana", Content: "omg my bday party was amazing, thx!! c u tmrw"}}
	full := []memory.Message{{Role: "user", Name: "Ana", Content: "oh my god my birthday party was amazing, thanks!! see you tomorrow"}}
	for _, in := range []struct {
		scope mnemo.Scope
		msgs  []memory.Message
	}{{alice, short}, {bob, full}} {
		stamp(c, in.msgs)
		if _, err := svc.AddMessages(context.Background(), in.scope, "s1", in.msgs); err != nil {
			t.Fatal(err)
		}
	}
	a, b := lineByText(t, svc, alice, short[0].Content), lineByText(t, svc, bob, full[0].Content)
	if len(a.Embedding) == 0 || !slices.Equal(a.Embedding, b.Embedding) {
		t.Errorf("the line in shorthand is embedded unlike the line written out (%d and %d dimensions)", len(a.Embedding), len(b.Embedding))
	}
}

// feedShorthand sends shorthandChat to scope's session s1, a line a call.
func feedShorthand(t *testing.T, svc *service.Mnemo, c *clock, scope mnemo.Scope) {
	t.Helper()
	msgs := make([]memory.Message, len(shorthandChat))
	for i, l := range shorthandChat {
		msgs[i] = memory.Message{Role: "user", Name: l.name, Content: l.text}
	}
	stamp(c, msgs)
	for _, m := range msgs {
		if _, err := svc.AddMessages(context.Background(), scope, "s1", []memory.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
}

// lineByText returns scope's message whose content is text.
func lineByText(t *testing.T, svc *service.Mnemo, scope mnemo.Scope, text string) mnemo.Memory {
	t.Helper()
	ms, _, err := svc.List(context.Background(), scope, mnemo.ListQuery{Filter: mnemo.Filter{SessionID: "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Content == text {
			return m
		}
	}
	t.Fatalf("no message %q", text)
	return mnemo.Memory{}
}
