package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// Each command is a process of its own: the run and the session live in
// the store between them.
func TestRunAndSessionCommands(t *testing.T) {
	dir := t.TempDir()
	mustRun := func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, dir, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	mustRun("run", "open", "cron", "--id", "r1", "--payload", `{"job":"hourly_check"}`, "--focus", "disk usage")
	mustRun("run", "call", "r1", "check_disk", "--input", `{"host":"db-1"}`, "--output", "91% used on /var")
	mustRun("run", "respond", "r1", "db-1", "is", "nearly", "full.")
	mustRun("run", "inject", "r1", "Page the operator if over 95%.")
	var r mnemo.Run
	if err := json.Unmarshal([]byte(mustRun("run", "render", "r1")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Trigger.Type != "cron" || len(r.Rounds) != 1 || r.Rounds[0].Call.Name != "check_disk" ||
		string(r.Rounds[0].Call.Output) != `"91% used on /var"` || r.Rounds[0].Responses[0] != "db-1 is nearly full." || len(r.Instructions) != 1 {
		t.Fatalf("rendered run = %+v", r)
	}
	if out := mustRun("run", "list"); !strings.Contains(out, "r1  cron  1 rounds") {
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
	var wm mnemo.WorkingMemory
	if err := json.Unmarshal([]byte(mustRun("--json", "session", "show", "s1")), &wm); err != nil || wm.TurnCount != 2 || !strings.Contains(wm.CurrentTopic, "kyoto") {
		t.Fatalf("show: %+v, %v", wm, err)
	}
	if out := mustRun("session", "end", "s1", "--archive"); !strings.Contains(out, "1 facts archived") {
		t.Fatalf("end: %q", out)
	}
	if out := mustRun("list"); !strings.Contains(out, "Dana is vegetarian") {
		t.Fatalf("the archived fact is not a memory: %q", out)
	}
	if out := mustRun("session", "sweep"); out != "swept 0 idle sessions\n" {
		t.Fatalf("sweep: %q", out)
	}
}

func TestPromptCommands(t *testing.T) {
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
	var b mnemo.Boot
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
