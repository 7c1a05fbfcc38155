package http

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus collectors. They always exist, so
// that handlers need no nil checks, and are registered only when the
// server is given a registry.
type metrics struct {
	requests *prometheus.HistogramVec // by route pattern and status class
	inFlight prometheus.Gauge
	recall   *prometheus.HistogramVec // by op: recall or surface
	degraded *prometheus.CounterVec   // by op
	limited  prometheus.Counter
}

// Recall ops, the op label of the recall metrics.
var recallOps = []string{"recall", "surface"}

func newMetrics(reg prometheus.Registerer, storeBytes func() int64) *metrics {
	m := &metrics{
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mnemo_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern and status class (2xx, 4xx, ...).",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "status"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mnemo_http_requests_in_flight",
			Help: "HTTP requests being served.",
		}),
		recall: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_recall_duration_seconds",
			Help: "Time the service took to answer a recall or surface, without HTTP.",
			// 1 ms to 4 s: the target is a P95 under 200 ms.
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 13),
		}, []string{"op"}),
		degraded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mnemo_recall_degraded_total",
			Help: "Recall and surface answers marked degraded (e.g. full-text search fell back to substring matching).",
		}, []string{"op"}),
		limited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mnemo_http_rate_limited_total",
			Help: "HTTP requests refused with 429 because their client was over its rate.",
		}),
	}
	// Start the per-op series at zero, so that a rate over them is defined
	// before the first degraded answer.
	for _, op := range recallOps {
		m.recall.WithLabelValues(op)
		m.degraded.WithLabelValues(op)
	}
	if reg == nil {
		return m
	}
	reg.MustRegister(m.requests, m.inFlight, m.recall, m.degraded, m.limited)
	if storeBytes != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mnemo_store_size_bytes",
			Help: "Size of the store on disk, as reported by the store's owner.",
		}, func() float64 { return float64(storeBytes()) }))
	}
	return m
}

// handleMetrics serves everything registered on the server's registry.
func (s *Server) handleMetrics() http.HandlerFunc {
	h := promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.log.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
	})
	return h.ServeHTTP
}

// responseWriter records what a handler answered, for the access log and
// the metrics. It passes Flush through, so that a streaming handler mounted
// with Handle still streams, and unwraps for http.ResponseController.
type responseWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *responseWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe records a finished request in the metrics and the access log.
// The log holds what identifies the request, never what it carried: no
// memory content, no query text, no query string (which may hold keys).
func (s *Server) observe(r *http.Request, route string, w *responseWriter, st *authState, took time.Duration) {
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	s.metrics.requests.WithLabelValues(route, strconv.Itoa(status/100)+"xx").Observe(took.Seconds())
	var key, tenant string
	if st != nil && st.err == nil {
		key, tenant = st.auth.KeyName, st.auth.Tenant
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Duration("duration", took),
		slog.Int64("bytes", w.bytes),
		slog.String("key", key),
		slog.String("tenant", tenant),
	)
}
