package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// claudeHookInput is a hook input as Claude Code documents it: the common
// fields, and each event's own.
func claudeHookInput(t *testing.T, event, session, transcript, cwd string, extra map[string]any) string {
	t.Helper()
	in := map[string]any{
		"session_id":      session,
		"transcript_path": transcript,
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": event,
	}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// transcriptLines are lines of a Claude Code transcript (JSON Lines) as
// its sessions write them: user prompts as a string, assistant messages as
// content blocks (text, thinking, tool_use), tool results, a side chain, a
// meta line, a slash command's output, a summary and a torn line.
func transcriptLines(session string, from, to int) []string {
	var out []string
	// An hour ago, a minute a turn: recent enough for the boot context's
	// events.
	start := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
	ts := func(i int) string {
		return start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano)
	}
	for i := from; i < to; i++ {
		user := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/w", "sessionId": session,
			"version": "2.0.0", "type": "user", "uuid": fmt.Sprintf("u-%d", i), "timestamp": ts(i),
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("Turn %d: we store the cache in Redis on port 63%02d", i, i)}}
		asst := map[string]any{"parentUuid": fmt.Sprintf("u-%d", i), "isSidechain": false, "type": "assistant", "uuid": fmt.Sprintf("a-%d", i),
			"timestamp": ts(i), "sessionId": session,
			"message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{
					map[string]any{"type": "thinking", "thinking": "private reasoning"},
					map[string]any{"type": "text", "text": fmt.Sprintf("Noted: Redis cache on port 63%02d.", i)},
					map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "ls"}},
				}}}
		result := map[string]any{"type": "user", "uuid": fmt.Sprintf("r-%d", i), "timestamp": ts(i), "sessionId": session,
			"message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "README.md"}}}}
		side := map[string]any{"type": "assistant", "uuid": fmt.Sprintf("s-%d", i), "isSidechain": true, "timestamp": ts(i),
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "sub-agent chatter"}}}}
		meta := map[string]any{"type": "user", "uuid": fmt.Sprintf("m-%d", i), "isMeta": true, "timestamp": ts(i),
			"message": map[string]any{"role": "user", "content": "Caveat: meta"}}
		cmdOut := map[string]any{"type": "user", "uuid": fmt.Sprintf("c-%d", i), "timestamp": ts(i),
			"message": map[string]any{"role": "user", "content": "<local-command-stdout>ok</local-command-stdout>"}}
		for _, l := range []any{user, asst, result, side, meta, cmdOut} {
			b, _ := json.Marshal(l)
			out = append(out, string(b))
		}
	}
	out = append(out, `{"type":"summary","summary":"Redis cache","leafUuid":"a-0"}`, `{"type":"user","uuid":"torn`)
	return out
}

func writeTranscript(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runHook runs `mnemo hook` with input on stdin, and fails the test unless
// it exits 0 (AGT-3) within a bound far above the hook's own.
func runHook(t *testing.T, input string, args ...string) (stdout, stderr string) {
	t.Helper()
	// The hook's own bound is for a quiet machine: a test that does not
	// test the bound stretches it with the load (QUAL-3), so that a hook
	// under the race detector on a busy machine still answers.
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--timeout") }) {
		args = append(args, "--timeout="+testwait.D(10*time.Second).String())
	}
	type ran struct {
		code     int
		out, err string
	}
	done := make(chan ran, 1)
	go func() {
		var out, errb bytes.Buffer
		code := testMain(context.Background(), append([]string{"hook"}, args...), strings.NewReader(input), &out, &errb)
		done <- ran{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("mnemo hook %v: exit %d: %s", args, r.code, r.err)
		}
		return r.out, r.err
	case <-time.After(15 * time.Second):
		t.Fatalf("mnemo hook %v did not return: it blocks its agent", args)
	}
	return "", ""
}

// hookContext decodes a hook's additionalContext, "" for no output.
func hookContext(t *testing.T, event, stdout string) string {
	t.Helper()
	if strings.TrimSpace(stdout) == "" {
		return ""
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("hook output is not JSON: %v: %q", err, stdout)
	}
	if out.HookSpecificOutput.HookEventName != event {
		t.Fatalf("hookEventName = %q, want %q", out.HookSpecificOutput.HookEventName, event)
	}
	return out.HookSpecificOutput.AdditionalContext
}

