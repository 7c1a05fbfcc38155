package main

import (
	"regexp"
	"strings"
	"testing"
)

// oneMany finds a count of one with a plural noun: "1 memories", "1 rounds".
var oneMany = regexp.MustCompile(`(^|[^0-9.])1 (memories|rounds|turns|facts|events|errors|tags|ids|entries|scopes|sessions|runs|tokens)\b`)

// TestCountsAgree checks that what the CLI counts agrees with its noun:
// "pruned 1 memory", "run r1: 1 round kept", the reflect report's
// "Nothing archived." rather than "Archived 0:".
func TestCountsAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runner(t, dir)
	r("remember", "--tag", "scratch", "Draft: try the blue theme for the dashboard")
	var out strings.Builder
	for _, args := range [][]string{
		{"prune", "--tag", "scratch", "--dry-run"},
		{"prune", "--tag", "scratch"},
		{"restore", "<seq>"},
		{"--agent", "pad", "remember", "Temporary: the build server is db-3"},
		{"--agent", "pad", "reset", "--yes"},
		{"ledger"},
		{"run", "open", "cron", "--id", "r1", "--focus", "disk usage"},
		{"run", "call", "r1", "check_disk", "--output", "91% used on /var"},
		{"run", "close", "r1"},
		{"session", "turn", "s1", "Please remember that I hate crowds."},
		{"session", "end", "s1"},
		{"reflect", "--dry-run"},
	} {
		if args[len(args)-1] == "<seq>" { // the ledger entry prune wrote
			args[len(args)-1] = regexp.MustCompile(`mnemo restore (\d+)`).FindStringSubmatch(out.String())[1]
		}
		got := r(args...)
		out.WriteString(got)
		if m := oneMany.FindString(got); m != "" {
			t.Errorf("mnemo %v printed %q:\n%s", args, strings.TrimSpace(m), got)
		}
	}
	for _, want := range []string{"would archive 1 memory (dry run)", "pruned 1 memory; undo with", "restored 1 memory", "reset: archived 1 memory;", "run r1: 1 round kept", "Nothing archived."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output has no %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "Archived 0") || strings.Contains(out.String(), "Merged 0") {
		t.Errorf("the reflect report counts nothing as a list:\n%s", out.String())
	}
}
