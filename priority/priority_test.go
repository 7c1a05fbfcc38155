package priority

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
	t0 := time.Now()
	g.Yield(ctx)
	if d := time.Since(t0); d > MaxWait/2 {
		t.Fatalf("Yield with nothing in flight took %v", d)
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
	if d := time.Since(t0); d < MaxWait {
		t.Fatalf("Yield returned after %v with a request in flight, want MaxWait (%v)", d, MaxWait)
	}
}

func TestYieldEndsWithContext(t *testing.T) {
	g := New()
	end := g.Begin()
	defer end()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	t0 := time.Now()
	g.Yield(ctx)
	if d := time.Since(t0); d >= MaxWait {
		t.Fatalf("Yield on a cancelled context took %v", d)
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
	var wg sync.WaitGroup
	paused := make(chan time.Duration, 1)
	wg.Go(func() {
		t0 := time.Now()
		Pause(ctx)
		paused <- time.Since(t0)
	})
	time.Sleep(MaxWait / 5)
	end()
	wg.Wait()
	if d := <-paused; d < MaxWait/10 {
		t.Fatalf("Pause returned after %v while a request was in flight", d)
	}
	// Foreground work never pauses.
	end = g.Begin()
	defer end()
	t0 := time.Now()
	Pause(context.Background())
	if d := time.Since(t0); d > MaxWait/2 {
		t.Fatalf("Pause without a background context took %v", d)
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
			t0 := time.Now()
			tc.wait(context.Background(), g)
			d := time.Since(t0)
			if tc.wantPause && d < MaxWait {
				t.Fatalf("returned after %v, want MaxWait (%v)", d, MaxWait)
			}
			if !tc.wantPause && d > MaxWait/2 {
				t.Fatalf("waited %v", d)
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
	t0 := time.Now()
	g.Yield(context.Background()) // the idle channels are closed again
	Pause(Background(context.Background(), g))
	if d := time.Since(t0); d > MaxWait/2 {
		t.Fatalf("waited %v with nothing in flight", d)
	}
}
