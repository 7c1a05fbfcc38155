package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CodexNotify is the JSON Codex passes, as its last argument, to the
// program its config's notify names, after each turn of the agent.
type CodexNotify struct {
	Type                 string            `json:"type"` // agent-turn-complete
	ThreadID             string            `json:"thread-id"`
	TurnID               string            `json:"turn-id"`
	CWD                  string            `json:"cwd"`
	InputMessages        []json.RawMessage `json:"input-messages"`
	LastAssistantMessage string            `json:"last-assistant-message"`
}

// codexRoot is the key prefix of the turns Codex's notify sends: a turn's
// messages are keyed by thread, turn and place, so a notify that comes
// twice stores them once (AGT-4).
const codexRoot = "/codex/"

// CodexSession is the mnemo session of a Codex thread.
func CodexSession(thread string) string { return "codex-" + thread }

// ParseCodexNotify decodes a notify payload.
func ParseCodexNotify(raw []byte) (CodexNotify, error) {
	var n CodexNotify
	if len(strings.TrimSpace(string(raw))) == 0 {
		return n, errors.New("no notify payload: Codex passes it as the last argument")
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return n, fmt.Errorf("the notify payload is not JSON: %w", err)
	}
	return n, nil
}

// RunCodexNotify stores the turn a Codex notify payload tells of: the
// user's input messages and the agent's answer, as messages of the
// thread's session (AGT-1 for Codex, which has no hook to inject with).
// Any other notification is ignored. It returns how many messages it sent.
func RunCodexNotify(ctx context.Context, cfg Config, raw []byte) (int, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	n, err := ParseCodexNotify(raw)
	if err != nil {
		return 0, err
	}
	if n.Type != "agent-turn-complete" {
		return 0, nil
	}
	if n.ThreadID == "" || n.TurnID == "" {
		return 0, errors.New("the notify payload has no thread-id or turn-id")
	}
	agent := cfg.Agent
	if agent == "" {
		agent = AgentFromDir(n.CWD)
	}
	prefix := codexRoot + n.ThreadID + "/" + n.TurnID + "/"
	now := time.Now().UTC()
	var msgs []message
	for i, raw := range n.InputMessages {
		text := strings.TrimSpace(inputText(raw))
		if text == "" {
			continue
		}
		text, _ = Truncate(text, maxContent)
		// Before the answer, in order: the session's newest is the answer.
		at := now.Add(-time.Duration(len(n.InputMessages)-i) * time.Millisecond)
		msgs = append(msgs, message{Key: prefix + "user-" + strconv.Itoa(i), Role: "user", Content: text, CreatedAt: &at})
	}
	if text := strings.TrimSpace(n.LastAssistantMessage); text != "" {
		text, _ = Truncate(text, maxContent)
		msgs = append(msgs, message{Key: prefix + "assistant", Role: "assistant", Content: text, CreatedAt: &now})
	}
	c := client{cfg: cfg, agent: agent}
	return c.send(ctx, CodexSession(n.ThreadID), prefix, msgs)
}

// inputText is an input message's text: a string, or an object's text.
func inputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &o)
	return o.Text
}
