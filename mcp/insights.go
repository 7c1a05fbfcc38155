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

// The tools of the fourth and fifth event layers that fit an agent: how
// did a period go (event_summary, L4: EVT-10), and how was a task like
// this done before (capabilities, L5: EVT-12).

type capabilitiesIn struct {
	Text     string `json:"text,omitempty" jsonschema:"the new task, in words, e.g. 'deploy the api to staging'"`
	TaskType string `json:"task_type,omitempty" jsonschema:"the new task's type, as its events name it, e.g. Deploy"`
	Limit    int    `json:"limit,omitempty" jsonschema:"how many capabilities to return: default 5"`
}

type capabilitiesOut struct {
	Count        int                      `json:"count"`
	Capabilities []events.CapabilityMatch `json:"capabilities" jsonschema:"best match first: name, description, conditions, tools, success cases and failure lessons"`
}

type eventSummaryIn struct {
	Period string     `json:"period,omitempty" jsonschema:"hour, day (default), week, month or year, in UTC; a week starts on Monday"`
	At     *time.Time `json:"at,omitempty" jsonschema:"a time in the period, RFC 3339, a date (2026-11-20) or words (last Tuesday); default now"`
}

// addInsightTools adds the summary and capability tools to srv.
func (s *Server) addInsightTools(srv *mcpsdk.Server, scope scopeFunc) {
	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "capabilities",
		Title: "Capabilities",
		Description: "Find how you did a task like this before: your capabilities (task types that succeeded at least 3 times, learnt from your events) " +
			"that fit a new task, best first, each with its tools, the conditions it needs, success cases and the lessons of its failures. " +
			"Call it before starting a task, and prefer a matching capability's way of doing it.",
		InputSchema:  inputSchema[capabilitiesIn](func(p props) { p.rng("limit", 1, mnemo.MaxListLimit) }),
		OutputSchema: outputSchema[capabilitiesOut](),
		Annotations:  &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.capabilities)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "event_summary",
		Title: "Event summary",
		Description: "Summarize your events of an hour, day, week, month or year: key events, event types, errors, task completion rate, " +
			"capability use and activity; for a week, month or year also trends, patterns and suggestions. Use it to review how a period went.",
		InputSchema: inputSchema[eventSummaryIn](func(p props) {
			p.enum("period", "hour", "day", "week", "month", "year")
		}),
		OutputSchema: outputSchema[mnemo.Summary](),
		Annotations:  &mcpsdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.eventSummary)
}

func (s *Server) capabilities(ctx context.Context, sc mnemo.Scope, in capabilitiesIn) (capabilitiesOut, string, error) {
	caps, err := s.svc.Capabilities(ctx, sc, events.CapabilityQuery{Text: in.Text, TaskType: in.TaskType, Limit: in.Limit})
	if err != nil {
		return capabilitiesOut{}, "", err
	}
	if len(caps) == 0 {
		return capabilitiesOut{Capabilities: []events.CapabilityMatch{}}, "No capability fits.", nil
	}
	var b strings.Builder
	for i, c := range caps {
		fmt.Fprintf(&b, "%d. %s (%s, %d of %d succeeded): %s", i+1, c.Name, c.TaskType, c.Successes, c.Successes+c.Failures, c.Description)
		if len(c.FailureLessons) > 0 {
			fmt.Fprintf(&b, " Lesson: %s", c.FailureLessons[len(c.FailureLessons)-1].Text)
		}
		b.WriteString("\n")
	}
	return capabilitiesOut{Count: len(caps), Capabilities: caps}, strings.TrimSpace(b.String()), nil
}

func (s *Server) eventSummary(ctx context.Context, sc mnemo.Scope, in eventSummaryIn) (mnemo.Summary, string, error) {
	period := mnemo.Period(in.Period)
	if period == "" {
		period = mnemo.PeriodDay
	}
	var at time.Time
	if in.At != nil {
		at = *in.At
	}
	sum, err := s.svc.Summarize(ctx, sc, period, at)
	if err != nil {
		return mnemo.Summary{}, "", err
	}
	text := fmt.Sprintf("%s from %s: %d events, %d errors, %d tasks done and %d failed.", sum.Period, sum.Start.Format(time.RFC3339),
		sum.Events, sum.Errors, sum.Tasks.Succeeded, sum.Tasks.Failed)
	if len(sum.Suggestions) > 0 {
		text += " Suggestions: " + strings.Join(sum.Suggestions, "; ")
	}
	return sum, text, nil
}
