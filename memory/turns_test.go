package memory_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// TestTurnsNumbered checks the turn each message keeps in its data
// (REC-38): the lines one speaker sends before another speaks share a
// number, however the session is sent; a session of one speaker's lines
// (an agent's notes) numbers each; a session's first speaker's lines sent
// one a call keep the numbers they had as turns of their own.
func TestTurnsNumbered(t *testing.T) {
	chat := "user|Ana|a\nuser|Ana|b\nassistant|Bo|c\nassistant|Bo|d\nuser|Ana|e\nassistant|Bo|f"
	notes := "user||a\nuser||b\nuser||c"
	for _, tt := range []struct {
		name  string
		spec  string
		calls []int // messages a call, in order
		want  []int
	}{
		{"chat in one call", chat, []int{6}, []int{1, 1, 2, 2, 3, 4}},
		{"chat in two calls", chat, []int{3, 3}, []int{1, 1, 2, 2, 3, 4}},
		{"chat cut inside a turn", chat, []int{4, 2}, []int{1, 1, 2, 2, 3, 4}},
		{"chat a message a call", chat, []int{1, 1, 1, 1, 1, 1}, []int{1, 2, 3, 3, 4, 5}},
		{"notes in one call", notes, []int{3}, []int{1, 2, 3}},
		{"notes a message a call", notes, []int{1, 1, 1}, []int{1, 2, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			svc := newService(t, c)
			msgs := specMessages(tt.spec, -1)
			stamp(c, msgs)
			for _, n := range tt.calls {
				if _, err := svc.AddMessages(context.Background(), alice, "s1", msgs[:n]); err != nil {
					t.Fatal(err)
				}
				msgs = msgs[n:]
			}
			if got := turnNumbers(t, svc, alice); !slices.Equal(got, tt.want) {
				t.Errorf("turns %v, want %v", got, tt.want)
			}
		})
	}
}

// turnNumbers returns the turn each message of scope's session s1 keeps,
// in the session's order.
func turnNumbers(t *testing.T, svc *service.Mnemo, scope mnemo.Scope) []int {
	t.Helper()
	ms, _, err := svc.List(context.Background(), scope, mnemo.ListQuery{
		Filter: mnemo.Filter{SessionID: "s1"}, Order: mnemo.OrderOldest,
	})
	if err != nil {
		t.Fatal(err)
	}
	turns := make([]int, len(ms))
	for i, m := range ms {
		var d struct {
			Turn int `json:"turn"`
		}
		if err := json.Unmarshal(m.Data, &d); err != nil {
			t.Fatalf("%q: data %s: %v", m.Content, m.Data, err)
		}
		turns[i] = d.Turn
	}
	return turns
}

// TestTurnMessagesEach checks that a turn sent a sentence a message is
// as many answers as it has messages (REC-38): a message whose turn is
// already among the results ranks by its own relevance, not behind every
// other candidate, since the answer a question needs is often in the
// message after the one that says its words ("We rented a kayak" — "It
// tipped over twice").
func TestTurnMessagesEach(t *testing.T) {
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	chat := []memory.Message{
		{Role: "assistant", Name: "Bo", Content: "How was your weekend?"},
		{Role: "user", Name: "Ana", Content: "We rented a kayak at the lake."},
		{Role: "user", Name: "Ana", Content: "It tipped over twice."},
		{Role: "user", Name: "Ana", Content: "And my paddle floated away."},
		{Role: "assistant", Name: "Bo", Content: "Oh no! Did you get it back?"},
		{Role: "user", Name: "Ana", Content: "A fisherman in a kayak brought it back."},
		{Role: "assistant", Name: "Bo", Content: "Next time tie a leash to the kayak."},
	}
	feedBothWays(t, svc, c, chat)
	if err := svc.WaitEmbedded(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []mnemo.Scope{alice, bob} {
		res, err := svc.Surface(context.Background(), scope, memory.Query{Text: "what happened when Ana rented a kayak", Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		got := contents(res.Results)
		for _, want := range []string{"We rented a kayak at the lake.", "It tipped over twice."} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q not among the first four: %s", scope.AgentID, want, got)
			}
		}
		for _, r := range res.Results {
			if r.Score <= 0 {
				t.Errorf("%s: %q scored %v (relevance %v), held back", scope.AgentID, r.Content, r.Score, r.Relevance)
			}
		}
	}
}

func contents(rs []memory.Scored) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("\n\t" + r.Content)
	}
	return b.String()
}
