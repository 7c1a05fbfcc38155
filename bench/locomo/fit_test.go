package locomo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/rank"
)

// synthetic are questions of three conversations whose best results
// differ only in Untold: high for the unanswerable ones, low for the
// others, with overlap.
func synthetic() []FeatureLine {
	var lines []FeatureLine
	for _, s := range []string{"a", "b", "c"} {
		for i := range 40 {
			answerable := i%4 != 0
			untold := float64(i%5) / 10
			if !answerable {
				untold += 0.3
			}
			cat := 4
			if !answerable {
				cat = 5
			}
			f := rank.MatchFeatures{Coverage: 0.8, Semantic: true, Similarity: 0.7, Margin: 0.1, Untold: untold}
			lines = append(lines, FeatureLine{Sample: s, Question: fmt.Sprint(i), Category: cat,
				Results: []FeatureResult{{Key: "/turn/D1:1", Match: &rank.MatchExplanation{MatchFeatures: f}}}})
		}
	}
	return lines
}

// TestFitMatch: fitting finds the feature that tells the unanswerable
// questions apart, its weight negative, and each conversation held out
// gains as much as the fit on all of them.
func TestFitMatch(t *testing.T) {
	lines := synthetic()
	m := rank.DefaultMatch()
	m.Answers.Untold = 0
	before := MatchAUROC(lines, m)
	if before != 0.5 {
		t.Fatalf("before the fit, AUROC %.3f, want 0.5 (every score tied)", before)
	}
	fit := FitMatch(lines, m)
	if fit.Answers.Untold >= 0 {
		t.Errorf("Untold fitted %.3f, want negative", fit.Answers.Untold)
	}
	if fit.Related != m.Related || fit.Answers.Coverage != m.Answers.Coverage || fit.Strong != m.Strong {
		t.Errorf("the fit changed what it keeps: %+v", fit)
	}
	after := MatchAUROC(lines, fit)
	folds := CrossValidate(lines, m)
	if len(folds) != 3 || folds[0].Sample != "a" || folds[2].Sample != "c" {
		t.Fatalf("folds %+v, want a, b, c", folds)
	}
	for _, f := range folds {
		if f.Before != 0.5 || f.After < after-1e-9 {
			t.Errorf("held out %s: AUROC %.3f → %.3f, want 0.5 → %.3f", f.Sample, f.Before, f.After, after)
		}
	}
	if again := FitMatch(lines, m); again != fit {
		t.Errorf("the same lines fitted %+v, then %+v", fit, again)
	}
}

// TestReadFeatures reads back what writeFeatures wrote, and names a line
// that is not one.
func TestReadFeatures(t *testing.T) {
	var buf bytes.Buffer
	f, _ := json.Marshal(rank.MatchExplanation{MatchFeatures: rank.MatchFeatures{Coverage: 0.5, Untold: 0.25}, Probability: 0.4})
	qa := QA{Question: "q?", Category: 2, Evidence: []string{"D1:1"}}
	if err := writeFeatures(&buf, "conv-1", qa, Answer{Keys: []string{"/turn/D1:1", "/turn/D1:2"}, Match: "weak", MatchScore: 0.4, Features: []json.RawMessage{f, f}}); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("\n")
	lines, err := ReadFeatures(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Sample != "conv-1" || !lines[0].Answerable() || len(lines[0].Results) != 2 ||
		!lines[0].Results[0].Evidence || lines[0].Results[1].Evidence || lines[0].Results[0].Match.Untold != 0.25 {
		t.Errorf("read %+v", lines)
	}
	for _, bad := range []string{"{", `{"sample":""}`, "[]"} {
		if _, err := ReadFeatures(strings.NewReader("\n" + bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("ReadFeatures(%q): %v, want an error naming line 2", bad, err)
		}
	}
}

// FuzzReadFeatures: any input is read without a panic, and what is read
// has a sample on every line.
func FuzzReadFeatures(f *testing.F) {
	f.Add(`{"sample":"conv-1","category":5,"results":[{"key":"/turn/D1:1","match":{"coverage":1}}]}`)
	f.Add("\n\n{}")
	f.Fuzz(func(t *testing.T, in string) {
		lines, err := ReadFeatures(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, l := range lines {
			if l.Sample == "" {
				t.Errorf("read a line with no sample from %q", in)
			}
		}
	})
}
