package http

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// The event layers L4 and L5: summaries (EVT-10) and capabilities (EVT-11,
// EVT-12).

type summarizeRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	// Period is hour, day, week, month or year.
	Period string `json:"period"`
	// At is a time in the period; now when left out.
	At *time.Time `json:"at,omitempty"`
}

type summariesResponse struct {
	Summaries []mnemo.Summary `json:"summaries"`
}

type extractCapabilitiesRequest struct {
	AgentID string `json:"agent_id,omitempty"`
}

type capabilitiesResponse struct {
	Capabilities []mnemo.Capability `json:"capabilities"`
}

type capabilityMatchesResponse struct {
	Capabilities []events.CapabilityMatch `json:"capabilities"`
}

func (b summarizeRequest) agent() string           { return b.AgentID }
func (b extractCapabilitiesRequest) agent() string { return b.AgentID }

var periodSchema = map[string]any{"type": "string", "enum": []string{"hour", "day", "week", "month", "year"}}

func (s *Server) insightRoutes() []route {
	return []route{
		{method: "POST", path: "/v1/events/summaries", summary: "Summarize a period of events (L4)",
			doc:    "Generates the summary of the hour, day, week, month or year (UTC; weeks start on Monday) that contains at (default now), stores it, replacing an earlier one of the same period, and returns it: key events, type distribution and errors; task completion rate, capability use and activity; for a week, month or year also trends, patterns and suggestions, from the LLM when one is configured (generator llm) or the rules (generator rules; note says why when the LLM failed). serve also writes the summaries of closed periods on its own.",
			scopes: []string{ScopeWrite}, body: summarizeRequest{}, status: 200, resp: mnemo.Summary{}, handler: s.handleSummarize},
		{method: "GET", path: "/v1/events/summaries", summary: "List stored summaries",
			doc:    "Summaries of the agent that start in [from, to), by start. Hour and day summaries are kept a year; week, month and year summaries for good.",
			scopes: []string{ScopeRead}, params: []param{agentParam,
				{name: "period", schema: periodSchema, doc: "Only summaries of this period."},
				{name: "from", schema: timeSchema, doc: "Summaries starting at or after this time (RFC 3339, a date or words)."},
				{name: "to", schema: timeSchema, doc: "Summaries starting before this time (RFC 3339, a date or words); before from is an error."},
				{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": 100}, doc: "How many summaries."}},
			status: 200, resp: summariesResponse{}, handler: s.handleSummaries},
		{method: "GET", path: "/v1/events/capabilities", summary: "Find capabilities for a task (L5)",
			doc:    "The agent's capabilities (task types that succeeded at least 3 times) that fit a new task, best first: one of task_type first, then by the words of text and, with an embedder, its meaning. Without text or task_type, every capability, most successful first.",
			scopes: []string{ScopeRead}, params: []param{agentParam,
				{name: "text", schema: stringSchema, doc: "The new task, in words."},
				{name: "task_type", schema: stringSchema, doc: "The new task's type, e.g. Deploy."},
				{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": 5}, doc: "How many capabilities."}},
			status: 200, resp: capabilityMatchesResponse{}, handler: s.handleCapabilities},
		{method: "POST", path: "/v1/events/capabilities/extract", summary: "Rebuild capabilities from every event",
			doc:    "Capabilities are learnt as events arrive; this rebuilds them from all the agent's events and has the LLM, when one is configured, name and describe them (extractor llm, or rules with a note when it failed). Returns the capabilities, most successful first.",
			scopes: []string{ScopeWrite}, body: extractCapabilitiesRequest{}, status: 200, resp: capabilitiesResponse{}, handler: s.handleExtractCapabilities},
	}
}

func (s *Server) handleSummarize(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b summarizeRequest) (mnemo.Summary, error) {
		var at time.Time
		if b.At != nil {
			at = *b.At
		}
		return s.svc.Summarize(r.Context(), sc, mnemo.Period(b.Period), at)
	})(w, r)
}

func (s *Server) handleSummaries(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (summariesResponse, error) {
		v := r.URL.Query()
		q := mnemo.SummaryQuery{Period: mnemo.Period(v.Get("period"))}
		for _, t := range []struct {
			name string
			dst  **time.Time
		}{{"from", &q.From}, {"to", &q.To}} {
			if s := v.Get(t.name); s != "" {
				at, err := queryTime(t.name, s)
				if err != nil {
					return summariesResponse{}, err
				}
				*t.dst = &at
			}
		}
		var err error
		if q.Limit, err = limitParam(r, "limit"); err != nil {
			return summariesResponse{}, err
		}
		sums, err := s.svc.Summaries(r.Context(), sc, q)
		if sums == nil {
			sums = []mnemo.Summary{}
		}
		return summariesResponse{Summaries: sums}, err
	})(w, r)
}

func (s *Server) handleCapabilities(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (capabilityMatchesResponse, error) {
		v := r.URL.Query()
		q := events.CapabilityQuery{Text: v.Get("text"), TaskType: v.Get("task_type")}
		var err error
		if q.Limit, err = limitParam(r, "limit"); err != nil {
			return capabilityMatchesResponse{}, err
		}
		caps, err := s.svc.Capabilities(r.Context(), sc, q)
		if caps == nil {
			caps = []events.CapabilityMatch{}
		}
		return capabilityMatchesResponse{Capabilities: caps}, err
	})(w, r)
}

func (s *Server) handleExtractCapabilities(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b extractCapabilitiesRequest) (capabilitiesResponse, error) {
		caps, err := s.svc.ExtractCapabilities(r.Context(), sc)
		if caps == nil {
			caps = []mnemo.Capability{}
		}
		return capabilitiesResponse{Capabilities: caps}, err
	})(w, r)
}

// limitParam reads a positive integer parameter; 0 when absent.
func limitParam(r *http.Request, name string) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, mnemo.Errorf(mnemo.EINVALID, "%s must be a positive integer", name)
	}
	return n, nil
}
