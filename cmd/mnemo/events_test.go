package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mnemov "github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func TestEventsCommands(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestEventsSummaryAndCapabilities(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mnemo := runner(t, dir)
	in := ""
	for i, typ := range []string{"DeployFailed", "DeployCompleted", "DeployCompleted", "DeployCompleted", "ReportCompleted"} {
		in += `{"type":"` + typ + `","source":"w","ts":"2026-01-05T10:0` + string(rune('0'+i)) + `:00Z","data":{"tools":["kubectl"],"error":"` +
			map[bool]string{true: "image missing", false: ""}[i == 0] + `"}}` + "\n"
	}
	if code, out, errs := run(t, dir, in, "events", "append", "-f", "-"); code != 0 {
		t.Fatalf("append: %d %s %s", code, out, errs)
	}

	// A day's summary, for people and as JSON; generating it again keeps one.
	if out := mnemo("events", "summary", "--period", "day", "--at", "2026-01-05T12:00:00Z"); !strings.Contains(out, "day from 2026-01-05T00:00:00Z") || !strings.Contains(out, "tasks 4 done / 1 failed (80%)") {
		t.Fatalf("summary: %s", out)
	}
	var sum struct {
		Events int `json:"events"`
		Errors int `json:"errors"`
	}
	if err := json.Unmarshal([]byte(mnemo("events", "summary", "--period", "day", "--at", "2026-01-05T12:00:00Z", "--json")), &sum); err != nil || sum.Events != 5 || sum.Errors != 1 {
		t.Fatalf("summary --json: %+v %v", sum, err)
	}
	var list struct{ Summaries []json.RawMessage }
	if err := json.Unmarshal([]byte(mnemo("events", "summary", "--list", "--json")), &list); err != nil || len(list.Summaries) != 1 {
		t.Fatalf("summary --list: %d %v", len(list.Summaries), err)
	}
	if code, _, errs := run(t, dir, "", "events", "summary", "--period", "fortnight"); code == 0 || !strings.Contains(errs, "unknown period") {
		t.Fatalf("unknown period: %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "", "events", "summary", "--list", "--from", "2026-02-01T00:00:00Z", "--to", "2026-01-01T00:00:00Z"); code == 0 || !strings.Contains(errs, "runs backwards") {
		t.Fatalf("backwards window: %d %s", code, errs)
	}

	// Deploy succeeded three times: a capability; Report once: none.
	if out := mnemo("events", "capabilities", "deploy", "the", "api"); !strings.Contains(out, "deploy (Deploy): 3 succeeded, 1 failed") || !strings.Contains(out, "lesson: image missing") {
		t.Fatalf("capabilities: %s", out)
	}
	if out := mnemo("events", "capabilities", "--type", "Report"); strings.TrimSpace(out) != "" {
		t.Fatalf("a task type below the threshold: %s", out)
	}
	var caps struct {
		Capabilities []struct {
			TaskType string `json:"task_type"`
		}
	}
	if err := json.Unmarshal([]byte(mnemo("events", "capabilities", "--extract", "--json")), &caps); err != nil || len(caps.Capabilities) != 1 || caps.Capabilities[0].TaskType != "Deploy" {
		t.Fatalf("capabilities --extract: %+v %v", caps, err)
	}
}

// TestSweepSummarizes: serve's one-minute sweep writes the summaries of
// closed periods.
func TestSweepSummarizes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{})
	defer svc.Close()
	scope := mnemov.Scope{TenantID: "t", AgentID: "a"}
	hourAgo := time.Now().UTC().Add(-time.Hour)
	if _, err := svc.AppendEvent(ctx, scope, mnemov.Event{Type: "DeployCompleted", TS: hourAgo}); err != nil {
		t.Fatal(err)
	}
	sweep(ctx, svc, slog.New(slog.DiscardHandler))
	sums, err := svc.Summaries(ctx, scope, mnemov.SummaryQuery{Period: mnemov.PeriodHour})
	if err != nil || len(sums) != 1 || sums[0].Events != 1 {
		t.Fatalf("after a sweep: %+v, %v; want the closed hour's summary", sums, err)
	}
}
