package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

var (
	_ events.Insighter           = (*Client)(nil)
	_ events.CapabilityDescriber = (*Client)(nil)
)

const insightsPrompt = `You review the statistics of an AI agent's events over a period (a week, a month or a year) and, when given, the previous period's.
Reply with a JSON object only: {"trends": [long-term trends, e.g. rising errors or completion rate], "patterns": [recurring patterns, e.g. busy times, error types that recur], "suggestions": [concrete improvements for the agent]}.
At most 5 short sentences in each list; only what the numbers support.`

type insightsAnswer struct {
	Trends      []string `json:"trends"`
	Patterns    []string `json:"patterns"`
	Suggestions []string `json:"suggestions"`
}

// digest is the part of a summary a model reads: its statistics, not its
// events.
type digest struct {
	Period         mnemo.Period               `json:"period"`
	Start          string                     `json:"start"`
	Events         int                        `json:"events"`
	Types          map[string]int             `json:"types"`
	Errors         int                        `json:"errors"`
	ErrorTypes     map[string]int             `json:"error_types"`
	Tasks          mnemo.TaskCount            `json:"tasks"`
	CompletionRate float64                    `json:"completion_rate"`
	CapabilityUse  map[string]mnemo.TaskCount `json:"capability_use"`
	Activity       mnemo.Activity             `json:"activity"`
}

func digestOf(s mnemo.Summary) digest {
	return digest{Period: s.Period, Start: s.Start.Format("2006-01-02T15:04Z"), Events: s.Events, Types: s.Types, Errors: s.Errors,
		ErrorTypes: s.ErrorTypes, Tasks: s.Tasks, CompletionRate: s.CompletionRate, CapabilityUse: s.CapabilityUse, Activity: s.Activity}
}

// EventInsights implements events.Insighter.
func (c *Client) EventInsights(ctx context.Context, s mnemo.Summary, prev *mnemo.Summary) (events.Insights, error) {
	in := map[string]digest{"current": digestOf(s)}
	if prev != nil {
		in["previous"] = digestOf(*prev)
	}
	b, err := json.Marshal(in)
	if err != nil {
		return events.Insights{}, fmt.Errorf("llm: encode summary: %w", err)
	}
	user := string(b)
	out, err := c.Chat(ctx, []Message{{Role: "system", Content: insightsPrompt}, {Role: "user", Content: user}}, 800, true)
	if err != nil {
		return events.Insights{}, err
	}
	var a insightsAnswer
	if err := c.decodeOrRepair(ctx, insightsPrompt, user, out, &a); err != nil {
		return events.Insights{}, err
	}
	return events.Insights{Trends: lines(a.Trends), Patterns: lines(a.Patterns), Suggestions: lines(a.Suggestions)}, nil
}

const capabilityPrompt = `You turn an AI agent's record of one task type into a reusable capability.
Reply with a JSON object only: {"name": a short imperative name, "description": one or two sentences on what it does and how, "conditions": [when it applies], "lessons": [one lesson per failure given, in the same order]}.`

type capabilityAnswer struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Conditions  []string `json:"conditions"`
	Lessons     []string `json:"lessons"`
}

// DescribeCapability implements events.CapabilityDescriber.
func (c *Client) DescribeCapability(ctx context.Context, cp mnemo.Capability) (events.CapabilityText, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "task type: %s\nsucceeded %d times, failed %d times\n", cp.TaskType, cp.Successes, cp.Failures)
	if len(cp.Tools) > 0 {
		fmt.Fprintf(&b, "tools used: %s\n", strings.Join(cp.Tools, ", "))
	}
	if len(cp.Conditions) > 0 {
		fmt.Fprintf(&b, "conditions seen: %s\n", strings.Join(cp.Conditions, ", "))
	}
	for _, s := range cp.SuccessCases {
		if s.Text != "" {
			fmt.Fprintf(&b, "success: %s\n", s.Text)
		}
	}
	for _, f := range cp.FailureLessons {
		fmt.Fprintf(&b, "failure: %s\n", f.Text)
	}
	user := b.String()
	out, err := c.Chat(ctx, []Message{{Role: "system", Content: capabilityPrompt}, {Role: "user", Content: user}}, 500, true)
	if err != nil {
		return events.CapabilityText{}, err
	}
	var a capabilityAnswer
	if err := c.decodeOrRepair(ctx, capabilityPrompt, user, out, &a); err != nil {
		return events.CapabilityText{}, err
	}
	return events.CapabilityText{Name: strings.TrimSpace(a.Name), Description: strings.TrimSpace(a.Description),
		Conditions: lines(a.Conditions), Lessons: a.Lessons}, nil
}

// lines keeps the non-empty entries, one line each.
func lines(ss []string) []string {
	out := []string{}
	for _, s := range ss {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			out = append(out, s)
		}
	}
	return out
}
