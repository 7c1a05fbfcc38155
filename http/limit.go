package http

import (
	"bytes"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mnemo-dev/mnemo"
)

// DefaultTimeout bounds the time a JSON API request may take.
const DefaultTimeout = 30 * time.Second

// limiter gives each client a token bucket: one per API key, or one per
// client IP for requests without a valid key (so that guessing keys is
// limited too).
type limiter struct {
	every rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	swept   time.Time
}

// sweepEvery is how often idle buckets are dropped.
const sweepEvery = time.Minute

func newLimiter(perSecond float64, burst int) *limiter {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &limiter{every: rate.Limit(perSecond), burst: burst, buckets: make(map[string]*rate.Limiter)}
}

// allow takes a token from client's bucket. When there is none it returns
// false and how long until there will be one.
func (l *limiter) allow(client string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > sweepEvery {
		// A full bucket behaves exactly like a new one, so dropping it
		// changes nothing but keeps one-off client IPs from piling up.
		for k, b := range l.buckets {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[client]
	if !ok {
		b = rate.NewLimiter(l.every, l.burst)
		l.buckets[client] = b
	}
	res := b.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// rateLimit answers 429 when the request's client is over its rate, and
// reports whether it did.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, st *authState) bool {
	if s.limit == nil {
		return false
	}
	client := "key:" + st.auth.KeyName
	if st.err != nil || st.auth.KeyName == "" {
		// The client IP, not the forwarded one: a header anyone can set
		// would let anyone pick their own bucket. Behind a proxy, limit
		// there.
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		client = "ip:" + host
	}
	ok, wait := s.limit.allow(client, time.Now())
	if ok {
		return false
	}
	s.metrics.limited.Inc()
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	s.writeError(w, r, mnemo.Errorf(ERATELIMITED, "too many requests: retry in %s", wait.Round(time.Millisecond)))
	return true
}

// withTimeout bounds h to s.timeout with http.TimeoutHandler, which
// answers 503 with a problem when the handler runs over. It buffers the
// whole answer, so it suits the JSON API but would break a streaming
// handler: handlers mounted with Handle are never wrapped.
func (s *Server) withTimeout(h http.Handler) http.Handler {
	if s.timeout <= 0 {
		return h
	}
	var body bytes.Buffer
	writeProblemBody(&body, http.StatusServiceUnavailable, mnemo.EUNAVAILABLE,
		fmt.Sprintf("the request took longer than %s", s.timeout), "")
	th := http.TimeoutHandler(h, s.timeout, body.String())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// TimeoutHandler writes its timeout answer with no Content-Type;
		// set it up front. A handler that finishes in time replaces it
		// with its own, since every handler here sets one.
		w.Header().Set("Content-Type", "application/problem+json")
		th.ServeHTTP(w, r)
	})
}
