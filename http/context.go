package http

import (
	"net/http"
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
)

// The routes of what the Service builds for a prompt: runs (short-term
// memory), sessions (working memory), snapshot, boot and the default read.

type openRunRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	agentcontext.RunOptions
}

type callRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	agentcontext.ToolCall
}

type textRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	Text    string `json:"text"`
}

type turnRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	agentcontext.Turn
}

type snapshotRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	agentcontext.SnapshotQuery
}

type readRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	agentcontext.ReadQuery
}

func (b openRunRequest) agent() string  { return b.AgentID }
func (b callRequest) agent() string     { return b.AgentID }
func (b textRequest) agent() string     { return b.AgentID }
func (b turnRequest) agent() string     { return b.AgentID }
func (b snapshotRequest) agent() string { return b.AgentID }
func (b readRequest) agent() string     { return b.AgentID }

type runsResponse struct {
	Runs []agentcontext.Run `json:"runs"`
}

type sessionsResponse struct {
	Sessions []agentcontext.WorkingMemory `json:"sessions"`
}

// contextRoutes are the routes of runs, sessions, snapshot, boot and the
// default read.
func (s *Server) contextRoutes() []route {
	agent := []param{agentParam}
	return []route{
		{method: "POST", path: "/v1/runs", summary: "Open a run's short-term memory",
			doc:    "Starts the short-term memory of an agent run with its trigger and focus. It collects calls and responses, keeps within token_limit (2,000) by compacting older rounds to one sentence each, and is removed when the run is closed.",
			scopes: []string{ScopeWrite}, body: openRunRequest{}, status: 201, resp: agentcontext.Run{}, handler: s.handleOpenRun},
		{method: "GET", path: "/v1/runs", summary: "List the agent's open runs",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: runsResponse{}, handler: s.handleListRuns},
		{method: "GET", path: "/v1/runs/{run_id}", summary: "Render a run's short-term memory",
			doc:    "The structured JSON a prompt builder renders: trigger, focus and instructions (never compacted), one sentence per older round, the last rounds whole, token count and notes on anything cut.",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: agentcontext.Run{}, handler: s.handleGetRun},
		{method: "POST", path: "/v1/runs/{run_id}/calls", summary: "Record a function call and its result",
			scopes: []string{ScopeWrite}, body: callRequest{}, status: 200, resp: agentcontext.Run{}, handler: s.handleRunCall},
		{method: "POST", path: "/v1/runs/{run_id}/responses", summary: "Record the model's intermediate response",
			scopes: []string{ScopeWrite}, body: textRequest{}, status: 200, resp: agentcontext.Run{}, handler: s.handleRunResponse},
		{method: "POST", path: "/v1/runs/{run_id}/instructions", summary: "Inject a temporary instruction",
			doc:    "Adds an instruction (a signal trigger's) to the run's fixed part until the run closes.",
			scopes: []string{ScopeWrite}, body: textRequest{}, status: 200, resp: agentcontext.Run{}, handler: s.handleRunInject},
		{method: "DELETE", path: "/v1/runs/{run_id}", summary: "Close a run",
			doc:    "Removes the run's short-term memory and returns it as it was last.",
			scopes: []string{ScopeWrite}, params: agent, status: 200, resp: agentcontext.Run{}, handler: s.handleCloseRun},

		{method: "POST", path: "/v1/sessions/{session_id}/turns", summary: "Record a message in a session's working memory",
			doc:    "Creates the session's working memory on its first message (turn_count 1) and updates it on each: turn count, topic, emotion, context variables, facts marked for long-term memory. It is deleted after 30 minutes without a message.",
			scopes: []string{ScopeWrite}, body: turnRequest{}, status: 200, resp: agentcontext.WorkingMemory{}, handler: s.handleTurn},
		{method: "GET", path: "/v1/sessions", summary: "List the agent's sessions with working memory",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: sessionsResponse{}, handler: s.handleListSessions},
		{method: "GET", path: "/v1/sessions/{session_id}", summary: "Get a session's working memory",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: agentcontext.WorkingMemory{}, handler: s.handleWorking},
		{method: "DELETE", path: "/v1/sessions/{session_id}", summary: "End a session",
			doc:    "Deletes the session's working memory; with archive=true its marked facts are first written to long-term memory.",
			scopes: []string{ScopeWrite}, params: []param{agentParam,
				{name: "archive", schema: boolSchema, doc: "Write the session's marked facts to long-term memory first."}},
			status: 200, resp: agentcontext.SessionEnd{}, handler: s.handleEndSession},

		{method: "POST", path: "/v1/snapshot", summary: "The memories a run starts with",
			doc:    "Every pinned memory, the 3 most related to the trigger and focus, and up to 5 from the last 24 hours, within token_limit (500), rendered as the system prompt's \"Recent Experience\" section. Records no access.",
			scopes: []string{ScopeRead}, body: snapshotRequest{}, status: 200, resp: agentcontext.Snapshot{}, handler: s.handleSnapshot},
		{method: "GET", path: "/v1/boot", summary: "Warm start: who the agent is and what it should know",
			doc:    "Identity, recent emotions, key knowledge and the last 7 days' events, each by vitality, with a summary, as narrative markdown or, with format=json, as data. Records no access.",
			scopes: []string{ScopeRead}, params: []param{agentParam,
				{name: "format", schema: map[string]any{"type": "string", "enum": []string{agentcontext.BootNarrative, agentcontext.BootJSON}, "default": agentcontext.BootNarrative}, doc: "narrative or json."},
				{name: "lang", schema: map[string]any{"type": "string", "enum": []string{"en", "zh"}, "default": "en"}, doc: "Language of the headings."}},
			status: 200, resp: agentcontext.Boot{}, handler: s.handleBoot},
		{method: "POST", path: "/v1/read", summary: "Default read: the memories for a prompt, with no query",
			doc:    "The effective memories (last write per key; tombstoned, expired and archived left out), by recency, importance and tag match, as `key type summary` lines within token_limit.",
			scopes: []string{ScopeRead}, body: readRequest{}, status: 200, resp: agentcontext.ReadResult{}, handler: s.handleRead},
	}
}

