package main

import (
	"encoding/json"
	"io"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeMCPConfigs checks the README's MCP client configurations: each
// JSON after `<!-- readme-run: mcp-config -->` parses, and each server in it
// either spawns this binary, by npx from its npm package, with arguments it
// accepts (run with --help, so nothing starts) or points at the /mcp route
// `mnemo serve` has with an X-Mnemo-Agent header; so does each `claude mcp
// add` and `codex mcp add` line. make dist-check runs the npx commands
// against the built package.
func TestReadmeMCPConfigs(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)<!-- readme-run: mcp-config -->\n```json\n(.*?)```\n").FindAllSubmatch(readme, -1)
	if len(blocks) < 3 {
		t.Fatalf("%d MCP configurations in README.md, want 3 or more", len(blocks))
	}
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	var spawned, remote int
	for _, b := range blocks {
		var cfg struct {
			MCPServers map[string]server `json:"mcpServers"` // Claude Desktop, Cursor
			Servers    map[string]server `json:"servers"`    // VS Code
		}
		dec := json.NewDecoder(strings.NewReader(string(b[1])))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			t.Errorf("%v in\n%s", err, b[1])
			continue
		}
		for _, s := range append(slices.Collect(maps.Values(cfg.MCPServers)), slices.Collect(maps.Values(cfg.Servers))...) {
			switch {
			case s.Command != "":
				spawned++
				checkMnemoArgs(t, s.Command, s.Args)
			case s.URL != "":
				remote++
				u, err := url.Parse(s.URL)
				if err != nil || u.Path != "/mcp" || s.Headers["X-Mnemo-Agent"] == "" {
					t.Errorf("%s with headers %v: want the /mcp route and an X-Mnemo-Agent header", s.URL, s.Headers)
				}
			default:
				t.Errorf("a server with neither command nor url in\n%s", b[1])
			}
		}
	}
	for _, line := range regexp.MustCompile(`(?m)^(?:claude|codex) mcp add .* -- (.*)$`).FindAllStringSubmatch(string(readme), -1) {
		spawned++
		f := strings.Fields(line[1])
		checkMnemoArgs(t, f[0], f[1:])
	}
	if spawned < 3 || remote < 1 {
		t.Errorf("%d spawned and %d streamable-HTTP configurations, want 3 and 1", spawned, remote)
	}
}

// npmPackage is the npm package whose `mnemo` command the README's MCP
// configurations run with npx (packaging/npm).
const npmPackage = "@mnemo-dev/mnemo"

// checkMnemoArgs fails t unless command runs mnemo (npx -y npmPackage, or
// mnemo on PATH) and the CLI accepts the arguments after that.
func checkMnemoArgs(t *testing.T, command string, args []string) {
	t.Helper()
	switch {
	case command == "npx" && len(args) >= 2 && args[0] == "-y" && args[1] == npmPackage:
		args = args[2:]
	case command != "mnemo":
		t.Errorf("command %q %q: want npx -y %s or mnemo, the binary on PATH", command, args, npmPackage)
	}
	if len(args) == 0 || args[len(args)-1] != "mcp" {
		t.Errorf("args %q: want the mcp command last", args)
	}
	var stderr strings.Builder
	if code := Main(t.Context(), append(args, "--help"), strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Errorf("mnemo %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
}
