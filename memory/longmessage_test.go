package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/embed/use"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// longMessageFacts are things a user says at the end of a long message,
// each with a question about it in other words.
var longMessageFacts = []struct{ fact, question string }{
	{"I adopted a grey kitten from the shelter and named her Pepper.", "What animal did I bring home recently?"},
	{"My sister is getting married in Lisbon next September.", "Where is the family wedding taking place?"},
	{"I finally passed my driving test on the third attempt.", "Did I manage to get my licence to drive a car?"},
	{"We moved our daughter to a new school because of bullying.", "Why did our child change schools?"},
	{"I started learning the cello at the community music centre.", "Which instrument am I practising?"},
	{"My landlord raised the rent by fifteen percent this year.", "How much more do I pay for my apartment now?"},
	{"I broke my wrist skiing in the Alps in February.", "What injury did I get on my winter holiday?"},
	{"I am allergic to shellfish, especially shrimp.", "Which seafood should I avoid eating?"},
	{"My grandmother turned ninety and we threw her a garden party.", "How did we celebrate the old lady's birthday?"},
	{"I sold my old bicycle and bought an electric scooter.", "How do I get around the city these days?"},
	{"I volunteer at the food bank every Saturday morning.", "What do I do on weekend mornings to help people?"},
	{"My son got into the university chemistry programme.", "What will my boy study at college?"},
	{"Our basement flooded after the storm and ruined the carpets.", "What damage did the bad weather cause at home?"},
	{"I lost my passport at the airport in Madrid.", "Which travel document went missing on my trip?"},
	{"My father had knee replacement surgery last week.", "Which operation did dad have?"},
	{"I planted tomatoes, basil and peppers in the back garden.", "What vegetables am I growing outside?"},
}

// longMessageChatter is what the long messages say before their fact.
var longMessageChatter = []string{
	"When you plan a database migration, start by taking a full backup and testing the restore.",
	"It helps to write the steps down in a checklist so nobody skips a stage under pressure.",
	"Budgeting tools can categorise your spending automatically once you link your accounts.",
	"Regular exercise improves sleep quality, mood and long term cardiovascular health.",
	"If the build fails, read the first error message rather than the last one.",
	"Public transport passes are often cheaper if you buy them monthly instead of daily.",
	"A good cover letter explains why you want this particular role at this company.",
	"When negotiating, it is useful to know your alternatives before the conversation starts.",
	"Interest rates affect both what you earn on savings and what you pay on loans.",
	"Keep receipts for large purchases in case you need to claim a warranty later.",
	"Cloud providers charge for storage, compute and the data that leaves their network.",
	"Time blocking your calendar protects focused work from constant interruptions.",
	"Good documentation answers the questions a newcomer will ask on the first day.",
	"Small pull requests are reviewed faster and tend to contain fewer defects.",
	"Caching can speed up a service, but stale data is the price you pay.",
}

// factsFound asks svc each fact's question with the semantic profile and
// counts the answers with the fact's message (/fact/i) among the first
// five.
func factsFound(t *testing.T, svc *service.Mnemo) int {
	t.Helper()
	found := 0
	for i, f := range longMessageFacts {
		res, err := svc.Surface(context.Background(), alice, memory.Query{Text: f.question, Profile: "semantic", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if r.Key == fmt.Sprintf("/fact/%d", i) {
				found++
				break
			}
		}
	}
	return found
}

// TestLongMessagesByMeaning: what a message says past the first hundred
// or so words, which the sentence encoder reads in a later window, is
// found by meaning. Each message is some 150 words of the same kind of
// chatter and then its fact; a question about each fact in other words
// finds its message among the first five of the semantic profile for at
// least ten of the sixteen (thirteen do). Read only as far as the first
// window, the messages differ in their chatter alone, and seven did.
func TestLongMessagesByMeaning(t *testing.T) {
	ctx := context.Background()
	svc := newSemantic(t, newClock(), "", service.Options{Embedder: use.New()})
	rnd := rand.New(rand.NewPCG(3, 4))
	var msgs []memory.Message
	for i, f := range longMessageFacts {
		var b strings.Builder
		b.WriteString("Thanks, that is useful.")
		for range 10 + rnd.IntN(3) {
			b.WriteString(" " + longMessageChatter[rnd.IntN(len(longMessageChatter))])
		}
		b.WriteString(" Anyway, some news: " + f.fact)
		msgs = append(msgs, memory.Message{Key: fmt.Sprintf("/fact/%d", i), Role: "user", Name: "Sam", Content: b.String()})
	}
	if _, err := svc.AddMessages(ctx, alice, "s1", msgs); err != nil {
		t.Fatal(err)
	}
	found := factsFound(t, svc)
	t.Logf("%d of %d facts' messages among the first five", found, len(longMessageFacts))
	if found < 10 {
		t.Errorf("%d of %d facts' messages among the first five, want at least 10", found, len(longMessageFacts))
	}
}

// TestShortRepliesAfterLongMessages: a short reply after a long message is
// found by meaning: the long message it follows, read as context, fills
// only the room the reply leaves in the encoder's window and does not
// outweigh it. Each fact follows some 300 words of an assistant's chatter;
// the question about each must find its reply among the first five of the
// semantic profile for at least fifteen of the sixteen (all do). With the
// whole message before each reply read with it, thirteen did; with every
// text cut at the encoder's first window, fifteen.
func TestShortRepliesAfterLongMessages(t *testing.T) {
	ctx := context.Background()
	svc := newSemantic(t, newClock(), "", service.Options{Embedder: use.New()})
	rnd := rand.New(rand.NewPCG(5, 6))
	for i, f := range longMessageFacts {
		var b strings.Builder
		b.WriteString("Sure, here is some detail.")
		for range 18 + rnd.IntN(8) {
			b.WriteString(" " + longMessageChatter[rnd.IntN(len(longMessageChatter))])
		}
		msgs := []memory.Message{
			{Key: fmt.Sprintf("/answer/%d", i), Role: "assistant", Content: b.String()},
			{Key: fmt.Sprintf("/fact/%d", i), Role: "user", Name: "Sam", Content: f.fact},
		}
		if _, err := svc.AddMessages(ctx, alice, "s1", msgs); err != nil {
			t.Fatal(err)
		}
	}
	found := factsFound(t, svc)
	t.Logf("%d of %d replies among the first five", found, len(longMessageFacts))
	if found < 15 {
		t.Errorf("%d of %d replies among the first five, want at least 15", found, len(longMessageFacts))
	}
}
