package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mnemo-dev/mnemo/agentcontext"
)

// Each command is a process of its own: the run and the session live in
// the store between them.
func TestRunAndSessionCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustRun := runner(t, dir)
	mustRun("run", "open", "cron", "--id", "r1", "--payload", `{"job":"hourly_check"}`, "--focus", "disk usage")
	mustRun("run", "call", "r1", "check_disk", "--input", `{"host":"db-1"}`, "--output", "91% used on /var")
	mustRun("run", "respond", "r1", "db-1", "is", "nearly", "full.")
	mustRun("run", "inject", "r1", "Page the operator if over 95%.")
	var r agentcontext.Run
	if err := json.Unmarshal([]byte(mustRun("run", "render", "r1")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Trigger.Type != "cron" || len(r.Rounds) != 1 || r.Rounds[0].Call.Name != "check_disk" ||
		string(r.Rounds[0].Call.Output) != `"91% used on /var"` || r.Rounds[0].Responses[0] != "db-1 is nearly full." || len(r.Instructions) != 1 {
		t.Fatalf("rendered run = %+v", r)
	}
	if out := mustRun("run", "list"); !strings.Contains(out, "r1  cron  1 round ") {
		t.Fatalf("run list: %q", out)
	}
	if out := mustRun("run", "close", "r1"); !strings.Contains(out, "closed run r1") {
		t.Fatalf("close: %q", out)
	}
	if code, _, errs := run(t, dir, "", "run", "render", "r1"); code != 2 || !strings.Contains(errs, `no open run "r1"`) {
		t.Fatalf("render a closed run: %d %s", code, errs)
	}

	mustRun("session", "turn", "s1", "My name is Dana. I want to visit Kyoto.")
	out := mustRun("session", "turn", "s1", "--var", "budget=2000 EUR", "--remember", "Dana is vegetarian", "Kyoto", "in", "April?")
	if !strings.Contains(out, "turn 2") || !strings.Contains(out, "budget = 2000 EUR") || !strings.Contains(out, "name = Dana") {
		t.Fatalf("turn: %q", out)
	}
	var wm agentcontext.WorkingMemory
	if err := json.Unmarshal([]byte(mustRun("--json", "session", "show", "s1")), &wm); err != nil || wm.TurnCount != 2 || !strings.Contains(wm.CurrentTopic, "kyoto") {
		t.Fatalf("show: %+v, %v", wm, err)
	}
	if out := mustRun("session", "end", "s1", "--archive"); !strings.Contains(out, "1 fact archived") {
		t.Fatalf("end: %q", out)
	}
	if out := mustRun("list"); !strings.Contains(out, "Dana is vegetarian") {
		t.Fatalf("the archived fact is not a memory: %q", out)
	}
	if out := mustRun("session", "sweep"); out != "swept 0 idle sessions and 0 abandoned runs\n" {
		t.Fatalf("sweep: %q", out)
	}
}

func TestPromptCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"remember", "--type", "identity", "I am Noa, the Lin family's assistant."},
		{"remember", "--type", "event", "The hourly check found /var at 91% on db-1."},
		{"remember", "--pinned", "Never restart the database during business hours."},
		{"remember", "--key", "/user/preference/style", "--type", "preference", "Prefers short answers in Chinese."},
	} {
		if code, _, errs := run(t, dir, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	code, out, errs := run(t, dir, "", "snapshot", "cron", "--payload", "hourly_check")
	if code != 0 || !strings.HasPrefix(out, "## Recent Experience\n- [pinned] Never restart") || !strings.Contains(out, "hourly check found") {
		t.Fatalf("snapshot: %d %q %s", code, out, errs)
	}
	code, out, errs = run(t, dir, "", "boot")
	if code != 0 || !strings.HasPrefix(out, "## 🪪 Who I am") || !strings.Contains(out, "I am Noa") || !strings.Contains(out, "Prefers short answers") {
		t.Fatalf("boot: %d %q %s", code, out, errs)
	}
	if code, out, _ = run(t, dir, "", "boot", "--lang", "zh"); code != 0 || !strings.Contains(out, "## 🪪 我是谁") {
		t.Fatalf("boot zh: %d %q", code, out)
	}
	var b agentcontext.Boot
	if code, out, _ = run(t, dir, "", "--json", "boot"); code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Summary.Total != 4 || b.Text != "" {
		t.Fatalf("boot --json: %d %q", code, out)
	}
	code, out, errs = run(t, dir, "", "read", "--token-limit", "200")
	if code != 0 || !strings.HasPrefix(out, "[Agent Memory]\n") || !strings.Contains(out, "- user/preference/style preference Prefers short answers in Chinese.") {
		t.Fatalf("read: %d %q %s", code, out, errs)
	}
	for _, args := range [][]string{
		{"read", "--token-limit", "0"},
		{"boot", "--format", "yaml"},
		{"snapshot", "cron", "--token-limit", "5"},
		{"run", "open", "not a word"},
		{"run", "call", "nope", "f"},
		{"session", "turn", "s", "--role", "system", "hi"},
		{"session", "turn", "s", "--var", "novalue", "hi"},
		{"session", "show", "nope"},
	} {
		code, out, errs := run(t, dir, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "mnemo: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errs)
		}
	}
}

// With an LLM configured, a run's compacted rounds are the model's
// sentences and a session's topic and emotion its reading; when the model
// fails, the rules answer and the run says so.
func TestLLMConfigured(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if down.Load() || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-llm" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			ResponseFormat *struct{ Type string } `json:"response_format"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		content := "The model says: a disk was checked."
		if req.ResponseFormat != nil {
			content = `{"keywords":["Lisbon","apartment"],"emotion":"happy","variables":{"city":"Lisbon"},"facts":[]}`
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}}})
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	os.WriteFile(cfg, []byte("embedding:\n  provider: none\nllm:\n  base_url: "+srv.URL+"/v1\n  model: m\n  api_key: sk-llm\n  max_retries: -1\ncontext:\n  run_token_limit: 150\n"), 0o644)
	mustRun := func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, dir, "", append([]string{"--config", cfg}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	mustRun("run", "open", "cron", "--id", "r")
	for i := range 6 {
		mustRun("run", "call", "r", "check_disk", "--output", strings.Repeat(fmt.Sprintf("host %d fine. ", i), 8))
	}
	var r agentcontext.Run
	json.Unmarshal([]byte(mustRun("run", "render", "r")), &r)
	if len(r.Earlier) == 0 || r.Earlier[0].By != "llm" || r.Earlier[0].Summary != "The model says: a disk was checked." {
		t.Fatalf("earlier = %+v", r.Earlier)
	}
	out := mustRun("session", "turn", "s", "Just moved into a flat in Lisbon, so happy!")
	if !strings.Contains(out, `topic "lisbon apartment"`) || !strings.Contains(out, "emotion happy") || !strings.Contains(out, "city = Lisbon") {
		t.Fatalf("turn with the model: %q", out)
	}

	down.Store(true)
	mustRun("run", "call", "r", "check_disk", "--output", strings.Repeat("host 9 fine. ", 40))
	var after agentcontext.Run
	json.Unmarshal([]byte(mustRun("run", "render", "r")), &after)
	if !strings.Contains(strings.Join(after.Notes, " "), "round 4: the summarizer failed, an extractive sentence was used") || after.Tokens > 150 {
		t.Fatalf("fallback: %+v", after)
	}
	if out := mustRun("session", "turn", "s", "I'm worried about the rent."); !strings.Contains(out, "emotion anxious") {
		t.Fatalf("turn with the model down: %q", out)
	}
	if calls.Load() == 0 {
		t.Fatal("the model was never asked")
	}
}
