package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

var update = flag.Bool("update", false, "rewrite the README's expected output (TestReadme)")

// TestMain lets the test binary stand in for mnemo: TestReadme puts a
// script named mnemo on PATH that runs it with readmeCLI set.
func TestMain(m *testing.M) {
	if os.Getenv(readmeCLI) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// The per-user data directory of every test is a temporary one: a
	// command a test runs without --data must not touch the user's store.
	data, err := os.MkdirTemp("", "mnemo-test-data-home")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	os.Exit(code)
}

const readmeCLI = "MNEMO_README_CLI"

// readmeFiles are the documents whose examples TestReadme runs, in this
// order, against one server and one store: the README, then the guides,
// whose examples continue from the state the ones before left.
var readmeFiles = []string{"README.md", "docs/HTTP.md", "docs/CONTEXT.md", "docs/LIFECYCLE.md",
	"docs/EVENTS.md", "docs/STORAGE.md", "docs/MCP.md", "docs/CLIENTS.md", "docs/CLI.md", "docs/IMPORT.md", "docs/SECURITY.md", "docs/DEPLOY.md"}

// readmeDoc is one of readmeFiles, its lines kept for -update.
type readmeDoc struct {
	path    string
	lines   []string
	changed bool
}

// An example is one ```sh block of the README: its commands in segments,
// each segment with the output expected of it (none: not compared).
type example struct {
	doc      *readmeDoc
	line     int // of the opening fence, 1-based
	segments []segment
	skip     string
	serve    bool // the block starts the server: the test (re)starts it with its flags
}

type segment struct {
	commands string
	expected []string // output lines; nil: not compared
	// The lines of the README holding expected, to rewrite with -update:
	// from, to (exclusive), and whether they are `# → ` lines or a text block.
	from, to int
	arrows   bool
}

var (
	fence     = regexp.MustCompile("^```(\\w*)\\s*$")
	arrow     = regexp.MustCompile(`^# →(?: (.*))?$`)
	skipMark  = regexp.MustCompile(`^<!-- readme-test: skip \((.+)\) -->$`)
	serveMark = "<!-- readme-test: serve -->"
	marker    = "\x1e--- readme segment ---\x1e"
	normalize = []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uuid>"},
		{regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`), "<time>"},
		{regexp.MustCompile(`\d{4}-\d{2}-\d{2}`), "<date>"},
		{regexp.MustCompile(`\b\d{2}:\d{2}\b`), "<clock>"},
		{regexp.MustCompile(`\[\d{2}-\d{2}\]`), "[<day>]"},
		{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)\b`), "<duration>"},
		{regexp.MustCompile(`\d+\.\d{3,}(e-\d+)?`), "<decimal>"},
	}
)

// parseReadme reads the README's ```sh blocks.
func parseReadme(lines []string) ([]example, error) {
	var out []example
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: unclosed block", i+1)
		}
		if m[1] != "sh" && m[1] != "bash" {
			i = end
			continue
		}
		ex := example{line: i + 1}
		var seg segment
		for j := i + 1; j < end; j++ {
			if a := arrow.FindStringSubmatch(lines[j]); a != nil {
				if seg.expected == nil {
					seg.from, seg.arrows = j, true
				}
				seg.expected = append(seg.expected, a[1])
				seg.to = j + 1
				continue
			}
			if seg.expected != nil {
				ex.segments = append(ex.segments, seg)
				seg = segment{}
			}
			seg.commands += lines[j] + "\n"
		}
		// What follows the block: a skip mark or a text block of its
		// last segment's output.
		next := end + 1
		for next < len(lines) && strings.TrimSpace(lines[next]) == "" {
			next++
		}
		if next < len(lines) {
			if s := skipMark.FindStringSubmatch(lines[next]); s != nil {
				ex.skip = s[1]
			} else if lines[next] == serveMark {
				ex.serve = true
			} else if lines[next] == "```text" && seg.expected == nil {
				tend := next + 1
				for tend < len(lines) && lines[tend] != "```" {
					tend++
				}
				seg.expected = append([]string{}, lines[next+1:tend]...)
				seg.from, seg.to = next+1, tend
				end = tend
			}
		}
		ex.segments = append(ex.segments, seg)
		out = append(out, ex)
		i = end
	}
	return out, nil
}

