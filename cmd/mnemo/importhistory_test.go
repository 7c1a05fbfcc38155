package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mnemo import --from walks a directory for the format's files, reads them
// all before storing any, and says where a malformed one is (IMP-1, IMP-3).
func TestImportHistoryCLI(t *testing.T) {
	t.Parallel()
	data, projects := t.TempDir(), t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(projects, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := func(session, uuid, typ, ts, text string) string {
		return `{"type":"` + typ + `","sessionId":"` + session + `","uuid":"` + uuid + `","timestamp":"` + ts + `","message":{"role":"` + typ + `","content":[{"type":"text","text":"` + text + `"}]}}` + "\n"
	}
	write("-home-ana-shop/s-1.jsonl", line("s-1", "u1", "user", "2025-06-01T10:00:00Z", "Use Postgres for the orders table")+
		line("s-1", "a1", "assistant", "2025-06-01T10:00:05Z", "Done: orders now live in Postgres."))
	write("-home-ana-blog/s-2.jsonl", line("s-2", "u2", "user", "2025-06-02T09:00:00Z", "Publish the draft on Monday"))
	write("-home-ana-blog/notes.txt", "not a session")

	bad := filepath.Join(projects, "-home-ana-zzz", "s-3.jsonl")
	write("-home-ana-zzz/s-3.jsonl", line("s-3", "u3", "user", "2025-06-03T09:00:00Z", "fine")+`{"type":"user",`+"\n")
	code, out, errs := run(t, data, "", "import", "--from", "claude-code", projects)
	if code != exitUsage || !strings.Contains(errs, bad+": line 2: malformed JSON; nothing imported") || out != "" {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if _, out, _ := run(t, data, "", "list", "--session", "claude-code-s-1"); strings.TrimSpace(out) != "" {
		t.Fatalf("a refused import stored:\n%s", out)
	}

	os.Remove(bad)
	code, out, errs = run(t, data, "", "import", "--from", "claude-code", projects)
	if code != 0 || out != "imported 3 messages in 2 conversations; 0 already imported\n" ||
		!strings.Contains(errs, "read 2 conversations, 3 messages from 2 files") || !strings.Contains(errs, "2/2: 3 messages") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	_, out, _ = run(t, data, "", "list", "--session", "claude-code-s-1", "--order", "oldest")
	if !strings.Contains(out, "2025-06-01T10:00:00Z  event  /claude-code/s-1/u1  Use Postgres") {
		t.Fatalf("list:\n%s", out)
	}
	if code, out, errs = run(t, data, "", "import", "--from", "claude-code", projects); code != 0 || !strings.Contains(out, "3 already imported") {
		t.Fatalf("again: exit %d\n%s%s", code, out, errs)
	}

	for _, args := range [][]string{
		{"import", "--from", "gemini", projects},
		{"import", "--from", "codex", filepath.Join(projects, "-home-ana-blog")},
		{"import", "--from", "claude", "--keep-scope", projects},
		{"import", "--from", "claude", filepath.Join(projects, "nonexistent.json")},
	} {
		if code, _, errs := run(t, data, "", args...); code != exitUsage || strings.Count(strings.TrimSpace(errs), "\n") > 0 || strings.Contains(errs, "internal error") {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
	}
}
