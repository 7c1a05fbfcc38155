package http

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// The routes the web inspector uses (API-13 to API-15), which any client
// may: who the key is, the tenant's agents, a memory corrected in place,
// the key tree; and the stats' additions (counts by type, recent
// degradations, recall latency).

func (s *Server) inspectorRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/whoami", summary: "What the API key grants",
			doc:    "The key's name, tenant, agents (empty: every agent of the tenant) and scopes. Any valid key may ask; with no keys configured every request is the default tenant's with every scope.",
			scopes: []string{scopeAuthenticated}, status: 200, resp: whoamiResponse{}, handler: s.handleWhoami},
		{method: "GET", path: "/v1/agents", summary: "List the agents of the key's tenant",
			doc:    "The agents of the tenant that have memories and that the key may use, in order, with their active memories (neither archived nor deleted) counted.",
			scopes: []string{ScopeRead}, status: 200, resp: agentsResponse{}, handler: s.handleAgents},
		{method: "PATCH", path: "/v1/memories/{id}", summary: "Correct a memory in place",
			doc:    "Changes the fields given (content, tags, type, priority, pinned, security_level, archived) and keeps the others, as a write does: validation, the Write Guard's rejection of empty or too short text, a revision in history, the index and vector made again. A memory with a key changes by its key (last write wins: applied is false when a newer revision stands); one without is changed in place (stores that cannot answer unavailable). Archiving and unarchiving write a ledger entry (archive, restore): POST /v1/restore with ledger_seq brings an archived memory back.",
			scopes: []string{ScopeWrite}, body: patchRequest{}, status: 200, resp: memory.UpdateResult{}, handler: s.handlePatch},
		{method: "GET", path: "/v1/keys/tree", summary: "List one level of the key tree",
			doc:    "The children of prefix (\"\" for the top): directories (their name ends in / or ://) with the number of keys below them, and leaf keys. Archived and expired memories count; deleted keys do not.",
			scopes: []string{ScopeRead}, params: []param{agentParam,
				{name: "prefix", schema: stringSchema, doc: "Where in the tree: \"\", /user/, kb://topic/ ..."},
				{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxKeyTreeChildren, "default": 500}, doc: "How many children to return at most."}},
			status: 200, resp: keyTreeResponse{}, handler: s.handleKeyTree},
	}
}

// whoamiResponse is what a key grants.
type whoamiResponse struct {
	KeyName string   `json:"key_name"` // "" when the server has no keys
	Tenant  string   `json:"tenant"`
	Agents  []string `json:"agents"` // empty: every agent of the tenant
	Scopes  []string `json:"scopes"`
	// Mask says that confidential and restricted memories come back masked.
	Mask bool `json:"mask"`
}

func (s *Server) handleWhoami(w http.ResponseWriter, r *http.Request) {
	a, ok := AuthFromContext(r.Context())
	if !ok {
		s.writeError(w, r, mnemo.Errorf(mnemo.EUNAUTHORIZED, "no API key"))
		return
	}
	if a.Agents == nil {
		a.Agents = []string{}
	}
	//lint:ignore S1016 the answer names each field it shows: one added to Auth must not reach clients by a conversion
	writeJSON(w, r, http.StatusOK, whoamiResponse{KeyName: a.KeyName, Tenant: a.Tenant, Agents: a.Agents, Scopes: a.Scopes, Mask: a.Mask})
}

// agentsResponse lists agents.
type agentsResponse struct {
	Agents []mnemo.AgentCount `json:"agents"`
	// Partial says how the list was made when the store cannot list its
	// agents in one query.
	Partial string `json:"partial,omitempty"`
}

func (s *Server) handleAgents(w http.ResponseWriter, r *http.Request) {
	a, ok := AuthFromContext(r.Context())
	if !ok {
		s.writeError(w, r, mnemo.Errorf(mnemo.EUNAUTHORIZED, "no API key"))
		return
	}
	agents, partial, err := s.svc.Agents(r.Context(), a.Tenant, a.Agents)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, agentsResponse{Agents: agents, Partial: partial})
}

// patchRequest is a partial change of a memory.
type patchRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	memory.Patch
}

