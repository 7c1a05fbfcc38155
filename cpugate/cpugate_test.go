package cpugate

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestYieldWaitsForRequests(t *testing.T) {
	g := New()
	ctx := context.Background()

	// Nothing in flight: no wait.
	g.Yield(ctx)
	if n := g.Waits(); n != 0 {
		t.Fatalf("Yield with nothing in flight waited (%d waits)", n)
	}

	// A request in flight: Yield returns when it ends.
	end := g.Begin()
	if !g.Busy() {
		t.Fatal("Busy() = false with a request in flight")
	}
	returned := make(chan struct{})
	go func() { g.Yield(ctx); close(returned) }()
	select {
	case <-returned:
		// MaxWait may have passed on a slow machine; only an early
		// return before any wait is wrong, which the timer bounds.
	case <-time.After(MaxWait / 5):
		end()
		<-returned
	}
	end() // twice is harmless
	if n := g.Waits(); n != 1 {
		t.Fatalf("%d waits counted, want 1", n)
	}
	if g.Busy() {
		t.Fatal("Busy() = true after the request ended")
	}
}

func TestYieldIsBounded(t *testing.T) {
	g := New()
	end := g.Begin()
	defer end()
	t0 := time.Now()
	g.Yield(context.Background())
	// A timer never fires early: a lower bound, not a timing assertion.
	if d := time.Since(t0); d < MaxWait {
		t.Fatalf("Yield returned after %v with a request in flight, want MaxWait (%v)", d, MaxWait)
	}
	if got := wait(context.Background(), make(chan struct{})); got != timedOut {
		t.Fatalf("a wait for requests that never end ended with %d, want timedOut", got)
	}
}

func TestYieldEndsWithContext(t *testing.T) {
	g := New()
	end := g.Begin()
	defer end()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.Yield(ctx) // returns
	if got := wait(ctx, make(chan struct{})); got != canceled {
		t.Fatalf("a wait on a cancelled context ended with %d, want canceled", got)
	}
}

func TestNilGate(t *testing.T) {
	var g *Gate
	g.Begin()()
	g.BeginWrite()()
	g.Yield(context.Background())
	if g.Busy() {
		t.Fatal("a nil Gate is busy")
	}
	if ctx := Background(context.Background(), nil); IsBackground(ctx) {
		t.Fatal("Background with a nil Gate marks the context")
	}
}

func TestPauseUsesTheContextsGate(t *testing.T) {
	g := New()
	ctx := Background(context.Background(), g)
	if !IsBackground(ctx) || IsBackground(context.Background()) {
		t.Fatal("IsBackground does not tell background contexts")
	}
	end := g.Begin()
	defer end()
	Pause(ctx)
	if n := g.Waits(); n != 1 {
		t.Fatalf("Pause while a request was in flight: %d waits, want 1", n)
	}
	// Foreground work never pauses.
	Pause(context.Background())
	if n := g.Waits(); n != 1 {
		t.Fatalf("Pause without a background context waited (%d waits)", n)
	}
}

// A write in flight pauses background embedding (Pause), boundedly, and
// not the work that calls Yield: the indexer and a write's own helpers.
func TestWritesPauseOnlyBackgroundWork(t *testing.T) {
	for _, tc := range []struct {
		name      string
		begin     func(*Gate) func()
		wait      func(context.Context, *Gate)
		wantPause bool
	}{
		{"write, Pause", (*Gate).BeginWrite, func(ctx context.Context, g *Gate) { Pause(Background(ctx, g)) }, true},
		{"write, Yield", (*Gate).BeginWrite, func(ctx context.Context, g *Gate) { g.Yield(ctx) }, false},
		{"recall, Pause", (*Gate).Begin, func(ctx context.Context, g *Gate) { Pause(Background(ctx, g)) }, true},
		{"recall, Yield", (*Gate).Begin, func(ctx context.Context, g *Gate) { g.Yield(ctx) }, true},
		{"nothing, Pause", func(*Gate) func() { return func() {} }, func(ctx context.Context, g *Gate) { Pause(Background(ctx, g)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			end := tc.begin(g)
			defer end()
			if g.Busy() != (tc.name[:6] == "recall") {
				t.Fatalf("Busy() = %v", g.Busy())
			}
			tc.wait(context.Background(), g)
			if waited := g.Waits() > 0; waited != tc.wantPause {
				t.Fatalf("waited: %v, want %v", waited, tc.wantPause)
			}
		})
	}
}

func TestConcurrentBeginEnd(t *testing.T) {
	g := New()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				end := g.Begin()
				endWrite := g.BeginWrite()
				end()
				endWrite()
			}
		})
	}
	wg.Wait()
	if g.Busy() {
		t.Fatal("requests left in flight")
	}
	g.Yield(context.Background())
	Pause(Background(context.Background(), g))
	if n := g.Waits(); n != 0 {
		t.Fatalf("%d waits with nothing in flight", n)
	}
	// The idle channels are closed again: a wait on them ends at once.
	g.mu.Lock()
	idle, allIdle := g.idle, g.allIdle
	g.mu.Unlock()
	if wait(context.Background(), idle) != ended || wait(context.Background(), allIdle) != ended {
		t.Fatal("the idle channels are open with nothing in flight")
	}
}
