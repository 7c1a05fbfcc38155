package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Cursor's hook events mnemo answers: its hooks cannot add to a prompt,
// so they keep the conversation (AGT-7), the prompt before it is sent and
// the answer after.
const (
	CursorBeforeSubmitPrompt = "beforeSubmitPrompt"
	CursorAfterAgentResponse = "afterAgentResponse"
)

// CursorInput is the JSON Cursor sends its hooks on stdin.
type CursorInput struct {
	HookEventName  string   `json:"hook_event_name"`
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
	Prompt         string   `json:"prompt"` // beforeSubmitPrompt
	Text           string   `json:"text"`   // afterAgentResponse
}

// cursorRoot is the key prefix of the messages Cursor's hooks send: one
// generation is a prompt and its answer, keyed by conversation and
// generation (AGT-4).
const cursorRoot = "/cursor/"

// CursorSession is the mnemo session of a Cursor conversation.
func CursorSession(conversation string) string { return "cursor-" + conversation }

// RunCursor answers one of Cursor's hooks read from stdin. Its output is
// what Cursor must read even when mnemo cannot help: beforeSubmitPrompt
// lets the prompt go on, always (AGT-3). The error says why nothing was
// stored.
func RunCursor(ctx context.Context, cfg Config, stdin io.Reader) (output []byte, err error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	// A prompt goes on whatever happens here.
	output = []byte(`{"continue":true}`)
	raw, err := readInput(ctx, stdin)
	if err != nil {
		return output, err
	}
	var in CursorInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return output, fmt.Errorf("the hook input is not JSON: %w", err)
	}
	var role, text string
	switch in.HookEventName {
	case CursorBeforeSubmitPrompt:
		role, text = "user", in.Prompt
	case CursorAfterAgentResponse:
		output, role, text = nil, "assistant", in.Text
	default:
		return nil, fmt.Errorf("unknown Cursor hook %q: want beforeSubmitPrompt or afterAgentResponse", in.HookEventName)
	}
	if in.ConversationID == "" || in.GenerationID == "" {
		return output, errors.New("the hook input has no conversation_id or generation_id")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return output, nil
	}
	text, _ = Truncate(text, maxContent)
	agent := cfg.Agent
	if agent == "" {
		dir := ""
		if len(in.WorkspaceRoots) > 0 {
			dir = in.WorkspaceRoots[0]
		}
		agent = AgentFromDir(dir)
	}
	now := time.Now().UTC()
	prefix := cursorRoot + in.ConversationID + "/" + in.GenerationID + "/"
	c := client{cfg: cfg, agent: agent}
	_, err = c.send(ctx, CursorSession(in.ConversationID), prefix+role, []message{{Key: prefix + role, Role: role, Content: text, CreatedAt: &now}})
	return output, err
}
