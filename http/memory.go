package http

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// The routes of long-term memory: remember, list, get, forget, history,
// recall and surface, conversation messages, export and import, stats.

// listParams select a page of memories (mnemo.ListQuery).
var listParams = slices.Concat([]param{agentParam}, pageParams, []param{
	{name: "tags", schema: stringsSchema, doc: "Memories with any of these tags (all of them with all_tags); repeat the parameter or separate with commas."},
	{name: "all_tags", schema: boolSchema, doc: "Match all of tags rather than any."},
	{name: "types", schema: stringsSchema, doc: "Memories of these types."},
	{name: "categories", schema: stringsSchema, doc: "Memories of these categories."},
	{name: "session_id", schema: stringSchema, doc: "Memories of this session."},
	{name: "key_prefix", schema: stringSchema, doc: "Memories whose key starts with this prefix."},
	{name: "created_after", schema: timeSchema, doc: "Memories created at or after this time (RFC 3339, a date or words)."},
	{name: "created_before", schema: timeSchema, doc: "Memories created before this time (RFC 3339, a date or words)."},
	{name: "occurred_after", schema: timeSchema, doc: "Memories of what happened after this time, their occurred window ending after it (RFC 3339, a date or words)."},
	{name: "occurred_before", schema: timeSchema, doc: "Memories of what happened before this time, their occurred window starting before it (RFC 3339, a date or words)."},
	{name: "as_of", schema: timeSchema, doc: "What held at this time (RFC 3339, a date or words): a key's value then (with valid_to, when it was replaced) and memories since contradicted; default now."},
	{name: "min_confidence", schema: map[string]any{"type": "number", "minimum": 0, "maximum": 1}, doc: "Memories at least this confident."},
	{name: "include_archived", schema: boolSchema, doc: "Include archived memories."},
	{name: "include_expired", schema: boolSchema, doc: "Include expired memories."},
	{name: "archived_only", schema: boolSchema, doc: "Only archived memories."},
	{name: "pinned", schema: boolSchema, doc: "true: only pinned memories; false: only those not pinned."},
	{name: "security_levels", schema: map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{mnemo.SecurityPublic, mnemo.SecurityInternal, mnemo.SecurityConfidential, mnemo.SecurityRestricted}}},
		doc: "Memories of these security levels."},
	{name: "order", schema: map[string]any{"type": "string", "enum": []string{mnemo.OrderNewest, mnemo.OrderOldest, mnemo.OrderKey, mnemo.OrderVitality}, "default": mnemo.OrderNewest},
		doc: "Order of the list."},
})

var keyParam = param{name: "key", schema: stringSchema, required: true,
	doc: `The memory key, such as /user/preference/lang or knowledge://topic/name.`}

