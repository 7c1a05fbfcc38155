// Package priority lets the requests someone waits on (a recall) go before
// background work (embedding queued memories, inserting vectors into the ANN
// index) on the CPU.
//
// Go has no thread priorities, so background work steps aside by itself:
// it calls Yield between small units of work (one text chunk, one vector
// insert), and Yield waits while a request is in flight. A wait lasts at
// most MaxWait, so that background work goes on, slower, under a steady
// stream of requests: on a small machine a recall beside a bulk load then
// runs nearly alone instead of sharing both cores with the embedder and
// the indexer (PERF-2).
package priority

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWait bounds one Yield: background work never stops for longer.
const MaxWait = 25 * time.Millisecond

// A Gate counts the requests in flight. The zero value is not usable; a nil
// *Gate is, and never waits.
type Gate struct {
	active atomic.Int64 // requests in flight, for Yield's fast path

	mu   sync.Mutex
	n    int           // requests in flight, under mu
	idle chan struct{} // closed while n == 0
}

// New returns a Gate with no request in flight.
func New() *Gate {
	g := &Gate{idle: make(chan struct{})}
	close(g.idle)
	return g
}

// Begin marks a request in flight until the returned function is called.
func (g *Gate) Begin() (end func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	if g.n == 0 {
		g.idle = make(chan struct{})
	}
	g.n++
	g.active.Add(1)
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.n--
			g.active.Add(-1)
			if g.n == 0 {
				close(g.idle)
			}
			g.mu.Unlock()
		})
	}
}

// Busy reports whether a request is in flight.
func (g *Gate) Busy() bool { return g != nil && g.active.Load() > 0 }

// Yield returns at once when no request is in flight; otherwise it waits
// until none is, MaxWait passes or ctx ends.
func (g *Gate) Yield(ctx context.Context) {
	if g == nil || g.active.Load() == 0 {
		return
	}
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	t := time.NewTimer(MaxWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
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

// Pause yields to the requests of the Gate ctx carries, if any.
func Pause(ctx context.Context) {
	if g, ok := ctx.Value(gateKey{}).(*Gate); ok {
		g.Yield(ctx)
	}
}
