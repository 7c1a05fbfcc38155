package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
)

// TestEditedMessagesReindexNeighbours checks that a message corrected or
// forgotten for good leaves none of its old words in its neighbours'
// index (REC-37): each word finds the messages it finds in a session that
// never held the old text — in sessions fed in one call (at one time, and
// a message a second) and a message a call, whether the messages have
// keys (changed by key) or not (in place); and that a message whose tags
// change keeps its context.
func TestEditedMessagesReindexNeighbours(t *testing.T) {
	short := []memory.Message{
		{Key: "/m/0", Role: "user", Name: "Caroline", Content: "I took the kayak out this morning."},
		{Key: "/m/1", Role: "assistant", Name: "Melanie", Content: "Up near the glacier again?"},
		{Key: "/m/2", Role: "user", Name: "Caroline", Content: "Yes, and a zeppelin flew over us."},
		{Key: "/m/3", Role: "assistant", Name: "Melanie", Content: "The old harbour one?"},
		{Key: "/m/4", Role: "user", Name: "Caroline", Content: "Maybe, I was busy with my canoe."},
		{Key: "/m/5", Role: "assistant", Name: "Melanie", Content: "Bring a lantern next time."},
	}
	// A long session, with runs of one speaker's messages (turns of
	// several lines), each message saying a word of its own.
	var long []memory.Message
	for i := range 40 {
		name := []string{"Caroline", "Melanie"}[i/3%2]
		long = append(long, memory.Message{Key: fmt.Sprintf("/m/%d", i), Role: "user", Name: name,
			Content: fmt.Sprintf("I said %s.", word(i))})
	}
	corrected := "Yes, and a balloon flew over us."
	for _, tt := range []struct {
		name  string
		chat  []memory.Message
		k     int  // the message edited
		keyed bool // only for messages with keys
		edit  func(svc *service.Mnemo, scope mnemo.Scope, msgs []mnemo.Memory, m mnemo.Memory) error
		// want is the chat as the edit leaves it.
		want func([]memory.Message) []memory.Message
	}{
		{"forgotten by key", short, 2, true, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			return forgetOne(svc.Forget(context.Background(), scope, nil, []string{m.Key}))
		}, func(m []memory.Message) []memory.Message { return slices.Delete(m, 2, 3) }},
		{"forgotten by id", short, 2, false, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			return forgetOne(svc.Forget(context.Background(), scope, []string{m.ID}, nil))
		}, func(m []memory.Message) []memory.Message { return slices.Delete(m, 2, 3) }},
		{"first forgotten", short, 0, false, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			return forgetOne(svc.Forget(context.Background(), scope, []string{m.ID}, nil))
		}, func(m []memory.Message) []memory.Message { return slices.Delete(m, 0, 1) }},
		{"forgotten in a long session", long, 19, false, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			return forgetOne(svc.Forget(context.Background(), scope, []string{m.ID}, nil))
		}, func(m []memory.Message) []memory.Message { return slices.Delete(m, 19, 20) }},
		{"two forgotten in a long session", long, 19, false, func(svc *service.Mnemo, scope mnemo.Scope, msgs []mnemo.Memory, m mnemo.Memory) error {
			n, err := svc.Forget(context.Background(), scope, []string{m.ID, msgs[21].ID}, nil)
			if err == nil && n != 2 {
				return fmt.Errorf("forgot %d memories, want 2", n)
			}
			return err
		}, func(m []memory.Message) []memory.Message { return slices.Delete(slices.Delete(m, 21, 22), 19, 20) }},
		{"corrected", short, 2, false, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			_, err := svc.Update(context.Background(), scope, m.ID, memory.Patch{Content: &corrected}, "test")
			return err
		}, func(m []memory.Message) []memory.Message {
			m[2].Content = corrected
			return m
		}},
		{"corrected in a long session", long, 22, false, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			_, err := svc.Update(context.Background(), scope, m.ID, memory.Patch{Content: &corrected}, "test")
			return err
		}, func(m []memory.Message) []memory.Message {
			m[22].Content = corrected
			return m
		}},
		{"tagged", short, 2, false, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
			tags := []string{"outdoors"}
			_, err := svc.Update(context.Background(), scope, m.ID, memory.Patch{Tags: &tags}, "test")
			return err
		}, func(m []memory.Message) []memory.Message { return m }},
	} {
		for _, keyed := range []bool{true, false} {
			if tt.keyed && !keyed {
				continue
			}
			name := tt.name + "/keyless"
			if keyed {
				name = tt.name + "/keyed"
			}
			t.Run(name, func(t *testing.T) {
				chat := func() []memory.Message {
					m := slices.Clone(tt.chat)
					for i := range m {
						if !keyed {
							m[i].Key = ""
						}
					}
					return m
				}
				testEditedMessages(t, chat, tt.k, tt.edit, tt.want(chat()))
			})
		}
	}
}