// memoryRoutes are the /v1 routes of long-term memory.
func (s *Server) memoryRoutes() []route {
	agent := []param{agentParam}
	return []route{
		{method: "POST", path: "/v1/memories", summary: "Remember one memory",
			doc:    "Stores a memory through the Write Guard, whose decision comes back in guard: add, update, duplicate (nothing written; the existing memory is returned), merge (a near duplicate replaced and archived) or conflict (kept beside the memories it contradicts, which rank lower). Empty or too short content is rejected. With a key, it upserts the key's memory (last write wins); with a key and null content and data, it tombstones the key.",
			scopes: []string{ScopeWrite}, body: rememberRequest{}, status: 201, resp: memory.WriteResult{}, handler: s.handleRemember},
		{method: "POST", path: "/v1/memories/batch", summary: "Remember many memories at once",
			doc:    "Stores every memory or none: an invalid one fails the batch with an error naming its index. With async_embedding (or embedding.mode async) the batch is acknowledged before its vectors are made: recall finds those memories by their words until the background worker has embedded them (explain's vector says pending).",
			scopes: []string{ScopeWrite}, body: batchRequest{}, status: 201, resp: writeResponse{}, handler: s.handleRememberBatch},
		{method: "GET", path: "/v1/memories", summary: "List memories",
			scopes: []string{ScopeRead}, params: listParams, status: 200, resp: listResponse{}, handler: s.handleList},
		{method: "DELETE", path: "/v1/memories", summary: "Forget keys, or clear every memory of the agent",
			doc:    "With key (repeatable) it forgets those keys and needs the write scope; with all=true it deletes every memory of the agent and needs the admin scope.",
			scopes: []string{ScopeWrite, ScopeAdmin}, scopeOf: forgetOrClearScope,
			params: []param{agentParam,
				{name: "key", schema: stringsSchema, doc: "Keys to forget; repeat the parameter for more."},
				{name: "all", schema: boolSchema, doc: "true to delete every memory of the agent."}},
			status: 200, resp: deletedResponse{}, handler: s.handleForgetOrClear},
		{method: "GET", path: "/v1/memories/{id}", summary: "Get a memory by id",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: mnemo.Memory{}, handler: s.handleGet},
		{method: "DELETE", path: "/v1/memories/{id}", summary: "Forget a memory by id",
			scopes: []string{ScopeWrite}, params: agent, status: 200, resp: deletedResponse{}, handler: s.handleDelete},
		{method: "GET", path: "/v1/keys", summary: "Get the live memory of a key",
			scopes: []string{ScopeRead}, params: []param{agentParam, keyParam}, status: 200, resp: mnemo.Memory{}, handler: s.handleGetKey},
		{method: "GET", path: "/v1/history", summary: "List the revisions of a key, oldest first",
			scopes: []string{ScopeRead}, params: slices.Concat([]param{agentParam, keyParam}, pageParams),
			status: 200, resp: historyResponse{}, handler: s.handleHistory},
		{method: "POST", path: "/v1/recall", summary: "Recall the memories that matter for a query",
			doc:    "Ranks the agent's memories for the query and records an access of those returned (which the read scope allows).",
			scopes: []string{ScopeRead}, body: recallRequest{}, status: 200, resp: memory.Result{}, handler: s.handleRecall},
		{method: "GET", path: "/v1/recall/path", summary: "Recall the memories under a key prefix, and what they link to",
			doc:    "Like the MCP tool recall_path: the memories whose key is or starts with prefix, in key order; with traverse_hops, then the live memories and events of the agent that links lead to from them (nearest first, within limit), each saying how it was reached. Links whose far end is gone are skipped.",
			scopes: []string{ScopeRead}, params: recallPathParams, status: 200, resp: memory.PathResult{}, handler: s.handleRecallPath},
		{method: "POST", path: "/v1/surface", summary: "Recall without recording an access",
			scopes: []string{ScopeRead}, body: recallRequest{}, status: 200, resp: memory.Result{}, handler: s.handleSurface},
		{method: "POST", path: "/v1/messages", summary: "Store the messages of a conversation",
			doc:    "Stores each message as an event memory of the session, in order, indexed with its neighbours; the session's earlier messages are indexed again with the new ones beside them. A message with no name whose text opens with its speaker's (\"Ana: …\") is stored said by them where two of the session's lines or more open so, or the agent's last messages were said by them.",
			scopes: []string{ScopeWrite}, body: messagesRequest{}, status: 201, resp: idsResponse{}, handler: s.handleMessages},
		{method: "GET", path: "/v1/export", summary: "Export the agent's memories as JSON Lines",
			doc:    "Every live memory of the agent, archived and expired included, oldest first, one per line; POST /v1/import reads it back losslessly.",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: "", contentType: ndjson, handler: s.handleExport},
		{method: "POST", path: "/v1/import", summary: "Import memories from JSON Lines",
			doc:    "Reads memories written by export into the agent, keeping times and access counts. A line of a memory the agent holds (by its key, or without one by its id) changes it only when its updated_at is later, as a new revision; otherwise it is skipped, so a second import of a file changes nothing. The answer counts the lines: imported (new memories), updated and skipped. A line's id is kept when the agent already holds it; otherwise the memory gets a new id, the same on every import, given in ids (old to new). Every line is checked first: a bad line stores nothing.",
			scopes: []string{ScopeWrite}, params: agent, bodyLines: mnemo.Memory{}, status: 200, resp: importResponse{}, handler: s.handleImport},
		{method: "GET", path: "/v1/stats", summary: "Count the agent's memories",
			doc:    "The store's counts, the active memories by type, the degradations noted lately, and the latency of the tenant's recent recall and surface requests on this server.",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: statsResponse{}, handler: s.handleStats},
	}
}

