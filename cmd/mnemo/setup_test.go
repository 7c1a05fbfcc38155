package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo/internal/agenthook"
)

// TestSetupCommand: mnemo setup on fixture files: --print and --dry-run
// write nothing, a run writes and backs up, a second run changes nothing,
// a malformed file is refused with exit 2 and one line (AGT-5, AGT-6).
func TestSetupCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o755); err != nil {
		t.Fatal(err)
	}
	const before = `{"mcpServers": {"github": {"command": "gh-mcp"}}}`
	if err := os.WriteFile(cursor, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	setup := func(args ...string) (int, string, string) {
		return run(t, t.TempDir(), "", append([]string{"setup"}, args...)...)
	}
	unchanged := func() {
		t.Helper()
		if b, _ := os.ReadFile(cursor); string(b) != before {
			t.Fatalf("the file changed:\n%s", b)
		}
	}

	code, out, errs := setup("cursor", "--print", "--command=/usr/local/bin/mnemo", "--dir", project)
	if code != 0 || !strings.Contains(out, `"command": "/usr/local/bin/mnemo"`) || !strings.Contains(out, "alwaysApply") {
		t.Fatalf("--print: exit %d\n%s%s", code, out, errs)
	}
	unchanged()

	code, out, errs = setup("cursor", "--dry-run", "--npx", "--dir", project)
	if code != 0 || !strings.Contains(out, "+++ "+cursor) || !strings.Contains(out, `+      "command": "npx",`) || !strings.Contains(out, `"github"`) {
		t.Fatalf("--dry-run: exit %d\n%s%s", code, out, errs)
	}
	unchanged()

	code, out, errs = setup("cursor", "--npx", "--dir", project)
	if code != 0 || !strings.Contains(out, cursor+": updated (the old one is "+cursor+".bak-") {
		t.Fatalf("setup: exit %d\n%s%s", code, out, errs)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(cursor)
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.MCPServers["github"].Command != "gh-mcp" ||
		strings.Join(cfg.MCPServers["mnemo"].Args, " ") != "-y @mnemo-dev/mnemo --agent cursor mcp" {
		t.Fatalf("%v:\n%s", err, b)
	}
	// The client's command works: this binary takes the arguments.
	checkMnemoArgs(t, cfg.MCPServers["mnemo"].Command, cfg.MCPServers["mnemo"].Args)
	if _, err := os.Stat(filepath.Join(project, ".cursor", "rules", "mnemo.mdc")); err != nil {
		t.Fatal(err)
	}

	code, out, _ = setup("cursor", "--npx", "--dir", project)
	if code != 0 || strings.Count(out, ": unchanged") != 3 {
		t.Fatalf("second run: exit %d\n%s", code, out)
	}

	if err := os.WriteFile(cursor, []byte(`{"mcpServers": {"github": {"command": "gh-mcp"},}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"cursor"}, cursor + ": not valid JSON (line 1"},
		{[]string{"emacs"}, `unknown client "emacs"`},
		{[]string{"cursor", "--npx", "--command=x"}, "do not go together"},
		{[]string{"cursor", "--print", "--dry-run"}, "do not go together"},
		{[]string{}, "accepts 1 arg"},
	} {
		code, out, errs := setup(tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("setup %v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.args, code, out, errs, tt.want)
		}
	}
	if b, _ := os.ReadFile(cursor); !strings.Contains(string(b), `},}}`) {
		t.Errorf("the malformed file was changed:\n%s", b)
	}
}

// TestSetupClaudeCodeEndToEnd is what a Claude Code user gets from one
// command: the hooks setup writes, run as Claude Code runs them against a
// served mnemo, inject the agent's memories at session start and keep the
// conversation at stop (AGT-1).
func TestSetupClaudeCodeEndToEnd(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	srv := startServe(t, "--data", t.TempDir())
	const bin = "/opt/mnemo dir/mnemo"
	if code, out, errs := run(t, t.TempDir(), "", "setup", "claude-code", "--command", bin, "--url", srv); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	b, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	// hookArgs are the arguments of the hook Claude Code runs for event.
	hookArgs := func(event string) []string {
		t.Helper()
		groups := settings.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Type != "command" {
			t.Fatalf("%s hooks: %+v", event, groups)
		}
		cmd := groups[0].Hooks[0].Command
		rest, ok := strings.CutPrefix(cmd, "'"+bin+"' ")
		if !ok {
			t.Fatalf("%s runs %q, not %s", event, cmd, bin)
		}
		return strings.Fields(rest)[1:] // after "hook"
	}
	var claude struct {
		MCPServers map[string]struct {
			Type, Command string
			Args          []string
		} `json:"mcpServers"`
	}
	b, _ = os.ReadFile(filepath.Join(home, ".claude.json"))
	if err := json.Unmarshal(b, &claude); err != nil || claude.MCPServers["mnemo"].Command != bin {
		t.Fatalf("~/.claude.json: %v\n%s", err, b)
	}

	repo := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	writeTranscript(t, transcript, transcriptLines("one", 0, 2))
	out, _ := runHook(t, claudeHookInput(t, "Stop", "one", transcript, repo, nil), hookArgs("Stop")...)
	if out != "" {
		t.Errorf("stop printed %q", out)
	}
	// The next session starts with what the first said.
	out, errs := runHook(t, claudeHookInput(t, "SessionStart", "two", "", repo, map[string]any{"source": "startup"}), hookArgs("SessionStart")...)
	if got := hookContext(t, "SessionStart", out); !strings.Contains(got, "Redis") {
		t.Errorf("session start context = %q (%s), want the last session's turns", got, errs)
	}
	out, _ = runHook(t, claudeHookInput(t, "UserPromptSubmit", "two", "", repo, map[string]any{"prompt": "what port does the Redis cache use"}), hookArgs("UserPromptSubmit")...)
	if got := hookContext(t, "UserPromptSubmit", out); !strings.Contains(got, "63") {
		t.Errorf("prompt context = %q", got)
	}
	// The MCP server setup wrote takes the same agent as the hooks.
	if want := agenthook.AgentFromDir(repo); want != "shop" {
		t.Fatalf("agent %q", want)
	}
}

// TestClaudeCodePlugin checks the plugin in integrations/claude-code: its
// manifest, that each hook runs `mnemo hook` for the event it is under,
// that its MCP server's arguments are ones mnemo takes, and that the
// repository's marketplace lists it (AGT-1).
func TestClaudeCodePlugin(t *testing.T) {
	root := "../../integrations/claude-code"
	var manifest struct{ Name, Version, Description string }
	readJSON(t, filepath.Join(root, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != "mnemo" || manifest.Version == "" || manifest.Description == "" {
		t.Errorf("plugin.json: %+v", manifest)
	}
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	readJSON(t, filepath.Join(root, "hooks", "hooks.json"), &hooks)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "Stop"} {
		groups := hooks.Hooks[ev]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: %+v", ev, groups)
			continue
		}
		h := groups[0].Hooks[0]
		f := strings.Fields(h.Command)
		if h.Type != "command" || len(f) != 3 || f[0] != "mnemo" || f[1] != "hook" || h.Timeout < 2 {
			t.Errorf("%s runs %+v, want mnemo hook <event> with a timeout above the hook's second", ev, h)
			continue
		}
		if name, ok := agenthook.EventName(f[2]); !ok || name != ev {
			t.Errorf("%s runs the hook of %q", ev, f[2])
		}
	}
	var mcp struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(root, ".mcp.json"), &mcp)
	s, ok := mcp.MCPServers["mnemo"]
	if !ok || s.Command != "mnemo" {
		t.Fatalf(".mcp.json: %+v", mcp)
	}
	var stderr strings.Builder
	if code := Main(t.Context(), append(s.Args, "--help"), strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Errorf("mnemo %v: exit %d: %s", s.Args, code, stderr.String())
	}
	var market struct {
		Name    string
		Plugins []struct{ Name, Source string }
	}
	readJSON(t, "../../.claude-plugin/marketplace.json", &market)
	if len(market.Plugins) != 1 || market.Plugins[0].Name != manifest.Name {
		t.Fatalf("marketplace.json: %+v", market)
	}
	if _, err := os.Stat(filepath.Join("../..", market.Plugins[0].Source, ".claude-plugin", "plugin.json")); err != nil {
		t.Errorf("the marketplace's source: %v", err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestMCPProjectAgent: `mnemo mcp --project-agent`, as the plugin and
// setup run it, serves the agent of the repository it starts in, the one
// the hooks use (AGT-2); --agent still names another.
func TestMCPProjectAgent(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "Shop Front")
	sub := filepath.Join(repo, "cmd")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--project-agent"}, "shop-front"},
		{[]string{}, "default"},
	} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		cfg := defaultConfig()
		cfg.Data = t.TempDir()
		a := &app{stdin: inR, stdout: outW, stderr: io.Discard, getenv: func(string) string { return "" }, cfg: cfg}
		ctx, cancel := context.WithCancel(t.Context())
		cmd := a.withProjectAgent(a.mcpCommand())
		if err := cmd.ParseFlags(tt.args); err != nil {
			t.Fatal(err)
		}
		cmd.SetContext(ctx)
		done := make(chan error, 1)
		go func() {
			done <- cmd.RunE(cmd, nil)
			outW.Close()
		}()
		client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "0"}, nil)
		cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			AgentID string `json:"agent_id"`
		}
		decodeJSON(t, callTool(t, cs, "status", nil).StructuredContent, &st)
		if st.AgentID != tt.want {
			t.Errorf("mcp %v: agent %q, want %q", tt.args, st.AgentID, tt.want)
		}
		cs.Close()
		cancel()
		inW.Close()
		<-done
	}
}
