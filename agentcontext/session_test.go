package agentcontext_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/memory"
)

func TestWorkingMemoryLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	_, err := svc.GetWorkingMemory(ctx, alice, "s1")
	wantCode(t, "before the first message", err, mnemo.ENOTFOUND)

	created := c.T
	wm, err := svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "Hi, my name is Dana and I live in Lisbon. I'm planning a trip to Kyoto in April."})
	if err != nil {
		t.Fatal(err)
	}
	if wm.TurnCount != 1 || !wm.CreatedAt.Equal(created) || !wm.UpdatedAt.Equal(created) {
		t.Fatalf("first turn: %+v", wm)
	}
	if wm.ContextVariables["name"] != "Dana" || wm.ContextVariables["location"] != "Lisbon" {
		t.Fatalf("variables = %v", wm.ContextVariables)
	}
	if wm.LastEmotion != "neutral" {
		t.Fatalf("emotion = %q", wm.LastEmotion)
	}
	c.Advance(time.Minute)
	wm, err = svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "I'm worried the Kyoto temples will be crowded. Please remember that I hate crowds."})
	if err != nil {
		t.Fatal(err)
	}
	if wm.TurnCount != 2 || !wm.UpdatedAt.Equal(c.T) || !wm.CreatedAt.Equal(created) {
		t.Fatalf("second turn: %+v", wm)
	}
	if !strings.Contains(wm.CurrentTopic, "kyoto") {
		t.Fatalf("topic = %q, want kyoto in it", wm.CurrentTopic)
	}
	if wm.LastEmotion != "anxious" && wm.LastEmotion != "angry" {
		t.Fatalf("emotion = %q", wm.LastEmotion)
	}
	if len(wm.Facts) != 1 || wm.Facts[0] != "I hate crowds" {
		t.Fatalf("facts = %q", wm.Facts)
	}
	// The caller may set what the rules would guess; "" removes a variable.
	wm, err = svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Role: "assistant", Text: "Noted.", Topic: "kyoto trip",
		Variables: map[string]string{"budget": "2000 EUR", "location": ""}})
	if err != nil {
		t.Fatal(err)
	}
	if wm.CurrentTopic != "kyoto trip" || wm.ContextVariables["budget"] != "2000 EUR" || wm.ContextVariables["location"] != "" || wm.TurnCount != 3 {
		t.Fatalf("after the caller's turn: %+v", wm)
	}
	if wm.LastEmotion == "neutral" {
		t.Fatalf("an assistant turn changed the user's emotion")
	}
	// Sessions are per agent.
	_, err = svc.GetWorkingMemory(ctx, bob, "s1")
	wantCode(t, "another agent's session", err, mnemo.ENOTFOUND)

	// 30 minutes idle: gone at once for reads, and swept.
	c.Advance(30 * time.Minute)
	_, err = svc.GetWorkingMemory(ctx, alice, "s1")
	wantCode(t, "idle session", err, mnemo.ENOTFOUND)
	if _, err := svc.AddTurn(ctx, alice, "s2", agentcontext.Turn{Text: "A new conversation."}); err != nil {
		t.Fatal(err)
	}
	n, err := svc.SweepSessions(ctx)
	if err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v; want 1", n, err)
	}
	if ss, _ := svc.ListSessions(ctx, alice); len(ss) != 1 || ss[0].SessionID != "s2" {
		t.Fatalf("sessions after the sweep = %+v", ss)
	}
	// Not archived: ArchiveFacts is off.
	if ms, _, _ := svc.List(ctx, alice, mnemo.ListQuery{}); len(ms) != 0 {
		t.Fatalf("the sweep wrote %d memories", len(ms))
	}
	// A message after expiry starts the session anew.
	wm, err = svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "Back again."})
	if err != nil || wm.TurnCount != 1 {
		t.Fatalf("after expiry: %+v, %v", wm, err)
	}
}

