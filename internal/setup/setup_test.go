package setup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

var bin = Server{Command: "/opt/mnemo/bin/mnemo"}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// applyAll plans client's setup and applies it, and returns the changes.
func applyAll(t *testing.T, client string, env Env, srv Server) []Change {
	t.Helper()
	cs, err := Plan(client, env, srv)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if _, err := Apply(c, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return cs
}

func decodeJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// TestPlanJSONClients: each JSON client's file, with another server and
// other settings in it, gets mnemo's entry beside them, in the client's
// documented place and shape; a second run changes nothing (AGT-5, AGT-6).
func TestPlanJSONClients(t *testing.T) {
	tests := []struct {
		client, goos, rel, section string
		typed                      bool
		args                       []string
	}{
		{"claude-desktop", "linux", ".config/Claude/claude_desktop_config.json", "mcpServers", false, []string{"--agent", "claude", "mcp"}},
		{"claude-desktop", "darwin", "Library/Application Support/Claude/claude_desktop_config.json", "mcpServers", false, []string{"--agent", "claude", "mcp"}},
		{"claude-desktop", "windows", "AppData/Roaming/Claude/claude_desktop_config.json", "mcpServers", false, []string{"--agent", "claude", "mcp"}},
		{"claude-code", "linux", ".claude.json", "mcpServers", true, []string{"mcp", "--project-agent"}},
		{"cursor", "linux", ".cursor/mcp.json", "mcpServers", false, []string{"--agent", "cursor", "mcp"}},
		{"vscode", "linux", ".config/Code/User/mcp.json", "servers", true, []string{"--agent", "vscode", "mcp"}},
		{"vscode", "darwin", "Library/Application Support/Code/User/mcp.json", "servers", true, []string{"--agent", "vscode", "mcp"}},
		{"windsurf", "linux", ".codeium/windsurf/mcp_config.json", "mcpServers", false, []string{"--agent", "windsurf", "mcp"}},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.goos, func(t *testing.T) {
			home := t.TempDir()
			env := Env{Home: home, GOOS: tt.goos, Dir: t.TempDir()}
			path := filepath.Join(home, filepath.FromSlash(tt.rel))
			write(t, path, `{"theme": "dark", "`+tt.section+`": {"other": {"command": "other-server", "args": ["--x"]}}, "numbers": [1.50, 2e3]}`)
			cs := applyAll(t, tt.client, env, bin)
			if cs[0].Path != path {
				t.Fatalf("path = %s, want %s", cs[0].Path, path)
			}
			got := decodeJSON(t, path)
			servers := got[tt.section].(map[string]any)
			if servers["other"] == nil || got["theme"] != "dark" {
				t.Errorf("the file lost what it had: %v", got)
			}
			want := map[string]any{"command": bin.Command, "args": toAnySlice(tt.args)}
			if tt.typed {
				want["type"] = "stdio"
			}
			if !reflect.DeepEqual(servers["mnemo"], want) {
				t.Errorf("mnemo = %v, want %v", servers["mnemo"], want)
			}
			if b, _ := os.ReadFile(path); !strings.Contains(string(b), "1.50") || strings.Index(string(b), "theme") > strings.Index(string(b), "numbers") {
				t.Errorf("numbers or member order changed:\n%s", b)
			}
			matches, _ := filepath.Glob(path + ".bak-*")
			if len(matches) != 1 {
				t.Errorf("backups: %v, want one", matches)
			}
			again, err := Plan(tt.client, env, bin)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range again {
				if c.Changed() {
					t.Errorf("a second run changes %s:\n%s", c.Path, Diff(c))
				}
			}
		})
	}
}

