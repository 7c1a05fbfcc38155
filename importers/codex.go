package importers

import (
	"encoding/json"
	"io"
	"strings"
)

// Codex keeps each session as JSON Lines under
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl: a line per item,
// {timestamp, type, payload}, where session_meta's payload has the
// session's id and response_item's payload of type message has a role and
// content blocks (input_text, output_text). Function calls and their
// output, reasoning, and the context Codex itself puts in the user's turn
// (environment_context, user_instructions) are not the conversation
// (IMP-7). Older files have the session's {id, timestamp} on the first
// line and the items themselves on the others.

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// An older file's first line.
	ID string `json:"id"`
}

type codexItem struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// ReadCodex streams the session of one Codex rollout file; name (the
// file's, without .jsonl) stands for the session id when the file has none.
func ReadCodex(r io.Reader, name string, yield func(Conversation) error) error {
	g := newGroups(name)
	session := ""
	var start string
	err := readLines(r, func(line int, raw []byte) error {
		var l codexLine
		if err := decode(raw, &l); err != nil {
			return err
		}
		item := raw
		switch {
		case l.Type == "session_meta":
			var meta struct {
				ID        string `json:"id"`
				Timestamp string `json:"timestamp"`
			}
			if err := decode(l.Payload, &meta); err != nil {
				return errorf("payload: %v", err)
			}
			if clean(meta.ID) != "" {
				session = meta.ID
			}
			start = meta.Timestamp
			return nil
		case l.Type == "" && l.ID != "":
			session, start = l.ID, l.Timestamp
			return nil
		case l.Type == "response_item":
			item = l.Payload
		case l.Type != "message":
			return nil // event_msg, turn_context, compacted: the same turns again, or none
		}
		var it codexItem
		if err := decode(item, &it); err != nil {
			return errorf("payload: %v", err)
		}
		if it.Type != "message" || it.Role != "user" && it.Role != "assistant" {
			return nil
		}
		text, err := codexText(it.Content)
		if err != nil {
			return err
		}
		if text == "" {
			return nil
		}
		ts := l.Timestamp
		if ts == "" {
			ts = start
		}
		at, err := parseTime(ts)
		if err != nil {
			return err
		}
		g.add(session, Message{ID: "l" + itoa(line), Role: it.Role, Text: text, Time: at})
		return nil
	})
	if err != nil {
		return err
	}
	return g.flush(yield)
}

// codexText joins a message's text blocks, leaving out the context Codex
// adds to a user's turn.
func codexText(raw json.RawMessage) (string, error) {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return "", errorf("content is not a list of blocks")
		}
	}
	var parts []string
	for _, b := range blocks {
		if b.Type != "input_text" && b.Type != "output_text" && b.Type != "text" {
			continue
		}
		t := clean(b.Text)
		if t == "" || codexContext(t) {
			continue
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "\n"), nil
}

func codexContext(t string) bool {
	for _, tag := range []string{"environment_context", "user_instructions", "turn_aborted"} {
		if strings.HasPrefix(t, "<"+tag+">") {
			return true
		}
	}
	return strings.HasPrefix(t, "# AGENTS.md instructions")
}
