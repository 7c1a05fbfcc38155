// Package cpugate is a CPU gate: it lets the requests someone waits on (a
// recall, a write) go before background work (embedding queued memories,
// inserting vectors into the ANN index) on the CPU. It has nothing to do
// with a memory's priority (P0–P3) or rank.PriorityFactor.
//
// Go has no thread priorities, so background work steps aside by itself:
// it calls Yield or Pause between small units of work (one text chunk, one
// vector insert), and they wait while a request is in flight. A wait lasts
// at most MaxWait, so that background work goes on, slower, under a steady
// stream of requests: on a small machine a recall beside a bulk load then
// runs nearly alone instead of sharing both cores with the embedder and
// the indexer (PERF-2), and a bulk write acknowledged before its vectors
// are made is not slowed by the embedding of the writes before it (PERF-1).
package cpugate

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWait bounds one Yield or Pause: background work never stops for
// longer.
const MaxWait = 25 * time.Millisecond

// A Gate counts the requests in flight: recalls, which all other work
// yields to, and writes, which only the background embedding of memories
// pauses for. The zero value is not usable; a nil *Gate is, and never
// waits.
type Gate struct {
	recalls  atomic.Int64 // recalls in flight, for Yield's fast path
	requests atomic.Int64 // recalls and writes in flight, for Pause's fast path
	waits    atomic.Int64 // Yields and Pauses that found a request in flight

	mu      sync.Mutex
	nr, n   int           // recalls, and recalls and writes, in flight, under mu
	idle    chan struct{} // closed while nr == 0
	allIdle chan struct{} // closed while n == 0
}

// New returns a Gate with no request in flight.
func New() *Gate {
	g := &Gate{idle: make(chan struct{}), allIdle: make(chan struct{})}
	close(g.idle)
	close(g.allIdle)
	return g
}

// Begin marks a recall in flight until the returned function is called.
func (g *Gate) Begin() (end func()) { return g.begin(true) }

// BeginWrite marks a write in flight until the returned function is
// called. Background embedding (Pause) steps aside for it; Yield, which the
// indexer and a write's own helpers call, does not wait for it.
func (g *Gate) BeginWrite() (end func()) { return g.begin(false) }

func (g *Gate) begin(recall bool) (end func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	if recall {
		if g.nr == 0 {
			g.idle = make(chan struct{})
		}
		g.nr++
		g.recalls.Add(1)
	}
	if g.n == 0 {
		g.allIdle = make(chan struct{})
	}
	g.n++
	g.requests.Add(1)
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			if recall {
				g.nr--
				g.recalls.Add(-1)
				if g.nr == 0 {
					close(g.idle)
				}
			}
			g.n--
			g.requests.Add(-1)
			if g.n == 0 {
				close(g.allIdle)
			}
			g.mu.Unlock()
		})
	}
}

// Waits reports how many times background work has stepped aside (a Yield
// or Pause that found a request in flight and waited): how often the
// requests got the CPU to themselves, for metrics and tests.
func (g *Gate) Waits() int64 {
	if g == nil {
		return 0
	}
	return g.waits.Load()
}

// Busy reports whether a recall is in flight.
func (g *Gate) Busy() bool { return g != nil && g.recalls.Load() > 0 }

// Yield returns at once when no recall is in flight; otherwise it waits
// until none is, MaxWait passes or ctx ends.
func (g *Gate) Yield(ctx context.Context) {
	if g == nil || g.recalls.Load() == 0 {
		return
	}
	g.waits.Add(1)
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	wait(ctx, idle)
}

// yieldAll is Yield for recalls and writes both.
func (g *Gate) yieldAll(ctx context.Context) {
	if g.requests.Load() == 0 {
		return
	}
	g.waits.Add(1)
	g.mu.Lock()
	idle := g.allIdle
	g.mu.Unlock()
	wait(ctx, idle)
}

// What ended a wait.
const (
	ended    = iota // the requests ended
	timedOut        // MaxWait passed
	canceled        // ctx ended
)

// wait waits until idle is closed, MaxWait passes or ctx ends, and says
// which.
func wait(ctx context.Context, idle <-chan struct{}) int {
	if ctx.Err() != nil {
		return canceled
	}
	t := time.NewTimer(MaxWait)
	defer t.Stop()
	select {
	case <-idle:
		return ended
	case <-t.C:
		return timedOut
	case <-ctx.Done():
		return canceled
	}
}

type gateKey struct{}

// Background returns a context for background work under g: work that
// takes the context (an embedder's forward pass) calls Pause between its
// units.
func Background(ctx context.Context, g *Gate) context.Context {
	if g == nil {
		return ctx
	}
	return context.WithValue(ctx, gateKey{}, g)
}

// IsBackground reports whether ctx carries background work.
func IsBackground(ctx context.Context) bool {
	_, ok := ctx.Value(gateKey{}).(*Gate)
	return ok
}

// Pause yields to the recalls and writes of the Gate ctx carries, if any:
// the vectors of writes acknowledged without them are made while no
// request waits, or MaxWait per unit under a steady stream of them, so
// that they are late but never starved.
func Pause(ctx context.Context) {
	if g, ok := ctx.Value(gateKey{}).(*Gate); ok {
		g.yieldAll(ctx)
	}
}
