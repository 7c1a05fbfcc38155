package http

import (
	"net/http"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/lifecycle"
)

// The routes of the memory lifecycle: reflect (the sleep cycle), prune,
// reset, restore, and the ledger.

type reflectRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	lifecycle.ReflectOptions
}

type pruneRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	lifecycle.PruneQuery
}

type agentRequest struct {
	AgentID string `json:"agent_id,omitempty"`
}

type ingestRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	lifecycle.IngestRequest
}

func (b ingestRequest) agent() string { return b.AgentID }

type restoreRequest struct {
	AgentID   string `json:"agent_id,omitempty"`
	LedgerSeq int64  `json:"ledger_seq"`
}

type restoreResponse struct {
	Restored []string `json:"restored"`
}

type ledgerResponse struct {
	Entries []mnemo.LedgerEntry `json:"entries"`
	page
}

func (b reflectRequest) agent() string { return b.AgentID }
func (b pruneRequest) agent() string   { return b.AgentID }
func (b agentRequest) agent() string   { return b.AgentID }
func (b restoreRequest) agent() string { return b.AgentID }

func (s *Server) lifecycleRoutes() []route {
	return []route{
		{method: "POST", path: "/v1/reflect", summary: "Run the sleep cycle: decay, tidy, govern, retention, capacity, purge",
			doc:    "Recomputes vitality (Ebbinghaus), archives faded, empty, old-and-unused and over-capacity memories, and erases what prune, reset and retention archived past the grace period; every change is in the ledger. dry_run reports and changes nothing. The answer has a markdown report in text.",
			scopes: []string{ScopeWrite}, body: reflectRequest{}, status: 200, resp: lifecycle.ReflectReport{}, handler: s.handleReflect},
		{method: "POST", path: "/v1/prune", summary: "Archive the memories matching a criterion",
			doc:    "By creation time, tags, types or security levels; restorable from the ledger within the grace period, erased after it. dry_run lists what would be archived.",
			scopes: []string{ScopeAdmin}, body: pruneRequest{}, status: 200, resp: lifecycle.ArchiveResult{}, handler: s.handlePrune},
		{method: "POST", path: "/v1/reset", summary: "Archive every memory of the agent: it starts over",
			doc:    "Restorable from the ledger within the grace period, erased after it.",
			scopes: []string{ScopeAdmin}, body: agentRequest{}, status: 200, resp: lifecycle.ArchiveResult{}, handler: s.handleReset},
		{method: "POST", path: "/v1/restore", summary: "Restore the memories a ledger entry archived",
			scopes: []string{ScopeAdmin}, body: restoreRequest{}, status: 200, resp: restoreResponse{}, handler: s.handleRestore},
		{method: "POST", path: "/v1/ingest", summary: "Extract memories from markdown and store them",
			doc:    "Each bullet or paragraph under a heading becomes an identity, emotion, knowledge or event memory (by the heading or its words, English and Chinese), keyed by source + heading + position, through the Write Guard, with source auto:<source>. dry_run previews.",
			scopes: []string{ScopeWrite}, body: ingestRequest{}, status: 200, resp: lifecycle.IngestResult{}, handler: s.handleIngest},
		{method: "GET", path: "/v1/ledger", summary: "List the agent's lifecycle events, newest first",
			scopes: []string{ScopeRead}, params: append([]param{agentParam,
				{name: "action", schema: stringSchema, doc: "Only this action: archive, retention, prune, reset, restore, delete, forget, clear, decay."},
				{name: "memory_id", schema: stringSchema, doc: "Only entries naming this memory."},
				{name: "since", schema: timeSchema, doc: "Entries at or after this time (RFC 3339, a date or words)."},
				{name: "until", schema: timeSchema, doc: "Entries before this time (RFC 3339, a date or words)."}}, pageParams...),
			status: 200, resp: ledgerResponse{}, handler: s.handleLedger},
	}
}

func (s *Server) handleReflect(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b reflectRequest) (lifecycle.ReflectReport, error) {
		b.Actor = "api"
		return s.svc.Reflect(r.Context(), sc, b.ReflectOptions)
	})(w, r)
}

func (s *Server) handlePrune(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b pruneRequest) (lifecycle.ArchiveResult, error) {
		b.Actor = "api"
		return s.svc.Prune(r.Context(), sc, b.PruneQuery)
	})(w, r)
}

func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, _ agentRequest) (lifecycle.ArchiveResult, error) {
		return s.svc.Reset(r.Context(), sc, "api")
	})(w, r)
}

func (s *Server) handleRestore(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b restoreRequest) (restoreResponse, error) {
		if b.LedgerSeq <= 0 {
			return restoreResponse{}, mnemo.Errorf(mnemo.EINVALID, "ledger_seq is required")
		}
		ids, err := s.svc.Restore(r.Context(), sc, b.LedgerSeq, "api")
		return restoreResponse{Restored: ids}, err
	})(w, r)
}

func (s *Server) handleIngest(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b ingestRequest) (lifecycle.IngestResult, error) {
		return s.svc.Ingest(r.Context(), sc, b.IngestRequest)
	})(w, r)
}

func (s *Server) handleLedger(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (ledgerResponse, error) {
		limit, offset, err := pageQuery(r)
		if err != nil {
			return ledgerResponse{}, err
		}
		v := r.URL.Query()
		q := mnemo.LedgerQuery{Action: v.Get("action"), MemoryID: v.Get("memory_id"), Limit: limit, Offset: offset}
		for _, t := range []struct {
			name string
			dst  **time.Time
		}{{"since", &q.Since}, {"until", &q.Until}} {
			if s := v.Get(t.name); s != "" {
				at, err := queryTime(t.name, s)
				if err != nil {
					return ledgerResponse{}, err
				}
				*t.dst = &at
			}
		}
		es, total, err := s.svc.Ledger(r.Context(), sc, q)
		if err != nil {
			return ledgerResponse{}, err
		}
		return ledgerResponse{Entries: es, page: newPage(total, limit, offset, len(es))}, nil
	})(w, r)
}
