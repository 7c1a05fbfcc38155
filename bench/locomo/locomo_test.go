package locomo

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/shorthand"
)

var update = flag.Bool("update", false, "rewrite golden files")

func load(t *testing.T) []Conversation {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	convs, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func TestLoad(t *testing.T) {
	c := load(t)[0]
	if c.SampleID != "tiny-1" || c.SpeakerA != "Ann" || len(c.Sessions) != 2 || c.Sessions[1].N != 2 {
		t.Fatalf("conversation = %+v", c)
	}
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !c.Sessions[0].Time.Equal(want) {
		t.Fatalf("session 1 time = %v, want %v", c.Sessions[0].Time, want)
	}
	if !c.LastTime().Equal(time.Date(2023, 6, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("last time = %v", c.LastTime())
	}
	if ev := c.QA[1].Evidence; len(ev) != 2 || ev[0] != "D1:3" || ev[1] != "D1:1" {
		t.Fatalf("malformed evidence not split: %q", ev)
	}
	if got := c.Sessions[0].Turns[1].Content(); got != "Lovely! What breed? [shares a photo: a photo of a dog]" {
		t.Fatalf("content with caption = %q", got)
	}
}

// scripted answers each question with fixed keys: it tests the metrics,
// not a memory system.
type scripted struct {
	answers map[string][]string
	added   int
}

func (s *scripted) AddSession(_ context.Context, _, _ string, _ time.Time, turns []Turn) error {
	s.added += len(turns)
	return nil
}

func (s *scripted) Search(_ context.Context, _, q string, _ time.Time, limit int) ([]string, error) {
	return s.answers[q], nil
}

func TestRunMetrics(t *testing.T) {
	sys := &scripted{answers: map[string][]string{
		// Found at rank 1.
		"What is the name of Ann's puppy?": {"/turn/D1:1", "/turn/D2:2"},
		// One of two evidence turns at rank 1, the other at rank 7.
		"What breed is Rex?": {"/turn/D1:3", "/turn/x2", "/turn/x3", "/turn/x4", "/turn/x5", "/turn/x6", "/turn/D1:1"},
		// Not found.
		"When did Bo start pottery?": {"/turn/D1:2"},
	}}
	rep, err := Run(context.Background(), load(t), sys)
	if err != nil {
		t.Fatal(err)
	}
	if sys.added != 5 || rep.Turns != 5 || rep.All.Questions != 3 {
		t.Fatalf("report = %+v (added %d)", rep, sys.added)
	}
	var buf bytes.Buffer
	rep.WriteText(&buf, false)
	golden := filepath.Join("testdata", "tiny.golden")
	if *update {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("report differs from %s:\n%s", golden, buf.String())
	}
}

// TestRunPerConversation: each conversation's figures are its own, and
// the report prints a line for each (QUAL-5).
func TestRunPerConversation(t *testing.T) {
	one := load(t)[0]
	two := one
	two.SampleID = "tiny-2"
	sys := &scripted{answers: map[string][]string{
		"What is the name of Ann's puppy?": {"/turn/D1:1"},
		"What breed is Rex?":               {"/turn/D1:3"},
	}}
	rep, err := Run(context.Background(), []Conversation{one, two}, sys)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.PerConversation) != 2 {
		t.Fatalf("%d conversations reported, want 2", len(rep.PerConversation))
	}
	for _, c := range rep.PerConversation {
		if c.All.Questions != 3 || math.Abs(c.All.Hit[10]-2.0/3) > 1e-9 || math.Abs(c.All.Recall[10]-0.5) > 1e-9 {
			t.Errorf("%s: %+v, want 3 questions, hit@10 0.667, recall@10 0.5", c.Sample, c.All)
		}
		if s := c.ByCategory[1]; s == nil || s.Questions != 1 || s.Recall[10] != 0.5 {
			t.Errorf("%s: multi-hop %+v, want 1 question, recall@10 0.5", c.Sample, s)
		}
	}
	var buf bytes.Buffer
	rep.WriteText(&buf, false)
	for _, want := range []string{"per conversation", "tiny-1        3  1.000 / 0.500", "tiny-2        3  1.000 / 0.500"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestSelect(t *testing.T) {
	convs := []Conversation{{SampleID: "conv-26"}, {SampleID: "conv-30"}, {SampleID: "conv-41"}, {SampleID: "conv-42"}}
	ids := func(cs []Conversation) (s []string) {
		for _, c := range cs {
			s = append(s, c.SampleID)
		}
		return s
	}
	for spec, want := range map[string]string{
		"":                "[conv-26 conv-30 conv-41 conv-42]",
		"0-2":             "[conv-26 conv-30 conv-41]",
		"conv-41,0":       "[conv-26 conv-41]",
		"3, 1-1":          "[conv-30 conv-42]",
		"conv-26,conv-26": "[conv-26]",
	} {
		got, err := Select(convs, spec)
		if err != nil || fmt.Sprint(ids(got)) != want {
			t.Errorf("Select(%q) = %v, %v; want %s", spec, ids(got), err, want)
		}
	}
	for _, spec := range []string{"4", "2-1", "conv-99", "-1", "a-b"} {
		if _, err := Select(convs, spec); err == nil {
			t.Errorf("Select(%q): no error", spec)
		}
	}
}

func TestAUROC(t *testing.T) {
	for _, tt := range []struct {
		pos, neg []float64
		want     float64
	}{
		{[]float64{0.9, 0.8}, []float64{0.1, 0.2}, 1},
		{[]float64{0.1, 0.2}, []float64{0.9, 0.8}, 0},
		{[]float64{0.5, 0.5}, []float64{0.5}, 0.5},
		{[]float64{0.9, 0.3}, []float64{0.5, 0.1}, 0.75},
		{[]float64{0.9}, nil, 0},
	} {
		if got := AUROC(tt.pos, tt.neg); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("AUROC(%v, %v) = %v, want %v", tt.pos, tt.neg, got, tt.want)
		}
	}
}

// TestAsChat: a turn becomes a message a sentence and one for its photo,
// keyed under the turn, and results count for the turn they came from.
func TestAsChat(t *testing.T) {
	convs := load(t)
	chat := AsChat(convs)
	var got []string
	for _, tr := range chat[0].Sessions[0].Turns {
		got = append(got, tr.DiaID+" "+tr.Speaker+": "+tr.Text)
	}
	want := []string{
		"D1:1/1 Ann: I adopted a puppy named Rex.",
		"D1:2/1 Bo: Lovely!",
		"D1:2/2 Bo: What breed?",
		"D1:2/3 Bo: [shares a photo: a photo of a dog]",
		"D1:3/1 Ann: A beagle.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%q\nwant\n%q", got, want)
	}
	if n := len(convs[0].Sessions[0].Turns); n != 3 {
		t.Errorf("AsChat changed its input: %d turns, want 3", n)
	}
	for key, want := range map[string]string{"/turn/D1:2/3": "D1:2", "/turn/D1:2": "D1:2", "D8:6": "D8:6"} {
		if got := TurnOf(key); got != want {
			t.Errorf("TurnOf(%q) = %q, want %q", key, got, want)
		}
	}
	sys := &scripted{answers: map[string][]string{
		"What is the name of Ann's puppy?": {"/turn/D1:1/1"},
		"What breed is Rex?":               {"/turn/D1:3/1", "/turn/D1:3/1", "/turn/D1:2/1"},
		"When did Bo start pottery?":       {"/turn/D2:2/1"},
	}}
	rep, err := Run(context.Background(), chat, sys)
	if err != nil {
		t.Fatal(err)
	}
	// Two messages of one turn count once; the pottery question found
	// the right session but not the turn.
	if math.Abs(rep.All.Hit[10]-2.0/3) > 1e-9 || math.Abs(rep.All.Recall[10]-0.5) > 1e-9 || rep.All.SessionHit[10] != 1 {
		t.Errorf("hit@10 %.3f, recall@10 %.3f, session hit@10 %.3f; want 0.667, 0.500, 1", rep.All.Hit[10], rep.All.Recall[10], rep.All.SessionHit[10])
	}
	// The messages that hold the answer: "Rex" in D1:1/1, "beagle" in
	// D1:3/1 (not D1:1/1, also evidence); no message of D2:1 says "June
	// 2023", so that question is not counted.
	if m := rep.AnswerMessages; m == nil || m.Questions != 2 || m.Hit[10] != 1 || m.Recall[10] != 1 {
		t.Errorf("answer messages %+v, want 2 questions, both found", m)
	}
	if got := answerMessages(convs[0].QA[1], chat[0].messagesByTurn()); !slices.Equal(got, []string{"D1:3/1"}) {
		t.Errorf("answer messages of %q: %v, want [D1:3/1]", convs[0].QA[1].Question, got)
	}
	// A result that is another message of the answer's turn is no hit.
	var s Scores
	scoreMessages(&s, []string{"/turn/D1:2/2", "/turn/D1:2/1"}, []string{"D1:2/1", "D1:2/3"})
	finish(&s)
	if s.Hit[5] != 1 || s.Recall[5] != 0.5 {
		t.Errorf("two results, one of two answer messages: hit@5 %v, recall@5 %v; want 1, 0.5", s.Hit[5], s.Recall[5])
	}
	// Turns fed whole have no messages of their own to count.
	whole, err := Run(context.Background(), convs, &scripted{answers: map[string][]string{}})
	if err != nil {
		t.Fatal(err)
	}
	if whole.AnswerMessages != nil {
		t.Errorf("turns fed whole: answer messages %+v, want none", whole.AnswerMessages)
	}
}

// TestHTTPSystemNamesInText: with NamesInText a turn goes in as
// "Speaker: text" with no name, as harnesses that know only roles send it;
// without, its name goes in the name field.
func TestHTTPSystemNamesInText(t *testing.T) {
	var got []message
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Messages []message }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			t.Error(err)
		}
		got = in.Messages
		ids := make([]string, len(in.Messages))
		json.NewEncoder(w).Encode(map[string]any{"ids": ids})
	}))
	defer srv.Close()
	turns := []Turn{{Speaker: "Caroline", DiaID: "D1:1", Text: "Hi Mel!"}}
	for _, tt := range []struct {
		inText        bool
		name, content string
	}{{false, "Caroline", "Hi Mel!"}, {true, "", "Caroline: Hi Mel!"}} {
		h := &HTTPSystem{BaseURL: srv.URL, Client: srv.Client(), NamesInText: tt.inText}
		if err := h.AddSession(context.Background(), "a", "s", time.Now(), turns); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Name != tt.name || got[0].Content != tt.content {
			t.Errorf("NamesInText %v: sent %+v, want name %q and content %q", tt.inText, got, tt.name, tt.content)
		}
	}
}

