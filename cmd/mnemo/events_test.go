package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEventsCommands(t *testing.T) {
	dir := t.TempDir()
	mnemo := runner(t, dir)
	start := strings.TrimSpace(mnemo("events", "append", "--type", "AgentStarted", "--source", "w1", "--ts", "2026-01-01T00:00:00Z", "--payload", `{"task":"sync"}`))
	in := "{\"type\":\"ToolFailed\",\"source\":\"w1\",\"ts\":\"2026-01-01T00:00:01Z\"}\n\n{\"type\":\"ToolRetry\",\"source\":\"w1\",\"ts\":\"2026-01-01T00:00:02Z\"}\n"
	code, out, errs := run(t, dir, in, "events", "append", "-f", "-")
	if code != 0 || len(strings.Fields(out)) != 2 {
		t.Fatalf("append -f -: %d %s %s", code, out, errs)
	}
	ids := append([]string{start}, strings.Fields(out)...)
	stop := strings.TrimSpace(mnemo("events", "append", "--type", "AgentStopped", "--source", "w1", "--ts", "2026-01-01T00:00:03Z"))
	ids = append(ids, stop)

	// Query, all pages, as JSON Lines.
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(mnemo("events", "query", "--all", "--limit", "1", "--json")), "\n") {
		var e struct{ ID string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, e.ID)
	}
	if strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Fatalf("query: %v, want %v", got, ids)
	}
	if out := mnemo("events", "query", "--type", "ToolRetry"); !strings.Contains(out, ids[2]) || strings.Contains(out, ids[1]) {
		t.Fatalf("query by type: %s", out)
	}
	if out := mnemo("events", "get", start); !strings.Contains(out, `"task": "sync"`) {
		t.Fatalf("get: %s", out)
	}

	// The rules related them; the graph finds the way from start to stop.
	if out := mnemo("events", "graph", "neighbours", stop, "--direction", "in", "--type", "causes"); !strings.Contains(out, start+" -causes-> "+stop) {
		t.Fatalf("neighbours: %s", out)
	}
	if out := mnemo("events", "graph", "path", ids[1], stop, "--direction", "out"); strings.Count(out, "\n") != 2 {
		t.Fatalf("path: %s", out)
	}
	mnemo("events", "graph", "link", ids[1], stop, "--type", "blamed")
	if out := mnemo("events", "graph", "traverse", ids[1], "--depth", "1", "--type", "blamed"); !strings.Contains(out, "1 "+stop) {
		t.Fatalf("traverse: %s", out)
	}

	// Replay to standard output, as fast as possible.
	if out := mnemo("events", "replay", "--speed", "0"); strings.Count(out, "\n") != 4 || !strings.HasPrefix(out, `{"id":"`+start) {
		t.Fatalf("replay: %s", out)
	}

	// Export CSV; archive everything and read it back the same.
	rows, err := csv.NewReader(strings.NewReader(mnemo("events", "export", "--format", "csv"))).ReadAll()
	if err != nil || len(rows) < 5 || rows[1][1] != start {
		t.Fatalf("export: %v %v", rows, err)
	}
	before := mnemo("events", "query")
	if out := mnemo("events", "archive", "--older-than", "1h"); out != "archived 4 events\n" {
		t.Fatalf("archive: %s", out)
	}
	if after := mnemo("events", "query"); after != before {
		t.Fatalf("after archival:\n%s\nbefore:\n%s", after, before)
	}

	// Bad input: a clear message and the usage exit code.
	for _, args := range [][]string{
		{"events", "append"},
		{"events", "append", "--type", "x", "--payload", "{bad"},
		{"events", "query", "--from", "2026-02-01T00:00:00Z", "--to", "2026-01-01T00:00:00Z"},
		{"events", "export", "--format", "xml"},
		{"events", "replay", "--speed", "-1"},
		{"events", "replay", "--webhook", "ftp://x/y"},
	} {
		if code, _, errs := run(t, dir, "", args...); code != exitUsage || !strings.HasPrefix(errs, "mnemo: ") {
			t.Errorf("%v: exit %d %s, want %d", args, code, errs, exitUsage)
		}
	}
	if code, _, errs := run(t, dir, "{\"type\":\"ok\"}\n{\"type\":\"x\",\"bogus\":1}\n", "events", "append", "-f", "-"); code != exitUsage || !strings.Contains(errs, "line 2") {
		t.Fatalf("a bad line: %d %s", code, errs)
	}
	if out := mnemo("events", "query"); out != before {
		t.Fatalf("a bad file stored something:\n%s", out)
	}
}

// TestEventsStrictConfig: events.strict in the config refuses types not in
// events.known_types, with exit 2 and the reason.
func TestEventsStrictConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	if err := os.WriteFile(cfg, []byte("events:\n  strict: true\n  known_types: [AgentStarted]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, dir, "", "--config", cfg, "events", "append", "--type", "AgentStarted", "--source", "w1"); code != 0 {
		t.Fatalf("known type: exit %d: %s", code, errs)
	}
	code, _, errs := run(t, dir, "", "--config", cfg, "events", "append", "--type", "Gossip", "--source", "w1")
	if code != 2 || !strings.Contains(errs, "Gossip") {
		t.Fatalf("unknown type in strict mode: exit %d: %s; want 2 naming the type", code, errs)
	}
}
