package use_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/bench/locomo"
	"github.com/mnemo-dev/mnemo/embed/use"
)

// TestLoCoMo measures USE-Lite alone on LoCoMo retrieval: every turn is
// embedded, every question ranks the turns by cosine, nothing else (no
// lexical index, no recency). Turns are embedded twice over: as their text,
// and as "Speaker: text", since questions name the person they ask about.
// It runs only when MNEMO_LOCOMO names the dataset file:
//
//	MNEMO_LOCOMO=../../../shared/eval/locomo-dev.json go test -run LoCoMo -v ./embed/use
func TestLoCoMo(t *testing.T) {
	path := os.Getenv("MNEMO_LOCOMO")
	if path == "" {
		t.Skip("set MNEMO_LOCOMO to the LoCoMo JSON file to run")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	convs, err := locomo.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, speaker := range []bool{false, true} {
		name := "text"
		if speaker {
			name = "speaker: text"
		}
		t.Run(name, func(t *testing.T) {
			sys := &vectorOnly{e: use.New(), speaker: speaker, agents: map[string]*agentIndex{}}
			rep, err := locomo.Run(context.Background(), convs, sys)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			rep.WriteText(&b, true)
			t.Logf("USE-Lite vectors only, %s, turns embedded as %q\n%s\nembedded %d texts in %v (%.0f texts/s)",
				use.Model, name, b.String(), sys.texts, sys.embedTime.Round(time.Millisecond),
				float64(sys.texts)/sys.embedTime.Seconds())
		})
	}
}

// vectorOnly is a locomo.System that ranks turns by cosine similarity.
type vectorOnly struct {
	e         *use.Embedder
	speaker   bool // prefix each turn with its speaker's name
	agents    map[string]*agentIndex
	texts     int
	embedTime time.Duration
}

type agentIndex struct {
	keys []string
	vecs [][]float32
}

func (s *vectorOnly) embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	vecs, err := s.e.Embed(ctx, texts)
	s.embedTime += time.Since(start)
	s.texts += len(texts)
	return vecs, err
}

func (s *vectorOnly) AddSession(ctx context.Context, agent, session string, at time.Time, turns []locomo.Turn) error {
	texts := make([]string, len(turns))
	for i, t := range turns {
		texts[i] = t.Content()
		if s.speaker {
			texts[i] = t.Speaker + ": " + texts[i]
		}
	}
	vecs, err := s.embed(ctx, texts)
	if err != nil {
		return err
	}
	a := s.agents[agent]
	if a == nil {
		a = &agentIndex{}
		s.agents[agent] = a
	}
	for i, t := range turns {
		a.keys = append(a.keys, "/turn/"+t.DiaID)
		a.vecs = append(a.vecs, vecs[i])
	}
	return nil
}

func (s *vectorOnly) Search(ctx context.Context, agent, query string, now time.Time, limit int) ([]string, error) {
	q, err := s.embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	a := s.agents[agent]
	type hit struct {
		key   string
		score float32
	}
	hits := make([]hit, len(a.keys))
	for i, v := range a.vecs {
		var dot float32
		for j := range v {
			dot += v[j] * q[0][j] // unit vectors: the dot product is the cosine
		}
		hits[i] = hit{a.keys[i], dot}
	}
	slices.SortStableFunc(hits, func(x, y hit) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	keys := make([]string, 0, limit)
	for _, h := range hits[:min(limit, len(hits))] {
		keys = append(keys, h.key)
	}
	return keys, nil
}
