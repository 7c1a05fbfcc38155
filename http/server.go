package http

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// DefaultTenant is the tenant of every request when no auth is configured.
const DefaultTenant = "default"

// DefaultMaxBody bounds a request body.
const DefaultMaxBody = 8 << 20

// Options configure a Server.
type Options struct {
	Logger  *slog.Logger
	MaxBody int64 // request body limit in bytes; 0 = DefaultMaxBody
	Version string
}

// Server serves the JSON API.
type Server struct {
	svc     *mnemo.Service
	log     *slog.Logger
	maxBody int64
	version string
	mux     *http.ServeMux
	srv     *http.Server
	ln      net.Listener
}

// NewServer returns a server over svc.
func NewServer(svc *mnemo.Service, opts Options) *Server {
	s := &Server{svc: svc, log: opts.Logger, maxBody: opts.MaxBody, version: opts.Version, mux: http.NewServeMux()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	s.routes()
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	return s
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("POST /v1/memories", s.handleRemember)
	s.mux.HandleFunc("POST /v1/memories/batch", s.handleRememberBatch)
	s.mux.HandleFunc("GET /v1/memories", s.handleList)
	s.mux.HandleFunc("DELETE /v1/memories", s.handleForgetOrClear)
	s.mux.HandleFunc("GET /v1/memories/{id}", s.handleGet)
	s.mux.HandleFunc("DELETE /v1/memories/{id}", s.handleDelete)
	s.mux.HandleFunc("GET /v1/keys", s.handleGetKey)
	s.mux.HandleFunc("GET /v1/history", s.handleHistory)
	s.mux.HandleFunc("POST /v1/recall", s.handleRecall)
	s.mux.HandleFunc("POST /v1/surface", s.handleSurface)
	s.mux.HandleFunc("POST /v1/messages", s.handleMessages)
	s.mux.HandleFunc("GET /v1/stats", s.handleStats)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, mnemo.Errorf(mnemo.ENOTFOUND, "no route %s %s", r.Method, r.URL.Path))
	})
}

// Handle mounts another handler (such as the MCP endpoint) at pattern.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// ServeHTTP logs each request and turns panics into 500 problems.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving request", "path", r.URL.Path, "panic", v)
			s.writeError(rw, r, errors.New("panic"))
		}
		s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rw.status, "dur", time.Since(start))
	}()
	// A route that exists for another method gets 405 from the mux as
	// plain text; answer with a problem instead.
	if _, pattern := s.mux.Handler(r); pattern == "" || pattern == "/" {
		for _, m := range []string{"GET", "POST", "DELETE"} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, p := s.mux.Handler(probe); p != "" && p != "/" {
				rw.Header().Set("Allow", m)
				rw.Header().Set("Content-Type", "application/problem+json")
				rw.WriteHeader(http.StatusMethodNotAllowed)
				writeProblemBody(rw, http.StatusMethodNotAllowed, mnemo.EINVALID, "method "+r.Method+" not allowed on "+r.URL.Path, r.URL.Path)
				return
			}
		}
	}
	s.mux.ServeHTTP(rw, r)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// Serve accepts connections on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	s.ln = ln
	err := s.srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the server gracefully, waiting for requests in flight.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// scope returns the request's scope: the tenant (DefaultTenant until auth
// maps keys to tenants) and the given agent.
func scope(agent string) mnemo.Scope {
	return mnemo.Scope{TenantID: DefaultTenant, AgentID: agent}
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.version})
}

type rememberRequest struct {
	AgentID string `json:"agent_id"`
	mnemo.Draft
}

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	var req rememberRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.svc.Remember(r.Context(), scope(req.AgentID), req.Draft)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, m)
}

type batchRequest struct {
	AgentID  string        `json:"agent_id"`
	Memories []mnemo.Draft `json:"memories"`
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
	var req batchRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, err := s.svc.RememberBatch(r.Context(), scope(req.AgentID), req.Memories)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, ids(ms))
}

type messagesRequest struct {
	AgentID   string          `json:"agent_id"`
	SessionID string          `json:"session_id"`
	Messages  []mnemo.Message `json:"messages"`
}

func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	var req messagesRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, err := s.svc.AddMessages(r.Context(), scope(req.AgentID), req.SessionID, req.Messages)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, ids(ms))
}

type recallRequest struct {
	AgentID string `json:"agent_id"`
	mnemo.Query
}

func (s *Server) handleRecall(w http.ResponseWriter, r *http.Request)  { s.search(w, r, true) }
func (s *Server) handleSurface(w http.ResponseWriter, r *http.Request) { s.search(w, r, false) }

func (s *Server) search(w http.ResponseWriter, r *http.Request, record bool) {
	var req recallRequest
	if err := s.decode(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	find := s.svc.Surface
	if record {
		find = s.svc.Recall
	}
	res, err := find(r.Context(), scope(req.AgentID), req.Query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// listResponse is a page of memories.
type listResponse struct {
	Memories []mnemo.Memory `json:"memories"`
	Total    int            `json:"total"`
	Limit    int            `json:"limit"`
	Offset   int            `json:"offset"`
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, total, err := s.svc.List(r.Context(), scope(r.URL.Query().Get("agent_id")), q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if ms == nil {
		ms = []mnemo.Memory{}
	}
	writeJSON(w, http.StatusOK, listResponse{Memories: ms, Total: total, Limit: q.Limit, Offset: q.Offset})
}

// listQuery reads filters and paging from the URL query.
func listQuery(r *http.Request) (mnemo.ListQuery, error) {
	v := r.URL.Query()
	var q mnemo.ListQuery
	var err error
	ints := []struct {
		name string
		dst  *int
	}{{"limit", &q.Limit}, {"offset", &q.Offset}}
	for _, f := range ints {
		if s := v.Get(f.name); s != "" {
			if *f.dst, err = strconv.Atoi(s); err != nil {
				return q, mnemo.Errorf(mnemo.EINVALID, "%s must be a whole number", f.name)
			}
		}
	}
	if q.Limit == 0 {
		q.Limit = 50
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

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	m, err := s.svc.Get(r.Context(), scope(r.URL.Query().Get("agent_id")), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) handleGetKey(w http.ResponseWriter, r *http.Request) {
	m, err := s.svc.GetByKey(r.Context(), scope(r.URL.Query().Get("agent_id")), r.URL.Query().Get("key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// deletedResponse answers deletes.
type deletedResponse struct {
	Deleted int `json:"deleted"`
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	n, err := s.svc.Forget(r.Context(), scope(r.URL.Query().Get("agent_id")), []string{r.PathValue("id")}, nil)
	if err == nil && n == 0 {
		err = mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", r.PathValue("id"))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, deletedResponse{Deleted: n})
}

// handleForgetOrClear forgets by key (?key=, repeatable) or, with
// ?all=true, clears every memory of the agent.
func (s *Server) handleForgetOrClear(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	sc := scope(v.Get("agent_id"))
	var n int
	var err error
	switch keys := v["key"]; {
	case len(keys) > 0 && v.Get("all") != "":
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
	writeJSON(w, http.StatusOK, deletedResponse{Deleted: n})
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	revs, err := s.svc.History(r.Context(), scope(r.URL.Query().Get("agent_id")), r.URL.Query().Get("key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []mnemo.Revision{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"revisions": revs})
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	st, err := s.svc.Stats(r.Context(), scope(r.URL.Query().Get("agent_id")))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
