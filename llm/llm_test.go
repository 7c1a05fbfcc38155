package llm_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/memory"
)

// The LLM client summarizes for compaction and reflect.
var (
	_ agentcontext.Summarizer = (*llm.Client)(nil)
	_ lifecycle.Summarizer    = (*llm.Client)(nil)
)

// fake is an OpenAI-compatible chat server: answer gives the content for
// request n (from 0), or a status to fail with.
type fake struct {
	answer func(n int, req map[string]any) (string, int)
	calls  atomic.Int32
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, "bad path or key", http.StatusNotFound)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req["model"] != "m" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	content, status := f.answer(int(f.calls.Add(1)-1), req)
	if status != 0 {
		http.Error(w, "busy", status)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

func start(t *testing.T, f *fake) *llm.Client {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "sk-test", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSummarize(t *testing.T) {
	f := &fake{answer: func(n int, req map[string]any) (string, int) {
		if n == 0 {
			return "", http.StatusServiceUnavailable // retried
		}
		msgs := req["messages"].([]any)
		user := msgs[1].(map[string]any)["content"].(string)
		return "  Checked disk on db-1:\n91% used. ", 0 + len(user)*0
	}}
	c := start(t, f)
	got, err := c.Summarize(t.Context(), "Called check_disk with {\"host\":\"db-1\"}.\nResult: 91% used", 40)
	if err != nil || got != "Checked disk on db-1: 91% used." || f.calls.Load() != 2 {
		t.Fatalf("Summarize = %q, %v after %d calls", got, err, f.calls.Load())
	}
}

func TestAnalyzeTurn(t *testing.T) {
	tests := []struct {
		name    string
		content string
		code    string
	}{
		{"plain", `{"keywords":["Kyoto","trip"],"emotion":"anxious","variables":{"name":"Ana"},"facts":["hates crowds"]}`, ""},
		{"fenced", "Sure!\n```json\n{\"keywords\":[\"Kyoto\",\"trip\"],\"emotion\":\"anxious\",\"variables\":{\"name\":\"Ana\"},\"facts\":[\"hates crowds\"]}\n```", ""},
		{"junk", "I think the user is worried about Kyoto.", mnemo.EUNAVAILABLE},
		{"wrong shape", `{"keywords":"Kyoto"}`, mnemo.EUNAVAILABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, &fake{answer: func(int, map[string]any) (string, int) { return tt.content, 0 }})
			a, err := c.AnalyzeTurn(t.Context(), nil, agentcontext.Turn{Role: "user", Text: "I'm Ana, worried Kyoto will be crowded"})
			if mnemo.ErrorCode(err) != tt.code {
				t.Fatalf("err = %v, want code %q", err, tt.code)
			}
			if tt.code == "" && (fmt.Sprint(a.Keywords) != "[Kyoto trip]" || a.Emotion != "anxious" || a.Variables["name"] != "Ana" || len(a.Facts) != 1) {
				t.Fatalf("analysis = %+v", a)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
	}{
		{"unauthorized", http.StatusUnauthorized, mnemo.EUNAUTHORIZED},
		{"down", http.StatusBadGateway, mnemo.EUNAVAILABLE},
		{"rate limited", http.StatusTooManyRequests, mnemo.ERATELIMITED},
	}
	for _, tt := range tests {
		c := start(t, &fake{answer: func(int, map[string]any) (string, int) { return "", tt.status }})
		_, err := c.Summarize(t.Context(), "x", 40)
		if mnemo.ErrorCode(err) != tt.code || strings.Contains(err.Error(), "sk-test") {
			t.Errorf("%s: err = %v, want code %s without the key", tt.name, err, tt.code)
		}
	}
	empty := start(t, &fake{answer: func(int, map[string]any) (string, int) { return " ", 0 }})
	if _, err := empty.Summarize(t.Context(), "x", 40); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Errorf("empty answer: %v", err)
	}
	if _, err := llm.New(llm.Config{BaseURL: "http://x"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("no model: %v", err)
	}
}

// A model that answers junk first is asked once to repair it.
func TestRepair(t *testing.T) {
	c := start(t, &fake{answer: func(n int, req map[string]any) (string, int) {
		if n == 0 {
			return "Sure! The user seems anxious about Kyoto.", 0
		}
		msgs := req["messages"].([]any)
		if len(msgs) != 4 || !strings.Contains(msgs[3].(map[string]any)["content"].(string), "not the JSON object") {
			return "no repair request", 0
		}
		return `{"keywords":["Kyoto"],"emotion":"anxious","variables":{},"facts":[]}`, 0
	}})
	a, err := c.AnalyzeTurn(t.Context(), nil, agentcontext.Turn{Role: "user", Text: "worried about Kyoto"})
	if err != nil || a.Emotion != "anxious" {
		t.Fatalf("after repair: %+v, %v", a, err)
	}
	junk := start(t, &fake{answer: func(int, map[string]any) (string, int) { return "still not JSON", 0 }})
	_, err = junk.AnalyzeTurn(t.Context(), nil, agentcontext.Turn{Role: "user", Text: "hi"})
	if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE || !strings.Contains(err.Error(), "after a repair attempt") || !strings.Contains(err.Error(), "still not JSON") {
		t.Fatalf("junk twice: %v", err)
	}
}

func TestExtractMemories(t *testing.T) {
	c := start(t, &fake{answer: func(_ int, req map[string]any) (string, int) {
		user := req["messages"].([]any)[1].(map[string]any)["content"].(string)
		if strings.Contains(user, "Bot reply") {
			return "the assistant's messages were sent", 0
		}
		return `{"memories":[{"should_store":true,"category":"preference","key":"language","value":"Prefers Python for data work","confidence":0.95,"source":"user_stated"},
			{"should_store":false,"category":"fact","key":"x","value":"not worth it","confidence":0.2,"source":"inferred"}]}`, 0
	}})
	got, err := c.ExtractMemories(t.Context(), []memory.Message{{Role: "user", Content: "I prefer Python for data work"}, {Role: "assistant", Content: "Bot reply"}})
	if err != nil || len(got) != 1 || got[0].Key != "language" || got[0].Source != "user_stated" {
		t.Fatalf("extracted = %+v, %v", got, err)
	}
	if none, err := c.ExtractMemories(t.Context(), []memory.Message{{Role: "assistant", Content: "hello"}}); err != nil || none != nil {
		t.Fatalf("no user messages: %+v, %v", none, err)
	}
}
