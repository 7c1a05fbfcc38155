package memory

import (
	"strings"
	"testing"
)

// TestConversationContext: a turn is one speaker's run of messages, and a
// message's context and the text read with it go by turns, so that a chat
// sent a sentence a message gets the context a composed turn gets.
func TestConversationContext(t *testing.T) {
	lines := []string{
		"A: Guess what", "A: I adopted a dog", // turn 0
		"B: Amazing!", "B: What breed?", // turn 1
		"A: A beagle",         // turn 2
		"B: Cute",             // turn 3
		"A: He is called Rex", // turn 4
		"B: Love it",          // turn 5
	}
	speakers := []string{"A", "A", "B", "B", "A", "B", "A", "B"}
	c := newConversation(lines, speakers)
	tests := []struct {
		k               int
		context, before string
	}{
		{0, "A: I adopted a dog|B: Amazing!|B: What breed?|A: A beagle", ""},
		{1, "A: Guess what|B: Amazing!|B: What breed?|A: A beagle", "A: Guess what"},
		// The other speaker's whole turn and their own turn so far.
		{3, "A: Guess what|A: I adopted a dog|B: Amazing!|A: A beagle|B: Cute", "A: Guess what|A: I adopted a dog|B: Amazing!"},
		// Two turns on each side, whatever their lengths.
		{4, "A: Guess what|A: I adopted a dog|B: Amazing!|B: What breed?|B: Cute|A: He is called Rex", "B: Amazing!|B: What breed?"},
		{7, "B: Cute|A: He is called Rex", "A: He is called Rex"},
	}
	for _, tc := range tests {
		if got := strings.ReplaceAll(c.context(tc.k), "\n", "|"); got != tc.context {
			t.Errorf("context(%d) = %q, want %q", tc.k, got, tc.context)
		}
		if got := strings.ReplaceAll(c.before(tc.k), "\n", "|"); got != tc.before {
			t.Errorf("before(%d) = %q, want %q", tc.k, got, tc.before)
		}
	}

	// Speakers that alternate make every message a turn: two neighbours
	// a side and the message before, as for composed turns.
	alt := newConversation([]string{"1", "2", "3", "4", "5", "6"}, []string{"a", "b", "a", "b", "a", "b"})
	if got, want := alt.context(2), "1\n2\n4\n5"; got != want {
		t.Errorf("alternating context(2) = %q, want %q", got, want)
	}
	if got := alt.before(2); got != "2" {
		t.Errorf("alternating before(2) = %q, want %q", got, "2")
	}

	// One speaker's long run: at most contextLines lines a side.
	run := make([]string, 30)
	same := make([]string, 30)
	for i := range run {
		run[i], same[i] = "x", "a"
	}
	same[0] = "b"
	long := newConversation(run, same)
	if n := len(strings.Split(long.context(15), "\n")); n != 2*contextLines {
		t.Errorf("a long run's context has %d lines, want %d", n, 2*contextLines)
	}
	if n := len(strings.Split(long.before(15), "\n")); n != contextLines {
		t.Errorf("a long run's before has %d lines, want %d", n, contextLines)
	}
	// Long lines: at most contextWords words a side, the nearest.
	long2 := newConversation([]string{
		strings.Repeat("far ", 150) + strings.Repeat("near ", 150),
		"k",
		strings.Repeat("next ", 250) + "beyond",
		"x",
	}, []string{"a", "b", "a", "b"})
	got := strings.Split(long2.context(1), "\n")
	if len(got) != 2 || got[0] != strings.TrimSpace(strings.Repeat("far ", 50)+strings.Repeat("near ", 150)) ||
		got[1] != strings.TrimSpace(strings.Repeat("next ", 200)) {
		t.Errorf("long lines' context: %d lines, %q…", len(got), long2.context(1)[:40])
	}

	// A speaker nobody named is a turn of its own each time, and so is
	// each line where one speaker says them all.
	for _, speakers := range [][]string{{"", "", "", "", "", ""}, {"user", "user", "user", "user", "user", "user"}} {
		c := newConversation([]string{"p", "q", "r", "s", "t", "u"}, speakers)
		if got := c.before(2); got != "q" {
			t.Errorf("%q: before(2) = %q, want %q", speakers, got, "q")
		}
		if got := c.context(2); got != "p\nq\ns\nt" {
			t.Errorf("%q: context(2) = %q, want %q", speakers, got, "p\nq\ns\nt")
		}
	}
}
