package http

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/prompt"
)

// route is one operation of the JSON API. The table of routes registers the
// handlers, checks query parameters and scopes, and generates the OpenAPI
// document: one source, so the document cannot describe a route that does
// not exist or miss one that does.
type route struct {
	method, path string
	summary      string
	doc          string // more on what it does, for the OpenAPI document
	// scopes are the scopes the route may need, the usual one first; none
	// means the route is public. scopeOf, when set, picks one of them from
	// the request, for a route whose parameters change what it does.
	scopes  []string
	scopeOf func(*http.Request) string
	params  []param // query parameters; path parameters come from path
	body    any     // the request body's type, as a zero value; nil = none
	// bodyLines is the type of each line of a JSON Lines request body.
	bodyLines any
	status    int // the status of success; 0 = the route always fails
	resp      any // the success body's type, as a zero value
	// contentType is the success body's media type; "" means JSON.
	contentType string
	// stream marks a route that streams its answer: no request timeout.
	stream  bool
	handler http.HandlerFunc
}

// pattern is the route's ServeMux pattern.
func (rt *route) pattern() string { return rt.method + " " + rt.path }

// scope returns the scope r needs, "" for a public route.
func (rt *route) scope(r *http.Request) string {
	switch {
	case len(rt.scopes) == 0:
		return ""
	case rt.scopeOf != nil:
		return rt.scopeOf(r)
	}
	return rt.scopes[0]
}

// param is a query parameter.
type param struct {
	name     string
	schema   map[string]any // its JSON Schema
	required bool
	doc      string
}

var (
	stringSchema  = map[string]any{"type": "string"}
	boolSchema    = map[string]any{"type": "boolean"}
	timeSchema    = map[string]any{"type": "string", "format": "date-time"}
	stringsSchema = map[string]any{"type": "array", "items": stringSchema}
)

var agentParam = param{name: "agent_id", schema: stringSchema,
	doc: "The agent. It may be left out when the API key is limited to exactly one agent, which is then used."}

var keyParam = param{name: "key", schema: stringSchema, required: true,
	doc: `The memory key, such as /user/preference/lang or knowledge://topic/name.`}

// pageParams page a list route.
var pageParams = []param{
	{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": defaultPageLimit},
		doc: "How many items to return."},
	{name: "offset", schema: map[string]any{"type": "integer", "minimum": 0, "default": 0},
		doc: "How many items to skip: next_offset of the previous page."},
}

// listParams select a page of memories (mnemo.ListQuery).
var listParams = slices.Concat([]param{agentParam}, pageParams, []param{
	{name: "tags", schema: stringsSchema, doc: "Memories with any of these tags (all of them with all_tags); repeat the parameter or separate with commas."},
	{name: "all_tags", schema: boolSchema, doc: "Match all of tags rather than any."},
	{name: "types", schema: stringsSchema, doc: "Memories of these types."},
	{name: "categories", schema: stringsSchema, doc: "Memories of these categories."},
	{name: "session_id", schema: stringSchema, doc: "Memories of this session."},
	{name: "key_prefix", schema: stringSchema, doc: "Memories whose key starts with this prefix."},
	{name: "created_after", schema: timeSchema, doc: "Memories created at or after this RFC 3339 time."},
	{name: "created_before", schema: timeSchema, doc: "Memories created before this RFC 3339 time."},
	{name: "min_confidence", schema: map[string]any{"type": "number", "minimum": 0, "maximum": 1}, doc: "Memories at least this confident."},
	{name: "include_archived", schema: boolSchema, doc: "Include archived memories."},
	{name: "include_expired", schema: boolSchema, doc: "Include expired memories."},
	{name: "order", schema: map[string]any{"type": "string", "enum": []string{mnemo.OrderNewest, mnemo.OrderOldest, mnemo.OrderKey, mnemo.OrderVitality}, "default": mnemo.OrderNewest},
		doc: "Order of the list."},
})

