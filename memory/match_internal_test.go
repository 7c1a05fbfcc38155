package memory

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
)

// TestTermsOf: a candidate's words are kept only where the query has
// them, whichever of its fields holds them (PERF-10: a set of every word
// of every candidate was most of the match's allocations).
func TestTermsOf(t *testing.T) {
	s := &Service{analyzer: analysis.New()}
	tests := []struct {
		name  string
		m     mnemo.Memory
		query string
		want  []string
	}{
		{"content", mnemo.Memory{Content: "Caroline went hiking in the mountains"}, "when did Caroline go hiking", []string{"Caroline", "hiking"}},
		{"tags and key", mnemo.Memory{Content: "a walk", Tags: []string{"mountains"}, Key: "/trip/alps"}, "mountains alps trip", []string{"alps", "mountains", "trip"}},
		{"none", mnemo.Memory{Content: "bought a new guitar"}, "when did she go hiking", nil},
	}
	for _, tt := range tests {
		terms, _ := s.queryTerms(tt.query, nil)
		got := slices.Sorted(maps.Keys(s.termsOf(&tt.m, terms)))
		// The analyser's own form of each word.
		want := s.analyzer.Terms(strings.Join(tt.want, " "))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: termsOf = %q, want %q (query terms %v)", tt.name, got, want, slices.Sorted(maps.Keys(terms)))
		}
	}
}