func getJSON(t *testing.T, u string, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeCodeHooks drives the hooks as Claude Code would, against a
// served mnemo with a real SQLite store: session start injects the boot
// context, a prompt its memories, stop and pre-compact store the new turns
// once each (AGT-1, AGT-2, AGT-4).
func TestClaudeCodeHooks(t *testing.T) {
	srv := startServe(t, "--data", t.TempDir())
	// The agent works in a subdirectory of a repository named "My Repo":
	// its agent id is the repository's.
	repo := filepath.Join(t.TempDir(), "My Repo")
	cwd := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	const agent = "my-repo"
	for _, content := range []string{"The deploy target is Fly.io in region ams", "Integration tests need PostgreSQL 16 running locally"} {
		b, _ := json.Marshal(map[string]any{"agent_id": agent, "content": content, "type": "knowledge"})
		resp, err := http.Post(srv+"/v1/memories", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("remember: %s", resp.Status)
		}
	}
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	writeTranscript(t, transcript, transcriptLines("sess-1", 0, 3))
	urlFlag := "--url=" + srv

	t.Run("SessionStart", func(t *testing.T) {
		out, errs := runHook(t, claudeHookInput(t, "SessionStart", "sess-1", transcript, cwd, map[string]any{"source": "startup"}), "session-start", urlFlag)
		got := hookContext(t, "SessionStart", out)
		if !strings.Contains(got, "Fly.io") || !strings.Contains(got, `"my-repo"`) {
			t.Errorf("boot context = %q (stderr %q), want the agent's memories", got, errs)
		}
		// A small budget cuts it.
		out, _ = runHook(t, claudeHookInput(t, "SessionStart", "sess-1", transcript, cwd, nil), "session-start", urlFlag, "--boot-tokens=5")
		if small := hookContext(t, "SessionStart", out); len(small) >= len(got) {
			t.Errorf("with 5 tokens the context is %d bytes, not less than %d", len(small), len(got))
		}
		// Another repository is another agent, with nothing to say.
		other := t.TempDir()
		out, _ = runHook(t, claudeHookInput(t, "SessionStart", "sess-1", transcript, other, nil), "session-start", urlFlag)
		if out != "" {
			t.Errorf("an agent with no memories gets %q", out)
		}
	})

	t.Run("UserPromptSubmit", func(t *testing.T) {
		// The event comes from hook_event_name when no argument names it.
		out, errs := runHook(t, claudeHookInput(t, "UserPromptSubmit", "sess-1", transcript, cwd,
			map[string]any{"prompt": "Which PostgreSQL version do the integration tests need?"}), urlFlag)
		got := hookContext(t, "UserPromptSubmit", out)
		if !strings.Contains(got, "PostgreSQL 16") {
			t.Errorf("prompt context = %q (stderr %q), want the PostgreSQL memory", got, errs)
		}
	})

	list := func(t *testing.T) []string {
		var page struct {
			Memories []struct{ Key, Content, SessionID string }
			Total    int
		}
		getJSON(t, srv+"/v1/memories?"+query("agent_id", agent, "session_id", "claude-code-sess-1", "order", "oldest", "limit", "1000"), &page)
		var out []string
		for _, m := range page.Memories {
			out = append(out, m.Key+" "+m.Content)
		}
		return out
	}

	t.Run("Stop", func(t *testing.T) {
		in := claudeHookInput(t, "Stop", "sess-1", transcript, cwd, map[string]any{"stop_hook_active": false})
		out, errs := runHook(t, in, "stop", urlFlag)
		if out != "" {
			t.Errorf("stop printed %q: Claude Code would read it as a decision", out)
		}
		got := list(t)
		want := []string{
			"/claude-code/sess-1/u-0 Turn 0: we store the cache in Redis on port 6300",
			"/claude-code/sess-1/a-0 Noted: Redis cache on port 6300.",
		}
		if len(got) != 6 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("stored turns = %q (stderr %q), want 6 starting %q", got, errs, want)
		}
		// Sent again, nothing new is stored.
		runHook(t, in, "stop", urlFlag)
		if again := list(t); len(again) != 6 {
			t.Errorf("after a second stop %d turns, want 6", len(again))
		}
		var hist struct{ Revisions []json.RawMessage }
		getJSON(t, srv+"/v1/history?"+query("agent_id", agent, "key", "/claude-code/sess-1/u-0"), &hist)
		if len(hist.Revisions) != 1 {
			t.Errorf("the first turn has %d revisions, want 1", len(hist.Revisions))
		}
	})

	t.Run("PreCompact", func(t *testing.T) {
		writeTranscript(t, transcript, append(transcriptLines("sess-1", 0, 3), transcriptLines("sess-1", 3, 5)...))
		runHook(t, claudeHookInput(t, "PreCompact", "sess-1", transcript, cwd, map[string]any{"trigger": "auto", "custom_instructions": ""}), "pre-compact", urlFlag)
		got := list(t)
		if len(got) != 10 || !strings.HasPrefix(got[9], "/claude-code/sess-1/a-4 ") {
			t.Errorf("after pre-compact: %q, want the 4 new turns added", got)
		}
		// The turns of this session are not recalled into it.
		out, _ := runHook(t, claudeHookInput(t, "UserPromptSubmit", "sess-1", transcript, cwd, map[string]any{"prompt": "Which port is the Redis cache on?"}), urlFlag)
		if ctx := hookContext(t, "UserPromptSubmit", out); strings.Contains(ctx, "Redis") {
			t.Errorf("the session's own turns were injected: %q", ctx)
		}
		// Another session recalls them.
		out, _ = runHook(t, claudeHookInput(t, "UserPromptSubmit", "sess-2", transcript, cwd, map[string]any{"prompt": "Which port is the Redis cache on?"}), urlFlag)
		if ctx := hookContext(t, "UserPromptSubmit", out); !strings.Contains(ctx, "Redis") {
			t.Errorf("a later session does not recall the captured turns: %q", ctx)
		}
	})
}