// normalized replaces what differs from run to run.
func normalized(s string) string {
	for _, n := range normalize {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// trimLines drops trailing blanks of each line and trailing empty lines.
func trimLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, " \t\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	return lines
}

// matches reports whether output fits the expected lines, normalized, where
// `…` stands for any text within a line, or alone on a line for any lines.
func matches(expected []string, output string) bool {
	var re strings.Builder
	re.WriteString(`^`)
	for _, line := range trimLines(strings.Join(expected, "\n")) {
		if strings.TrimSpace(line) == "…" {
			re.WriteString(`(?:[^\n]*\n)*?`)
			continue
		}
		parts := strings.Split(normalized(line), "…")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re.WriteString(strings.Join(parts, `[^\n]*?`) + `\n`)
	}
	re.WriteString(`$`)
	got := strings.Join(trimLines(normalized(output)), "\n") + "\n"
	return regexp.MustCompile(re.String()).MatchString(got)
}

// TestReadme runs the shell examples of readmeFiles, in order, in an
// empty directory against a server started there, and compares their
// output with what the documents show (docs/ARCHITECTURE.md, "Tests", says
// how to write one). The test binary stands in for mnemo.
func TestReadme(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race (make quality): it starts a process per command")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's examples need %s: %v", tool, err)
		}
	}
	var docs []*readmeDoc
	var examples []example
	for _, f := range readmeFiles {
		src, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		d := &readmeDoc{path: f, lines: strings.Split(string(src), "\n")}
		exs, err := parseReadme(d.lines)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range exs {
			exs[i].doc = d
		}
		docs, examples = append(docs, d), append(examples, exs...)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, dir := t.TempDir(), t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", readmeCLI, self)
	if err := os.WriteFile(filepath.Join(bin, "mnemo"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The user's data directory, where the README's server and commands
	// share their store, is an empty one of the test's.
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNEMO_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "MEMORY_") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_DATA_HOME="+home)
	addr, stop := "", func() {}
	defer func() { stop() }()

	ran, skipped := 0, 0
	for _, ex := range examples {
		if ex.skip != "" {
			skipped++
			continue
		}
		ran++
		if ex.serve {
			stop()
			args := strings.Fields(strings.TrimSpace(ex.segments[0].commands))
			if len(args) < 2 || args[0] != "mnemo" || args[len(args)-1] != "serve" {
				t.Fatalf("%s:%d: a serve block is one `mnemo … serve` command", ex.doc.path, ex.line)
			}
			addr, stop = startReadmeServer(t, bin, dir, env, args[1:]...)
			continue
		}
		if addr == "" {
			t.Fatalf("%s:%d: an example before the first `mnemo serve` block marked %s", ex.doc.path, ex.line, serveMark)
		}
		var sh, all strings.Builder
		for _, seg := range ex.segments {
			all.WriteString(seg.commands)
			cmds := strings.NewReplacer("localhost:7077", addr, "127.0.0.1:7077", addr).Replace(seg.commands)
			fmt.Fprintf(&sh, "%s\nprintf '\\n%s\\n'\n", cmds, marker)
		}
		// Each block has a budget of its own, in quiet-machine time
		// (QUAL-3): the documents as a whole have none.
		ctx, cancel := testwait.Context(context.Background(), readmeBlockBudget)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", sh.String())
		cmd.Dir, cmd.Env = dir, env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		spent := errors.Is(context.Cause(ctx), testwait.ErrSpent)
		cancel()
		if err != nil {
			if spent {
				err = fmt.Errorf("%w: killed after %v of quiet-machine time", err, readmeBlockBudget)
			}
			t.Fatalf("%s:%d: %v\n%s\nstdout:\n%s\nstderr:\n%s", ex.doc.path, ex.line, err, all.String(), out, stderr.String())
		}
		outputs := strings.Split(string(out), "\n"+marker+"\n")
		for i, seg := range ex.segments {
			if seg.expected == nil || matches(seg.expected, outputs[i]) {
				continue
			}
			if *update {
				rewrite(ex.doc.lines, seg, outputs[i])
				ex.doc.changed = true
				continue
			}
			t.Errorf("%s:%d: the output of\n%s\nis\n%s\nwant (%s:%d-%d)\n%s", ex.doc.path, ex.line, seg.commands,
				strings.Join(trimLines(outputs[i]), "\n"), ex.doc.path, seg.from+1, seg.to, strings.Join(seg.expected, "\n"))
		}
	}
	t.Logf("README and guides: ran %d shell examples, skipped %d (marked readme-test: skip)", ran, skipped)
	// One store, the user's, whatever directory each command ran in.
	if _, err := os.Stat(filepath.Join(home, "mnemo", "mnemo.db")); err != nil {
		t.Errorf("the README's commands made no store in the user's data directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mnemo-data")); err == nil {
		t.Errorf("the README's commands made a store in the directory they ran in")
	}
	for _, d := range docs {
		if !d.changed {
			continue
		}
		kept := slices.DeleteFunc(d.lines, func(l string) bool { return l == dropped })
		if err := os.WriteFile(filepath.Join("..", "..", d.path), []byte(strings.Join(kept, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: expected output rewritten; run again to check", d.path)
	}
}

// readmeBlockBudget bounds one block of the documents in quiet-machine
// time: the longest takes a few seconds on a quiet machine.
const readmeBlockBudget = time.Minute

// dropped marks a README line rewrite removed.
const dropped = "\x00"

// rewrite replaces seg's expected lines in the README with output, keeping
// the line count, so that the later segments' line numbers hold.
func rewrite(lines []string, seg segment, output string) {
	got := trimLines(output)
	if seg.arrows {
		for i := range got {
			got[i] = strings.TrimRight("# → "+got[i], " ")
		}
	}
	text := strings.Join(got, "\n")
	lines[seg.from] = text
	for i := seg.from + 1; i < seg.to; i++ {
		lines[i] = dropped
	}
}

// startReadmeServer runs mnemo with args (ending in serve) in dir as the
// README says, on a free port, and returns its address and how to stop it.
func startReadmeServer(t *testing.T, bin, dir string, env []string, args ...string) (addr string, stop func()) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "mnemo"), append(args, "--addr", "127.0.0.1:0")...)
	cmd.Dir, cmd.Env = dir, env
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, logs)
	}()
	select {
	case addr := <-found:
		return addr, stop
	case <-testwait.After(t, 30*time.Second):
		stop()
		t.Fatal("mnemo serve did not start in 30s of quiet-machine time")
		return "", nil
	}
}