// routeTable is every route of the JSON API.
func (s *Server) routeTable() []route {
	agent := []param{agentParam}
	rts := []route{
		{method: "GET", path: "/healthz", summary: "Report that the server is up",
			status: 200, resp: healthResponse{}, handler: s.handleHealth},
		{method: "GET", path: "/openapi.json", summary: "This OpenAPI document",
			status: 200, resp: map[string]any{}, handler: s.handleOpenAPI},

		{method: "POST", path: "/v1/memories", summary: "Remember one memory",
			doc:    "Stores a memory through the Write Guard, whose decision comes back in guard: add, update, duplicate (nothing written; the existing memory is returned), merge (a near duplicate replaced and archived) or conflict (kept beside the memories it contradicts, which rank lower). Empty or too short content is rejected. With a key, it upserts the key's memory (last write wins); with a key and null content and data, it tombstones the key.",
			scopes: []string{ScopeWrite}, body: rememberRequest{}, status: 201, resp: memory.WriteResult{}, handler: s.handleRemember},
		{method: "POST", path: "/v1/memories/batch", summary: "Remember many memories at once",
			doc:    "Stores every memory or none: an invalid one fails the batch with an error naming its index.",
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
			doc:    "Seed 003's recall_path: the memories whose key is or starts with prefix, in key order; with traverse_hops, then the live memories and events of the agent that links lead to from them (nearest first, within limit), each saying how it was reached. Links whose far end is gone are skipped.",
			scopes: []string{ScopeRead}, params: recallPathParams, status: 200, resp: memory.PathResult{}, handler: s.handleRecallPath},
		{method: "POST", path: "/v1/surface", summary: "Recall without recording an access",
			scopes: []string{ScopeRead}, body: recallRequest{}, status: 200, resp: memory.Result{}, handler: s.handleSurface},
		{method: "POST", path: "/v1/messages", summary: "Store the messages of a conversation",
			doc:    "Stores each message as an event memory of the session, in order, indexed with its neighbours.",
			scopes: []string{ScopeWrite}, body: messagesRequest{}, status: 201, resp: idsResponse{}, handler: s.handleMessages},
		{method: "GET", path: "/v1/export", summary: "Export the agent's memories as JSON Lines",
			doc:    "Every live memory of the agent, archived and expired included, oldest first, one per line; POST /v1/import reads it back losslessly.",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: "", contentType: ndjson, handler: s.handleExport},
		{method: "POST", path: "/v1/import", summary: "Import memories from JSON Lines",
			doc:    "Reads memories written by export into the agent, keeping times and access counts. A line's id is kept when the agent already holds it (a second import changes nothing); otherwise the memory gets a new id, the same on every import, given in ids (old to new). Every line is checked first: a bad line stores nothing.",
			scopes: []string{ScopeWrite}, params: agent, bodyLines: mnemo.Memory{}, status: 200, resp: importResponse{}, handler: s.handleImport},
		{method: "GET", path: "/v1/stats", summary: "Count the agent's memories",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: mnemo.Stats{}, handler: s.handleStats},

		// Seed 001's routes: with no agent_id, the default agent (seedAgent).
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
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: prompt.WorkingMemory{}, handler: s.seedAgent(s.handleWorking)},
	}
	rts = append(rts, s.contextRoutes()...)
	rts = append(rts, s.lifecycleRoutes()...)
	rts = append(rts, s.eventRoutes()...)
	rts = append(rts, s.insightRoutes()...)
	rts = append(rts, s.eventLayerRoutes()...)
	if s.registry != nil {
		rts = append(rts, route{method: "GET", path: "/metrics", summary: "Prometheus metrics",
			scopes: []string{ScopeAdmin}, status: 200, resp: "", contentType: "text/plain; version=0.0.4",
			handler: s.handleMetrics()})
	}
	return withInclude(rts)
}

// forgetOrClearScope is the scope of DELETE /v1/memories: clearing
// everything is an admin's job, forgetting a key a writer's.
func forgetOrClearScope(r *http.Request) string {
	if r.URL.Query().Has("all") {
		return ScopeAdmin
	}
	return ScopeWrite
}

// register adds rt to the mux, behind its checks: scope, query parameters,
// timeout.
func (s *Server) register(rt route) {
	allowed := make([]string, len(rt.params))
	for i, p := range rt.params {
		allowed[i] = p.name
	}
	var h http.Handler = rt.handler
	if !rt.stream {
		h = s.withTimeout(rt.handler)
	}
	s.mux.HandleFunc(rt.pattern(), func(w http.ResponseWriter, r *http.Request) {
		if err := authorize(w, r, rt.scope(r)); err != nil {
			s.writeError(w, r, err)
			return
		}
		// Query parameters are decoded as strictly as bodies: a typo such
		// as ?agentid= or a tenant_id the server would ignore is an error.
		for name := range r.URL.Query() {
			if !slices.Contains(allowed, name) {
				s.writeError(w, r, unknownParam(name, allowed))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func unknownParam(name string, allowed []string) error {
	if len(allowed) == 0 {
		return mnemo.Errorf(mnemo.EINVALID, "unknown query parameter %q: this route takes none", name)
	}
	return mnemo.Errorf(mnemo.EINVALID, "unknown query parameter %q: this route takes %s", name, strings.Join(allowed, ", "))
}
