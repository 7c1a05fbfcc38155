package memory

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The access record of recall (accessed_at, access_count) is bookkeeping:
// recall must not wait on the store's single writer for it (PERF-2,
// PERF-11). Recall hands its results' ids to the recorder and returns; a
// background job writes what gathered every AccessFlushEvery, or as soon as
// AccessFlushAt accesses wait. Close stops the job and writes the rest.
//
// Reads through the Service (Get, GetByKey, List, History, Stats) write a
// scope's waiting accesses first, so that a read after a recall sees it;
// lifecycle's reflect and the prompt's reads call FlushAccess. What is lost:
// the accesses of the last second on a crash (a kill -9 or a power cut),
// never a memory — the same class of loss as Touch's synchronous=NORMAL.
const (
	AccessFlushEvery = time.Second
	AccessFlushAt    = 512
)

// accessKey is one memory of one scope, accessed at one time.
type accessKey struct {
	scope mnemo.Scope
	at    time.Time
}

// accessRecorder gathers recall's access records for the writer.
type accessRecorder struct {
	touch func(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error
	log   *slog.Logger

	mu      sync.Mutex
	pending map[accessKey][]string // by scope and time: one Touch each
	scopes  map[mnemo.Scope]int    // how many waiting per scope
	n       int                    // waiting in all
	started bool
	closed  bool
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}

	flushMu sync.Mutex // one flush at a time, so that counts land in order
}

func newAccessRecorder(touch func(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error, log *slog.Logger) *accessRecorder {
	return &accessRecorder{touch: touch, log: log, pending: map[accessKey][]string{}, scopes: map[mnemo.Scope]int{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// add records an access of ids in scope at at, to be written later. After
// close it writes at once.
func (a *accessRecorder) add(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		if err := a.touch(context.WithoutCancel(ctx), scope, ids, at); err != nil {
			a.log.Warn("recording access failed", "err", err)
		}
		return
	}
	if !a.started {
		a.started = true
		go a.run()
	}
	k := accessKey{scope, at}
	a.pending[k] = append(a.pending[k], ids...)
	a.scopes[scope] += len(ids)
	a.n += len(ids)
	full := a.n >= AccessFlushAt
	a.mu.Unlock()
	if full {
		select {
		case a.wake <- struct{}{}:
		default:
		}
	}
}

func (a *accessRecorder) run() {
	defer close(a.done)
	t := time.NewTicker(AccessFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		case <-a.wake:
		}
		a.flush(context.Background(), nil)
	}
}

// flush writes the waiting accesses, of scope alone when it is not nil.
func (a *accessRecorder) flush(ctx context.Context, scope *mnemo.Scope) {
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	a.mu.Lock()
	if a.n == 0 || (scope != nil && a.scopes[*scope] == 0) {
		a.mu.Unlock()
		return
	}
	take := map[accessKey][]string{}
	for k, ids := range a.pending {
		if scope == nil || k.scope == *scope {
			take[k] = ids
			delete(a.pending, k)
			a.scopes[k.scope] -= len(ids)
			a.n -= len(ids)
			if a.scopes[k.scope] == 0 {
				delete(a.scopes, k.scope)
			}
		}
	}
	a.mu.Unlock()
	for k, ids := range take {
		// A memory recalled twice at one time is counted twice.
		for len(ids) > 0 {
			var once, again []string
			seen := make(map[string]bool, len(ids))
			for _, id := range ids {
				if seen[id] {
					again = append(again, id)
				} else {
					seen[id] = true
					once = append(once, id)
				}
			}
			if err := a.touch(context.WithoutCancel(ctx), k.scope, once, k.at); err != nil {
				// The answers were good; losing an access count is not
				// worth failing anything.
				a.log.Warn("recording access failed", "err", err)
			}
			ids = again
		}
	}
}

// close stops the background job and writes what waits; later accesses are
// written at once.
func (a *accessRecorder) close() {
	a.mu.Lock()
	started := a.started && !a.closed
	a.closed = true
	a.mu.Unlock()
	if started {
		close(a.stop)
		<-a.done
	}
	a.flush(context.Background(), nil)
}

// FlushAccess writes the access records recall left waiting (see
// AccessFlushEvery). Lifecycle's reflect calls it before it reads access
// counts.
func (s *Service) FlushAccess(ctx context.Context) {
	s.access.flush(ctx, nil)
}

// flushScope writes scope's waiting access records before a read of it.
func (s *Service) flushScope(ctx context.Context, scope mnemo.Scope) {
	s.access.flush(ctx, &scope)
}
