package http

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// AgentHeader names, in the answer of a seed 001 route, the agent it acted
// on.
const AgentHeader = "X-Mnemo-Agent"

// seedAgent serves one of seed 001's routes, whose clients name no agent:
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
