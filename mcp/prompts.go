package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/security"
)

// Prompts a client offers a person (API-23): each is built from what the
// memory holds at the time it is asked for, in the scope of the
// connection, read masked as every answer of this channel is (SEC-3).

// recentTurns is how many of the latest conversation's messages
// "continue" shows.
const recentTurns = 10

func (s *Server) addPrompts(srv *mcpsdk.Server, scope scopeFunc) {
	srv.AddPrompt(&mcpsdk.Prompt{
		Name:        "remember_about",
		Title:       "What do you remember about…",
		Description: "Ask what the memory holds about a topic: the memories recalled for it, best first, with the question.",
		Arguments: []*mcpsdk.PromptArgument{
			{Name: "topic", Title: "Topic", Description: "a person, project, subject or question", Required: true},
		},
	}, s.prompt(scope, "remember_about", s.rememberAbout))
	srv.AddPrompt(&mcpsdk.Prompt{
		Name:        "continue",
		Title:       "Continue where we left off",
		Description: "Pick up the work: the agent's boot context (identity, feelings, knowledge, recent events), the latest messages, and with a topic the memories recalled for it.",
		Arguments: []*mcpsdk.PromptArgument{
			{Name: "topic", Title: "Topic", Description: "what to continue, if not the latest conversation"},
		},
	}, s.prompt(scope, "continue", s.continuePrompt))
}

// prompt serves a prompt in the scope of its request, masked, a panic an
// internal error of that request, as tools are served.
func (s *Server) prompt(scope scopeFunc, name string, build func(context.Context, mnemo.Scope, map[string]string) (string, string, error)) mcpsdk.PromptHandler {
	return func(ctx context.Context, req *mcpsdk.GetPromptRequest) (*mcpsdk.GetPromptResult, error) {
		sc, err := scope(&mcpsdk.CallToolRequest{Session: req.Session, Extra: req.Extra})
		if err != nil {
			return nil, s.toolError("prompt "+name, err)
		}
		ctx = security.WithClearance(ctx, security.ClearanceFrom(ctx).Stricter(security.Masked))
		var args map[string]string
		if req.Params != nil {
			args = req.Params.Arguments
		}
		var desc, text string
		err = panics.Call(s.log, "mcp prompt "+name, func() (err error) {
			desc, text, err = build(ctx, sc, args)
			return err
		})
		if err != nil {
			return nil, s.toolError("prompt "+name, err)
		}
		return &mcpsdk.GetPromptResult{Description: desc, Messages: []*mcpsdk.PromptMessage{
			{Role: "user", Content: &mcpsdk.TextContent{Text: text}},
		}}, nil
	}
}

func (s *Server) rememberAbout(ctx context.Context, sc mnemo.Scope, args map[string]string) (string, string, error) {
	topic := strings.TrimSpace(args["topic"])
	if topic == "" {
		return "", "", mnemo.Errorf(mnemo.EINVALID, "the prompt needs a topic")
	}
	_, recalled, err := s.recall(ctx, sc, recallIn{Query: topic, Limit: 10})
	if err != nil {
		return "", "", err
	}
	text := fmt.Sprintf("What do you remember about %s?\n\nThese memories were recalled for it, best first:\n\n%s\n\n"+
		"Answer from them, say which you rely on, and say so plainly when they do not answer it.", topic, recalled)
	return "What the memory holds about " + topic, text, nil
}

func (s *Server) continuePrompt(ctx context.Context, sc mnemo.Scope, args map[string]string) (string, string, error) {
	_, boot, err := s.boot(ctx, sc, bootIn{})
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString("Continue where we left off. This is what you remember of yourself and this work:\n\n")
	b.WriteString(strings.TrimSpace(boot))
	// The latest conversation: the session of the newest message, when it
	// has one; else the newest events, whatever their session.
	latest := mnemo.ListQuery{Filter: mnemo.Filter{Types: []string{mnemo.TypeEvent}}, Order: mnemo.OrderNewest, Limit: recentTurns, NoVectors: true, NoTotal: true}
	recent, _, err := s.svc.List(ctx, sc, latest)
	if err != nil {
		return "", "", err
	}
	if len(recent) > 0 && recent[0].SessionID != "" {
		latest.Filter.SessionID = recent[0].SessionID
		if recent, _, err = s.svc.List(ctx, sc, latest); err != nil {
			return "", "", err
		}
	}
	if len(recent) > 0 {
		slices.Reverse(recent)
		b.WriteString("\n\n## Where we left off\n\n")
		for i := range recent {
			m := &recent[i]
			fmt.Fprintf(&b, "- %s %s\n", m.CreatedAt.UTC().Format("2006-01-02 15:04"), oneLine(speaker(m)+m.Content))
		}
	}
	if topic := strings.TrimSpace(args["topic"]); topic != "" {
		_, recalled, err := s.recall(ctx, sc, recallIn{Query: topic, Limit: 10})
		if err != nil {
			return "", "", err
		}
		fmt.Fprintf(&b, "\n\n## Recalled for %s\n\n%s", topic, recalled)
	}
	b.WriteString("\n\nSay in a few lines where things stand and what comes next, then carry on.")
	return "The boot context and the latest turns, to continue from", b.String(), nil
}

// speaker is "role: " of a stored message, from its data, or "".
func speaker(m *mnemo.Memory) string {
	var d struct {
		Role string `json:"role"`
		Name string `json:"name"`
	}
	if security.Masked.Conceals(m.SecurityLevel) || len(m.Data) == 0 || json.Unmarshal(m.Data, &d) != nil {
		return ""
	}
	switch {
	case d.Name != "":
		return d.Name + ": "
	case d.Role != "":
		return d.Role + ": "
	}
	return ""
}
