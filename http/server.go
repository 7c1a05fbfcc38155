package http

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/security"
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

	// UI, when set, serves the web inspector (API-15; web.Handler): it
	// gets every request no route matches, and passes on to next (the
	// API's 404 problem) what is not one of its files. Its files are
	// public; every API call it makes needs a key like any other.
	UI func(next http.Handler) http.Handler

	// DefaultAgent is the agent of the /memory/… routes (API-6 to API-10)
	// when a request names none and its key may use more than one agent;
	// DefaultAgent when empty.
	DefaultAgent string
}

// DefaultAgent is the agent of the /memory/… routes when neither the
// request, the key nor Options.DefaultAgent names one: their clients send
// none.
const DefaultAgent = "default"

// Server serves the JSON API.
type Server struct {
	defAgent string // the /memory/… routes' agent when none is named
	svc      Service
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
	latency  *latencyWindow // recall and surface, for GET /v1/stats
	routes   []route
	openAPI  func() ([]byte, error)
	mux      *http.ServeMux
	srv      *http.Server
}

// NewServer returns a server over svc. Keys that ValidateKeys would reject
// are logged and never match, but still turn auth on: a typo in one key
// must not open the server to everyone.
func NewServer(svc Service, opts Options) *Server {
	s := &Server{
		svc: svc, log: opts.Logger, maxBody: opts.MaxBody, version: opts.Version,
		authOn:   len(opts.Keys) > 0,
		limit:    newLimiter(opts.RateLimit, opts.RateBurst),
		timeout:  opts.Timeout,
		webhook:  opts.Webhook,
		registry: opts.Registry,
		latency:  newLatencyWindow(),
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
	var notFound http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, mnemo.Errorf(mnemo.ENOTFOUND, "no route %s %s", r.Method, r.URL.Path))
	})
	if opts.UI != nil {
		notFound = opts.UI(notFound)
	}
	s.mux.Handle("/", notFound)
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
	// The key's clearance travels with every call the request makes: the
	// service masks by it (SEC-8), whatever route or mounted handler calls.
	ctx := security.WithClearance(r.Context(), a.Clearance())
	r = r.WithContext(context.WithValue(ctx, authKey{}, st))

	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			pe := &panics.Error{What: route, Value: v, Stack: debug.Stack()}
			panics.Log(s.log, pe)
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