func toAnySlice(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// TestPlanRefusesMalformed: a file that is not its format is left alone,
// and the error names it and where (AGT-6).
func TestPlanRefusesMalformed(t *testing.T) {
	tests := []struct{ client, rel, content, want string }{
		{"cursor", ".cursor/mcp.json", "{\n  \"mcpServers\": {\n    // a comment\n  }\n}", "line 3"},
		{"cursor", ".cursor/mcp.json", `{"mcpServers": {"a": 1},}`, "not valid JSON"},
		{"cursor", ".cursor/mcp.json", `{"mcpServers": [1]}`, `"mcpServers" is not a JSON object`},
		{"cursor", ".cursor/mcp.json", `[1, 2]`, "not a JSON object"},
		{"windsurf", ".codeium/windsurf/mcp_config.json", `{"mcpServers": `, "end of the file"},
		{"claude-code", ".claude/settings.json", `{"hooks": {"Stop": {"command": "x"}}}`, "hooks.Stop is not a JSON array"},
		{"codex", ".codex/config.toml", "[mcp_servers\ncommand = 1\n", "not valid TOML"},
		{"codex", ".codex/config.toml", "mcp_servers = { mnemo = { command = \"x\" } }\n", "form setup does not edit"},
		{"codex", ".codex/AGENTS.md", "<!-- mnemo:end -->\n", "markers"},
	}
	for _, tt := range tests {
		t.Run(tt.client+" "+tt.want, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, filepath.FromSlash(tt.rel))
			write(t, path, tt.content)
			_, err := Plan(tt.client, Env{Home: home, GOOS: "linux", Dir: t.TempDir()}, bin)
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a FormatError for %s saying %q", err, path, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is more than one line: %q", err)
			}
		})
	}
}

// TestClaudeCodeHooksMerge: mnemo's hooks join the user's own, and replace
// those an earlier setup wrote for another binary (AGT-1).
func TestClaudeCodeHooksMerge(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude", "settings.json")
	write(t, path, `{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "/old/place/mnemo hook session-start"}]}]
  }
}`)
	applyAll(t, "claude-code", Env{Home: home, GOOS: "linux"}, Server{Command: "/new place/mnemo", URL: "http://127.0.0.1:9000"})
	var got struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "opus" {
		t.Errorf("model = %q", got.Model)
	}
	var cmds []string
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "Stop"} {
		for _, g := range got.Hooks[ev] {
			for _, h := range g.Hooks {
				cmds = append(cmds, ev+": "+h.Command)
			}
		}
	}
	want := []string{
		"SessionStart: '/new place/mnemo' hook session-start --url=http://127.0.0.1:9000",
		"UserPromptSubmit: '/new place/mnemo' hook user-prompt-submit --url=http://127.0.0.1:9000",
		"PreCompact: '/new place/mnemo' hook pre-compact --url=http://127.0.0.1:9000",
		"Stop: say done",
		"Stop: '/new place/mnemo' hook stop --url=http://127.0.0.1:9000",
	}
	if !reflect.DeepEqual(cmds, want) {
		t.Errorf("hooks:\n%s\nwant\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"))
	}
	if got.Hooks["SessionStart"][0].Matcher != "startup" {
		t.Errorf("the user's matcher was lost")
	}
	// Set up again from yet another place: still one hook per event.
	applyAll(t, "claude-code", Env{Home: home, GOOS: "linux"}, NPX)
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "hook stop"); n != 1 {
		t.Errorf("%d stop hooks after a second setup, want 1:\n%s", n, b)
	}
	if !strings.Contains(string(b), "npx -y @mnemo-dev/mnemo hook stop") {
		t.Errorf("the npx command is not in:\n%s", b)
	}
}

