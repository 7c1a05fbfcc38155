package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// The tools of the event layers that fit an agent: search_events (L3,
// EVT-8: by meaning).

type searchEventsIn struct {
	Query   string     `json:"query" jsonschema:"what to look for, in words: events whose text means something close are returned"`
	From    *time.Time `json:"from,omitempty" jsonschema:"only events at or after this time: RFC 3339, a date (2026-11-20) or words (last Tuesday)"`
	To      *time.Time `json:"to,omitempty" jsonschema:"only events before this time: RFC 3339, a date (2026-11-20) or words (last Tuesday)"`
	Types   []string   `json:"types,omitempty" jsonschema:"only events of these types"`
	Sources []string   `json:"sources,omitempty" jsonschema:"only events from these sources"`
	Limit   int        `json:"limit,omitempty" jsonschema:"how many events (default 10)"`
}

type eventHitView struct {
	ID       string    `json:"id"`
	TS       time.Time `json:"ts"`
	Type     string    `json:"type"`
	Source   string    `json:"source,omitempty"`
	Text     string    `json:"text,omitempty" jsonschema:"the event's text"`
	Score    float64   `json:"score"`
	Modality string    `json:"modality" jsonschema:"the kind of vector that matched: text, image, audio or video"`
}

type searchEventsOut struct {
	Count  int            `json:"count"`
	Events []eventHitView `json:"events"`
}

func (s *Server) addEventTools(srv *mcpsdk.Server, scope scopeFunc) {
	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "search_events",
		Title: "Search events",
		Description: "Find past events (messages, tool runs, agent starts and stops, notes) whose content is closest in meaning to a query, best first, " +
			"optionally within a time window or of some types or sources. Use it to answer \"when did this happen before\" or \"what happened around X\".",
		InputSchema: inputSchema[searchEventsIn](func(p props) {
			p.rng("limit", 1, mnemo.MaxListLimit)
		}),
		OutputSchema: outputSchema[searchEventsOut](),
		Annotations:  &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.searchEvents)
}

func (s *Server) searchEvents(ctx context.Context, sc mnemo.Scope, in searchEventsIn) (searchEventsOut, string, error) {
	hits, err := s.svc.SearchEvents(ctx, sc, events.Search{Query: in.Query, From: in.From, To: in.To, Types: in.Types, Sources: in.Sources, Limit: in.Limit})
	if err != nil {
		return searchEventsOut{}, "", err
	}
	out := searchEventsOut{Count: len(hits), Events: make([]eventHitView, len(hits))}
	var b strings.Builder
	for i, h := range hits {
		v := eventHitView{ID: h.Event.ID, TS: h.Event.TS, Type: h.Event.Type, Source: h.Event.Source, Text: events.Text(h.Event), Score: h.Score, Modality: h.Modality}
		out.Events[i] = v
		fmt.Fprintf(&b, "%s %s %s (%.2f): %s\n", v.TS.Format(time.RFC3339), v.Type, v.ID, v.Score, strings.Join(strings.Fields(v.Text), " "))
	}
	if len(hits) == 0 {
		return out, "No events match.", nil
	}
	return out, b.String(), nil
}
