package sqlite

import (
	"context"
	"fmt"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// groupRecords bounds the records of the writes a group takes after its
// first: a bulk write joins no group, and a group's transaction holds the
// writer no longer than a large write already does.
const groupRecords = 256

// writeGroup commits concurrent Writes together (group commit): the writes
// that arrive while the writer is busy wait in a queue, and the next of
// them to take the lead applies them all in one transaction, so that they
// share its fsync. Each write still returns only once the transaction that
// applied it has committed: nothing is acknowledged before it is durable
// (MEM-16). With synchronous FULL the fsync, not the work, bounds one
// writer's commits a second, so that a request a write made one commit
// each (PERF-16).
type writeGroup struct {
	mu    sync.Mutex
	queue []*groupWrite
	// lead is held by the one goroutine applying a group.
	lead chan struct{}
}

func newWriteGroup() *writeGroup { return &writeGroup{lead: make(chan struct{}, 1)} }

// groupWrite is one Write in a group.
type groupWrite struct {
	ctx     context.Context
	scope   mnemo.Scope
	recs    []mnemo.Record
	replace bool
	// contexts are index contexts to set after recs (WriteContexts).
	contexts []mnemo.ContextUpdate

	// out and err are its result, set by the leader before done closes.
	out  []mnemo.Memory
	err  error
	done chan struct{}
}

// do queues w and returns once it is applied and committed, or failed:
// by a leader that took it, or by this goroutine as leader. commit applies
// a group, setting each write's result. A write whose ctx ends while it
// is still queued leaves the queue and fails with ctx's error.
func (g *writeGroup) do(ctx context.Context, w *groupWrite, commit func([]*groupWrite)) {
	g.mu.Lock()
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	select {
	case g.lead <- struct{}{}:
	case <-w.done:
		return
	case <-ctx.Done():
		if g.withdraw(w) {
			w.err = ctx.Err()
			return
		}
		<-w.done // a leader has it
		return
	}
	defer func() { <-g.lead }()
	// The queue is taken in order, so w is in the next groups unless the
	// leader before this one took it.
	for {
		select {
		case <-w.done:
			return
		default:
		}
		g.run(g.take(), commit)
	}
}

// take removes the next group from the queue: its first write, and the
// writes after it while they keep the group within groupRecords.
func (g *writeGroup) take() []*groupWrite {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, recs := 1, len(g.queue[0].recs)
	for n < len(g.queue) && recs+len(g.queue[n].recs) <= groupRecords {
		recs += len(g.queue[n].recs)
		n++
	}
	ws := g.queue[:n:n]
	g.queue = g.queue[n:]
	if len(g.queue) == 0 {
		g.queue = nil // let the backing array go
	}
	return ws
}

// withdraw removes w from the queue, reporting whether it was still there.
func (g *writeGroup) withdraw(w *groupWrite) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, q := range g.queue {
		if q == w {
			g.queue = append(g.queue[:i:i], g.queue[i+1:]...)
			return true
		}
	}
	return false
}

// run commits ws and releases their writers, even when commit panics:
// the leader's caller sees the panic, the others an error.
func (g *writeGroup) run(ws []*groupWrite, commit func([]*groupWrite)) {
	defer func() {
		p := recover()
		for _, w := range ws {
			if p != nil {
				w.out, w.err = nil, fmt.Errorf("sqlite: write: panic: %v", p)
			}
			close(w.done)
		}
		if p != nil {
			panic(p)
		}
	}()
	commit(ws)
}
