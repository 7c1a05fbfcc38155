// Package panics keeps a panic in one request or background job from taking
// the process down: it becomes an error, logged once with its stack, and
// the process keeps serving.
//
// A recovered panic is a plain error, not a mnemo.Error, so
// mnemo.ErrorCode reports it as internal and no way in shows its details.
package panics

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
)

// Error is a recovered panic.
type Error struct {
	What  string // what was running: a route, a tool, a job
	Value any    // what was passed to panic
	Stack []byte // the goroutine's stack where it panicked
}

func (e *Error) Error() string { return fmt.Sprintf("panic in %s: %v", e.What, e.Value) }

// Recover, deferred, turns a panic into a *Error in *err and logs it
// with its stack at level Error:
//
//	defer panics.Recover(log, "reflect", &err)
//
// err may be nil when the caller only needs the panic logged.
func Recover(log *slog.Logger, what string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	pe := &Error{What: what, Value: v, Stack: debug.Stack()}
	Log(log, pe)
	if err != nil {
		*err = pe
	}
}

// Log logs a recovered panic with its stack.
func Log(log *slog.Logger, pe *Error) {
	if log == nil {
		log = slog.Default()
	}
	log.Error("recovered from a panic", "in", pe.What, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
}

// Call runs fn and returns its error, or the panic it raised as a
// *Error.
func Call(log *slog.Logger, what string, fn func() error) (err error) {
	defer Recover(log, what, &err)
	return fn()
}

// Go runs fn in a new goroutine; a panic in it is logged, not fatal.
func Go(log *slog.Logger, what string, fn func()) {
	go func() {
		defer Recover(log, what, nil)
		fn()
	}()
}

// Group runs background jobs that stop together: Stop cancels the context
// they were given and waits for every one to return, so that what they use
// (a store) can be closed after it. The zero value is not usable; call
// NewGroup.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	wg     sync.WaitGroup
}

// NewGroup returns a group whose jobs run under a context derived from ctx.
func NewGroup(ctx context.Context, log *slog.Logger) *Group {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{ctx: ctx, cancel: cancel, log: log}
}

// Go runs job in the group. A panic in it is logged and ends that job only.
func (g *Group) Go(what string, job func(ctx context.Context)) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer Recover(g.log, what, nil)
		job(g.ctx)
	}()
}

// Stop cancels every job's context and waits until all have returned.
func (g *Group) Stop() {
	g.cancel()
	g.wg.Wait()
}
