package http_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/agentcontext"
	mhttp "github.com/mnemo-dev/mnemo/http"
)

// TestSeed001RoutesWithoutAgent calls the /memory/… routes (API-6 to
// API-10) as their clients do, with no agent_id: they act on the default agent and say which.
func TestSeed001RoutesWithoutAgent(t *testing.T) {
	type listed struct {
		AgentID string `json:"agent_id"`
		listAnswer
	}
	list := func(t *testing.T, secret, base, wantAgent string, wantTotal int) {
		t.Helper()
		var l listed
		resp, raw := send(t, secret, "GET", base+"/memory/long-term?limit=10&offset=0", nil)
		if resp.StatusCode == 200 {
			if err := jsonUnmarshal(raw, &l); err != nil {
				t.Fatal(err)
			}
		}
		if resp.StatusCode != 200 || l.AgentID != wantAgent || resp.Header.Get(mhttp.AgentHeader) != wantAgent || l.Total != wantTotal || l.Limit != 10 {
			t.Fatalf("GET /memory/long-term: %d %s %s; want agent %q, %d memories", resp.StatusCode, resp.Header.Get(mhttp.AgentHeader), raw, wantAgent, wantTotal)
		}
	}

	t.Run("no keys", func(t *testing.T) {
		base := serve(t, mhttp.Options{})
		list(t, "", base, "default", 0)
		for i, c := range [][2]string{{"default", "likes green tea"}, {"default", "moved to Lisbon in 2024"}, {"other", "plays the cello"}} {
			if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": c[0], "content": c[1]}, nil); st != 201 {
				t.Fatalf("remember %d: %d %s", i, st, raw)
			}
		}
		list(t, "", base, "default", 2)
		var l listAnswer
		call(t, "GET", base+"/memory/long-term?agent_id=other", nil, &l)
		if l.Total != 1 {
			t.Fatalf("with agent_id=other: %+v", l)
		}
		// Get and delete by id, and working memory, on the default agent.
		id := l.Memories[0].ID
		if st, _ := call(t, "GET", base+"/memory/long-term/"+id, nil, nil); st != 404 {
			t.Errorf("other's memory read as the default agent's: %d", st)
		}
		call(t, "GET", base+"/memory/long-term?limit=1", nil, &l)
		if st, raw := call(t, "GET", base+"/memory/long-term/"+l.Memories[0].ID, nil, nil); st != 200 {
			t.Errorf("get: %d %s", st, raw)
		}
		resp, raw := send(t, "", "GET", base+"/memory/working/s1", nil)
		if resp.StatusCode != 404 || resp.Header.Get(mhttp.AgentHeader) != "default" {
			t.Errorf("working memory of a new session: %d %s", resp.StatusCode, raw)
		}
		call(t, "POST", base+"/v1/sessions/s1/turns", map[string]any{"agent_id": "default", "text": "planning a trip to Kyoto"}, nil)
		var wm agentcontext.WorkingMemory
		if st, raw := call(t, "GET", base+"/memory/working/s1", nil, &wm); st != 200 || wm.TurnCount != 1 {
			t.Errorf("working memory: %d %s", st, raw)
		}
		var del struct{ Deleted int }
		if st, raw := call(t, "DELETE", base+"/memory/long-term", nil, &del); st != 200 || del.Deleted != 2 {
			t.Errorf("clear: %d %s", st, raw)
		}
		list(t, "", base, "default", 0)
		call(t, "GET", base+"/memory/long-term?agent_id=other", nil, &l)
		if l.Total != 1 {
			t.Errorf("clearing the default agent cleared other: %+v", l)
		}
	})

	t.Run("configured default", func(t *testing.T) {
		base := serve(t, mhttp.Options{DefaultAgent: "assistant"})
		call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "assistant", "content": "the assistant's fact"}, nil)
		list(t, "", base, "assistant", 1)
	})

	t.Run("keys", func(t *testing.T) {
		base := serve(t, mhttp.Options{DefaultAgent: "b", Keys: []mhttp.APIKey{
			apiKey("one", "t1", []string{"u1"}, allScopes...),
			apiKey("two", "t1", []string{"a", "b"}, allScopes...),
			apiKey("twoNoDefault", "t1", []string{"a", "c"}, allScopes...),
			apiKey("all", "t1", nil, allScopes...),
		}})
		callAs(t, secret("one"), "POST", base+"/v1/memories", map[string]any{"content": "u1's fact"}, nil)
		callAs(t, secret("all"), "POST", base+"/v1/memories", map[string]any{"agent_id": "b", "content": "b's fact"}, nil)
		list(t, secret("one"), base, "u1", 1) // the key's only agent
		list(t, secret("two"), base, "b", 1)  // the configured default, which the key may use
		list(t, secret("all"), base, "b", 1)  // any agent: the configured default
		st, raw := callAs(t, secret("twoNoDefault"), "GET", base+"/memory/long-term", nil, nil)
		if p := problem(t, raw); st != 400 || !strings.Contains(p.Detail, "agent_id is required") || !strings.Contains(p.Detail, "a, c") {
			t.Errorf("key with two agents, neither the default: %d %s", st, raw)
		}
		if st, _ := callAs(t, "", "GET", base+"/memory/long-term", nil, nil); st != 401 {
			t.Errorf("no key: %d, want 401", st)
		}
	})
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