// forgetOrClearScope is the scope of DELETE /v1/memories: clearing
// everything is an admin's job, forgetting a key a writer's.
func forgetOrClearScope(r *http.Request) string {
	if r.URL.Query().Has("all") {
		return ScopeAdmin
	}
	return ScopeWrite
}

type rememberRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	mnemo.Draft
}

type batchRequest struct {
	AgentID  string        `json:"agent_id,omitempty"`
	Memories []mnemo.Draft `json:"memories"`
	// AsyncEmbedding acknowledges the batch before its vectors are made
	// (a bulk load; embedding.mode async does it for every write): the
	// background worker makes them, and recall finds the memories by
	// their words meanwhile (MEM-3, PERF-1).
	AsyncEmbedding bool `json:"async_embedding,omitempty"`
}

type messagesRequest struct {
	AgentID   string           `json:"agent_id,omitempty"`
	SessionID string           `json:"session_id"`
	Messages  []memory.Message `json:"messages"`
}

type recallRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	memory.Query
}

func (b rememberRequest) agent() string { return b.AgentID }
func (b batchRequest) agent() string    { return b.AgentID }
func (b messagesRequest) agent() string { return b.AgentID }
func (b recallRequest) agent() string   { return b.AgentID }

// writeResponse answers a batch write: the ids, and the Write Guard's
// decision for each.
type writeResponse struct {
	IDs   []string               `json:"ids"`
	Guard []memory.GuardDecision `json:"guard"`
	// Applied[i] is false when memories[i] lost last-write-wins to a newer
	// revision of its key, whose time is WinnerUpdatedAt[i] (absent when
	// every write was applied).
	Applied         []bool       `json:"applied"`
	WinnerUpdatedAt []*time.Time `json:"winner_updated_at,omitempty"`
}

// idsResponse answers writes of many records.
type idsResponse struct {
	IDs []string `json:"ids"`
}

func ids(ms []mnemo.Memory) idsResponse {
	out := idsResponse{IDs: make([]string, len(ms))}
	for i := range ms {
		out.IDs[i] = ms[i].ID
	}
	return out
}

// listResponse is a page of memories.
type listResponse struct {
	// AgentID is the agent listed: on GET /memory/long-term, which names
	// none, the default agent.
	AgentID  string         `json:"agent_id"`
	Memories []mnemo.Memory `json:"memories"`
	page
}

// deletedResponse answers deletes.
type deletedResponse struct {
	Deleted int `json:"deleted"`
}

// historyResponse is a page of a key's revisions.
type historyResponse struct {
	Revisions []mnemo.Revision `json:"revisions"`
	page
}

// importResponse answers an import: each record is counted once (API-22).
type importResponse struct {
	Imported int `json:"imported"` // new memories
	Updated  int `json:"updated"`  // later revisions of memories the agent held
	Skipped  int `json:"skipped"`  // records of revisions the agent held already, or older
	// IDs maps each line's id to the id its memory was stored under, when
	// they differ: ids are unique in a store, and a line's id that the
	// agent does not hold gets a new one.
	IDs map[string]string `json:"ids"`
}

// ndjson is the media type of JSON Lines.
const ndjson = "application/x-ndjson"

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b rememberRequest) (memory.WriteResult, error) {
		res, err := s.svc.Write(r.Context(), sc, []mnemo.Draft{b.Draft})
		if err != nil {
			return memory.WriteResult{}, err
		}
		return res[0], nil
	})(w, r)
}

func (s *Server) handleRememberBatch(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b batchRequest) (writeResponse, error) {
		res, err := s.svc.WriteWith(r.Context(), sc, b.Memories, memory.WriteOptions{AsyncEmbedding: b.AsyncEmbedding})
		if err != nil {
			return writeResponse{}, err
		}
		out := writeResponse{IDs: make([]string, len(res)), Guard: make([]memory.GuardDecision, len(res)), Applied: make([]bool, len(res))}
		for i := range res {
			out.IDs[i], out.Guard[i], out.Applied[i] = res[i].ID, res[i].Guard, res[i].Applied
			if !res[i].Applied {
				if out.WinnerUpdatedAt == nil {
					out.WinnerUpdatedAt = make([]*time.Time, len(res))
				}
				out.WinnerUpdatedAt[i] = res[i].WinnerUpdatedAt
			}
		}
		return out, nil
	})(w, r)
}

