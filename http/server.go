package http

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/safe"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/webhook"
)

// DefaultTenant is the tenant of every request when no auth is configured.
const DefaultTenant = "default"

// DefaultMaxBody bounds a request body.
const DefaultMaxBody = 8 << 20

// Options configure a Server. The zero value serves without auth, rate
// limit or metrics, on the default tenant.
type Options struct {
	Logger  *slog.Logger
	MaxBody int64 // request body limit in bytes; 0 = DefaultMaxBody
	Version string

	// Keys are the API keys that may call the server. With none, there is
	// no auth and every request is the default tenant's; with any, every
	// route but /healthz and /openapi.json needs one (see ValidateKeys).
	Keys []APIKey

	// RateLimit is how many requests per second each API key (or, for a
	// request without a valid key, each client IP) may make, with bursts
	// of up to RateBurst (0 = RateLimit rounded up). 0 means no limit.
	RateLimit float64
	RateBurst int

	// Timeout bounds each JSON API request: 0 means DefaultTimeout, a
	// negative value none. Handlers mounted with Handle are never bounded,
	// since they may stream.
	Timeout time.Duration

	// Registry, when set, gets the server's Prometheus metrics, and
	// everything registered on it (the caller's own collectors too) is
	// served at /metrics to keys with the admin scope. One registry holds
	// one server's metrics: a second registers the same names and panics,
	// as prometheus.MustRegister does. StoreBytes, when set, reports the
	// store's size on disk for the mnemo_store_size_bytes gauge.
	Registry   *prometheus.Registry
	StoreBytes func() int64

	// Webhook configures the sinks of POST /v1/events/replay; the zero
	// value is webhook's defaults.
	Webhook webhook.Options

	// DefaultAgent is the agent of seed 001's routes (/memory/…) when a
	// request names none and its key may use more than one agent;
	// DefaultAgent when empty.
	DefaultAgent string
}

// DefaultAgent is the agent of seed 001's routes when neither the request,
// the key nor Options.DefaultAgent names one: seed 001's clients send none.
const DefaultAgent = "default"

// Server serves the JSON API.
type Server struct {
	defAgent string // seed 001's routes' agent when none is named
	svc      *service.Mnemo
	log      *slog.Logger
	maxBody  int64
	version  string
	authOn   bool
	keys     *keyring
	limit    *limiter
	timeout  time.Duration
	webhook  webhook.Options
	registry *prometheus.Registry
	metrics  *metrics
	routes   []route
	openAPI  func() ([]byte, error)
	mux      *http.ServeMux
	srv      *http.Server
}

// NewServer returns a server over svc. Keys that ValidateKeys would reject
// are logged and never match, but still turn auth on: a typo in one key
// must not open the server to everyone.
func NewServer(svc *service.Mnemo, opts Options) *Server {
	s := &Server{
		svc: svc, log: opts.Logger, maxBody: opts.MaxBody, version: opts.Version,
		authOn:   len(opts.Keys) > 0,
		limit:    newLimiter(opts.RateLimit, opts.RateBurst),
		timeout:  opts.Timeout,
		webhook:  opts.Webhook,
		registry: opts.Registry,
		mux:      http.NewServeMux(),
		defAgent: opts.DefaultAgent,
	}
	if s.defAgent == "" {
		s.defAgent = DefaultAgent
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if s.timeout == 0 {
		s.timeout = DefaultTimeout
	}
	s.keys = newKeyring(opts.Keys, func(k APIKey, err error) {
		s.log.Error("ignoring invalid API key", "key", k.Name, "err", mnemo.ErrorMessage(err))
	})
	var reg prometheus.Registerer // a nil *Registry in it would not be nil
	if opts.Registry != nil {
		reg = opts.Registry
	}
	s.metrics = newMetrics(reg, opts.StoreBytes)
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		s.register(rt)
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, mnemo.Errorf(mnemo.ENOTFOUND, "no route %s %s", r.Method, r.URL.Path))
	})
	s.openAPI = sync.OnceValues(s.openAPIDocument)
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	return s
}

