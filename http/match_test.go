package http_test

import (
	"strings"
	"testing"

	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestUnknownAgent checks that recall of an agent with no memories, never
// any, says so (API-18), and names a near agent only when the key may
// use it: a misspelt agent is told from an empty memory, and a key learns
// nothing of the agents it may not see.
func TestUnknownAgent(t *testing.T) {
	base := serve(t, mhttp.Options{Keys: []mhttp.APIKey{
		apiKey("all", "acme", nil, mhttp.ScopeRead, mhttp.ScopeWrite),
		apiKey("some", "acme", []string{"assistent", "support"}, mhttp.ScopeRead, mhttp.ScopeWrite),
	}})
	for _, agent := range []string{"assistant", "support"} {
		if st, raw := callAs(t, secret("all"), "POST", base+"/v1/memories", map[string]any{"agent_id": agent, "content": "Deploys happen on Tuesdays"}, nil); st != 201 {
			t.Fatalf("remember: %d %s", st, raw)
		}
	}
	recall := func(key, agent string) memory.Result {
		t.Helper()
		var res memory.Result
		if st, raw := callAs(t, secret(key), "POST", base+"/v1/recall", map[string]any{"agent_id": agent, "query": "deploy day"}, &res); st != 200 {
			t.Fatalf("recall of %s with key %s: %d %s", agent, key, st, raw)
		}
		return res
	}
	if res := recall("all", "asistant"); !res.UnknownAgent || len(res.Results) != 0 || !strings.Contains(res.Hint, `"asistant" has no memories`) || !strings.Contains(res.Hint, `did you mean "assistant"`) {
		t.Errorf("a misspelt agent: %+v, want unknown_agent and a hint naming assistant", res)
	}
	if res := recall("some", "assistent"); !res.UnknownAgent || strings.Contains(res.Hint, "assistant") || strings.Contains(res.Hint, "did you mean") {
		t.Errorf("a key that may not see assistant: hint %q, want unknown_agent and no agent named", res.Hint)
	}
	if res := recall("all", "assistant"); res.UnknownAgent || res.Hint != "" || len(res.Results) != 1 {
		t.Errorf("a known agent: %+v", res)
	}
	// A known agent whose filters leave nothing is not unknown.
	var res memory.Result
	callAs(t, secret("all"), "POST", base+"/v1/recall", map[string]any{"agent_id": "assistant", "query": "deploy day", "tags": []string{"none-has-this"}}, &res)
	if res.UnknownAgent || len(res.Results) != 0 || res.Match != "none" {
		t.Errorf("an empty answer of a known agent: %+v", res)
	}
}

// TestRecallOrderAndMatch checks that results come in the order of the
// score they show (API-19), each with its relevance beside it, and that
// the answer says how well it matched (API-17), with min_match leaving
// out what matches less.
func TestRecallOrderAndMatch(t *testing.T) {
	base := startWith(t, embeddedService(t), mhttp.Options{})
	var msgs []map[string]any
	for _, c := range []string{
		"The user likes green tea in the morning",
		"The user likes green tea in the mornings",
		"The user likes green tea every morning",
		"The user drinks black coffee at night",
		"The user likes jasmine tea in the afternoon",
	} {
		msgs = append(msgs, map[string]any{"role": "user", "content": c})
	}
	// Messages go past the Write Guard, which would merge near duplicates.
	if st, raw := call(t, "POST", base+"/v1/messages", map[string]any{"agent_id": "a", "session_id": "s", "messages": msgs}, nil); st != 201 {
		t.Fatalf("messages: %d %s", st, raw)
	}
	var res memory.Result
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "what tea does the user like in the morning?", "explain": true}, &res); st != 200 {
		t.Fatalf("recall: %d %s", st, raw)
	}
	diversified := false
	for i, r := range res.Results {
		if i > 0 && r.Score > res.Results[i-1].Score {
			t.Errorf("result %d scores %.4f, over result %d's %.4f", i, r.Score, i-1, res.Results[i-1].Score)
		}
		if r.Score > r.Relevance+1e-12 || r.Explain == nil || r.Explain.Score != r.Score || abs(r.Relevance-r.Score-r.Explain.MMR) > 1e-9 {
			t.Errorf("result %d: score %.4f, relevance %.4f, explain %+v; want score = relevance - mmr_penalty", i, r.Score, r.Relevance, r.Explain)
		}
		diversified = diversified || r.Explain.MMR > 0
		if r.Match == "" || r.Explain.Match == nil {
			t.Errorf("result %d has no match", i)
		}
	}
	if !diversified {
		t.Errorf("no result paid a diversity penalty among near-duplicates: %+v", res.Results)
	}
	if res.Match != "strong" || res.MatchScore <= 0 {
		t.Errorf("answer match %q %.3f, want strong", res.Match, res.MatchScore)
	}

	var far memory.Result
	call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "weather on Mars"}, &far)
	if far.Match != "none" {
		t.Errorf("weather on Mars matched %q (%.3f), want none", far.Match, far.MatchScore)
	}
	call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "weather on Mars", "min_match": "weak"}, &far)
	if len(far.Results) != 0 || far.Match != "none" {
		t.Errorf("min_match weak kept %d results", len(far.Results))
	}
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "tea", "min_match": "great"}, nil); st != 400 || problem(t, raw).Code != "invalid_input" {
		t.Errorf("min_match great: %d %s, want 400 invalid_input", st, raw)
	}
}

func abs(x float64) float64 { return max(x, -x) }