func testEditedMessages(t *testing.T, chat func() []memory.Message, k int,
	edit func(svc *service.Mnemo, scope mnemo.Scope, msgs []mnemo.Memory, m mnemo.Memory) error, ref []memory.Message) {
	c := newClock()
	testEditedMessagesOn(t, newService(t, c), c, chat, k, edit, ref)
}

func testEditedMessagesOn(t *testing.T, svc *service.Mnemo, c *clock, chat func() []memory.Message, k int,
	edit func(svc *service.Mnemo, scope mnemo.Scope, msgs []mnemo.Memory, m mnemo.Memory) error, ref []memory.Message) {
	ctx := context.Background()
	carol := mnemo.Scope{TenantID: alice.TenantID, AgentID: "carol"}
	dave := mnemo.Scope{TenantID: alice.TenantID, AgentID: "dave"}
	if _, err := svc.AddMessages(ctx, dave, "s1", chat()); err != nil { // all at one time
		t.Fatal(err)
	}
	feedBothWays(t, svc, c, chat())
	stamp(c, ref)
	if _, err := svc.AddMessages(ctx, carol, "s1", ref); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour) // a correction is written after the chat
	// The words one message says, before the edit or after: those that
	// find it and its neighbours only.
	var words []string
	for _, msgs := range [][]memory.Message{chat(), ref} {
		n := map[string]int{}
		for _, m := range msgs {
			for _, w := range strings.Fields(m.Content) {
				n[w]++
			}
		}
		for w, n := range n {
			if n == 1 && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
	}
	for _, scope := range []mnemo.Scope{alice, bob, dave} {
		msgs, _, err := svc.List(ctx, scope, mnemo.ListQuery{Order: mnemo.OrderOldest, Limit: 100})
		if err != nil || len(msgs) != len(chat()) {
			t.Fatalf("%d messages, %v", len(msgs), err)
		}
		if scope == dave { // one time: the order of ids is the order sent
			slices.SortFunc(msgs, func(a, b mnemo.Memory) int { return strings.Compare(a.ID, b.ID) })
		}
		if err := edit(svc, scope, msgs, msgs[k]); err != nil {
			t.Fatal(err)
		}
		for _, w := range words {
			got, want := lexicalTexts(t, svc, scope, w), lexicalTexts(t, svc, carol, w)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %q finds %q, want %q", scope.AgentID, w, got, want)
			}
		}
	}
	// No text a vector is to be made from holds an old word either (the
	// service has no embedder: every memory waits for one, with its text).
	vs, ok := svc.Store().(mnemo.VectorStore)
	if !ok {
		return
	}
	jobs, err := vs.Unembedded(ctx, 1000)
	if mnemo.ErrorCode(err) == mnemo.EUNAVAILABLE {
		return // no vectors kept (PostgreSQL without pgvector)
	} else if err != nil {
		t.Fatal(err)
	}
	kept := strings.Join(strings.Fields(fmt.Sprint(ref)), " ")
	for _, w := range words {
		if strings.Contains(kept, w) {
			continue
		}
		for _, j := range jobs {
			if strings.Contains(j.Text, w) {
				t.Errorf("the text %q is to be embedded from holds %q, edited out", j.Text, w)
			}
		}
	}
}

