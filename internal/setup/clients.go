package setup

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// hookEvents are the Claude Code events mnemo hooks, with the argument
// `mnemo hook` takes for each.
var hookEvents = []struct{ event, arg string }{
	{"SessionStart", "session-start"},
	{"UserPromptSubmit", "user-prompt-submit"},
	{"PreCompact", "pre-compact"},
	{"Stop", "stop"},
}

// hookTimeout is the seconds Claude Code gives a hook before it stops it;
// mnemo's own bound (a second) is well inside.
const hookTimeout = 5

// HookCommand is the shell command of a Claude Code hook for event arg.
func HookCommand(srv Server, arg string) string {
	parts := []string{shellQuote(srv.Command)}
	for _, a := range srv.Args {
		parts = append(parts, shellQuote(a))
	}
	parts = append(parts, "hook", arg)
	if srv.URL != "" {
		parts = append(parts, shellQuote("--url="+srv.URL))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isMnemoHook recognises a hook an earlier setup wrote for arg, whatever
// binary it named.
var mnemoHook = regexp.MustCompile(`mnemo\S*'? hook ([a-z-]+)`)

func isMnemoHook(cmd, arg string) bool {
	m := mnemoHook.FindStringSubmatch(cmd)
	return m != nil && m[1] == arg
}

// claudeHooks adds mnemo's hooks to Claude Code's settings.json: one
// command hook per event, replacing one an earlier setup wrote, and
// keeping every other hook and setting.
func claudeHooks(path string, srv Server) (Change, error) {
	old, doc, err := readObject(path)
	if err != nil {
		return Change{}, err
	}
	hooks, err := member(path, doc, "hooks")
	if err != nil {
		return Change{}, err
	}
	changed := false
	mine := NewObject()
	for _, h := range hookEvents {
		cmd := HookCommand(srv, h.arg)
		entry := NewObject()
		entry.Set("type", "command")
		entry.Set("command", cmd)
		entry.Set("timeout", hookTimeout)
		group := NewObject()
		group.Set("hooks", []any{entry})
		mine.Set(h.event, []any{group})

		v, ok := hooks.Get(h.event)
		if !ok {
			hooks.Set(h.event, []any{group})
			changed = true
			continue
		}
		groups, isArr := v.([]any)
		if !isArr {
			return Change{}, &FormatError{Path: path, Err: fmt.Errorf("hooks.%s is not a JSON array", h.event)}
		}
		found := false
		for _, g := range groups {
			gobj, ok := g.(*Object)
			if !ok {
				continue
			}
			hv, _ := gobj.Get("hooks")
			list, _ := hv.([]any)
			for _, e := range list {
				eobj, ok := e.(*Object)
				if !ok {
					continue
				}
				c, _ := eobj.Get("command")
				cs, _ := c.(string)
				if !isMnemoHook(cs, h.arg) {
					continue
				}
				found = true
				if cs != cmd {
					eobj.Set("command", cmd)
					changed = true
				}
			}
		}
		if !found {
			hooks.Set(h.event, append(groups, group))
			changed = true
		}
	}
	wrap := NewObject()
	wrap.Set("hooks", mine)
	c := Change{Path: path, Old: old, New: old, Snippet: string(Encode(wrap))}
	if changed {
		c.New = Encode(doc)
	}
	return c, nil
}

// codexConfig sets [mcp_servers.mnemo] and, when Codex runs no other
// notify program, notify in Codex's config.toml (AGT-5). The file is
// checked with a TOML parser before and after; mnemo's parts are replaced
// or added as text, so the rest of the file, comments included, stays as
// it was.
func codexConfig(path string, srv Server) (Change, error) {
	old, err := read(path)
	if err != nil {
		return Change{}, err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(old), &doc); err != nil {
		return Change{}, &FormatError{Path: path, Err: fmt.Errorf("not valid TOML (%v)", oneLine(err.Error()))}
	}
	block, err := codexBlock(srv)
	if err != nil {
		return Change{}, err
	}
	notify, err := codexNotifyLine(srv)
	if err != nil {
		return Change{}, err
	}
	out, err := placeServer(path, string(old), doc, block)
	if err != nil {
		return Change{}, err
	}
	out, note := placeNotify(out, doc, notify)
	var check map[string]any
	if _, err := toml.Decode(out, &check); err != nil || !sameServer(check, block) {
		// A header-like line inside a multi-line string, say: the text
		// edit went wrong, and the file is left alone.
		return Change{}, &FormatError{Path: path, Err: errors.New("setup could not place [mcp_servers.mnemo] in it: add the snippet of --print by hand")}
	}
	return Change{Path: path, Old: old, New: []byte(out), Snippet: notify + "\n" + block, Note: note}, nil
}

// placeServer puts block, mnemo's table, in text: in place of the table
// there is, which runs to the next header (its subtables, such as
// [mcp_servers.mnemo.env], are kept), else at the end.
func placeServer(path, text string, doc map[string]any, block string) (string, error) {
	if sameServer(doc, block) {
		return text, nil
	}
	lines := strings.SplitAfter(text, "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		name, ok := tableHeader(l)
		if !ok {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if name == "mcp_servers.mnemo" {
			start = i
		}
	}
	switch {
	case start >= 0:
		rest := strings.Join(lines[end:], "")
		if rest != "" {
			rest = "\n" + rest
		}
		return strings.Join(lines[:start], "") + block + rest, nil
	case hasServer(doc):
		return "", &FormatError{Path: path, Err: errors.New("mcp_servers.mnemo is written in a form setup does not edit (not as a [mcp_servers.mnemo] table): change it by hand or remove it")}
	case strings.TrimSpace(text) == "":
		return block, nil
	}
	return strings.TrimRight(text, "\n") + "\n\n" + block, nil
}

// placeNotify sets the top-level notify to line (mnemo's hook) when the
// file has none, or has mnemo's on one line; another program's is left,
// and said in the note.
func placeNotify(text string, doc map[string]any, line string) (string, string) {
	cur, ok := doc["notify"]
	if !ok {
		// A top-level key goes before the first table.
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			if _, isHeader := tableHeader(l); isHeader {
				return strings.Join(lines[:i], "") + line + "\n\n" + strings.Join(lines[i:], ""), ""
			}
		}
		if strings.TrimSpace(text) == "" {
			return line + "\n", ""
		}
		return strings.TrimRight(text, "\n") + "\n" + line + "\n", ""
	}
	args, _ := cur.([]any)
	ours := false
	for _, a := range args {
		if a == "codex-notify" {
			ours = true
		}
	}
	if !ours {
		return text, "Codex already runs another notify program: its turns are not stored in mnemo (notify takes one program)"
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if _, isHeader := tableHeader(l); isHeader {
			break
		}
		if k, _, found := strings.Cut(l, "="); found && strings.TrimSpace(k) == "notify" {
			if strings.TrimSpace(l) == line {
				return text, ""
			}
			var probe map[string]any
			if _, err := toml.Decode(l, &probe); err != nil {
				break // an array over several lines: left as it is
			}
			lines[i] = line + "\n"
			return strings.Join(lines, ""), ""
		}
	}
	return text, "notify runs mnemo in a form setup does not edit: it was left as it is"
}

// codexNotifyLine is the notify setting that runs mnemo's Codex hook.
func codexNotifyLine(srv Server) (string, error) {
	args := append(append([]string{srv.Command}, srv.Args...), "hook", "codex-notify")
	if srv.URL != "" {
		args = append(args, "--url="+srv.URL)
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(struct {
		Notify []string `toml:"notify"`
	}{args}); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// codexBlock is mnemo's table, its values written by the TOML encoder.
func codexBlock(srv Server) (string, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	err := enc.Encode(struct {
		Command string   `toml:"command"`
		Args    []string `toml:"args"`
	}{srv.Command, append(append([]string{}, srv.Args...), "--agent", "codex", "mcp")})
	if err != nil {
		return "", err
	}
	return "[mcp_servers.mnemo]\n" + b.String(), nil
}

// tableHeader returns the name of a [table] or [[array]] header line,
// its keys unquoted and joined by dots.
func tableHeader(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if i := strings.Index(s, "#"); i >= 0 && !strings.ContainsAny(s[:i], `"'`) {
		s = strings.TrimSpace(s[:i])
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return "", false
	}
	s = strings.Trim(s, "[]")
	var parts []string
	for _, p := range strings.Split(s, ".") {
		parts = append(parts, strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return strings.Join(parts, "."), true
}

// sameServer reports whether doc's mnemo server has the command and args
// of block.
func sameServer(doc map[string]any, block string) bool {
	var want map[string]any
	if _, err := toml.Decode(block, &want); err != nil || !hasServer(doc) {
		return false
	}
	cur, _ := doc["mcp_servers"].(map[string]any)["mnemo"].(map[string]any)
	w := want["mcp_servers"].(map[string]any)["mnemo"].(map[string]any)
	return cur != nil && reflect.DeepEqual(cur["command"], w["command"]) && reflect.DeepEqual(cur["args"], w["args"])
}

func hasServer(doc map[string]any) bool {
	s, ok := doc["mcp_servers"].(map[string]any)
	if !ok {
		return false
	}
	_, ok = s["mnemo"]
	return ok
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cursorHookEvents are the Cursor hooks mnemo's `hook cursor` answers.
var cursorHookEvents = []string{"beforeSubmitPrompt", "afterAgentResponse"}

// cursorHooks adds mnemo's hooks to Cursor's hooks.json (version 1: each
// event a list of {"command": …}), replacing those an earlier setup wrote
// and keeping every other (AGT-7).
func cursorHooks(path string, srv Server) (Change, error) {
	old, doc, err := readObject(path)
	if err != nil {
		return Change{}, err
	}
	if _, ok := doc.Get("version"); !ok {
		doc.Set("version", 1)
	}
	hooks, err := member(path, doc, "hooks")
	if err != nil {
		return Change{}, err
	}
	cmd := HookCommand(srv, "cursor")
	mine := NewObject()
	changed := false
	for _, ev := range cursorHookEvents {
		entry := NewObject()
		entry.Set("command", cmd)
		mine.Set(ev, []any{entry})
		v, ok := hooks.Get(ev)
		if !ok {
			hooks.Set(ev, []any{entry})
			changed = true
			continue
		}
		list, isArr := v.([]any)
		if !isArr {
			return Change{}, &FormatError{Path: path, Err: fmt.Errorf("hooks.%s is not a JSON array", ev)}
		}
		found := false
		for _, e := range list {
			eobj, ok := e.(*Object)
			if !ok {
				continue
			}
			c, _ := eobj.Get("command")
			if cs, _ := c.(string); isMnemoHook(cs, "cursor") {
				found = true
				if cs != cmd {
					eobj.Set("command", cmd)
					changed = true
				}
			}
		}
		if !found {
			hooks.Set(ev, append(list, entry))
			changed = true
		}
	}
	snip := NewObject()
	snip.Set("version", 1)
	snip.Set("hooks", mine)
	c := Change{Path: path, Old: old, New: old, Snippet: string(Encode(snip))}
	if changed || old == nil {
		c.New = Encode(doc)
	}
	return c, nil
}
