package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestPrefixQueryRanksItsMatchFirst is the README's example with the
// default embedder: of the README's memories, the one that matches "Lisb*"
// ranks first. The embedding of a word cut short is noise, which must not
// outweigh the prefix's lexical match in fusion.
func TestPrefixQueryRanksItsMatchFirst(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Now: c.Now, Embedder: builtin.New()})
	defer svc.Close()
	for _, d := range []mnemo.Draft{
		{Key: "/user/preference/language", Content: str("The user prefers Python for data work"), Category: "preference", Tags: []string{"code"}},
		{Content: str("Deploys happen on Tuesdays"), Type: "fact"},
		{Content: str("用户喜欢简洁的回答"), Category: "preference"},
	} {
		if _, err := svc.Remember(ctx, alice, d); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := svc.AddMessages(ctx, alice, "s-42", []memory.Message{
		{Key: "/turn/1", Role: "user", Name: "Ana", Content: "I moved to Lisbon last spring"},
		{Key: "/turn/2", Role: "assistant", Name: "Bot", Content: "How do you like it there?"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Lisb*", "lisb*", "Lisb* spring"} {
		res, err := svc.Surface(ctx, alice, memory.Query{Text: q, Limit: 3, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].ID != ms[0].ID {
			for _, r := range res.Results {
				t.Logf("%.3f %q %+v", r.Score, r.Content, r.Explain)
			}
			t.Fatalf("Surface(%q) ranks %d results, want %q first", q, len(res.Results), ms[0].Content)
		}
		if ex := res.Results[0].Explain; ex == nil || ex.Lexical == 0 {
			t.Errorf("Surface(%q): the prefix match's lexical input = %+v, want > 0", q, ex)
		}
	}
}
