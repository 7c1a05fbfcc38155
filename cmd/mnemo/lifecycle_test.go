package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestLifecycleCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustRun := runner(t, dir)
	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte(`{"tenant_id":"default","agent_id":"default","content":"An old scratch note","tags":["scratch"],"priority":3,"created_at":"2026-01-01T00:00:00Z"}`+"\n"), 0o644)
	mustRun("import", old)
	mustRun("remember", "--tag", "scratch", "Another scratch note")
	mustRun("remember", "The build runs on Tuesdays")

	if out := mustRun("reflect", "--dry-run", "--now", "2026-03-01T00:00:00Z"); !strings.Contains(out, "dry run: nothing changed") || !strings.Contains(out, "An old scratch note") {
		t.Fatalf("reflect --dry-run: %q", out)
	}
	if out := mustRun("prune", "--tag", "scratch", "--dry-run"); !strings.HasPrefix(out, "would archive 2 memories") {
		t.Fatalf("prune --dry-run: %q", out)
	}
	if out := mustRun("prune", "--tag", "nothing-has-this"); out != "pruned 0 memories: nothing matched\n" {
		t.Fatalf("prune matching nothing: %q", out)
	}
	out := mustRun("prune", "--tag", "scratch")
	m := regexp.MustCompile(`pruned 2 memories; undo with: mnemo restore (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("prune: %q", out)
	}
	if out := mustRun("ledger"); !strings.Contains(out, "prune") || !strings.Contains(out, "tags scratch") {
		t.Fatalf("ledger: %q", out)
	}
	if out := mustRun("recall", "scratch note"); strings.Contains(out, "scratch") {
		t.Fatalf("recall after prune: %q", out)
	}
	if out := mustRun("restore", m[1]); out != "restored 2 memories\n" {
		t.Fatalf("restore: %q", out)
	}
	if code, _, errs := run(t, dir, "", "reset"); code != 2 || !strings.Contains(errs, "confirm with --yes") {
		t.Fatalf("reset without --yes: %d %s", code, errs)
	}
	if out := mustRun("reset", "--yes"); !strings.HasPrefix(out, "reset: archived 3 memories") {
		t.Fatalf("reset: %q", out)
	}
	var es []mnemo.LedgerEntry
	if err := json.Unmarshal([]byte(mustRun("--json", "ledger", "--action", "reset")), &es); err != nil || len(es) != 1 || es[0].Actor != "cli" {
		t.Fatalf("ledger --action reset: %+v, %v", es, err)
	}
	note := filepath.Join(dir, "2026-02-23.md")
	os.WriteFile(note, []byte("## 决策\n- DD 流程改用 Codex\n## Log\n- 10:30 deployed new-api to kitty\n"), 0o644)
	if out := mustRun("ingest", note, "--dry-run"); !strings.Contains(out, "would_write knowledge P2") || !strings.Contains(out, "extracted 2, written 0") {
		t.Fatalf("ingest --dry-run: %q", out)
	}
	if out := mustRun("ingest", note); !strings.Contains(out, "written     event     P3") || !strings.Contains(out, "extracted 2, written 2, skipped 0") {
		t.Fatalf("ingest: %q", out)
	}
	for _, args := range [][]string{
		{"ingest", filepath.Join(dir, "missing.md")},
		{"reflect", "--phase", "dream"},
		{"prune"},
		{"prune", "--security", "secret"},
		{"restore", "x"},
		{"restore", "9999"},
		{"ledger", "--limit", "-1"},
	} {
		code, out, errs := run(t, dir, "", args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errs)
		}
	}
}

// export --format tree gives the memory root's layout (FS-11), and the
// shell queries of FS-12 work on it.
func TestExportTree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
	dir := t.TempDir()
	mustRun := runner(t, dir)
	mustRun("remember", "--key", "/user/calendar/2026-02-23_10-00_牙科复诊", "--value", `{"type":"reminder","summary":"明天10点牙科复诊","importance":0.8}`)
	mustRun("remember", "--key", "/user/preference/style", "--value", `{"type":"preference","summary":"简洁"}`)
	mustRun("remember", "Deploys happen on Tuesdays")
	tree := filepath.Join(t.TempDir(), "memory")
	if out := mustRun("export", "--format", "tree", tree); !strings.HasPrefix(out, "exported 3 memories") {
		t.Fatalf("export: %q", out)
	}
	script := `set -e
cd "$1"
ls memory/index/user/calendar/
grep -c "牙科" memory/log.jsonl
cat memory/log.jsonl | jq -c 'select(.valid==true and .content.type=="reminder") | .key'
ls memory/index/memories/ | wc -l`
	out, err := exec.Command("bash", "-c", script, "bash", filepath.Dir(tree)).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	want := "2026-02-23_10-00_牙科复诊.json\n1\n\"/user/calendar/2026-02-23_10-00_牙科复诊\"\n1\n"
	if string(out) != want {
		t.Fatalf("FS-12 on the export:\n%s\nwant:\n%s", out, want)
	}
	if code, _, errs := run(t, dir, "", "export", "--format", "tree", tree); code != 2 || !strings.Contains(errs, "not empty") {
		t.Fatalf("export into a non-empty directory: %d %s", code, errs)
	}
	if code, _, _ := run(t, dir, "", "export", "--format", "yaml"); code != 2 {
		t.Fatalf("bad format: %d", code)
	}
}
