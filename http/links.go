package http

import (
	"net/http"
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// GET /v1/recall/path: recall_path (MEM-9), the memories under a key
// prefix in key order, then (traverse_hops) what links lead to from them.

var recallPathParams = []param{agentParam,
	{name: "prefix", schema: stringSchema, required: true, doc: "A key or key prefix: /user/preference, knowledge:// (every key of the scheme) or / (every key)."},
	{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": 50}, doc: "How many memories and linked nodes in all; the memories under the prefix come first."},
	{name: "traverse_hops", schema: map[string]any{"type": "integer", "minimum": 0, "maximum": memory.MaxTraverseHops, "default": 0}, doc: "Follow links from the memories found up to this many hops: the live memories and events of the agent they lead to come back in linked, each with how it was reached."},
}

func (s *Server) handleRecallPath(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (memory.PathResult, error) {
		v := r.URL.Query()
		var limit, hops int
		for _, p := range []struct {
			name string
			dst  *int
			lo   int
		}{{"limit", &limit, 1}, {"traverse_hops", &hops, 0}} {
			if s := v.Get(p.name); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil || n < p.lo {
					return memory.PathResult{}, mnemo.Errorf(mnemo.EINVALID, "%s must be a whole number, %d or more", p.name, p.lo)
				}
				*p.dst = n
			}
		}
		if limit > mnemo.MaxListLimit {
			return memory.PathResult{}, mnemo.Errorf(mnemo.EINVALID, "limit must be 1 to %d", mnemo.MaxListLimit)
		}
		if v.Get("prefix") == "" {
			return memory.PathResult{}, mnemo.Errorf(mnemo.EINVALID, "prefix is required")
		}
		return s.svc.RecallPathLinked(r.Context(), sc, v.Get("prefix"), limit, hops)
	})(w, r)
}