func TestSessionFactsArchived(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{ArchiveFacts: true, SessionIdle: 10 * time.Minute})
	if _, err := svc.AddTurn(ctx, alice, "chat/7", agentcontext.Turn{Text: "Remember that my flight leaves at 9am.", Remember: []string{"Prefers aisle seats"}}); err != nil {
		t.Fatal(err)
	}
	c.Advance(11 * time.Minute)
	if n, err := svc.SweepSessions(ctx); err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v", n, err)
	}
	ms, _, err := svc.List(ctx, alice, mnemo.ListQuery{Order: mnemo.OrderKey})
	if err != nil || len(ms) != 2 {
		t.Fatalf("archived = %d, %v; want 2", len(ms), err)
	}
	if ms[0].Content != "my flight leaves at 9am" || ms[1].Content != "Prefers aisle seats" || ms[0].SessionID != "chat/7" || ms[0].Type != mnemo.TypeFact {
		t.Fatalf("archived = %+v", ms)
	}
	// Ending by hand archives on request only.
	svc.AddTurn(ctx, alice, "s9", agentcontext.Turn{Text: "remember that the code word is heron."})
	end, err := svc.EndSession(ctx, alice, "s9", false)
	if err != nil || len(end.Archived) != 0 || end.WorkingMemory.TurnCount != 1 {
		t.Fatalf("end = %+v, %v", end, err)
	}
	_, err = svc.EndSession(ctx, alice, "s9", false)
	wantCode(t, "end twice", err, mnemo.ENOTFOUND)
}

func TestSessionBadInput(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{MaxSessions: 1})
	for _, tt := range []struct {
		name, session string
		turn          agentcontext.Turn
		code          string
	}{
		{"no session", "", agentcontext.Turn{Text: "hi"}, mnemo.EINVALID},
		{"no text", "s", agentcontext.Turn{}, mnemo.EINVALID},
		{"bad role", "s", agentcontext.Turn{Role: "system", Text: "hi"}, mnemo.EINVALID},
		{"huge text", "s", agentcontext.Turn{Text: strings.Repeat("x", 20001)}, mnemo.ETOOLARGE},
		{"empty fact", "s", agentcontext.Turn{Text: "hi", Remember: []string{" "}}, mnemo.EINVALID},
	} {
		_, err := svc.AddTurn(ctx, alice, tt.session, tt.turn)
		wantCode(t, tt.name, err, tt.code)
	}
	if _, err := svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.AddTurn(ctx, alice, "s2", agentcontext.Turn{Text: "hi"})
	wantCode(t, "too many sessions", err, mnemo.ETOOLARGE)
}

// REC-15: the session's topic joins the
// query and its memories get 1.3×.
func TestTopicBoost(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newContextService(t, c, agentcontext.Options{})
	if _, err := svc.RememberBatch(ctx, alice, []mnemo.Draft{
		draft("Booked a hotel near the station for the trip"),
		draft("Kyoto hotel: the ryokan in Gion was lovely"),
	}); err != nil {
		t.Fatal(err)
	}
	q := memory.Query{Text: "which hotel", Explain: true}
	plain, err := svc.Surface(ctx, alice, q)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddTurn(ctx, alice, "s1", agentcontext.Turn{Text: "Tell me about Kyoto, Kyoto temples and Kyoto food."}); err != nil {
		t.Fatal(err)
	}
	q.Session = "s1"
	boosted, err := svc.Surface(ctx, alice, q)
	if err != nil {
		t.Fatal(err)
	}
	if boosted.Topic == "" || len(boosted.Results) < 2 || !strings.Contains(boosted.Results[0].Content, "Kyoto") {
		t.Fatalf("boosted = %+v", boosted)
	}
	var before float64
	for _, r := range plain.Results {
		if strings.Contains(r.Content, "Kyoto") {
			before = r.Score
		}
	}
	after := boosted.Results[0]
	found := false
	for _, comp := range after.Explain.Components {
		if comp.Name == "topic_boost" && comp.Value == 1.3 {
			found = true
		}
	}
	if !found || after.Score < before*1.29 {
		t.Fatalf("score %v -> %v, components %+v", before, after.Score, after.Explain.Components)
	}
	// An unknown session changes nothing.
	q.Session = "nobody"
	if r, err := svc.Surface(ctx, alice, q); err != nil || r.Topic != "" {
		t.Fatalf("unknown session: %+v, %v", r, err)
	}
}
