package http

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
)

// seed001Routes are the /memory/… routes (API-6 to API-10): with no
// agent_id, the default agent (seedAgent).
func (s *Server) seed001Routes() []route {
	agent := []param{agentParam}
	return []route{
		{method: "GET", path: "/memory/long-term", summary: "List long-term memories",
			doc:    "Seed 001's list: the same memories, filters and page as GET /v1/memories. Like every /memory/… route, without agent_id it acts on the key's only agent, else the configured http.default_agent, else \"default\", and names it in the X-Mnemo-Agent header (and here in agent_id).",
			scopes: []string{ScopeRead}, params: listParams, status: 200, resp: listResponse{}, handler: s.seedAgent(s.handleList)},
		{method: "DELETE", path: "/memory/long-term", summary: "Clear every long-term memory of the agent",
			doc:    "Deletes every memory of the agent for good. Working memory, when it exists, is kept until its session ends.",
			scopes: []string{ScopeAdmin}, params: agent, status: 200, resp: deletedResponse{}, handler: s.seedAgent(s.handleClear)},
		{method: "GET", path: "/memory/long-term/{id}", summary: "Get a long-term memory",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: mnemo.Memory{}, handler: s.seedAgent(s.handleGet)},
		{method: "DELETE", path: "/memory/long-term/{id}", summary: "Delete a long-term memory",
			scopes: []string{ScopeWrite}, params: agent, status: 200, resp: deletedResponse{}, handler: s.seedAgent(s.handleDelete)},
		{method: "GET", path: "/memory/working/{session_id}", summary: "Get a session's working memory",
			doc:    "Seed 001's route: the same as GET /v1/sessions/{session_id}; 404 when the session has no working memory.",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: agentcontext.WorkingMemory{}, handler: s.seedAgent(s.handleWorking)},
	}
}

// AgentHeader names, in the answer of a /memory/… route, the agent it
// acted on.
const AgentHeader = "X-Mnemo-Agent"

// seedAgent serves one of the /memory/… routes, whose clients name no agent:
// without agent_id the request acts on the key's only agent, else the
// configured default agent (Options.DefaultAgent). The answer names it in
// AgentHeader.
func (s *Server) seedAgent(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		agent := q.Get("agent_id")
		if agent == "" {
			a, ok := AuthFromContext(r.Context())
			if !ok {
				s.writeError(w, r, mnemo.Errorf(mnemo.EUNAUTHORIZED, "no API key"))
				return
			}
			agent = s.defAgent
			if len(a.Agents) == 1 {
				agent = a.Agents[0]
			} else if len(a.Agents) > 1 && !slices.Contains(a.Agents, agent) {
				s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID,
					"agent_id is required: key %q may use agents %s, and the default agent %q is not one of them",
					a.KeyName, strings.Join(a.Agents, ", "), agent))
				return
			}
			q.Set("agent_id", agent)
			r = r.Clone(r.Context())
			r.URL.RawQuery = q.Encode()
		}
		w.Header().Set(AgentHeader, agent)
		h(w, r)
	}
}

// handleClear answers DELETE /memory/long-term (API-9): every
// memory of the agent, for good. The route table lets it take no parameter
// but the agent, so that a stray ?key= meant to forget one key cannot
// clear all.
func (s *Server) handleClear(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (deletedResponse, error) {
		n, err := s.svc.Clear(r.Context(), sc)
		return deletedResponse{Deleted: n}, err
	})(w, r)
}
