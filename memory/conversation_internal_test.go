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

// TestSpeakerLabel: a name a line opens with, and what only looks like one.
func TestSpeakerLabel(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Caroline: I went to the support group", "Caroline"},
		{"Mary Jane Watson: hi", "Mary Jane Watson"},
		{"O'Brien: sure", "O'Brien"},
		{"Zoë: oui", "Zoë"},
		{"小明：我去了公园", "小明"},
		{"小明: 我去了公园", "小明"},
		{"J: fine", "J"},
		{"Jean-Luc: engage", "Jean-Luc"},
		{"Agent 47: done", ""},
		// Roles and labels of notes.
		{"User: hello", ""},
		{"assistant: hi", ""},
		{"Note: buy milk", ""},
		{"Q: why?", ""},
		{"用户：你好", ""},
		// Not a name.
		{"TODO: fix it", ""},
		{"caroline: lower case", ""},
		{"The plan for Monday: rest", ""},
		{"Mary Jane Watson Parker: four words", ""},
		{"https://example.com", ""},
		{"Meet at 10:30", ""},
		{"Caroline:no space", ""},
		{"Caroline: ", ""},
		{"Caroline:", ""},
		{": nothing", ""},
		{" Caroline: a space first", ""},
		{"Step 1: open it", ""},
		{"张三丰大师傅: 太长", ""},
		{"Hello, Caroline: commas", ""},
		{"No colon at all", ""},
		{"Ann: hi\nthere\nAnn: again", "Ann"},
		{"Ann: hi\nBo: hello", ""},
		{"Ann: line one\nNote: a label, not a speaker", "Ann"},
		{"Ann:\nBo: hello", ""},
		{"Caroline: " + strings.Repeat("x", 1000) + "\nMelanie: y", ""},
		{"Caroline: I said: hi", "Caroline"},
	}
	for _, tt := range tests {
		if got := speakerLabel(tt.text); got != tt.want {
			t.Errorf("speakerLabel(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestNameFromText: lines sent with no name are said by the name they
// open with when two lines or more open so (REC-35); one line alone,
// labels that name no one and names sent stay as they are.
func TestNameFromText(t *testing.T) {
	tests := []struct {
		name  string
		lines []line
		want  []string
	}{
		{"a chat", []line{{content: "Caroline: Hi!"}, {content: "Melanie: Hey"}, {content: "no label"}}, []string{"Caroline", "Melanie", ""}},
		{"one speaker's run", []line{{content: "Caroline: Hi!"}, {content: "Caroline: Guess what"}}, []string{"Caroline", "Caroline"}},
		{"one line alone", []line{{content: "Meeting: at noon"}}, []string{""}},
		{"one line among others", []line{{content: "Meeting: at noon"}, {content: "ok"}}, []string{"", ""}},
		{"labels of notes", []line{{content: "Note: a"}, {content: "Note: b"}}, []string{"", ""}},
		{"names sent", []line{{name: "Ann", content: "Bob: is here"}, {content: "Bob: hi"}}, []string{"Ann", ""}},
		{"a name sent with its label", []line{{name: "Ann", content: "Ann: hi"}, {content: "Bob: hello"}}, []string{"Ann", "Bob"}},
	}
	for _, tt := range tests {
		nameFromText(tt.lines)
		var got []string
		for _, l := range tt.lines {
			got = append(got, l.name)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: names %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTurnLine: a line is "name: content", its name not written twice.
func TestTurnLine(t *testing.T) {
	for _, tt := range []struct{ name, content, want string }{
		{"", "hi", "hi"},
		{"Ann", "hi", "Ann: hi"},
		{"Ann", "Ann: hi", "Ann: hi"},
		{"Ann", "Bob: hi", "Ann: Bob: hi"},
		{"小明", "小明：你好", "小明：你好"},
	} {
		if got := turnLine(tt.name, tt.content); got != tt.want {
			t.Errorf("turnLine(%q, %q) = %q, want %q", tt.name, tt.content, got, tt.want)
		}
	}
}

// FuzzSpeakerLabel: whatever a text, the name found is one it opens with,
// before a colon, within maxLabel bytes, and the line is its own again.
func FuzzSpeakerLabel(f *testing.F) {
	for _, s := range []string{"Caroline: hi", "小明：你好", "Ann: hi\nBo: hello", "https://x", "Note: a", "Mary Jane: x\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		label := speakerLabel(text)
		if label == "" {
			return
		}
		if len(label) > maxLabel || !strings.HasPrefix(text, label+": ") && !strings.HasPrefix(text, label+"：") {
			t.Fatalf("speakerLabel(%q) = %q", text, label)
		}
		if got := turnLine(label, text); got != text {
			t.Fatalf("turnLine(%q, %q) = %q, want the text as it is", label, text, got)
		}
	})
}