func (s *Server) handleOpenRun(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b openRunRequest) (agentcontext.Run, error) {
		return s.svc.OpenRun(r.Context(), sc, b.RunOptions)
	})(w, r)
}

func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (runsResponse, error) {
		runs, err := s.svc.ListRuns(r.Context(), sc)
		return runsResponse{Runs: runs}, err
	})(w, r)
}

func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (agentcontext.Run, error) {
		return s.svc.GetRun(r.Context(), sc, r.PathValue("run_id"))
	})(w, r)
}

func (s *Server) handleRunCall(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b callRequest) (agentcontext.Run, error) {
		return s.svc.RecordCall(r.Context(), sc, r.PathValue("run_id"), b.ToolCall)
	})(w, r)
}

func (s *Server) handleRunResponse(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b textRequest) (agentcontext.Run, error) {
		return s.svc.RecordResponse(r.Context(), sc, r.PathValue("run_id"), b.Text)
	})(w, r)
}

func (s *Server) handleRunInject(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b textRequest) (agentcontext.Run, error) {
		return s.svc.Inject(r.Context(), sc, r.PathValue("run_id"), b.Text)
	})(w, r)
}

func (s *Server) handleCloseRun(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (agentcontext.Run, error) {
		return s.svc.CloseRun(r.Context(), sc, r.PathValue("run_id"))
	})(w, r)
}

func (s *Server) handleTurn(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b turnRequest) (agentcontext.WorkingMemory, error) {
		return s.svc.AddTurn(r.Context(), sc, r.PathValue("session_id"), b.Turn)
	})(w, r)
}

func (s *Server) handleListSessions(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (sessionsResponse, error) {
		ss, err := s.svc.ListSessions(r.Context(), sc)
		return sessionsResponse{Sessions: ss}, err
	})(w, r)
}

// handleWorking answers GET /v1/sessions/{id} and GET
// /memory/working/{session_id} (API-10): 404 for a session without working memory.
func (s *Server) handleWorking(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (agentcontext.WorkingMemory, error) {
		return s.svc.GetWorkingMemory(r.Context(), sc, r.PathValue("session_id"))
	})(w, r)
}

func (s *Server) handleEndSession(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (agentcontext.SessionEnd, error) {
		archive := false
		if v := r.URL.Query().Get("archive"); v != "" {
			var err error
			if archive, err = strconv.ParseBool(v); err != nil {
				return agentcontext.SessionEnd{}, mnemo.Errorf(mnemo.EINVALID, "archive must be true or false")
			}
		}
		return s.svc.EndSession(r.Context(), sc, r.PathValue("session_id"), archive)
	})(w, r)
}

func (s *Server) handleSnapshot(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b snapshotRequest) (agentcontext.Snapshot, error) {
		return s.svc.Snapshot(r.Context(), sc, b.SnapshotQuery)
	})(w, r)
}

func (s *Server) handleBoot(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (agentcontext.Boot, error) {
		q := r.URL.Query()
		return s.svc.Boot(r.Context(), sc, agentcontext.BootQuery{Format: q.Get("format"), Lang: q.Get("lang")})
	})(w, r)
}

func (s *Server) handleRead(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b readRequest) (agentcontext.ReadResult, error) {
		return s.svc.DefaultRead(r.Context(), sc, b.ReadQuery)
	})(w, r)
}
