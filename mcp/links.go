package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/memory"
)

// Links (REC-22): the link tool, and what recall and recall_path return
// when asked to follow links (traverse_hops).

type linkIn struct {
	Source     string   `json:"source" jsonschema:"id of a memory (as remember or recall returned it) or of an event"`
	Target     string   `json:"target" jsonschema:"id of another memory or event"`
	Type       string   `json:"type,omitempty" jsonschema:"what the link means, a short word such as related (default), about, causes, contradicts, supersedes"`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"how sure you are of the link, above 0 and at most 1, default 1"`
}

type linkOut struct {
	Link mnemo.Relation `json:"link" jsonschema:"the link as stored; linking the same pair with the same type again keeps the higher confidence"`
}

// linkedView is a memory or an event reached along links.
type linkedView struct {
	Memory     *Memory    `json:"memory,omitempty" jsonschema:"the linked memory (or event)"`
	Event      *eventView `json:"event,omitempty" jsonschema:"the linked event (or memory)"`
	Hops       int        `json:"hops" jsonschema:"how many links away from the direct hit it is"`
	From       string     `json:"from" jsonschema:"id of the direct hit the links start from"`
	Via        string     `json:"via" jsonschema:"id of the node whose link reached it (from, at one hop)"`
	Relation   string     `json:"relation" jsonschema:"type of that link"`
	Confidence float64    `json:"confidence" jsonschema:"product of the confidences of the links walked"`
	Reason     string     `json:"reason" jsonschema:"why it is here, in words"`
}

type eventView struct {
	ID     string    `json:"id"`
	TS     time.Time `json:"ts"`
	Type   string    `json:"type"`
	Source string    `json:"source,omitempty"`
	Text   string    `json:"text,omitempty" jsonschema:"the event's text"`
}

func linkedViews(ls []memory.Linked) []linkedView {
	out := make([]linkedView, len(ls))
	for i, l := range ls {
		v := linkedView{Hops: l.Hops, From: l.From, Via: l.Via, Relation: l.Relation, Confidence: l.Confidence, Reason: l.Reason}
		if l.Memory != nil {
			m := view(l.Memory)
			v.Memory = &m
		}
		if e := l.Event; e != nil {
			v.Event = &eventView{ID: e.ID, TS: e.TS, Type: e.Type, Source: e.Source, Text: events.Text(*e)}
		}
		out[i] = v
	}
	return out
}

// linkedText renders linked views after a tool's text, or nothing.
func linkedText(ls []linkedView) string {
	if len(ls) == 0 {
		return ""
	}
	return "\nLinked:\n" + list(len(ls), func(i int) string {
		l := &ls[i]
		if l.Memory != nil {
			return line(l.Memory, l.Reason)
		}
		return fmt.Sprintf("event %s %s at %s: %s (%s)", l.Event.Type, l.Event.ID, l.Event.TS.Format(time.RFC3339), oneLine(l.Event.Text), l.Reason)
	}, "")
}

func (s *Server) addLinkTools(srv *mcpsdk.Server, scope scopeFunc) {
	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "link",
		Title: "Link",
		Description: "Link two memories, or a memory and an event, with a type: recall and recall_path with traverse_hops then bring " +
			"what is linked along. Use it when one memory explains, causes, depends on or contradicts another.",
		InputSchema: inputSchema[linkIn](func(p props) {
			p.rng("confidence", 0, 1)
		}),
		OutputSchema: outputSchema[linkOut](),
		Annotations:  &mcpsdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.link)
}

func (s *Server) link(ctx context.Context, sc mnemo.Scope, in linkIn) (linkOut, string, error) {
	r := mnemo.Relation{Source: strings.TrimSpace(in.Source), Target: strings.TrimSpace(in.Target), Type: in.Type}
	if in.Confidence != nil {
		if *in.Confidence <= 0 {
			return linkOut{}, "", mnemo.Errorf(mnemo.EINVALID, "confidence must be above 0 and at most 1")
		}
		r.Confidence = *in.Confidence
	}
	r, err := s.svc.Link(ctx, sc, r)
	if err != nil {
		return linkOut{}, "", err
	}
	return linkOut{Link: r}, fmt.Sprintf("Linked %s -%s-> %s (confidence %.2f).", r.Source, r.Type, r.Target, r.Confidence), nil
}
