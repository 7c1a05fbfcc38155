package testwait

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

func TestLoadPerCore(t *testing.T) {
	for _, tt := range []struct {
		loadavg string
		cores   int
		want    float64
	}{
		{"0.52 0.61 0.40 1/512 1234", 2, 0.305},
		{"10.00 6.00 3.00 2/512 1234", 2, 5}, // the minute's average
		{"3.00 8.00 9.00 2/512 1234", 2, 4},  // the five minutes' one, not the quarter hour's
		{"0.10 0.20 0.10 13/512 1234", 4, 3}, // a burst the averages do not show yet
		{"garbage", 2, 1},                    // not Linux's format: no stretch
		{"1.0 1.0 1.0 1/1 1", 0, 1},          // no core count
		{"x 4.00 0.1 1/1 1", 1, 4},           // an unreadable field is skipped
	} {
		if got := loadPerCore(tt.loadavg, tt.cores); got != tt.want {
			t.Errorf("loadPerCore(%q, %d) = %v, want %v", tt.loadavg, tt.cores, got, tt.want)
		}
	}
}

func TestSlowdown(t *testing.T) {
	for _, tt := range []struct {
		load float64
		nice int
		want float64
	}{
		{0.3, 0, 1},               // a quiet machine
		{0.3, 10, 1},              // niced, but nothing else wants the core
		{5, 0, 5},                 // load 10 on two cores
		{5, 10, 1 + 4*1024.0/110}, // niced under it: its share is a tenth of the others'
		{5, -5, 5},                // a higher priority is not counted as faster
		{2, 19, 1 + 1024.0/15},    // the lowest priority
		{2, 40, 1 + 1024.0/15},    // out of range: the nearest
		{1, 10, 1},                // alone on its core
	} {
		if got := slowdown(tt.load, tt.nice); got != tt.want {
			t.Errorf("slowdown(%v, %d) = %v, want %v", tt.load, tt.nice, got, tt.want)
		}
	}
}

func TestNiceOf(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want int
	}{
		{"1234 (mnemo.test) R 1 1234 1234 0 -1 4194560 100 0 0 0 5 1 0 0 30 10 8 0 12345 1000000 500", 10},
		{"1234 (a) b) c) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1", 0}, // a name with ") " in it
		{"1234 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 39 19 1 0 1 1 1", 19},
		{"1234 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 -20 1 0 1 1 1", -20},
		{"garbage", 0},
		{"1 (x) S 1", 0},
	} {
		if got := niceOf(tt.stat); got != tt.want {
			t.Errorf("niceOf(%q) = %d, want %d", tt.stat, got, tt.want)
		}
	}
}

// The environment's factor stretches every budget: 20 ms of quiet time
// at ×1000 outlasts 100 ms of wall time.
func TestEnvScaleStretches(t *testing.T) {
	t.Setenv(EnvScale, "1000")
	if s := Scale(); s < 1000 {
		t.Fatalf("Scale() = %v with %s=1000", s, EnvScale)
	}
	b := New(20 * time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	if b.Over() {
		t.Fatal("a 20 ms budget at ×1000 was spent after 100 ms")
	}
	if d := D(time.Millisecond); d < time.Second {
		t.Fatalf("D(1ms) = %v at ×1000", d)
	}
	for _, bad := range []string{"", "0", "-2", "fast"} {
		t.Setenv(EnvScale, bad)
		if s := envScale(); s != 1 {
			t.Errorf("envScale() with %q = %v, want 1", bad, s)
		}
	}
}

// A budget is spent: Context ends with ErrSpent, After closes, Until fails.
func TestBudgetEnds(t *testing.T) {
	t.Setenv(EnvScale, "1")
	ctx, cancel := Context(context.Background(), 10*time.Millisecond)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a quiet 10 ms, stretched at most by the load
		t.Fatal("a 10 ms budget's context never ended")
	}
	if cause := context.Cause(ctx); !errors.Is(cause, ErrSpent) || !errors.Is(cause, context.DeadlineExceeded) {
		t.Fatalf("cause %v, want ErrSpent wrapping context.DeadlineExceeded", cause)
	}
	select {
	case <-After(t, 10*time.Millisecond):
	case <-time.After(time.Minute):
		t.Fatal("After's channel never closed")
	}
	ft := &fatalT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Until(ft, 10*time.Millisecond, "nothing", func() bool { return false })
	}()
	<-done
	if !ft.failed {
		t.Fatal("Until returned on a condition that never held")
	}
	// A condition that holds ends the wait at once, whatever the budget.
	Until(t, time.Nanosecond, "something", func() bool { return true })
}

// Cancelling a Context ends it as cancelled, not spent.
func TestContextCancel(t *testing.T) {
	ctx, cancel := Context(context.Background(), time.Hour)
	cancel()
	<-ctx.Done()
	if cause := context.Cause(ctx); cause != context.Canceled {
		t.Fatalf("cause %v, want context.Canceled", cause)
	}
}

// fatalT records a Fatalf and ends the goroutine as testing.T does.
type fatalT struct {
	testing.TB
	failed bool
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(string, ...any) {
	f.failed = true
	runtime.Goexit()
}