// query encodes name, value pairs as a URL query.
func query(kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q.Encode()
}

// TestHookNeverBlocks: a down server, a slow one, bad input and a
// transcript that is not one give the agent nothing, exit 0 and say why;
// the server still answers after them (AGT-3).
func TestHookNeverBlocks(t *testing.T) {
	slowDone := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-slowDone:
		}
	}))
	t.Cleanup(func() { close(slowDone); slow.Close() })
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	srv := startServe(t, "--data", t.TempDir())
	dir := t.TempDir()
	notTranscript := filepath.Join(dir, "binary.jsonl")
	if err := os.WriteFile(notTranscript, []byte("\x00\xff\xfe{{{\n[1,2]\n\"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(dir, "session.jsonl")
	writeTranscript(t, transcript, transcriptLines("s", 0, 2))
	prompt := map[string]any{"prompt": "anything"}
	tests := []struct {
		name, input string
		args        []string
		why         string // in the log
	}{
		{"down", claudeHookInput(t, "UserPromptSubmit", "s", "", dir, prompt), []string{"--url=" + downURL}, "connect"},
		{"slow", claudeHookInput(t, "SessionStart", "s", "", dir, nil), []string{"--url=" + slow.URL, "--timeout=500ms"}, "deadline"},
		{"slow stop", claudeHookInput(t, "Stop", "s", transcript, dir, nil), []string{"--url=" + slow.URL, "--timeout=500ms"}, "deadline"},
		{"not JSON", "session_id=1", []string{"--url=" + srv}, "not JSON"},
		{"empty", "", []string{"--url=" + srv}, "empty"},
		{"unknown event", claudeHookInput(t, "PostToolUse", "s", "", dir, nil), []string{"--url=" + srv}, "unknown hook event"},
		{"no transcript", claudeHookInput(t, "Stop", "s", filepath.Join(dir, "missing.jsonl"), dir, nil), []string{"stop", "--url=" + srv}, "transcript"},
		{"not a transcript", claudeHookInput(t, "Stop", "s", notTranscript, dir, nil), []string{"stop", "--url=" + srv}, ""},
		{"bad url", claudeHookInput(t, "SessionStart", "s", "", dir, nil), []string{"--url=::not a url"}, "URL"},
		{"bad session", claudeHookInput(t, "Stop", "../..", transcript, dir, nil), []string{"--url=" + srv}, "400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs := runHook(t, tt.input, tt.args...)
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if tt.why != "" && !strings.Contains(errs, tt.why) {
				t.Errorf("stderr = %q, want it to say %q", errs, tt.why)
			}
		})
	}
	var h map[string]any
	getJSON(t, srv+"/healthz", &h)
}

// TestHookLogFile: with --log, the reason goes to the file, not stderr.
func TestHookLogFile(t *testing.T) {
	log := filepath.Join(t.TempDir(), "hook.log")
	_, errs := runHook(t, "{", "session-start", "--log="+log, "--url=http://127.0.0.1:1")
	if errs != "" {
		t.Errorf("stderr = %q with --log", errs)
	}
	b, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(b), "not JSON") {
		t.Errorf("log = %q, %v", b, err)
	}
}

