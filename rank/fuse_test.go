package rank

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestFuseWeighted(t *testing.T) {
	p := Hybrid()
	// BM25 8 and 4; cosines 0.4 and 0.8; a third candidate found by
	// vector only, with no lexical score.
	kw, sem, rel := p.Fuse([]float64{8, 4, 0}, []float64{0.4, 0.8, 0.2})
	wantKW := []float64{1, 0.5, 0}
	wantSem := []float64{0.5, 1, 0.25}
	for i := range kw {
		if math.Abs(kw[i]-wantKW[i]) > 1e-9 || math.Abs(sem[i]-wantSem[i]) > 1e-9 {
			t.Fatalf("normalised %v %v, want %v %v", kw, sem, wantKW, wantSem)
		}
		want := 0.3*wantKW[i] + 0.7*wantSem[i]
		if math.Abs(rel[i]-want) > 1e-9 {
			t.Errorf("relevance[%d] = %v, want %v", i, rel[i], want)
		}
	}
}

func TestFuseWithoutVectors(t *testing.T) {
	// NaN: no vector. Negative cosines count as no similarity.
	_, sem, rel := Hybrid().Fuse([]float64{2, 1}, []float64{math.NaN(), -0.5})
	if sem[0] != 0 || sem[1] != 0 || rel[0] != 0.3 || rel[1] != 0.15 {
		t.Fatalf("sem %v rel %v", sem, rel)
	}
}

func TestFuseRRF(t *testing.T) {
	p := Hybrid()
	p.Fusion = FusionRRF
	_, _, rel := p.Fuse([]float64{3, 2, 1}, []float64{0.9, 0.1, 0.5})
	if math.Abs(rel[0]-1) > 1e-9 {
		t.Fatalf("first in both lists: relevance %v, want 1", rel[0])
	}
	if !(rel[0] > rel[2] && rel[2] > rel[1]) {
		t.Fatalf("rrf order %v", rel)
	}
}

func TestHybridScoreInUnitRange(t *testing.T) {
	p := Hybrid()
	now := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	f := Features{Relevance: 1, CategoryBoost: 1, Decay: p.Decay(now, now), PriorityVitality: p.PriorityFactor(0, 1)}
	if got := p.Score(f); got != 1 {
		t.Fatalf("perfect match scores %v, want 1", got)
	}
	// REC-3: of two equally similar memories, the newer wins.
	day, month := p.Decay(now, now.AddDate(0, 0, -1)), p.Decay(now, now.AddDate(0, 0, -30))
	if !(day > month && month >= p.DecayFloor) {
		t.Fatalf("decay 1 day %v, 30 days %v", day, month)
	}
	ex := p.Explain(f)
	prod := 1.0
	for _, c := range ex.Components {
		prod *= c.Value
	}
	if math.Abs(prod-ex.Score) > 1e-9 {
		t.Fatalf("factors %+v do not multiply to %v", ex.Components, ex.Score)
	}
}

func TestPriorityFactor(t *testing.T) {
	tests := []struct {
		p                  Profile
		priority           int
		vitality, expected float64
	}{
		{Seed003(), 0, 1, 1},
		{Seed003(), 2, 1, 0.5},
		{Seed003(), 3, 0.5, 0.125},
		{Seed003(), 1, 0.01, 0.075}, // vitality floors at 0.1
		{Hybrid(), 2, 1, 0.9},
		{Hybrid(), 0, 0.5, 0.5},
		{Seed001(), 3, 0.2, 1},
	}
	for _, tt := range tests {
		if got := tt.p.PriorityFactor(tt.priority, tt.vitality); math.Abs(got-tt.expected) > 1e-9 {
			t.Errorf("%s PriorityFactor(%d, %v) = %v, want %v", tt.p.Name, tt.priority, tt.vitality, got, tt.expected)
		}
	}
}

func TestMMR(t *testing.T) {
	// 0 and 1 are near-duplicates; 2 is a little less relevant but new.
	scores := []float64{1, 0.98, 0.9}
	sim := func(i, j int) float64 {
		if (i == 0 && j == 1) || (i == 1 && j == 0) {
			return 0.95
		}
		return 0.1
	}
	picked, penalty := MMR(scores, sim, 0.7, 3)
	if len(picked) != 3 || picked[0] != 0 || picked[1] != 2 || picked[2] != 1 {
		t.Fatalf("picked %v, want [0 2 1]", picked)
	}
	if penalty[0] != 0 || penalty[2] != 0.95 {
		t.Fatalf("penalties %v", penalty)
	}
	// λ 0 (off) keeps the order.
	if picked, _ := MMR(scores, sim, 0, 2); picked[0] != 0 || picked[1] != 1 {
		t.Fatalf("MMR off picked %v", picked)
	}
}

func TestFuseDropsAMissingSignal(t *testing.T) {
	// No candidate has a vector (no embedder): lexical relevance alone.
	_, _, rel := Hybrid().Fuse([]float64{2, 1}, []float64{math.NaN(), math.NaN()})
	if rel[0] != 1 || rel[1] != 0.5 {
		t.Fatalf("relevance %v, want [1 0.5]", rel)
	}
	// No lexical match at all: semantic relevance alone.
	_, _, rel = Hybrid().Fuse([]float64{0, 0}, []float64{0.8, 0.4})
	if rel[0] != 1 || rel[1] != 0.5 {
		t.Fatalf("relevance %v, want [1 0.5]", rel)
	}
}

func TestSessionPrior(t *testing.T) {
	for _, tt := range []struct {
		name     string
		scores   []float64
		sessions []string
		p        float64
		want     []float64
	}{
		{"none", []float64{1, 0.5}, []string{"a", "a"}, 0, []float64{1, 0.5}},
		{"toward the session's best", []float64{1, 0.5, 0.6}, []string{"a", "a", "b"}, 0.2, []float64{1, 0.6, 0.6}},
		{"no session", []float64{1, 0.5}, []string{"a", ""}, 0.5, []float64{1, 0.5}},
		{"a session alone", []float64{0.3}, []string{"a"}, 0.5, []float64{0.3}},
		{"a score of 0 stays", []float64{1, 0}, []string{"a", "a"}, 0.5, []float64{1, 0}},
	} {
		got := slices.Clone(tt.scores)
		SessionPrior(got, tt.sessions, tt.p)
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
	// The order within a session stays; a stronger session's weaker turn
	// can pass a weaker session's best.
	scores := []float64{0.9, 0.5, 0.55}
	SessionPrior(scores, []string{"a", "a", "b"}, 0.15)
	if !(scores[0] > scores[1]) || !(scores[1] > scores[2]) {
		t.Errorf("scores %v: want a's turns first, in their order", scores)
	}
}
