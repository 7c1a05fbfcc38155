// Package setup writes mnemo into the configuration of the MCP clients
// people run (AGT-5): Claude Desktop, Claude Code, Cursor, VS Code,
// Windsurf and Codex, each in its documented file and format, with the
// hooks of Claude Code, Cursor and Codex (its notify) and the rules files
// that tell Codex and Cursor when to call recall and remember (AGT-7). It plans every change before any is made:
// a file it cannot read as its format stops the run with nothing written.
package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
)

// Clients are the names Plan accepts.
var Clients = []string{"claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "codex"}

// Env is where a client's files are: the user's home, the OS, and the
// project directory for per-project files (rules).
type Env struct {
	Home    string
	GOOS    string
	AppData string // %APPDATA% on Windows; "" is Home\AppData\Roaming
	// ConfigHome is $XDG_CONFIG_HOME on Linux; "" is Home/.config.
	ConfigHome string
	Dir        string // the project
}

// Server is how a client runs mnemo.
type Server struct {
	// Command and Args run mnemo: the binary with no args, or npx with
	// -y and the npm package.
	Command string
	Args    []string
	// URL is the server the hooks talk to; "" is the hooks' default.
	URL string
}

// NPX runs mnemo from its npm package.
var NPX = Server{Command: "npx", Args: []string{"-y", "@mnemo-dev/mnemo"}}

// Change is one file a setup writes: its path, what it holds now (nil:
// it does not exist) and what it will hold.
type Change struct {
	Path     string
	Old, New []byte
	// Snippet is mnemo's part of New, for --print.
	Snippet string
	// Note is what the user should know of a part left undone.
	Note string
}

// Changed reports whether the change writes anything.
func (c Change) Changed() bool { return c.Old == nil || string(c.Old) != string(c.New) }

// FormatError is a client's file that is not in its format: setup
// refuses to touch it.
type FormatError struct {
	Path string
	Err  error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: %v: fix the file or move it away, then run setup again", e.Path, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// ErrUnknownClient is a client name not in Clients.
var ErrUnknownClient = errors.New("unknown client")

// Plan returns the changes that set client up, reading its files but
// writing none.
func Plan(client string, env Env, srv Server) ([]Change, error) {
	if env.Home == "" {
		return nil, errors.New("no home directory: set $HOME")
	}
	if srv.Command == "" {
		return nil, errors.New("no command to run mnemo")
	}
	switch client {
	case "claude-desktop":
		c, err := jsonServer(desktopPath(env), "mcpServers", stdio(srv, false, "--agent", "claude", "mcp"))
		return []Change{c}, err
	case "claude-code":
		// The MCP server in user scope, as `claude mcp add --scope user`
		// writes it, and the hooks in the user's settings.
		mcp, err := jsonServer(filepath.Join(env.Home, ".claude.json"), "mcpServers", stdio(srv, true, "mcp", "--project-agent"))
		if err != nil {
			return nil, err
		}
		hooks, err := claudeHooks(filepath.Join(env.Home, ".claude", "settings.json"), srv)
		return []Change{mcp, hooks}, err
	case "cursor":
		mcp, err := jsonServer(filepath.Join(env.Home, ".cursor", "mcp.json"), "mcpServers", stdio(srv, false, "--agent", "cursor", "mcp"))
		if err != nil {
			return nil, err
		}
		hooks, err := cursorHooks(filepath.Join(env.Home, ".cursor", "hooks.json"), srv)
		if err != nil {
			return nil, err
		}
		rules, err := wholeFile(filepath.Join(projectDir(env), ".cursor", "rules", "mnemo.mdc"), cursorRules)
		return []Change{mcp, hooks, rules}, err
	case "vscode":
		c, err := jsonServer(vscodePath(env), "servers", stdio(srv, true, "--agent", "vscode", "mcp"))
		return []Change{c}, err
	case "windsurf":
		c, err := jsonServer(filepath.Join(env.Home, ".codeium", "windsurf", "mcp_config.json"), "mcpServers", stdio(srv, false, "--agent", "windsurf", "mcp"))
		return []Change{c}, err
	case "codex":
		mcp, err := codexConfig(filepath.Join(env.Home, ".codex", "config.toml"), srv)
		if err != nil {
			return nil, err
		}
		agents, err := markedBlock(filepath.Join(env.Home, ".codex", "AGENTS.md"), codexInstructions)
		return []Change{mcp, agents}, err
	}
	return nil, fmt.Errorf("%w %q: want one of %s", ErrUnknownClient, client, strings.Join(Clients, ", "))
}

func projectDir(env Env) string {
	if env.Dir != "" {
		return env.Dir
	}
	return "."
}

// desktopPath is claude_desktop_config.json: in Application Support on
// macOS, %APPDATA%\Claude on Windows, ~/.config/Claude elsewhere.
func desktopPath(env Env) string {
	switch env.GOOS {
	case "darwin":
		return filepath.Join(env.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	case "windows":
		return filepath.Join(appData(env), "Claude", "claude_desktop_config.json")
	}
	return filepath.Join(configHome(env), "Claude", "claude_desktop_config.json")
}

// vscodePath is the user profile's mcp.json ("MCP: Open User
// Configuration").
func vscodePath(env Env) string {
	switch env.GOOS {
	case "darwin":
		return filepath.Join(env.Home, "Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		return filepath.Join(appData(env), "Code", "User", "mcp.json")
	}
	return filepath.Join(configHome(env), "Code", "User", "mcp.json")
}

func appData(env Env) string {
	if env.AppData != "" {
		return env.AppData
	}
	return filepath.Join(env.Home, "AppData", "Roaming")
}

func configHome(env Env) string {
	if env.ConfigHome != "" {
		return env.ConfigHome
	}
	return filepath.Join(env.Home, ".config")
}

// stdio is a client's entry for mnemo over stdio; typed adds "type":
// "stdio", which Claude Code and VS Code write.
func stdio(srv Server, typed bool, args ...string) *Object {
	o := NewObject()
	if typed {
		o.Set("type", "stdio")
	}
	o.Set("command", srv.Command)
	o.Set("args", toAny(append(slices.Clone(srv.Args), args...)))
	return o
}

func toAny(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// read returns a file's content, nil when it does not exist.
func read(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// readObject reads a JSON config file; a missing one is an empty object.
func readObject(path string) ([]byte, *Object, error) {
	old, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	o, err := DecodeObject(old)
	if err != nil {
		return nil, nil, &FormatError{Path: path, Err: fmt.Errorf("not valid JSON (%w)", err)}
	}
	return old, o, nil
}

// member returns o's member k as an object, made when missing; a member
// that is not an object is the file's error.
func member(path string, o *Object, k string) (*Object, error) {
	v, ok := o.Get(k)
	if !ok {
		m := NewObject()
		o.Set(k, m)
		return m, nil
	}
	m, isObj := v.(*Object)
	if !isObj {
		return nil, &FormatError{Path: path, Err: fmt.Errorf("%q is not a JSON object", k)}
	}
	return m, nil
}

// jsonServer sets the member "mnemo" of the object under section (the
// servers), keeping the rest of the file.
func jsonServer(path, section string, entry *Object) (Change, error) {
	old, doc, err := readObject(path)
	if err != nil {
		return Change{}, err
	}
	servers, err := member(path, doc, section)
	if err != nil {
		return Change{}, err
	}
	if cur, ok := servers.Get("mnemo"); ok && string(Encode(cur)) == string(Encode(entry)) {
		// Already there: the file is left as it is, formatting and all.
		return Change{Path: path, Old: old, New: old, Snippet: snippet(section, entry)}, nil
	}
	servers.Set("mnemo", entry)
	return Change{Path: path, Old: old, New: Encode(doc), Snippet: snippet(section, entry)}, nil
}

func snippet(section string, entry *Object) string {
	s, o := NewObject(), NewObject()
	o.Set("mnemo", entry)
	s.Set(section, o)
	return string(Encode(s))
}

// wholeFile is a file that is mnemo's alone.
func wholeFile(path, content string) (Change, error) {
	old, err := read(path)
	if err != nil {
		return Change{}, err
	}
	return Change{Path: path, Old: old, New: []byte(content), Snippet: content}, nil
}

// Markers around mnemo's part of a file others write too.
const (
	beginMark = "<!-- mnemo:begin (written by mnemo setup; it replaces what is between the marks) -->"
	endMark   = "<!-- mnemo:end -->"
)

// markedBlock puts block between mnemo's markers in a markdown file:
// replacing what the markers hold, else appended.
func markedBlock(path, block string) (Change, error) {
	old, err := read(path)
	if err != nil {
		return Change{}, err
	}
	part := beginMark + "\n" + block + endMark + "\n"
	s := string(old)
	var out string
	i := strings.Index(s, beginMark)
	j := strings.Index(s, endMark)
	switch {
	case i >= 0 && j > i:
		out = s[:i] + part + strings.TrimPrefix(s[j+len(endMark):], "\n")
	case i >= 0 || j >= 0:
		return Change{}, &FormatError{Path: path, Err: errors.New("it has one of mnemo's markers without the other")}
	case s == "":
		out = part
	default:
		out = strings.TrimRight(s, "\n") + "\n\n" + part
	}
	return Change{Path: path, Old: old, New: []byte(out), Snippet: block}, nil
}

// Diff is the unified diff of a change, "" when it changes nothing.
func Diff(c Change) string {
	if !c.Changed() {
		return ""
	}
	from := c.Path
	if c.Old == nil {
		from = "/dev/null"
	}
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(c.Old), B: lines(c.New),
		FromFile: from, ToFile: c.Path, Context: 3,
	})
	return d
}

// lines splits b into lines that each end in a newline.
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	ls := strings.SplitAfter(string(b), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	} else {
		ls[len(ls)-1] += "\n"
	}
	return ls
}

// Apply writes a change: the old file, if any, is first copied beside it
// (path.bak-<UTC time>), and the new one replaces it by a rename, so a
// reader never sees half of it. It returns the backup's path, "" when
// there was nothing to back up.
func Apply(c Change, now time.Time) (backup string, err error) {
	if !c.Changed() {
		return "", nil
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(c.Path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return "", err
	}
	if c.Old != nil {
		backup = c.Path + ".bak-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(backup, c.Old, mode); err != nil {
			return "", fmt.Errorf("backing up %s: %w", c.Path, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), "."+filepath.Base(c.Path)+".mnemo-*")
	if err != nil {
		return backup, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(c.New); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Close(); err != nil {
		return backup, err
	}
	return backup, os.Rename(tmp.Name(), c.Path)
}
