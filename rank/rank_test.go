package rank

import (
	"math"
	"testing"
	"time"
)

func TestSeed001Formula(t *testing.T) {
	p := Seed001()
	f := Features{Relevance: 1, CategoryBoost: 1, Recency: 1, Frequency: 1, Confidence: 1}
	if got := p.Score(f); math.Abs(got-1) > 1e-9 {
		t.Fatalf("weights sum to %v, want 1", got)
	}
	f = Features{Relevance: 0.5, CategoryBoost: 2.0 / 3, Recency: 0.25, Frequency: 0, Confidence: 0.9}
	want := 0.5*0.4 + 2.0/3*0.2 + 0.25*0.15 + 0 + 0.9*0.15
	if got := p.Score(f); math.Abs(got-want) > 1e-9 {
		t.Fatalf("Score = %v, want %v", got, want)
	}
	ex := p.Explain(f)
	sum := 0.0
	for _, c := range ex.Components {
		sum += c.Contribution
	}
	if math.Abs(sum-ex.Score) > 1e-9 || len(ex.Components) != 5 {
		t.Fatalf("components %+v do not add up to %v", ex.Components, ex.Score)
	}
}

func TestRecency(t *testing.T) {
	now := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	week := 7 * 24 * time.Hour
	tests := []struct {
		last time.Time
		want float64
	}{
		{now, 1},
		{now.Add(-week), 0.5},
		{now.Add(-2 * week), 0.25},
		{now.Add(time.Hour), 1}, // accessed "after" a replayed now
	}
	for _, tt := range tests {
		if got := Recency(now, tt.last, week); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Recency(%v) = %v, want %v", now.Sub(tt.last), got, tt.want)
		}
	}
}

func TestFrequency(t *testing.T) {
	tests := []struct {
		count int
		want  float64
	}{{0, 0}, {-1, 0}, {100, 1}, {1000, 1}, {9, math.Log(10) / math.Log(101)}}
	for _, tt := range tests {
		if got := Frequency(tt.count, 100); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Frequency(%d) = %v, want %v", tt.count, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	got := Normalize([]float64{2, 4, 1})
	if got[0] != 0.5 || got[1] != 1 || got[2] != 0.25 {
		t.Fatalf("Normalize = %v", got)
	}
	if got := Normalize([]float64{0, 0}); got[0] != 0 {
		t.Fatalf("Normalize zeros = %v", got)
	}
}

func TestIntent(t *testing.T) {
	tests := []struct{ q, want string }{
		{"我喜欢用 Python 写代码", "preference"},
		{"What kind of music does she like?", "preference"},
		{"Is it likely to rain?", ""},
		{"when did she move", ""},
		{"她最爱的颜色", "preference"},
	}
	for _, tt := range tests {
		if got := Intent(tt.q); got != tt.want {
			t.Errorf("Intent(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	p := Seed001()
	if p.CategoryBoost("preference", "preference") != 1 || math.Abs(p.CategoryBoost("preference", "fact")-1/1.5) > 1e-9 {
		t.Fatal("category boost is not 1.5x on a match")
	}
}
