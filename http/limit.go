package http

import (
	"bytes"
	"context"
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

// withTimeout bounds h to s.timeout: h's context ends at the deadline, and
// if h has not begun its answer by then, the client gets a 503 problem at
// once and what h writes afterwards is dropped. h runs in the request's own
// goroutine: http.TimeoutHandler, used before, ran every request in a
// goroutine of its own and buffered its whole answer, which cost each
// recall a goroutine handoff both ways (PERF-10). A handler that honours
// its context answers with the problem itself (writeError: unavailable);
// the timer is for one that does not. Handlers mounted with Handle are
// never wrapped, since they may stream.
func (s *Server) withTimeout(h http.Handler) http.Handler {
	if s.timeout <= 0 {
		return h
	}
	var body bytes.Buffer
	writeProblemBody(&body, http.StatusServiceUnavailable, mnemo.EUNAVAILABLE,
		fmt.Sprintf("the request took longer than %s", s.timeout), "")
	problem := body.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
		defer cancel()
		tw := &timeoutWriter{w: w, h: make(http.Header)}
		stop := context.AfterFunc(ctx, func() {
			if ctx.Err() == context.DeadlineExceeded { // not the client gone
				tw.timeOut(problem)
			}
		})
		defer func() {
			stop()
			tw.finish()
		}()
		h.ServeHTTP(tw, r.WithContext(ctx))
	})
}

// timeoutWriter is the ResponseWriter of a handler under withTimeout. The
// handler's headers are its own until it answers, and the answer and the
// timeout's 503 exclude each other: whichever begins first is the one the
// client gets.
type timeoutWriter struct {
	w http.ResponseWriter
	h http.Header // the handler's headers, copied to w's as it answers

	mu       sync.Mutex
	answered bool // the handler began its answer
	timedOut bool // the 503 was sent
	done     bool // the handler returned: w is no longer ours
}

func (tw *timeoutWriter) Header() http.Header { return tw.h }

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.answer(code)
}

func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	tw.answer(http.StatusOK)
	return tw.w.Write(p)
}

// answer sends the handler's headers and status, once. The caller holds mu.
func (tw *timeoutWriter) answer(code int) {
	if tw.answered || tw.timedOut {
		return
	}
	tw.answered = true
	dst := tw.w.Header()
	for k, v := range tw.h {
		dst[k] = v
	}
	tw.w.WriteHeader(code)
}

// timeOut sends problem as a 503, unless the handler has begun its answer
// or returned.
func (tw *timeoutWriter) timeOut(problem []byte) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.answered || tw.done {
		return
	}
	tw.timedOut = true
	h := tw.w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(problem)))
	// The connection stays busy until the handler returns: the client
	// must not send its next request on it.
	h.Set("Connection", "close")
	tw.w.WriteHeader(http.StatusServiceUnavailable)
	tw.w.Write(problem)
	// The handler still runs: send the answer now.
	http.NewResponseController(tw.w).Flush()
}

// finish marks the handler returned: a timer that fires now does nothing.
func (tw *timeoutWriter) finish() {
	tw.mu.Lock()
	tw.done = true
	tw.mu.Unlock()
}
