package importers

import (
	"encoding/json"
	"io"
	"strings"
)

// Claude Code keeps each session as JSON Lines under
// ~/.claude/projects/<project>/<session>.jsonl: a line per event, of which
// those of type user and assistant hold a message (role, and content as a
// string or as blocks: text, thinking, tool_use, tool_result). What is
// kept is what was said in words; tool calls and their results, the
// model's thinking, the tool's own meta lines and a subagent's side chain
// are the session's machinery, not its conversation (IMP-6).

type ccLine struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	IsMeta    bool   `json:"isMeta"`
	Sidechain bool   `json:"isSidechain"`
	Summary   string `json:"summary"`
	Message   struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// ReadClaudeCode streams the sessions of one Claude Code session file, in
// the order they first appear; name (the file's, without .jsonl) stands for
// the session id of lines without one.
func ReadClaudeCode(r io.Reader, name string, yield func(Conversation) error) error {
	g := newGroups(name)
	err := readLines(r, func(line int, raw []byte) error {
		var l ccLine
		if err := decode(raw, &l); err != nil {
			return err
		}
		if l.Type == "summary" {
			if s := clean(l.Summary); s != "" {
				g.summary = s
			}
			return nil
		}
		if l.Type != "user" && l.Type != "assistant" || l.IsMeta || l.Sidechain {
			return nil
		}
		at, err := parseTime(l.Timestamp)
		if err != nil {
			return err
		}
		role := l.Message.Role
		if role == "" {
			role = l.Type
		}
		if role != "user" && role != "assistant" {
			return nil
		}
		text, err := blocksText(l.Message.Content, "text")
		if err != nil {
			return err
		}
		if text == "" || role == "user" && commandNoise(text) {
			return nil
		}
		id := l.UUID
		if clean(id) == "" {
			id = "l" + itoa(line)
		}
		g.add(l.SessionID, Message{ID: id, Role: role, Text: text, Time: at})
		return nil
	})
	if err != nil {
		return err
	}
	return g.flush(yield)
}

// blocksText reads message content that is a string or an array of
// blocks, and joins the text of the blocks of the given types.
func blocksText(raw json.RawMessage, types ...string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return clean(s), nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", errorf("message.content is neither text nor a list of blocks")
	}
	var parts []string
	for _, b := range blocks {
		for _, t := range types {
			if b.Type == t && clean(b.Text) != "" {
				parts = append(parts, clean(b.Text))
			}
		}
	}
	return strings.Join(parts, "\n"), nil
}

// commandNoise is a user line Claude Code writes for a slash command and
// its output, not something the person said.
func commandNoise(text string) bool {
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// groups gathers a file's messages by session, in the order the sessions
// first appear.
type groups struct {
	name    string
	summary string
	order   []string
	convs   map[string]*Conversation
}

func newGroups(name string) *groups {
	return &groups{name: name, convs: map[string]*Conversation{}}
}

func (g *groups) add(session string, m Message) {
	if clean(session) == "" {
		session = g.name
	}
	c, ok := g.convs[session]
	if !ok {
		c = &Conversation{ID: session, Time: m.Time}
		g.convs[session] = c
		g.order = append(g.order, session)
	}
	c.Messages = append(c.Messages, m)
}

func (g *groups) flush(yield func(Conversation) error) error {
	for _, id := range g.order {
		c := g.convs[id]
		if c.Title == "" {
			c.Title = g.summary
		}
		if err := yield(*c); err != nil {
			return err
		}
	}
	return nil
}