func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b messagesRequest) (idsResponse, error) {
		ms, err := s.svc.AddMessages(r.Context(), sc, b.SessionID, b.Messages)
		if err != nil {
			return idsResponse{}, err
		}
		return ids(ms), nil
	})(w, r)
}

func (s *Server) handleRecall(w http.ResponseWriter, r *http.Request)  { s.search("recall")(w, r) }
func (s *Server) handleSurface(w http.ResponseWriter, r *http.Request) { s.search("surface")(w, r) }

// search answers recall and surface, which differ only in whether the
// access is recorded, and measures them.
func (s *Server) search(op string) http.HandlerFunc {
	find := s.svc.Surface
	if op == "recall" {
		find = s.svc.Recall
	}
	return scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b recallRequest) (memory.Result, error) {
		start := time.Now()
		res, err := find(r.Context(), sc, b.Query)
		took := time.Since(start)
		s.metrics.recall.WithLabelValues(op).Observe(took.Seconds())
		if err == nil {
			s.latency.add(sc.TenantID, start.Add(took), took)
		}
		if err == nil && res.Degraded {
			s.metrics.degraded.WithLabelValues(op).Inc()
		}
		if err == nil && res.UnknownAgent {
			// A near name is suggested among the agents this key may use
			// only (API-18).
			if a, ok := AuthFromContext(r.Context()); ok {
				res.Hint = s.svc.AgentHint(r.Context(), sc, a.Agents)
			}
		}
		return res, err
	})
}

// handleList answers GET /v1/memories and GET /memory/long-term (API-6).
func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (listResponse, error) {
		q, err := listQuery(r)
		if err != nil {
			return listResponse{}, err
		}
		ms, total, err := s.svc.List(r.Context(), sc, q)
		if err != nil {
			return listResponse{}, err
		}
		if ms == nil {
			ms = []mnemo.Memory{}
		}
		return listResponse{AgentID: sc.AgentID, Memories: ms, page: newPage(total, q.Limit, q.Offset, len(ms))}, nil
	})(w, r)
}

// listQuery reads filters and paging from the URL query.
func listQuery(r *http.Request) (mnemo.ListQuery, error) {
	v := r.URL.Query()
	var q mnemo.ListQuery
	var err error
	if q.Limit, q.Offset, err = pageQuery(r); err != nil {
		return q, err
	}
	bools := []struct {
		name string
		dst  *bool
	}{{"all_tags", &q.AllTags}, {"include_archived", &q.IncludeArchived}, {"include_expired", &q.IncludeExpired}, {"archived_only", &q.ArchivedOnly}}
	for _, f := range bools {
		if s := v.Get(f.name); s != "" {
			if *f.dst, err = strconv.ParseBool(s); err != nil {
				return q, mnemo.Errorf(mnemo.EINVALID, "%s must be true or false", f.name)
			}
		}
	}
	times := []struct {
		name string
		dst  **time.Time
	}{{"created_after", &q.CreatedAfter}, {"created_before", &q.CreatedBefore},
		{"occurred_after", &q.OccurredAfter}, {"occurred_before", &q.OccurredBefore}, {"as_of", &q.AsOf}}
	for _, f := range times {
		if s := v.Get(f.name); s != "" {
			t, err := queryTime(f.name, s)
			if err != nil {
				return q, err
			}
			*f.dst = &t
		}
	}
	if s := v.Get("min_confidence"); s != "" {
		if q.MinConfidence, err = strconv.ParseFloat(s, 64); err != nil {
			return q, mnemo.Errorf(mnemo.EINVALID, "min_confidence must be a number")
		}
	}
	if s := v.Get("pinned"); s != "" {
		pinned, err := strconv.ParseBool(s)
		if err != nil {
			return q, mnemo.Errorf(mnemo.EINVALID, "pinned must be true or false")
		}
		q.Pinned, q.Unpinned = pinned, !pinned
	}
	q.SecurityLevels = splitList(v["security_levels"])
	q.Tags = splitList(v["tags"])
	q.Types = splitList(v["types"])
	q.Categories = splitList(v["categories"])
	q.SessionID = v.Get("session_id")
	q.KeyPrefix = v.Get("key_prefix")
	q.Order = v.Get("order")
	return q, nil
}

