package http_test

import (
	"strings"
	"testing"

	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/importers"
)

// POST /v1/import/history reads a tool's file as it is (IMP-1): a Codex
// session's JSON Lines become a session with its times and speakers, a
// second post stores nothing (IMP-2), and a malformed, too large or
// unknown body is a problem with a stable code that stores nothing (IMP-3).
func TestImportHistory(t *testing.T) {
	t.Parallel()
	base := serve(t, mhttp.Options{MaxBody: 4 << 10})
	rollout := `{"timestamp":"2025-09-03T08:00:00Z","type":"session_meta","payload":{"id":"0199-bbbb"}}
{"timestamp":"2025-09-03T08:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Rotate the API keys on Friday"}]}}
{"timestamp":"2025-09-03T08:00:04Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}
{"timestamp":"2025-09-03T08:00:09Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Scheduled the rotation for Friday."}]}}
`
	url := base + "/v1/import/history?agent_id=a&from=codex"
	var res importers.Result
	if st, raw := call(t, "POST", url, rollout, &res); st != 200 || res.Messages != 2 || res.Conversations != 1 {
		t.Fatalf("%d %s", st, raw)
	}
	var list struct {
		Memories []struct {
			Content   string `json:"content"`
			SessionID string `json:"session_id"`
			CreatedAt string `json:"created_at"`
			Data      struct {
				Role string `json:"role"`
			} `json:"data"`
		} `json:"memories"`
	}
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a&session_id=codex:0199-bbbb&order=oldest", nil, &list); st != 200 {
		t.Fatalf("%d %s", st, raw)
	}
	var got []string
	for _, m := range list.Memories {
		got = append(got, m.CreatedAt+" "+m.Data.Role+": "+m.Content)
	}
	want := "2025-09-03T08:00:02Z user: Rotate the API keys on Friday|2025-09-03T08:00:09Z assistant: Scheduled the rotation for Friday."
	if strings.Join(got, "|") != want {
		t.Fatalf("session:\n%s", strings.Join(got, "\n"))
	}
	if st, raw := call(t, "POST", url, rollout, &res); st != 200 || res.Messages != 0 || res.Skipped != 2 {
		t.Fatalf("again: %d %s", st, raw)
	}

	for _, tc := range []struct {
		name, url, body string
		status          int
		code, detail    string
	}{
		{"malformed line", url, rollout + "{\"type\":\n", 400, "invalid_input", "line 5: malformed JSON; nothing imported"},
		{"unknown format", base + "/v1/import/history?agent_id=a&from=gemini", "[]", 400, "invalid_input", "from must be one of"},
		{"too large", base + "/v1/import/history?agent_id=a&from=claude", "[" + strings.Repeat(`{"uuid":"x","chat_messages":[]},`, 200) + "{}]", 413, "too_large", "nothing imported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, raw := call(t, "POST", tc.url, tc.body, nil)
			p := problem(t, raw)
			if st != tc.status || p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Fatalf("%d %s", st, raw)
			}
		})
	}
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a&key_prefix=/history/claude", nil, &list); st != 200 || len(list.Memories) != 0 {
		t.Fatalf("a refused import stored %s", raw)
	}
}
