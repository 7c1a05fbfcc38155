package glove

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/bench/locomo"
)

// vectorSystem is a locomo.System that ranks turns by the cosine of their
// vectors with the question's and nothing else.
type vectorSystem struct {
	e *Embedder
	// context prepends each turn's predecessor in its session to the text
	// embedded for it.
	context bool
	// noSpeaker leaves the speaker's name out of the text embedded.
	noSpeaker bool
	turns     map[string][]storedTurn
}

type storedTurn struct {
	key string
	vec []float32
}

func (s *vectorSystem) AddSession(ctx context.Context, agent, _ string, _ time.Time, turns []locomo.Turn) error {
	texts := make([]string, len(turns))
	text := func(t locomo.Turn) string {
		if s.noSpeaker {
			return t.Content()
		}
		return t.Speaker + ": " + t.Content()
	}
	for i, t := range turns {
		texts[i] = text(t)
		if s.context && i > 0 {
			texts[i] = text(turns[i-1]) + "\n" + texts[i]
		}
	}
	vs, err := s.e.Embed(ctx, texts)
	if err != nil {
		return err
	}
	for i, t := range turns {
		s.turns[agent] = append(s.turns[agent], storedTurn{"/turn/" + t.DiaID, vs[i]})
	}
	return nil
}

func (s *vectorSystem) Search(ctx context.Context, agent, query string, _ time.Time, limit int) ([]string, error) {
	vs, err := s.e.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	type scored struct {
		key string
		cos float64
	}
	var all []scored
	for _, t := range s.turns[agent] {
		all = append(all, scored{t.key, cosine(vs[0], t.vec)})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.cos, a.cos) })
	keys := make([]string, 0, limit)
	for _, sc := range all[:min(limit, len(all))] {
		keys = append(keys, sc.key)
	}
	return keys, nil
}

// TestLoCoMo measures vector-only retrieval on LoCoMo: every turn is
// embedded, every question ranks the turns of its conversation by cosine,
// and hit@k counts questions with an evidence turn in the top k. It runs
// only when MNEMO_LOCOMO names the dataset, e.g.
//
//	MNEMO_LOCOMO=/work/shared/eval/locomo-dev.json go test -run LoCoMo -v ./embed/glove
//
// MNEMO_GLOVE_MODEL may name another model file written by convert.js (for
// instance the whole vocabulary) to compare vocabulary sizes.
func TestLoCoMo(t *testing.T) {
	path := os.Getenv("MNEMO_LOCOMO")
	if path == "" {
		t.Skip("MNEMO_LOCOMO not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	convs, err := locomo.Load(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	data := modelData
	if p := os.Getenv("MNEMO_GLOVE_MODEL"); p != "" {
		if data, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	type variant struct {
		name    string
		opt     options
		context bool
	}
	variants := []variant{
		{"default", defaults, false},
		{"default, with previous turn", defaults, true},
	}
	with := func(name string, f func(o *options)) {
		o := defaults
		f(&o)
		variants = append(variants, variant{name, o, false}, variant{name + ", with previous turn", o, true})
	}
	for _, a := range []float64{1e-5, 3e-5, 1e-4, 1e-3, 3e-3, 1e-2} {
		with(fmt.Sprintf("a=%g", a), func(o *options) { o.a = a })
	}
	with("no SIF weights (plain mean)", func(o *options) { o.uniform = true })
	with("common component removed", func(o *options) { o.removePC = true })
	for _, w := range []float64{0, 0.25, 1} {
		with(fmt.Sprintf("oov weight %g", w), func(o *options) { o.oovWeight = w })
	}
	for _, n := range []int{50000, 100000, 150000, 200000, 250000} {
		with(fmt.Sprintf("%dk words", n/1000), func(o *options) { o.maxWords = n })
	}
	for _, v := range variants {
		sys := &vectorSystem{e: &Embedder{data: data, opt: v.opt}, context: v.context, turns: map[string][]storedTurn{}}
		rep, err := locomo.Run(context.Background(), convs, sys)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-45s hit@5 %.3f  hit@10 %.3f  hit@20 %.3f  (%d questions)",
			v.name, rep.All.Hit[5], rep.All.Hit[10], rep.All.Hit[20], rep.All.Questions)
	}
}
