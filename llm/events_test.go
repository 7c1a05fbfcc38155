package llm_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestAnalyzeEventText(t *testing.T) {
	answers := []string{
		"Here you go: not json", // repaired on the second ask
		`{"entities": ["Berlin", "Acme"], "emotion": "Happy", "intent": "request", "confidence": 1.5}`,
	}
	c := start(t, &fake{answer: func(n int, _ map[string]any) (string, int) { return answers[min(n, 1)], 0 }})
	an, err := c.AnalyzeEventText(context.Background(), "please plan a trip to Berlin with Acme")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(an.Entities, []string{"Berlin", "Acme"}) || an.Emotion != "happy" || an.Intent != "request" || an.Confidence != 1 {
		t.Errorf("analysis = %+v", an)
	}
	bad := start(t, &fake{answer: func(int, map[string]any) (string, int) { return `{"entities": 3}`, 0 }})
	if _, err := bad.AnalyzeEventText(context.Background(), "x"); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Errorf("no JSON after repair: %v", err)
	}
}

func TestAnalyzeProfile(t *testing.T) {
	c := start(t, &fake{answer: func(int, map[string]any) (string, int) {
		return `{"interests": ["jazz"], "needs": ["a piano teacher"], "traits": {"location": "Oslo"}, "emotion": "happy"}`, 0
	}})
	f, err := c.AnalyzeProfile(context.Background(), []string{"I play jazz in Oslo", "looking for a piano teacher"})
	if err != nil || !slices.Equal(f.Interests, []string{"jazz"}) || f.Traits["location"] != "Oslo" || f.Needs[0] != "a piano teacher" {
		t.Errorf("findings = %+v, %v", f, err)
	}
}
