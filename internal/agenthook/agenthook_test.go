package agenthook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAgentFromDir(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "Acme Web_App")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A worktree or submodule has a .git file, not a directory.
	wt := filepath.Join(root, "wt-Feature")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(root, "notes")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ dir, want string }{
		{repo, "acme-web_app"},
		{deep, "acme-web_app"},
		{wt, "wt-feature"},
		{plain, "notes"},
		{"", "default"},
	}
	for _, tt := range tests {
		if got := AgentFromDir(tt.dir); got != tt.want {
			t.Errorf("AgentFromDir(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

func TestSanitizeAgent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mnemo", "mnemo"},
		{"My Project (v2)", "my-project-v2"},
		{"--..", "default"},
		{"日本語", "default"},
		{"café", "caf"},
		{strings.Repeat("a", 100), strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		if got := SanitizeAgent(tt.in); got != tt.want {
			t.Errorf("SanitizeAgent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEventName(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"SessionStart", SessionStart, true},
		{"session-start", SessionStart, true},
		{"user-prompt-submit", UserPromptSubmit, true},
		{"pre_compact", PreCompact, true},
		{"stop", Stop, true},
		{"session-end", SessionEnd, true},
		{"PostToolUse", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := EventName(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("EventName(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadTranscript(t *testing.T) {
	long := strings.Repeat("x", maxContent+100)
	lines := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-05-04T10:00:00.000Z","message":{"role":"user","content":"hello"}}`,
		`{"type":"assistant","uuid":"a1","timestamp":"2026-05-04T10:00:01Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"hi"},{"type":"text","text":"there"},{"type":"tool_use","id":"t","name":"Read","input":{}}]}}`,
		`{"type":"user","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"file"}]}}`,
		`{"type":"assistant","uuid":"s1","isSidechain":true,"message":{"role":"assistant","content":"side"}}`,
		`{"type":"user","uuid":"m1","isMeta":true,"message":{"role":"user","content":"meta"}}`,
		`{"type":"user","uuid":"c1","message":{"role":"user","content":"<command-name>/clear</command-name>"}}`,
		`{"type":"summary","summary":"s","leafUuid":"a1"}`,
		`{"type":"user","uuid":"","message":{"role":"user","content":"no uuid"}}`,
		``,
		`{"type":"user","uuid":"bad-time","timestamp":"yesterday","message":{"role":"user","content":"when"}}`,
		`{"type":"user","uuid":"long","message":{"role":"user","content":"` + long + `"}}`,
		`not json`,
		`{"type":"user","uuid":"torn","message":{"role":"us`,
	}
	turns, skipped, err := ReadTranscript(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range turns {
		c := tr.Content
		if len(c) > 20 {
			c = c[:5] + "…"
		}
		got = append(got, tr.UUID+"/"+tr.Role+"/"+c)
	}
	want := []string{"u1/user/hello", "a1/assistant/hi\nthere", "bad-time/user/when", "long/user/xxxxx…"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("turns = %q, want %q", got, want)
	}
	if skipped != 2 {
		t.Errorf("skipped = %d, want 2", skipped)
	}
	if turns[0].Time.IsZero() || !turns[2].Time.IsZero() {
		t.Errorf("times = %v, %v", turns[0].Time, turns[2].Time)
	}
	if n := len(turns[3].Content); n > maxContent+len("\n…") {
		t.Errorf("a long turn is %d bytes, more than %d", n, maxContent)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
		cut  bool
	}{
		{"short", 10, "short", false},
		{"line one\nline two\nline three", 20, "line one\nline two\n…", true},
		{"ééééé", 5, "éé\n…", true},
		{"abcdefghij", 4, "abcd\n…", true},
	}
	for _, tt := range tests {
		got, cut := Truncate(tt.s, tt.n)
		if got != tt.want || cut != tt.cut {
			t.Errorf("Truncate(%q, %d) = %q, %v, want %q, %v", tt.s, tt.n, got, cut, tt.want, tt.cut)
		}
	}
}

func FuzzReadTranscript(f *testing.F) {
	f.Add([]byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"hello"}}` + "\n"))
	f.Add([]byte(`{"type":"assistant","uuid":"a","message":{"content":[{"type":"text","text":"x"}]}}`))
	f.Add([]byte("\x00\xff\n{\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		turns, _, err := ReadTranscript(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range turns {
			if tr.UUID == "" || strings.TrimSpace(tr.Content) == "" || (tr.Role != "user" && tr.Role != "assistant") {
				t.Fatalf("bad turn %+v", tr)
			}
			if len(tr.Content) > maxContent+len("\n…") {
				t.Fatalf("turn of %d bytes", len(tr.Content))
			}
		}
	})
}

func FuzzParseInput(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"Stop"}`))
	f.Add([]byte(`{"prompt":1}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseInput(b)
		if err != nil {
			return
		}
		if a := AgentFromDir(in.CWD); a == "" || !utf8.ValidString(a) || len(a) > 64 {
			t.Fatalf("agent %q from %q", a, in.CWD)
		}
	})
}

func FuzzParseCodexNotify(f *testing.F) {
	f.Add([]byte(`{"type":"agent-turn-complete","thread-id":"t","turn-id":"u","cwd":"/w","input-messages":["hi",{"text":"x"}],"last-assistant-message":"ok"}`))
	f.Add([]byte(`{"input-messages":[1,null]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseCodexNotify(b)
		if err != nil {
			return
		}
		for _, m := range n.InputMessages {
			if s := inputText(m); !utf8.ValidString(s) && json.Valid(m) {
				t.Fatalf("text %q of %s", s, m)
			}
		}
	})
}