// Handle mounts another handler, such as the MCP endpoint, at pattern. It
// sits behind the same auth, rate limit, metrics and access log as the
// JSON API: with keys configured it needs a valid one, and reads what the
// key grants with AuthFromContext, checking scopes itself. It gets no
// timeout, so that it may stream, and is not in the OpenAPI document.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := authorize(w, r, scopeAuthenticated); err != nil {
			s.writeError(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// unmatched is the route label of a request that matched no route.
const unmatched = "unmatched"

// ServeHTTP authenticates and rate-limits each request, routes it, turns
// panics into 500 problems, and measures and logs it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.metrics.inFlight.Inc()
	defer s.metrics.inFlight.Dec()
	rw := &responseWriter{ResponseWriter: w}

	_, route := s.mux.Handler(r)
	if route == "" || route == "/" {
		route = unmatched
	}
	a, err := s.Authenticate(r.Header)
	st := &authState{auth: a, err: err}
	r = r.WithContext(context.WithValue(r.Context(), authKey{}, st))

	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			pe := &safe.PanicError{What: route, Value: v, Stack: debug.Stack()}
			safe.Log(s.log, pe)
			if rw.status == 0 {
				s.writeError(rw, r, pe) // internal: logged, not shown
			}
		}
		s.observe(r, route, rw, st, time.Since(start))
	}()

	if s.rateLimit(rw, r, st) {
		return
	}
	if route == unmatched {
		// A route that exists for another method gets 405 from the mux
		// as plain text; answer with a problem instead.
		if allow := s.allowedMethods(r); len(allow) > 0 {
			rw.Header().Set("Allow", strings.Join(allow, ", "))
			rw.Header().Set("Content-Type", "application/problem+json")
			rw.WriteHeader(http.StatusMethodNotAllowed)
			writeProblemBody(rw, http.StatusMethodNotAllowed, mnemo.EINVALID, "method "+r.Method+" not allowed on "+r.URL.Path, r.URL.Path)
			return
		}
	}
	s.mux.ServeHTTP(rw, r)
}