func forgetOne(n int, err error) error {
	if err == nil && n != 1 {
		return fmt.Errorf("forgot %d memories, want 1", n)
	}
	return err
}

// word is a word of its own for message i: two letters of a made-up
// alphabet, so that no two are alike to the analyser.
func word(i int) string {
	const a = "bdfgklmnprstvz"
	return "qu" + string(a[i/len(a)]) + "o" + string(a[i%len(a)]) + "ix"
}

// lexicalTexts returns what lexical recall finds for q in scope, sorted.
func lexicalTexts(t *testing.T, svc *service.Mnemo, scope mnemo.Scope, q string) []string {
	t.Helper()
	return lexicalFind(t, svc, scope, q, func(r memory.Scored) string { return r.Content })
}

// lexicalFind returns field of each memory lexical recall finds for q in
// scope, sorted.
func lexicalFind(t *testing.T, svc *service.Mnemo, scope mnemo.Scope, q string, field func(memory.Scored) string) []string {
	t.Helper()
	res, err := svc.Surface(context.Background(), scope, memory.Query{Text: q, Profile: "lexical", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, r := range res.Results {
		out = append(out, field(r))
	}
	slices.Sort(out)
	return out
}

// TestEditedMessagesEmbedAgain checks that the messages whose vectors
// read a message corrected or forgotten (the turn before theirs) are
// embedded again without it (REC-37): once the queue is done, each
// message's vector is the one it has in a session that never held the
// old text.
func TestEditedMessagesEmbedAgain(t *testing.T) {
	// Turns of three lines, each line a word of its own.
	var long []memory.Message
	for i := range 24 {
		name := []string{"Caroline", "Melanie"}[i/3%2]
		long = append(long, memory.Message{Role: "user", Name: name, Content: fmt.Sprintf("I said %s.", word(i))})
	}
	chat := []memory.Message{
		{Role: "user", Name: "Caroline", Content: "I took the kayak out this morning."},
		{Role: "assistant", Name: "Melanie", Content: "Up near the glacier again?"},
		{Role: "user", Name: "Caroline", Content: "Yes, and a zeppelin flew over us."},
		{Role: "assistant", Name: "Melanie", Content: "The old harbour one?"},
		{Role: "user", Name: "Caroline", Content: "Maybe, I was busy with my canoe."},
	}
	corrected := "Yes, and a balloon flew over us."
	for _, tt := range []struct {
		name string
		chat []memory.Message
		edit func(svc *service.Mnemo, scope mnemo.Scope, m mnemo.Memory) error
		want []memory.Message
	}{
		{"two forgotten a turn apart", long, func(svc *service.Mnemo, scope mnemo.Scope, m mnemo.Memory) error {
			msgs, _, err := svc.List(context.Background(), scope, mnemo.ListQuery{Order: mnemo.OrderOldest, Limit: 100})
			if err != nil {
				return err
			}
			n, err := svc.Forget(context.Background(), scope, []string{msgs[10].ID, msgs[13].ID}, nil)
			if err == nil && n != 2 {
				return fmt.Errorf("forgot %d memories, want 2", n)
			}
			return err
		}, slices.Delete(slices.Delete(slices.Clone(long), 13, 14), 10, 11)},
		{"forgotten", chat, func(svc *service.Mnemo, scope mnemo.Scope, m mnemo.Memory) error {
			return forgetOne(svc.Forget(context.Background(), scope, []string{m.ID}, nil))
		}, slices.Delete(slices.Clone(chat), 2, 3)},
		{"two forgotten", chat, func(svc *service.Mnemo, scope mnemo.Scope, m mnemo.Memory) error {
			msgs, _, err := svc.List(context.Background(), scope, mnemo.ListQuery{Order: mnemo.OrderOldest})
			if err != nil {
				return err
			}
			n, err := svc.Forget(context.Background(), scope, []string{msgs[3].ID, m.ID}, nil)
			if err == nil && n != 2 {
				return fmt.Errorf("forgot %d memories, want 2", n)
			}
			return err
		}, slices.Delete(slices.Clone(chat), 2, 4)},
		{"corrected", chat, func(svc *service.Mnemo, scope mnemo.Scope, m mnemo.Memory) error {
			_, err := svc.Update(context.Background(), scope, m.ID, memory.Patch{Content: &corrected}, "test")
			return err
		}, append(slices.Clone(chat[:2]), append([]memory.Message{{Role: "user", Name: "Caroline", Content: corrected}}, chat[3:]...)...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c := newClock()
			svc := newSemantic(t, c, "", service.Options{})
			// The references, fed as alice (one call) and bob (a message a
			// call) are.
			carol := mnemo.Scope{TenantID: alice.TenantID, AgentID: "carol"}
			dave := mnemo.Scope{TenantID: alice.TenantID, AgentID: "dave"}
			feedBothWays(t, svc, c, slices.Clone(tt.chat))
			feedBothWaysTo(t, svc, c, slices.Clone(tt.want), carol, dave)
			c.Advance(time.Hour)
			for _, scope := range []mnemo.Scope{alice, bob} {
				msgs, _, err := svc.List(ctx, scope, mnemo.ListQuery{Order: mnemo.OrderOldest, Limit: 100})
				if err != nil || len(msgs) != len(tt.chat) {
					t.Fatalf("%d messages, %v", len(msgs), err)
				}
				if err := tt.edit(svc, scope, msgs[2]); err != nil {
					t.Fatal(err)
				}
			}
			for scope, ref := range map[mnemo.Scope]mnemo.Scope{alice: carol, bob: dave} {
				got, want := embeddedVectors(t, svc, scope), embeddedVectors(t, svc, ref)
				for text, v := range want {
					if len(v) == 0 {
						t.Fatalf("%q has no vector", text)
					}
					if !slices.Equal(got[text], v) {
						t.Errorf("%s: the vector of %q is not the one it has in a session without the old text", scope.AgentID, text)
					}
				}
			}
		})
	}
}

// TestConcurrentCallsSeeEachOther checks that calls adding to one session
// at once each read the lines of those before them (the session locked
// meanwhile, REC-36): every message ends with the context it has in the
// session sent in one call in the order stored, so each message's word
// finds the same messages in both.
func TestConcurrentCallsSeeEachOther(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	const writers, each = 8, 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				n := w*each + i
				m := memory.Message{Role: "user", Name: []string{"Caroline", "Melanie"}[w%2], Content: "I said " + word(n) + "."}
				if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{m}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	stored, _, err := svc.List(ctx, alice, mnemo.ListQuery{Order: mnemo.OrderOldest, Limit: 100})
	if err != nil || len(stored) != writers*each {
		t.Fatalf("%d stored, %v", len(stored), err)
	}
	ref := make([]memory.Message, len(stored))
	for i, m := range stored {
		var d struct{ Name string }
		json.Unmarshal(m.Data, &d)
		ref[i] = memory.Message{Role: "user", Name: d.Name, Content: m.Content}
	}
	if _, err := svc.AddMessages(ctx, bob, "s1", ref); err != nil {
		t.Fatal(err)
	}
	for n := range writers * each {
		if got, want := lexicalTexts(t, svc, alice, word(n)), lexicalTexts(t, svc, bob, word(n)); !slices.Equal(got, want) {
			t.Errorf("%s finds %q, want %q", word(n), got, want)
		}
	}
}

// TestEditedMessagesOnEveryStore runs a forgetting and a correction of
// TestEditedMessagesReindexNeighbours's long session on every store that
// indexes contexts again, whose reads of a session's order (ties
// included) it relies on.
func TestEditedMessagesOnEveryStore(t *testing.T) {
	var long []memory.Message
	for i := range 30 {
		long = append(long, memory.Message{Role: "user", Name: []string{"Caroline", "Melanie"}[i/3%2], Content: fmt.Sprintf("I said %s.", word(i))})
	}
	chat := func() []memory.Message { return slices.Clone(long) }
	corrected := "I said nothing."
	for _, st := range []struct {
		name string
		open func(t *testing.T, c *clock) mnemo.Store
	}{
		{"memory", func(t *testing.T, c *clock) mnemo.Store { return inmem.New(inmem.Options{Now: c.Now}) }},
		{"files", func(t *testing.T, c *clock) mnemo.Store {
			s, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{NoSync: true, Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}},
		{"postgres", func(t *testing.T, c *clock) mnemo.Store {
			db, err := postgres.Open(t.Context(), pgtest.Native(t), postgres.Options{Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
	} {
		t.Run(st.name+"/forgotten", func(t *testing.T) {
			c := newClock()
			svc := service.New(st.open(t, c), service.Options{Now: c.Now})
			t.Cleanup(func() { svc.Close() })
			testEditedMessagesOn(t, svc, c, chat, 13, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
				return forgetOne(svc.Forget(context.Background(), scope, []string{m.ID}, nil))
			}, slices.Delete(chat(), 13, 14))
		})
		t.Run(st.name+"/corrected", func(t *testing.T) {
			c := newClock()
			svc := service.New(st.open(t, c), service.Options{Now: c.Now})
			t.Cleanup(func() { svc.Close() })
			want := chat()
			want[16].Content = corrected
			testEditedMessagesOn(t, svc, c, chat, 16, func(svc *service.Mnemo, scope mnemo.Scope, _ []mnemo.Memory, m mnemo.Memory) error {
				_, err := svc.Update(context.Background(), scope, m.ID, memory.Patch{Content: &corrected}, "test")
				return err
			}, want)
		})
	}
}

// TestFirstSpeakerEmbeddedAgain checks that a session's first speaker's
// lines, sent a message a call, are embedded again once another speaks
// (REC-36): until then each was a turn of its own, read with the line
// before it alone; after, their turn is one, and each reads all of it
// before it, as in the session sent in one call.
func TestFirstSpeakerEmbeddedAgain(t *testing.T) {
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	chat := []memory.Message{
		{Role: "user", Name: "Caroline", Content: "Guess what happened at the lake."},
		{Role: "user", Name: "Caroline", Content: "We saw a heron."},
		{Role: "user", Name: "Caroline", Content: "It caught a fish right in front of us."},
		{Role: "assistant", Name: "Melanie", Content: "Wow, lucky you!"},
	}
	feedBothWays(t, svc, c, chat)
	one, each := embeddedVectors(t, svc, alice), embeddedVectors(t, svc, bob)
	for _, m := range chat {
		if len(one[m.Content]) == 0 || !slices.Equal(each[m.Content], one[m.Content]) {
			t.Errorf("%q: a message a call gives another vector than one call", m.Content)
		}
	}
}

// embeddedVectors waits for the embedder and returns the vector of each
// memory of scope, by its text.
func embeddedVectors(t *testing.T, svc *service.Mnemo, scope mnemo.Scope) map[string][]float32 {
	t.Helper()
	if err := svc.WaitEmbedded(context.Background()); err != nil {
		t.Fatal(err)
	}
	ms, _, err := svc.List(context.Background(), scope, mnemo.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float32{}
	for _, m := range ms {
		out[m.Content] = m.Embedding
	}
	return out
}
