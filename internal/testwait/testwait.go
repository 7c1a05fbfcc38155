// Package testwait bounds the waits of tests in quiet-machine time, so
// that a test fails when what it waits for never comes, never because the
// machine is busy (QUAL-3).
//
// A budget is spent at the rate a quiet machine would spend it: each
// stretch of wall time counts divided by the machine's slowdown at that
// moment, Scale. On two cores at a load average of 10, a 30-second budget
// lasts two and a half minutes; when the load drops, what was spent stays
// spent. Only tests import it.
package testwait

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvScale names the variable that stretches every budget further (a
// number, default 1): for a machine slower than its load average says, such
// as one under a debugger or an emulator.
const EnvScale = "MNEMO_TEST_TIMEOUT_SCALE"

// Scale is how many times slower than a quiet machine this one runs now
// for this process: the runnable threads per core (the larger of the load
// averages over one and five minutes, and the threads runnable at this
// moment, which a burst shows before the averages do), at least 1, with
// the others' share weighed by this process's niceness (slowdown), times
// EnvScale.
func Scale() float64 {
	load := 1.0
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = loadPerCore(string(b), runtime.NumCPU())
	}
	nice := 0
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		nice = niceOf(string(b))
	}
	return slowdown(load, nice) * envScale()
}

// slowdown is how many times slower a thread of the given niceness runs
// with load runnable threads per core (itself included) than alone: the
// scheduler gives it its weight's share of a core, and a niced thread's
// weight is a fraction of the others' (taken to be at nice 0, as a
// machine's other work mostly is). At nice 0 it is the load itself, at
// least 1; at nice 10, which make test gives the steps that only compute,
// each other thread costs it about nine times as much.
func slowdown(load float64, nice int) float64 {
	others := max(load, 1) - 1
	return 1 + others*max(1, 1024/niceWeight(nice))
}

// niceWeight is Linux's scheduling weight of a niceness (sched_prio_to_weight):
// 1024 at nice 0, about 1.25 times less for each step up.
func niceWeight(nice int) float64 {
	weights := [...]float64{
		88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
		9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
		1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
		110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
	}
	return weights[min(max(nice, -20), 19)+20]
}

// niceOf reads the niceness from /proc/self/stat's text: the 19th field,
// the 17th after the command name's closing parenthesis; 0 when it cannot.
func niceOf(stat string) int {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 17 {
		return 0
	}
	n, err := strconv.Atoi(f[16])
	if err != nil {
		return 0
	}
	return n
}

// loadPerCore reads /proc/loadavg's text ("0.52 0.61 0.40 3/512 1234"):
// the largest of the 1- and 5-minute averages and the runnable count (less
// the reader itself), per core.
func loadPerCore(loadavg string, cores int) float64 {
	f := strings.Fields(loadavg)
	if len(f) < 4 || cores < 1 {
		return 1
	}
	var load float64
	for _, s := range f[:2] {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			load = max(load, v)
		}
	}
	if run, _, ok := strings.Cut(f[3], "/"); ok {
		if v, err := strconv.ParseFloat(run, 64); err == nil {
			load = max(load, v-1)
		}
	}
	return load / float64(cores)
}

func envScale() float64 {
	if v, err := strconv.ParseFloat(os.Getenv(EnvScale), 64); err == nil && v > 0 {
		return v
	}
	return 1
}

// D is d stretched by Scale now: for a bound fixed once, such as a
// client's or a server's timeout, or a bound checked after the fact. A wait
// should rather use a Budget (Until, After, Context), which follows the
// load as it changes.
func D(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Scale())
}

// A Budget is an amount of quiet-machine time. It is safe for concurrent
// use.
type Budget struct {
	base time.Duration

	mu    sync.Mutex
	spent time.Duration // quiet-machine time
	last  time.Time
}

// New starts a budget of base quiet-machine time.
func New(base time.Duration) *Budget {
	return &Budget{base: base, last: time.Now()}
}

// Over counts the wall time since the last call at the slowdown now, and
// reports whether the budget is spent.
func (b *Budget) Over() bool {
	scale := Scale()
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.spent += time.Duration(float64(now.Sub(b.last)) / scale)
	b.last = now
	return b.spent >= b.base
}

// String says what the budget is, for a failure message.
func (b *Budget) String() string {
	return fmt.Sprintf("%v of quiet-machine time (×%.1f now for the load)", b.base, Scale())
}

// tick is how often a budget is looked at while waiting: often enough that
// a spent one is noticed soon, seldom enough to cost nothing.
func tick(base time.Duration) time.Duration {
	return min(max(base/100, time.Millisecond), 100*time.Millisecond)
}

// Until waits until cond holds, calling it every few milliseconds, and
// fails t if base of quiet-machine time passes first; what names the wait
// in that message.
func Until(t testing.TB, base time.Duration, what string, cond func() bool) {
	t.Helper()
	b, every := New(base), tick(base)
	for !cond() {
		if b.Over() {
			t.Fatalf("waited %v for %s", b, what)
		}
		time.Sleep(every)
	}
}

// After returns a channel closed once base of quiet-machine time has
// passed, the budget of a select that would otherwise wait forever. Its
// watch ends with the test.
func After(t testing.TB, base time.Duration) <-chan struct{} {
	ctx, cancel := Context(context.Background(), base)
	t.Cleanup(cancel)
	done := make(chan struct{})
	go func() {
		<-ctx.Done()
		if context.Cause(ctx) != context.Canceled {
			close(done)
		}
	}()
	return done
}

// ErrSpent is the cause of a Context's end when its budget ran out. It
// wraps context.DeadlineExceeded.
var ErrSpent = fmt.Errorf("testwait: budget spent: %w", context.DeadlineExceeded)

// Context returns a child of parent that ends, with cause ErrSpent, once
// base of quiet-machine time has passed: a timeout for a call that would
// otherwise hang. Its Deadline is none, since the end moves with the load;
// cancel releases it.
func Context(parent context.Context, base time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	b, every := New(base), tick(base)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if b.Over() {
					cancel(ErrSpent)
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}