// TestCodexNotifyHook: the JSON Codex's notify passes as the last
// argument, written from its documented shape, stores the turn's messages
// once, in the thread's session, as the repository's agent (AGT-1, AGT-4).
func TestCodexNotifyHook(t *testing.T) {
	srv := startServe(t, "--data", t.TempDir())
	repo := filepath.Join(t.TempDir(), "billing")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{
		"type": "agent-turn-complete", "thread-id": "th-1", "turn-id": "tu-1", "cwd": repo,
		"input-messages":         []string{"Rename the invoice table to invoices"},
		"last-assistant-message": "Renamed invoice to invoices and added a migration.",
	})
	for range 2 {
		if out, errs := runHook(t, "", "codex-notify", string(payload), "--url="+srv); out != "" || errs != "" {
			t.Fatalf("stdout %q, stderr %q", out, errs)
		}
	}
	var page struct {
		Memories []struct{ Key, Content string }
	}
	getJSON(t, srv+"/v1/memories?"+query("agent_id", "billing", "session_id", "codex-th-1", "order", "oldest"), &page)
	var got []string
	for _, m := range page.Memories {
		got = append(got, m.Key+" "+m.Content)
	}
	want := []string{"/codex/th-1/tu-1/user-0 Rename the invoice table to invoices", "/codex/th-1/tu-1/assistant Renamed invoice to invoices and added a migration."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, tt := range []struct{ payload, why string }{
		{`{"type": "approval-requested"}`, ""},
		{`not json`, "not JSON"},
		{``, "last argument"},
		{`{"type": "agent-turn-complete"}`, "thread-id"},
	} {
		out, errs := runHook(t, "", "codex-notify", tt.payload, "--url="+srv)
		if out != "" || !strings.Contains(errs, tt.why) || (tt.why == "") != (errs == "") {
			t.Errorf("%q: stdout %q, stderr %q, want %q", tt.payload, out, errs, tt.why)
		}
	}
}

// TestCursorHook: Cursor's beforeSubmitPrompt and afterAgentResponse, as
// its hooks documentation shapes them, store the prompt and the answer
// once, and the prompt always goes on, the server down included (AGT-3,
// AGT-7).
func TestCursorHook(t *testing.T) {
	srv := startServe(t, "--data", t.TempDir())
	root := filepath.Join(t.TempDir(), "web-app")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	input := func(event, field, text string) string {
		b, _ := json.Marshal(map[string]any{"hook_event_name": event, "conversation_id": "conv-1", "generation_id": "gen-1",
			"workspace_roots": []string{root}, "model": "gpt-5", "cursor_version": "2.0.77", field: text, "attachments": []any{}})
		return string(b)
	}
	prompt := input("beforeSubmitPrompt", "prompt", "Use pnpm, not npm, in this repo")
	answer := input("afterAgentResponse", "text", "Understood: pnpm from now on.")
	for range 2 {
		out, errs := runHook(t, prompt, "cursor", "--url="+srv)
		if strings.TrimSpace(out) != `{"continue":true}` || errs != "" {
			t.Fatalf("beforeSubmitPrompt: stdout %q, stderr %q", out, errs)
		}
		if out, errs := runHook(t, answer, "cursor", "--url="+srv); out != "" || errs != "" {
			t.Fatalf("afterAgentResponse: stdout %q, stderr %q", out, errs)
		}
	}
	var page struct {
		Memories []struct{ Key, Content string }
	}
	getJSON(t, srv+"/v1/memories?"+query("agent_id", "web-app", "session_id", "cursor-conv-1", "order", "oldest"), &page)
	var got []string
	for _, m := range page.Memories {
		got = append(got, m.Key+" "+m.Content)
	}
	want := []string{"/cursor/conv-1/gen-1/user Use pnpm, not npm, in this repo", "/cursor/conv-1/gen-1/assistant Understood: pnpm from now on."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The server down, or input it cannot read: the prompt still goes on.
	for _, in := range []string{prompt, "{", `{"hook_event_name": "beforeSubmitPrompt"}`} {
		out, errs := runHook(t, in, "cursor", "--url=http://127.0.0.1:1")
		if strings.TrimSpace(out) != `{"continue":true}` || errs == "" {
			t.Errorf("%q: stdout %q, stderr %q", in, out, errs)
		}
	}
}
