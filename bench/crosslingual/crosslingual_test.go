package crosslingual_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/bench/crosslingual"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestCrossLingual checks recall across languages with the default
// embedder (EMB-7): hit@5 of each kind of question at least its floor.
func TestCrossLingual(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: builtin.New()})
	defer svc.Close()
	r, err := crosslingual.Run(ctx, svc, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	r.Print(&b, true)
	t.Log("\n" + b.String())
	floors := map[crosslingual.Kind]float64{
		crosslingual.Control:    1,
		crosslingual.Paraphrase: 0.7,
		crosslingual.ZhEn:       0.6,
		crosslingual.EnZh:       0.6,
	}
	for _, k := range crosslingual.Kinds {
		if got := r.HitRate(k); got < floors[k] {
			t.Errorf("%s: hit@%d %.2f, want at least %.2f", k, crosslingual.K, got, floors[k])
		}
	}
}

// TestParaphrasesShareNoBigram checks the premise of the paraphrase kind:
// no two-character sequence of a paraphrase is in the memory it asks for,
// and every question's memory exists.
func TestParaphrasesShareNoBigram(t *testing.T) {
	texts := map[string]string{}
	for _, m := range crosslingual.Memories {
		if _, dup := texts[m.Key]; dup {
			t.Errorf("key %s is used twice", m.Key)
		}
		texts[m.Key] = m.Text
	}
	for _, q := range crosslingual.Questions {
		mem, ok := texts[q.Want]
		if !ok {
			t.Errorf("%q asks for %s, which is not a memory", q.Text, q.Want)
			continue
		}
		if q.Kind != crosslingual.Paraphrase {
			continue
		}
		rs := []rune(q.Text)
		for i := 0; i+1 < len(rs); i++ {
			if bg := string(rs[i : i+2]); strings.Contains(mem, bg) {
				t.Errorf("paraphrase %q shares %q with %q", q.Text, bg, mem)
			}
		}
	}
}