// TestReadmeMatches checks TestReadme's comparison: what varies from run to
// run is ignored, `…` stands for text or lines, anything else must agree.
func TestReadmeMatches(t *testing.T) {
	for _, tt := range []struct {
		expected, output string
		want             bool
	}{
		{"id:01a20852-d9c3-7504-a0d3-a650af8de62d event x", "id:01a210e5-45e3-7e0b-913a-d3f9f47a9544 event x\n", true},
		{"- [event · 2026-11-23 12:12] x", "- [event · 2027-01-05 04:09] x", true},
		{"took 1.5ms, score 0.4736834378127979", "took 870µs, score 0.5011", true},
		{`{"id":"a",…,"seq":7,…}`, `{"id":"a","ts":"t","seq":7,"x":1}`, true},
		{"a\n…\nz", "a\nb\nc\nz\n", true},
		{"a\n…\nz", "a\nz", true},
		{"pruned 1 memories", "pruned 2 memories", false},
		{"score 0.21", "score 0.22", false},
		{"a\nb", "a\nb\nc", false},
	} {
		if got := matches(strings.Split(tt.expected, "\n"), tt.output); got != tt.want {
			t.Errorf("matches(%q, %q) = %v", tt.expected, tt.output, got)
		}
	}
}

// TestReadmeParse checks the README conventions TestReadme reads.
func TestReadmeParse(t *testing.T) {
	md := "```sh\nmnemo serve\n```\n<!-- readme-test: serve -->\n\n" +
		"```sh\na\n# → 1\nb\nc\n```\n```text\nout\n```\n" +
		"```sh\nnpx x\n```\n<!-- readme-test: skip (npm) -->\n```go\nnot run\n```\n"
	ex, err := parseReadme(strings.Split(md, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 3 || !ex[0].serve || ex[2].skip != "npm" {
		t.Fatalf("examples = %+v", ex)
	}
	segs := ex[1].segments
	if len(segs) != 2 || segs[0].commands != "a\n" || fmt.Sprint(segs[0].expected) != "[1]" ||
		segs[1].commands != "b\nc\n" || fmt.Sprint(segs[1].expected) != "[out]" || segs[1].arrows {
		t.Fatalf("segments = %+v", segs)
	}
}
