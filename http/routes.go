package http

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/temporal"
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
	// bodyFile describes a body that is a file in another tool's format,
	// JSON or JSON Lines, read as it is.
	bodyFile string
	status   int // the status of success; 0 = the route always fails
	resp     any // the success body's type, as a zero value
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
	timeSchema    = map[string]any{"type": "string"} // RFC 3339, a date or words (TIME-2)
	stringsSchema = map[string]any{"type": "array", "items": stringSchema}
)

var agentParam = param{name: "agent_id", schema: stringSchema,
	doc: "The agent. It may be left out when the API key is limited to exactly one agent, which is then used."}

// pageParams page a list route.
var pageParams = []param{
	{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": defaultPageLimit},
		doc: "How many items to return."},
	{name: "offset", schema: map[string]any{"type": "integer", "minimum": 0, "default": 0},
		doc: "How many items to skip: next_offset of the previous page."},
}

// routeTable is every route of the JSON API: each part's routes are
// beside their handlers (memory.go, seed001.go, context.go, lifecycle.go,
// events.go, insights.go, eventlayers.go, metrics.go).
func (s *Server) routeTable() []route {
	rts := []route{
		{method: "GET", path: "/healthz", summary: "Report that the server is up",
			status: 200, resp: healthResponse{}, handler: s.handleHealth},
		{method: "GET", path: "/openapi.json", summary: "This OpenAPI document",
			status: 200, resp: map[string]any{}, handler: s.handleOpenAPI},
	}
	rts = append(rts, s.memoryRoutes()...)
	rts = append(rts, s.seed001Routes()...)
	rts = append(rts, s.contextRoutes()...)
	rts = append(rts, s.lifecycleRoutes()...)
	rts = append(rts, s.eventRoutes()...)
	rts = append(rts, s.insightRoutes()...)
	rts = append(rts, s.eventLayerRoutes()...)
	rts = append(rts, s.inspectorRoutes()...)
	rts = append(rts, s.historyRoutes()...)
	if s.registry != nil {
		rts = append(rts, route{method: "GET", path: "/metrics", summary: "Prometheus metrics",
			scopes: []string{ScopeAdmin}, status: 200, resp: "", contentType: "text/plain; version=0.0.4",
			handler: s.handleMetrics()})
	}
	return withInclude(rts)
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

// defaultPageLimit is the page size of a list route that is given none.
const defaultPageLimit = 50

// page is the paging part of every list answer. A client reads pages
// until has_more is false, asking each time for offset next_offset.
type page struct {
	Total      int  `json:"total"`
	Limit      int  `json:"limit"`
	Offset     int  `json:"offset"`
	HasMore    bool `json:"has_more"`
	NextOffset *int `json:"next_offset,omitempty"` // set when has_more
}

// newPage describes the page of n items at offset of total.
func newPage(total, limit, offset, n int) page {
	p := page{Total: total, Limit: limit, Offset: offset}
	if next := offset + n; n > 0 && next < total {
		p.HasMore, p.NextOffset = true, &next
	}
	return p
}

// pageQuery reads limit and offset from the URL query. Out of range is an
// error rather than silently clamped, so that a page never holds less than
// the client thinks it asked for.
func pageQuery(r *http.Request) (limit, offset int, err error) {
	v := r.URL.Query()
	limit = defaultPageLimit
	if s := v.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > mnemo.MaxListLimit {
			return 0, 0, mnemo.Errorf(mnemo.EINVALID, "limit must be a whole number from 1 to %d", mnemo.MaxListLimit)
		}
	}
	if s := v.Get("offset"); s != "" {
		if offset, err = strconv.Atoi(s); err != nil || offset < 0 {
			return 0, 0, mnemo.Errorf(mnemo.EINVALID, "offset must be a whole number, 0 or more")
		}
	}
	return limit, offset, nil
}

// The adapters of the route table's handlers: scoped for a route whose
// JSON body names the agent, byQuery for one whose agent_id is a query
// parameter. Each resolves the scope, calls the Service and writes the
// answer or the problem; only streaming routes (export, the event stream)
// write their own.

// scopedBody is a request body that names its agent.
type scopedBody interface{ agent() string }

// decodeScoped decodes a JSON body strictly and resolves the request's
// scope: the tenant from its key, the agent from the body.
func decodeScoped[B scopedBody](s *Server, w http.ResponseWriter, r *http.Request) (B, mnemo.Scope, error) {
	var body B
	if err := s.decode(w, r, &body); err != nil {
		return body, mnemo.Scope{}, err
	}
	sc, err := requestScope(r, body.agent())
	return body, sc, err
}

// scoped answers a route whose body names the agent: decode, call, write.
func scoped[B scopedBody, R any](s *Server, status int, call func(r *http.Request, sc mnemo.Scope, body B) (R, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, sc, err := decodeScoped[B](s, w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := call(r, sc, body)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, r, status, res)
	}
}

// byQuery answers a route whose agent is a query parameter.
func byQuery[R any](s *Server, call func(r *http.Request, sc mnemo.Scope) (R, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := call(r, sc)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, r, http.StatusOK, res)
	}
}

// queryTime reads the time query parameter name: an RFC 3339 time, a date
// (its midnight, UTC) or words ("last Tuesday", their start), within the
// supported range (TIME-1, TIME-2). An error names the parameter, what was
// sent and an example.
func queryTime(name, v string) (time.Time, error) {
	return temporal.ParseInstant(name, v, time.Now())
}