// splitList accepts both ?tags=a&tags=b and ?tags=a,b.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// handleGet answers GET /v1/memories/{id} and GET /memory/long-term/{id}.
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (mnemo.Memory, error) {
		return s.svc.Get(r.Context(), sc, r.PathValue("id"))
	})(w, r)
}

func (s *Server) handleGetKey(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (mnemo.Memory, error) {
		return s.svc.GetByKey(r.Context(), sc, r.URL.Query().Get("key"))
	})(w, r)
}

// handleDelete answers DELETE /v1/memories/{id} and DELETE
// /memory/long-term/{id}.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (deletedResponse, error) {
		n, err := s.svc.Forget(r.Context(), sc, []string{r.PathValue("id")}, nil)
		if err == nil && n == 0 {
			err = mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", r.PathValue("id"))
		}
		return deletedResponse{Deleted: n}, err
	})(w, r)
}

// handleForgetOrClear forgets by key (?key=, repeatable) or, with
// ?all=true, clears every memory of the agent.
func (s *Server) handleForgetOrClear(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (deletedResponse, error) {
		v := r.URL.Query()
		var n int
		var err error
		switch keys := v["key"]; {
		case len(keys) > 0 && v.Has("all"):
			err = mnemo.Errorf(mnemo.EINVALID, "give key or all=true, not both")
		case len(keys) > 0:
			n, err = s.svc.Forget(r.Context(), sc, nil, keys)
		case v.Get("all") == "true":
			n, err = s.svc.Clear(r.Context(), sc)
		default:
			err = mnemo.Errorf(mnemo.EINVALID, "give ?key=... to forget a key, or ?all=true to clear every memory of the agent")
		}
		return deletedResponse{Deleted: n}, err
	})(w, r)
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (historyResponse, error) {
		limit, offset, err := pageQuery(r)
		if err != nil {
			return historyResponse{}, err
		}
		revs, err := s.svc.History(r.Context(), sc, r.URL.Query().Get("key"))
		if err != nil {
			return historyResponse{}, err
		}
		// The store returns a key's whole history, which is short; page it
		// here so that every list route pages alike.
		total := len(revs)
		revs = revs[min(offset, total):min(offset+limit, total)]
		if revs == nil {
			revs = []mnemo.Revision{}
		}
		return historyResponse{Revisions: revs, page: newPage(total, limit, offset, len(revs))}, nil
	})(w, r)
}

// exportable refuses an export of what to a key that reads masked, before
// the first byte: the service refuses it too, but once streaming starts
// an error can no longer become a problem response.
func exportable(r *http.Request, what string) error {
	if a, ok := AuthFromContext(r.Context()); ok && a.Clearance().Masks() {
		return mnemo.Errorf(mnemo.EFORBIDDEN, "key %q reads confidential and restricted memories masked, and an export of %s is whole: export with a key without mask", a.KeyName, what)
	}
	return nil
}

// handleExport streams JSON Lines, so it writes its own answer rather
// than byQuery's JSON.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Check before the first byte, the clearance (the service refuses a
	// masked export) and the scope: once streaming starts, an error can no
	// longer become a problem response.
	if err := exportable(r, "memories"); err != nil {
		s.writeError(w, r, err)
		return
	}
	if _, err := s.svc.Stats(r.Context(), sc); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ndjson)
	if _, err := s.svc.Export(r.Context(), sc, w, nil); err != nil {
		s.log.Warn("export cut short", "err", err)
	}
}

func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (importResponse, error) {
		// Private: what a tenant's import does never depends on other
		// tenants' memories (an id they hold is not revealed by a conflict).
		newIDs := map[string]string{}
		n, err := s.svc.Import(r.Context(), http.MaxBytesReader(w, r.Body, s.maxBody), memory.ImportOptions{
			Scope: &sc, Private: true, OnNewID: func(old, new string) { newIDs[old] = new }})
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				err = mnemo.Errorf(mnemo.ETOOLARGE, "request body is over %d bytes", s.maxBody)
			}
			return importResponse{}, err
		}
		return importResponse{Imported: n.Imported, Updated: n.Updated, Skipped: n.Skipped, IDs: newIDs}, nil
	})(w, r)
}
