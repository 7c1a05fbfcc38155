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

// TestExplainLanguages checks that an explained result says between which
// languages its semantic similarity was (EMB-7), and says nothing when
// neither side is Chinese.
func TestExplainLanguages(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: builtin.New()})
	defer svc.Close()
	en, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("The user's wife works as a nurse at the city hospital.")})
	if err != nil {
		t.Fatal(err)
	}
	zh, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("用户每天早上喝一杯燕麦拿铁。")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query, id, want string
	}{
		{"他妻子做什么工作？", en.ID, "zh→en"},
		{"What does the user drink in the morning?", zh.ID, "en→zh"},
		{"用户早上喝什么？", zh.ID, "zh→zh"},
		{"What is the wife's job?", en.ID, ""},
	} {
		res, err := svc.Surface(ctx, alice, memory.Query{Text: tt.query, Limit: 5, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Results {
			if h.ID != tt.id {
				continue
			}
			found = true
			if h.Explain == nil || h.Explain.Languages != tt.want {
				t.Errorf("%q: explanation %+v, want languages %q", tt.query, h.Explain, tt.want)
			}
		}
		if !found {
			t.Errorf("%q: %s not among the results", tt.query, tt.id)
		}
	}
}