func TestInShorthand(t *testing.T) {
	convs := []Conversation{{Sessions: []Session{{Turns: []Turn{
		{Speaker: "Ann", DiaID: "D1:1", Text: "Thanks! I'm going to post the Photos tomorrow, by the way.", BlipCaption: "a photo of you"},
		{Speaker: "Bo", DiaID: "D1:2", Text: "Youth weekends, yesterday's birthday"},
	}}}}}
	got := InShorthand(convs)
	for i, want := range []string{"thx! I'm gonna post the pics tmrw, btw.", "Youth wknds, yday's bday"} {
		if tr := got[0].Sessions[0].Turns[i]; tr.Text != want {
			t.Errorf("turn %d: %q, want %q", i, tr.Text, want)
		}
	}
	if c := got[0].Sessions[0].Turns[0].BlipCaption; c != "a photo of you" {
		t.Errorf("caption %q, want it as it was", c)
	}
	if convs[0].Sessions[0].Turns[0].Text[:7] != "Thanks!" {
		t.Error("InShorthand changed its input")
	}
	// What it types is what mnemo reads back (REC-39): the figures
	// measure the reading, docs/BENCHMARKS.md says so.
	for full, short := range typed {
		if _, ok := shorthand.Word(short); !ok {
			t.Errorf("%q, typed for %q, is not read as shorthand", short, full)
		}
	}
	if len(typed) != 51 {
		t.Errorf("%d forms typed; docs/BENCHMARKS.md says 51", len(typed))
	}
}