// allowedMethods returns the methods that have a route at r's path.
func (s *Server) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := s.mux.Handler(probe); p != "" && p != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the server gracefully, waiting for requests in flight.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// healthResponse answers /healthz.
type healthResponse struct {
	Status  string `json:"status"`
	Version string `json:"version"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, healthResponse{Status: "ok", Version: s.version})
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := s.openAPI()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(doc)
}

// scopedBody is a request body that names its agent.
type scopedBody interface{ agent() string }

func (b rememberRequest) agent() string { return b.AgentID }
func (b batchRequest) agent() string    { return b.AgentID }
func (b messagesRequest) agent() string { return b.AgentID }
func (b recallRequest) agent() string   { return b.AgentID }

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

type rememberRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	mnemo.Draft
}

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	req, sc, err := decodeScoped[rememberRequest](s, w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Write(r.Context(), sc, []mnemo.Draft{req.Draft})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusCreated, res[0])
}

type batchRequest struct {
	AgentID  string        `json:"agent_id,omitempty"`
	Memories []mnemo.Draft `json:"memories"`
}

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

func (s *Server) handleRememberBatch(w http.ResponseWriter, r *http.Request) {
	req, sc, err := decodeScoped[batchRequest](s, w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Write(r.Context(), sc, req.Memories)
	if err != nil {
		s.writeError(w, r, err)
		return
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
	writeJSON(w, r, http.StatusCreated, out)
}

type messagesRequest struct {
	AgentID   string           `json:"agent_id,omitempty"`
	SessionID string           `json:"session_id"`
	Messages  []memory.Message `json:"messages"`
}

func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	req, sc, err := decodeScoped[messagesRequest](s, w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, err := s.svc.AddMessages(r.Context(), sc, req.SessionID, req.Messages)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusCreated, ids(ms))
}

type recallRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	memory.Query
}

func (s *Server) handleRecall(w http.ResponseWriter, r *http.Request)  { s.search(w, r, "recall") }
func (s *Server) handleSurface(w http.ResponseWriter, r *http.Request) { s.search(w, r, "surface") }

// search answers recall and surface, which differ only in whether the
// access is recorded.
func (s *Server) search(w http.ResponseWriter, r *http.Request, op string) {
	req, sc, err := decodeScoped[recallRequest](s, w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	find := s.svc.Surface
	if op == "recall" {
		find = s.svc.Recall
	}
	start := time.Now()
	res, err := find(r.Context(), sc, req.Query)
	s.metrics.recall.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if res.Degraded {
		s.metrics.degraded.WithLabelValues(op).Inc()
	}
	writeJSON(w, r, http.StatusOK, res)
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

// listResponse is a page of memories.
type listResponse struct {
	// AgentID is the agent listed: on seed 001's route, which names none,
	// the default agent.
	AgentID  string         `json:"agent_id"`
	Memories []mnemo.Memory `json:"memories"`
	page
}

// handleList answers GET /v1/memories and seed 001's GET /memory/long-term.
func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, total, err := s.svc.List(r.Context(), sc, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if ms == nil {
		ms = []mnemo.Memory{}
	}
	writeJSON(w, r, http.StatusOK, listResponse{AgentID: sc.AgentID, Memories: ms, page: newPage(total, q.Limit, q.Offset, len(ms))})
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
	}{{"all_tags", &q.AllTags}, {"include_archived", &q.IncludeArchived}, {"include_expired", &q.IncludeExpired}}
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
	}{{"created_after", &q.CreatedAfter}, {"created_before", &q.CreatedBefore}}
	for _, f := range times {
		if s := v.Get(f.name); s != "" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return q, mnemo.Errorf(mnemo.EINVALID, "%s must be an RFC 3339 time", f.name)
			}
			*f.dst = &t
		}
	}
	if s := v.Get("min_confidence"); s != "" {
		if q.MinConfidence, err = strconv.ParseFloat(s, 64); err != nil {
			return q, mnemo.Errorf(mnemo.EINVALID, "min_confidence must be a number")
		}
	}
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
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.svc.Get(r.Context(), sc, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, m)
}

func (s *Server) handleGetKey(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.svc.GetByKey(r.Context(), sc, r.URL.Query().Get("key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, m)
}

// deletedResponse answers deletes.
type deletedResponse struct {
	Deleted int `json:"deleted"`
}

// handleDelete answers DELETE /v1/memories/{id} and DELETE
// /memory/long-term/{id}.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	n, err := s.svc.Forget(r.Context(), sc, []string{r.PathValue("id")}, nil)
	if err == nil && n == 0 {
		err = mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", r.PathValue("id"))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, deletedResponse{Deleted: n})
}

// handleForgetOrClear forgets by key (?key=, repeatable) or, with
// ?all=true, clears every memory of the agent.
func (s *Server) handleForgetOrClear(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	sc, err := requestScope(r, v.Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var n int
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
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, deletedResponse{Deleted: n})
}

// handleClear answers seed 001's DELETE /memory/long-term: every memory of
// the agent, for good. The route table lets it take no parameter but the
// agent, so that a stray ?key= meant to forget one key cannot clear all.
func (s *Server) handleClear(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	n, err := s.svc.Clear(r.Context(), sc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, deletedResponse{Deleted: n})
}

// historyResponse is a page of a key's revisions.
type historyResponse struct {
	Revisions []mnemo.Revision `json:"revisions"`
	page
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	revs, err := s.svc.History(r.Context(), sc, r.URL.Query().Get("key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The store returns a key's whole history, which is short; page it
	// here so that every list route pages alike.
	total := len(revs)
	revs = revs[min(offset, total):min(offset+limit, total)]
	if revs == nil {
		revs = []mnemo.Revision{}
	}
	writeJSON(w, r, http.StatusOK, historyResponse{Revisions: revs, page: newPage(total, limit, offset, len(revs))})
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.svc.Stats(r.Context(), sc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, st)
}

// ndjson is the media type of JSON Lines.
const ndjson = "application/x-ndjson"

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Check the scope before the first byte: once streaming starts, an
	// error can no longer become a problem response.
	if _, err := s.svc.Stats(r.Context(), sc); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ndjson)
	if _, err := s.svc.Export(r.Context(), sc, w, nil); err != nil {
		s.log.Warn("export cut short", "err", err)
	}
}

// importResponse answers an import.
type importResponse struct {
	Imported int `json:"imported"`
	// IDs maps each line's id to the id its memory was stored under, when
	// they differ: ids are unique in a store, and a line's id that the
	// agent does not hold gets a new one.
	IDs map[string]string `json:"ids"`
}

func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
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
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, importResponse{Imported: n, IDs: newIDs})
}
