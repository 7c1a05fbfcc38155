package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// TestAgentsGuide runs docs/AGENTS.md's shell examples as TestReadme runs
// the README's, in a git repository named shop and with a home directory
// of the test's own, since they write the clients' files under it.
func TestAgentsGuide(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race (make quality): it starts a process per command")
	}
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("docs/AGENTS.md's examples need %s: %v", tool, err)
		}
	}
	const guide = "docs/AGENTS.md"
	src, err := os.ReadFile(filepath.Join("..", "..", guide))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := parseReadme(strings.Split(string(src), "\n"))
	if err != nil {
		t.Fatalf("%s: %v", guide, err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, home, data := t.TempDir(), t.TempDir(), t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", readmeCLI, self)
	if err := os.WriteFile(filepath.Join(bin, "mnemo"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); {
		case strings.HasPrefix(k, "MNEMO_"), strings.HasPrefix(k, "XDG_"), k == "PATH", k == "HOME":
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home, "XDG_DATA_HOME="+data)
	addr, stop := "", func() {}
	defer func() { stop() }()
	ran := 0
	for _, ex := range examples {
		if ex.skip != "" {
			continue
		}
		if ex.serve {
			stop()
			args := strings.Fields(strings.TrimSpace(ex.segments[0].commands))
			addr, stop = startReadmeServer(t, bin, dir, env, args[1:]...)
			continue
		}
		if addr == "" {
			t.Fatalf("%s:%d: an example before the `mnemo serve` block", guide, ex.line)
		}
		ran++
		for _, seg := range ex.segments {
			cmds := strings.NewReplacer("127.0.0.1:7077", addr).Replace(seg.commands)
			ctx, cancel := testwait.Context(context.Background(), readmeBlockBudget)
			cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", cmds)
			cmd.Dir, cmd.Env = dir, env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			cancel()
			if err != nil {
				t.Fatalf("%s:%d: %v\n%s\nstdout:\n%s\nstderr:\n%s", guide, ex.line, err, seg.commands, out, stderr.String())
			}
			if seg.expected != nil && !matches(seg.expected, string(out)) {
				t.Errorf("%s:%d: the output of\n%s\nis\n%s\nwant\n%s", guide, ex.line, seg.commands, out, strings.Join(seg.expected, "\n"))
			}
		}
	}
	if ran < 7 {
		t.Errorf("ran %d examples of %s, want one per client and more", ran, guide)
	}
	// Every client's file is under the test's home, none under the user's.
	for _, f := range []string{".claude.json", ".claude/settings.json", ".codex/config.toml", ".cursor/mcp.json", ".codeium/windsurf/mcp_config.json"} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Errorf("the guide's setup wrote no %s: %v", f, err)
		}
	}
}
