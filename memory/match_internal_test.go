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
		got := slices.Sorted(maps.Keys(s.termsOf(&tt.m, terms).all))
		// The analyser's own form of each word.
		want := s.analyzer.Terms(strings.Join(tt.want, " "))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: termsOf = %q, want %q (query terms %v)", tt.name, got, want, slices.Sorted(maps.Keys(terms)))
		}
	}
}

// TestSaidTerms: the analysis of a text is remembered, the same for a
// second query as for the first, and the texts remembered are bounded
// (PERF-10).
func TestSaidTerms(t *testing.T) {
	s := &Service{analyzer: analysis.New()}
	m := mnemo.Memory{Content: "Do you like hiking? I went hiking in the Alps. You'd love the lakes.", Key: "/trip/alps"}
	tests := []struct {
		query     string
		all, told []string
	}{
		{"hiking alps", []string{"alps", "hiking"}, []string{"alps", "hiking"}},
		{"lakes trip", []string{"lakes", "trip"}, []string{"trip"}},
		{"hiking alps", []string{"alps", "hiking"}, []string{"alps", "hiking"}},
	}
	for _, tt := range tests {
		terms, _ := s.queryTerms(tt.query, nil)
		has := s.termsOf(&m, terms)
		for name, got := range map[string]map[string]bool{"all": has.all, "told": has.told} {
			want := map[string][]string{"all": tt.all, "told": tt.told}[name]
			w := s.analyzer.Terms(strings.Join(want, " "))
			slices.Sort(w)
			if g := slices.Sorted(maps.Keys(got)); !slices.Equal(g, w) {
				t.Errorf("%q: %s %q, want %q", tt.query, name, g, w)
			}
		}
	}
	if n := s.said.n.Load(); n != 2 {
		t.Errorf("%d texts analysed for one memory, want 2 (its content, the rest)", n)
	}
	for i := range maxSaid + 10 {
		s.said.of(s.analyzer, strings.Repeat("x", i), false)
	}
	if n := s.said.n.Load(); n > maxSaid {
		t.Errorf("%d texts remembered, at most %d wanted", n, maxSaid)
	}
}
