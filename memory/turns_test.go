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

// TestTurnCountsOnce checks that a turn sent a sentence a message is one
// result among the first (REC-38): a query that each of its sentences
// matches, through the words its turn shares, finds the other turns that
// match before a second sentence of it, which waits behind them with a
// score of 0 — sent in one call or a message a call.
func TestTurnCountsOnce(t *testing.T) {
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
	turnOf := map[string]int{}
	for i, m := range chat {
		turnOf[m.Content] = []int{1, 2, 2, 2, 3, 4, 5}[i]
	}
	for _, scope := range []mnemo.Scope{alice, bob} {
		res, err := svc.Surface(context.Background(), scope, memory.Query{Text: "kayak", Limit: len(chat)})
		if err != nil {
			t.Fatal(err)
		}
		var turns []int
		seen := map[int]bool{}
		repeated := false
		for _, r := range res.Results {
			turn := turnOf[r.Content]
			if seen[turn] {
				repeated = true
				if r.Score != 0 || r.Relevance <= 0 {
					t.Errorf("%s: %q repeats turn %d: score %v, relevance %v; want 0 and its own", scope.AgentID, r.Content, turn, r.Score, r.Relevance)
				}
			} else if repeated {
				t.Errorf("%s: turn %d (%q) after a repeat", scope.AgentID, turn, r.Content)
			}
			seen[turn] = true
			turns = append(turns, turn)
		}
		if !repeated || !seen[2] || !seen[4] || !seen[5] {
			t.Errorf("%s: results of turns %v, want turns 2, 4 and 5 first and a repeat of 2 after: %s", scope.AgentID, turns, contents(res.Results))
		}
		// The three that match: three turns.
		res, err = svc.Surface(context.Background(), scope, memory.Query{Text: "kayak", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		three := map[int]bool{}
		for _, r := range res.Results {
			three[turnOf[r.Content]] = true
		}
		if len(three) != 3 {
			t.Errorf("%s: three results from turns %v: %s", scope.AgentID, three, contents(res.Results))
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
