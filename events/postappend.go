package events

import (
	"cmp"
	"context"
	"log/slog"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// postAppend is the work that follows an append once it commits: L3
// vectors (the embedding worker, vectors.go), L2 text relations and profile
// interactions (the text queue, text.go), and the access counts that
// searches write.
type postAppend struct {
	store mnemo.EventVectorStore // nil: the store keeps no event vectors
	text  mnemo.Embedder         // nil: no text vectors
	query mnemo.Embedder
	async bool
	opts  VectorOptions
	log   *slog.Logger

	mu      sync.Mutex
	running bool // the embedding worker
	wake    chan struct{}
	stop    context.CancelFunc
	done    chan struct{}

	touches sync.WaitGroup // access counts being written

	closed      bool
	textJobs    chan textJob // events waiting for text relations
	textDone    chan struct{}
	textPending sync.WaitGroup
}

// newPostAppend returns the post-append work of a Service over b; its
// workers start on first use.
func newPostAppend(b mnemo.Backend, o Options, d Deps, log *slog.Logger) *postAppend {
	p := &postAppend{opts: o.Vectors, log: log, wake: make(chan struct{}, 1), async: d.AsyncEmbedding}
	if p.opts.KeepFor <= 0 {
		p.opts.KeepFor = DefaultVectorKeep
	}
	if p.opts.KeepAccessed <= 0 {
		p.opts.KeepAccessed = 3
	}
	if vs := b.EventVectors; vs != nil && !p.opts.Off {
		p.store = vs
		p.text, p.query = d.Embedder, cmp.Or(d.QueryEmbedder, d.Embedder)
	}
	return p
}

// close stops the workers: queued text jobs are finished, the embedding
// worker is cancelled; then it waits for access counts being written.
func (p *postAppend) close() {
	p.mu.Lock()
	running, stop, done := p.running, p.stop, p.done
	p.running, p.closed = false, true
	if p.textJobs != nil {
		close(p.textJobs)
	}
	textDone := p.textDone
	p.mu.Unlock()
	if textDone != nil {
		<-textDone
	}
	if running {
		stop()
		<-done
	}
	p.touches.Wait()
}
