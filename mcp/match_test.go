package mcp_test

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestRecallSaysNothingRelevant checks recall's answer to a model when
// nothing known is relevant (API-17): no padding with the nearest
// memories, "No relevant memory found.", unless min_match asks for them;
// and for an agent with no memories at all, that it has none (API-18).
func TestRecallSaysNothingRelevant(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			svc := newService(t)
			for _, c := range []string{"Deploys happen on Tuesdays", "The espresso machine is in the kitchen", "The user prefers Python for data work"} {
				if _, err := svc.Remember(t.Context(), alice, mnemo.Draft{Content: &c}); err != nil {
					t.Fatal(err)
				}
			}
			cs := tr.connect(t, svc)
			var out struct {
				Count        int      `json:"count"`
				Memories     []Scored `json:"memories"`
				Match        string   `json:"match"`
				UnknownAgent bool     `json:"unknown_agent"`
			}
			// A word in common, and nothing relevant.
			for _, q := range []string{"weather on Mars", "python snake habitat in the wild"} {
				res := ok(t, cs, "recall", map[string]any{"query": q}, &out)
				if out.Count != 0 || out.Match != "none" || text(res) != "No relevant memory found." {
					t.Errorf("%s: %+v, text %q; want no memory, match none, and that said", q, out, text(res))
				}
			}
			ok(t, cs, "recall", map[string]any{"query": "python snake habitat in the wild", "min_match": "none"}, &out)
			if out.Count == 0 || out.Memories[0].Match != "none" {
				t.Errorf("min_match none: %+v, want the nearest, matching none", out)
			}
			res := ok(t, cs, "recall", map[string]any{"query": "which day are deploys?"}, &out)
			if out.Count == 0 || out.Memories[0].Content != "Deploys happen on Tuesdays" || out.Match == "none" || !strings.Contains(text(res), "match, score") {
				t.Errorf("deploy day: %+v, text %q", out, text(res))
			}

			// An agent that never had a memory.
			other := connectMemory(t, svc, mnemo.Scope{TenantID: alice.TenantID, AgentID: "alicee"})
			if tr.name == "http" {
				other = connectHTTP(t, serveHTTP(t, svc), "alicee")
			}
			res = ok(t, other, "recall", map[string]any{"query": "which day are deploys?"}, &out)
			if !out.UnknownAgent || !strings.Contains(text(res), `agent "alicee" has no memories`) {
				t.Errorf("an unknown agent: %+v, text %q", out, text(res))
			}
		})
	}
}

// Scored is what the test reads of a recalled memory.
type Scored struct {
	Content string  `json:"content"`
	Score   float64 `json:"score"`
	Match   string  `json:"match"`
}