// TestCodexConfig: [mcp_servers.mnemo] is added to or replaced in a
// config.toml with comments, other servers and mnemo's env subtable kept,
// and AGENTS.md gets the instructions once (AGT-5, AGT-7).
func TestCodexConfig(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".codex", "config.toml")
	agents := filepath.Join(home, ".codex", "AGENTS.md")
	write(t, cfg, `# my settings
model = "o3"

[mcp_servers.other]
command = "other"   # keep me

[mcp_servers.mnemo]
command = "/old/mnemo"
args = ["mcp"]

[mcp_servers.mnemo.env]
MNEMO_DATA = "/data"

[profiles.fast]
model = "o4-mini"
`)
	write(t, agents, "# Rules\n\nAlways run the tests.\n")
	env := Env{Home: home, GOOS: "linux"}
	applyAll(t, "codex", env, bin)
	b, _ := os.ReadFile(cfg)
	var doc struct {
		Model      string
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `toml:"mcp_servers"`
		Profiles map[string]map[string]string
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	m := doc.MCPServers["mnemo"]
	if m.Command != bin.Command || strings.Join(m.Args, " ") != "--agent codex mcp" || m.Env["MNEMO_DATA"] != "/data" {
		t.Errorf("mnemo = %+v", m)
	}
	if doc.Model != "o3" || doc.MCPServers["other"].Command != "other" || doc.Profiles["fast"]["model"] != "o4-mini" {
		t.Errorf("the rest changed: %+v", doc)
	}
	if !strings.Contains(string(b), "# keep me") || !strings.HasPrefix(string(b), "# my settings\n") {
		t.Errorf("comments lost:\n%s", b)
	}
	a, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(a), "# Rules\n\nAlways run the tests.\n\n"+beginMark) || !strings.Contains(string(a), "`recall`") {
		t.Errorf("AGENTS.md:\n%s", a)
	}
	for _, c := range mustPlan(t, "codex", env, bin) {
		if c.Changed() {
			t.Errorf("a second run changes %s:\n%s", c.Path, Diff(c))
		}
	}
	// A new file, with npx.
	home2 := t.TempDir()
	applyAll(t, "codex", Env{Home: home2, GOOS: "linux"}, NPX)
	b, _ = os.ReadFile(filepath.Join(home2, ".codex", "config.toml"))
	want := "notify = [\"npx\", \"-y\", \"@mnemo-dev/mnemo\", \"hook\", \"codex-notify\"]\n\n" +
		"[mcp_servers.mnemo]\ncommand = \"npx\"\nargs = [\"-y\", \"@mnemo-dev/mnemo\", \"--agent\", \"codex\", \"mcp\"]\n"
	if string(b) != want {
		t.Errorf("new config.toml:\n%s\nwant\n%s", b, want)
	}
}

// TestCodexNotify: notify runs mnemo's Codex hook unless Codex runs
// another program, which is kept and said (AGT-1, AGT-6).
func TestCodexNotify(t *testing.T) {
	tests := []struct {
		name, before string
		wantNotify   []string
		note         string
	}{
		{"none", "model = \"o3\"\n\n[tui]\nnotifications = true\n",
			[]string{bin.Command, "hook", "codex-notify"}, ""},
		{"another program", "notify = [\"notify-send\", \"Codex\"]\n",
			[]string{"notify-send", "Codex"}, "another notify program"},
		{"an earlier setup", "notify = [\"/old/mnemo\", \"hook\", \"codex-notify\"] # mine\n[x]\ny = 1\n",
			[]string{bin.Command, "hook", "codex-notify"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, ".codex", "config.toml")
			write(t, path, tt.before)
			cs := applyAll(t, "codex", Env{Home: home, GOOS: "linux"}, bin)
			if !strings.Contains(cs[0].Note, tt.note) || (tt.note == "") != (cs[0].Note == "") {
				t.Errorf("note = %q, want %q", cs[0].Note, tt.note)
			}
			b, _ := os.ReadFile(path)
			var doc struct {
				Notify []string
				TUI    map[string]bool `toml:"tui"`
			}
			if _, err := toml.Decode(string(b), &doc); err != nil {
				t.Fatalf("%v:\n%s", err, b)
			}
			if !reflect.DeepEqual(doc.Notify, tt.wantNotify) {
				t.Errorf("notify = %q, want %q\n%s", doc.Notify, tt.wantNotify, b)
			}
			if strings.Contains(tt.before, "[tui]") && !doc.TUI["notifications"] {
				t.Errorf("[tui] lost:\n%s", b)
			}
			for _, c := range mustPlan(t, "codex", Env{Home: home, GOOS: "linux"}, bin) {
				if c.Changed() {
					t.Errorf("a second run changes %s:\n%s", c.Path, Diff(c))
				}
			}
		})
	}
}