func (b patchRequest) agent() string { return b.AgentID }

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b patchRequest) (memory.UpdateResult, error) {
		return s.svc.Update(r.Context(), sc, r.PathValue("id"), b.Patch, "api")
	})(w, r)
}

// keyTreeResponse is one level of the key tree.
type keyTreeResponse struct {
	Prefix   string           `json:"prefix"`
	Children []mnemo.KeyChild `json:"children"`
	HasMore  bool             `json:"has_more"`
}

func (s *Server) handleKeyTree(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (keyTreeResponse, error) {
		q := r.URL.Query()
		limit := 500
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > mnemo.MaxKeyTreeChildren {
				return keyTreeResponse{}, mnemo.Errorf(mnemo.EINVALID, "limit must be a whole number from 1 to %d", mnemo.MaxKeyTreeChildren)
			}
			limit = n
		}
		prefix := q.Get("prefix")
		children, more, err := s.svc.KeyTree(r.Context(), sc, prefix, limit)
		if err != nil {
			return keyTreeResponse{}, err
		}
		return keyTreeResponse{Prefix: prefix, Children: children, HasMore: more}, nil
	})(w, r)
}

// statsResponse is an agent's statistics, with what the inspector's health
// page shows besides the store's.
type statsResponse struct {
	mnemo.Stats
	// ByType counts the active memories by type.
	ByType map[string]int `json:"by_type"`
	// DegradedReasons are the degradations of the agent's reads and writes
	// noted in the last 20 minutes.
	DegradedReasons []string `json:"degraded_reasons"`
	// RecallLatency is the latency of this tenant's recall and surface
	// requests on this server (in process, the last 15 minutes, at most
	// the last 1,000 requests); absent before the first.
	RecallLatency *latencySummary `json:"recall_latency,omitempty"`
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (statsResponse, error) {
		st, err := s.svc.Stats(r.Context(), sc)
		if err != nil {
			return statsResponse{}, err
		}
		byType, err := s.svc.CountByType(r.Context(), sc)
		if err != nil {
			return statsResponse{}, err
		}
		return statsResponse{Stats: st, ByType: byType, DegradedReasons: s.svc.DegradedReasons(sc),
			RecallLatency: s.latency.summary(sc.TenantID, time.Now())}, nil
	})(w, r)
}

// latencySummary sums up recent recall latencies.
type latencySummary struct {
	P50ms float64 `json:"p50_ms"`
	P95ms float64 `json:"p95_ms"`
	Count int     `json:"count"`
}

// latencyWindow keeps the latest recall and surface durations of each
// tenant: a ring of the last latencyKeep, of which those of the last
// latencyAge count.
type latencyWindow struct {
	mu    sync.Mutex
	rings map[string]*latencyRing
}

const (
	latencyKeep = 1000
	latencyAge  = 15 * time.Minute
)

type latencyRing struct {
	at   [latencyKeep]time.Time
	took [latencyKeep]time.Duration
	next int
	n    int
}

func newLatencyWindow() *latencyWindow { return &latencyWindow{rings: map[string]*latencyRing{}} }

// add records one request of tenant that ended at at and took took.
func (l *latencyWindow) add(tenant string, at time.Time, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rings[tenant]
	if r == nil {
		r = &latencyRing{}
		l.rings[tenant] = r
	}
	r.at[r.next], r.took[r.next] = at, took
	r.next = (r.next + 1) % latencyKeep
	r.n = min(r.n+1, latencyKeep)
}

// summary returns tenant's p50 and p95 at now, nil with no request.
func (l *latencyWindow) summary(tenant string, now time.Time) *latencySummary {
	l.mu.Lock()
	r := l.rings[tenant]
	var ds []time.Duration
	if r != nil {
		for i := range r.n {
			if now.Sub(r.at[i]) <= latencyAge {
				ds = append(ds, r.took[i])
			}
		}
	}
	l.mu.Unlock()
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	q := func(p float64) float64 {
		i := sort.Search(len(ds), func(i int) bool { return float64(i+1) >= p*float64(len(ds)) })
		return float64(ds[min(i, len(ds)-1)].Microseconds()) / 1000
	}
	return &latencySummary{P50ms: q(0.5), P95ms: q(0.95), Count: len(ds)}
}