func mustPlan(t *testing.T, client string, env Env, srv Server) []Change {
	t.Helper()
	cs, err := Plan(client, env, srv)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestCursorHooks: mnemo's hooks join the user's in ~/.cursor/hooks.json,
// once (AGT-7).
func TestCursorHooks(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "hooks.json")
	write(t, path, `{"version": 1, "hooks": {"afterAgentResponse": [{"command": "./audit.sh"}], "afterFileEdit": [{"command": "fmt"}]}}`)
	env := Env{Home: home, GOOS: "linux", Dir: t.TempDir()}
	applyAll(t, "cursor", env, Server{Command: "/old/mnemo"})
	applyAll(t, "cursor", env, bin)
	var got struct {
		Version int
		Hooks   map[string][]struct{ Command string }
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"afterAgentResponse": {"./audit.sh", bin.Command + " hook cursor"},
		"afterFileEdit":      {"fmt"},
		"beforeSubmitPrompt": {bin.Command + " hook cursor"},
	}
	for ev, cmds := range want {
		var have []string
		for _, h := range got.Hooks[ev] {
			have = append(have, h.Command)
		}
		if !reflect.DeepEqual(have, cmds) {
			t.Errorf("%s: %q, want %q", ev, have, cmds)
		}
	}
	if got.Version != 1 {
		t.Errorf("version = %d", got.Version)
	}
}

// TestCursorRules: the rule is written in the project, and replaced when
// it differs (AGT-7).
func TestCursorRules(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	rule := filepath.Join(dir, ".cursor", "rules", "mnemo.mdc")
	write(t, rule, "old rule\n")
	applyAll(t, "cursor", Env{Home: home, GOOS: "linux", Dir: dir}, bin)
	b, _ := os.ReadFile(rule)
	if !strings.HasPrefix(string(b), "---\n") || !strings.Contains(string(b), "alwaysApply: true") || !strings.Contains(string(b), "`remember`") {
		t.Errorf("rule:\n%s", b)
	}
}

func TestPlanUnknownClient(t *testing.T) {
	_, err := Plan("emacs", Env{Home: t.TempDir()}, bin)
	if !errors.Is(err, ErrUnknownClient) || !strings.Contains(err.Error(), "claude-desktop") {
		t.Errorf("err = %v", err)
	}
}

func TestDecodeEncodeObject(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "{}\n"},
		{`{"b":1,"a":[true,null,"x<y"],"c":{}}`, "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    \"x<y\"\n  ],\n  \"c\": {}\n}\n"},
		{`{"n": 1.0e10, "u": "\u00e9"}`, "{\n  \"n\": 1.0e10,\n  \"u\": \"é\"\n}\n"},
	}
	for _, tt := range tests {
		o, err := DecodeObject([]byte(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := string(Encode(o)); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["y"]}},"n":1.5}`))
	f.Add([]byte(`{"a":[[[{}]]]}`))
	f.Add([]byte(`{"a":1,}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeObject(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		out := Encode(o)
		if !json.Valid(out) {
			t.Fatalf("invalid output %q from %q", out, b)
		}
		o2, err := DecodeObject(out)
		if err != nil || string(Encode(o2)) != string(out) {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
	})
}

func FuzzCodexConfig(f *testing.F) {
	f.Add("model = \"o3\"\n[mcp_servers.mnemo]\ncommand = \"x\"\n[other]\na = 1\n")
	f.Add("[mcp_servers.\"mnemo\"] # c\nargs = [\n \"a\",\n]\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		home := t.TempDir()
		write(t, filepath.Join(home, ".codex", "config.toml"), s)
		c, err := codexConfig(filepath.Join(home, ".codex", "config.toml"), bin)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		var doc map[string]any
		if _, err := toml.Decode(string(c.New), &doc); err != nil {
			t.Fatalf("output is not TOML: %v\n%s", err, c.New)
		}
		block, _ := codexBlock(bin)
		if !sameServer(doc, block) {
			t.Fatalf("output has no mnemo server:\n%s", c.New)
		}
	})
}
