package memory

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/cpugate"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/internal/shorthand"
	"github.com/mnemo-dev/mnemo/internal/worker"
)

// DefaultQueryEmbedTimeout bounds a remote provider's embedding of a
// query when Options.QueryEmbedTimeout is zero: a provider that hangs
// degrades recall instead of stalling it.
const DefaultQueryEmbedTimeout = 5 * time.Second

// vectors is the Service's semantic side: the embedder, the store's vectors
// and the worker that embeds what was written without a vector.
//
// A memory is written with its vector when the embedder answers at once
// (synchronous mode, the default for in-process embedders); otherwise, or
// when the embedder fails, it is written without one and queued in the
// store, and the worker embeds it in the background, retrying with backoff
// while the embedder is down. Until its vector lands the memory is found by
// the lexical index alone; recall's explain says so.
type vectors struct {
	store    mnemo.VectorStore
	embedder mnemo.Embedder // for memories
	query    mnemo.Embedder // for queries: usually embedder behind a cache
	async    bool
	timeout  time.Duration // of a query's embedding, unless local
	local    bool          // the embedder computes in this process
	log      *slog.Logger
	gate     *cpugate.Gate // the worker yields to recalls on it

	initMu sync.Mutex
	ready  bool // the vector space is set and the worker runs

	wake    chan struct{} // a write left memories to embed
	stop    context.CancelFunc
	stopped chan struct{}

	mu      sync.Mutex
	lastErr error // the worker's last failure, cleared on success
}

func newVectors(b mnemo.Backend, opts Options, log *slog.Logger) *vectors {
	vs := b.Vectors
	if vs == nil || opts.Embedder == nil {
		return nil
	}
	v := &vectors{
		store:    vs,
		embedder: opts.Embedder,
		query:    opts.QueryEmbedder,
		async:    opts.AsyncEmbedding,
		timeout:  opts.QueryEmbedTimeout,
		log:      log,
		gate:     opts.Gate,
		wake:     make(chan struct{}, 1),
	}
	if v.query == nil {
		v.query = v.embedder
	}
	_, v.local = v.embedder.(embed.Loader)
	if v.timeout <= 0 {
		v.timeout = DefaultQueryEmbedTimeout
	}
	return v
}

// embedQuery returns the vector of a query: a remote provider's within
// the query timeout, an in-process model's (embed.Loader) whenever it is
// done. Reading and running a model in process is bounded work that
// cannot hang; a timer would only fail it on a busy machine, and the same
// query would then be answered by its words alone, matched and noted in
// the ledger unlike on a quiet one (QUAL-3, EMB-8).
func (v *vectors) embedQuery(ctx context.Context, text string) ([]float32, error) {
	if !v.local {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, v.timeout)
		defer cancel()
	}
	// A query's shorthand written out as a memory's is (REC-39).
	text, _, _ = shorthand.Expand(text)
	vs, err := v.query.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return nil, fmt.Errorf("embedder %s returned %d vectors for one query", v.embedder.Model(), len(vs))
	}
	return vs[0], nil
}

// init sets the store's vector space to the embedder's and starts the
// worker, once it succeeds. A store embedded with another model is
// EMISMATCH; an embedder that cannot tell its dimension is tried again on
// the next call.
func (v *vectors) init(ctx context.Context) error {
	v.initMu.Lock()
	defer v.initMu.Unlock()
	if v.ready {
		return nil
	}
	space, err := v.space(ctx)
	if err != nil {
		return err
	}
	if err := v.store.SetVectorSpace(ctx, space, false); err != nil {
		if mnemo.ErrorCode(err) == mnemo.EUNAVAILABLE {
			return &noIndexError{err}
		}
		return err
	}
	// The worker is background work: it steps aside for recalls (PERF-2).
	wctx, cancel := context.WithCancel(cpugate.Background(context.WithoutCancel(ctx), v.gate))
	v.stop, v.stopped = cancel, make(chan struct{})
	go v.work(wctx)
	v.ready = true
	v.kick() // memories left unembedded by an earlier run
	return nil
}

// noIndexError is a store that cannot keep vectors now (PostgreSQL without
// pgvector): memories are written without them and recall answers by full
// text and recency (PG-2).
type noIndexError struct{ err error }

func (e *noIndexError) Error() string { return e.err.Error() }
func (e *noIndexError) Unwrap() error { return e.err }

// reason says why the vector index is missing, for a degraded answer.
func (e *noIndexError) reason() string {
	msg := mnemo.ErrorMessage(e.err)
	if !strings.HasPrefix(msg, "no vector index") {
		msg = "no vector index (" + msg + ")"
	}
	return msg + ": answered by full text and recency"
}

// space returns the embedder's vector space. A remote model may tell its
// dimension only with its first answer.
func (v *vectors) space(ctx context.Context) (mnemo.VectorSpace, error) {
	dim := v.embedder.Dimension()
	if dim <= 0 {
		vecs, err := v.embedder.Embed(ctx, []string{"dimension probe"})
		if err != nil {
			return mnemo.VectorSpace{}, fmt.Errorf("embedder %s: %w", v.embedder.Model(), err)
		}
		if len(vecs) != 1 || len(vecs[0]) == 0 {
			return mnemo.VectorSpace{}, fmt.Errorf("embedder %s returned no vector", v.embedder.Model())
		}
		dim = len(vecs[0])
	}
	return mnemo.VectorSpace{Model: v.embedder.Model(), Dimension: dim}, nil
}

// close stops the worker.
func (v *vectors) close() {
	if v == nil {
		return
	}
	v.initMu.Lock()
	defer v.initMu.Unlock()
	if v.ready {
		v.stop()
		<-v.stopped
		v.ready = false
	}
}

func (v *vectors) kick() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// embedRecords gives each record with embed text its vector, in one call to
// the embedder. On failure the records are written without vectors and the
// worker embeds them later; the error says why.
func (v *vectors) embedRecords(ctx context.Context, recs []mnemo.Record) error {
	if v.async {
		return nil
	}
	var (
		texts []string
		idx   []int
	)
	model := v.embedder.Model()
	for i := range recs {
		m := &recs[i].Memory
		if len(m.Embedding) > 0 && m.EmbeddingModel == model {
			continue // imported with its vector
		}
		if recs[i].Embed != "" && !recs[i].Tombstone {
			texts = append(texts, recs[i].Embed)
			idx = append(idx, i)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	vecs, err := v.embedder.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder %s returned %d vectors for %d texts", model, len(vecs), len(texts))
	}
	if err != nil {
		v.log.Warn("embedding on write failed; the memories are queued", "model", model, "err", err)
		return err
	}
	for k, i := range idx {
		recs[i].Memory.Embedding, recs[i].Memory.EmbeddingModel = vecs[k], model
	}
	return nil
}

// queued reports whether a record was stored without the vector of the
// embedder it needs, for the worker to make: a write whose vectors were all
// made on the way in leaves the worker asleep rather than have it look for
// work after every write (PERF-8).
func (v *vectors) queued(recs []mnemo.Record) bool {
	model := v.embedder.Model()
	for i := range recs {
		r := &recs[i]
		if !r.Tombstone && r.Embed != "" && (len(r.Memory.Embedding) == 0 || r.Memory.EmbeddingModel != model) {
			return true
		}
	}
	return false
}

// work embeds queued memories until ctx is cancelled.
func (v *vectors) work(ctx context.Context) {
	defer close(v.stopped)
	// An in-process model is read now, in the background, rather than by
	// the first recall, which would wait for it (PERF-2). A failure shows
	// again where it matters: in the embedding.
	if l, ok := v.embedder.(embed.Loader); ok {
		l.Load()
	}
	worker.Drain(ctx, v.wake, v.log.With("model", v.embedder.Model()), "embedding queued memories", v.embedQueued)
}

// embedQueued embeds one batch of queued memories and returns how many.
func (v *vectors) embedQueued(ctx context.Context) (int, error) {
	jobs, err := v.store.Unembedded(ctx, worker.Batch)
	if err != nil || len(jobs) == 0 {
		v.setErr(err)
		return 0, err
	}
	texts := make([]string, len(jobs))
	for i, j := range jobs {
		texts[i] = j.Text
	}
	vecs, err := v.embedder.Embed(ctx, texts)
	if err == nil && len(vecs) != len(jobs) {
		err = fmt.Errorf("embedder %s returned %d vectors for %d texts", v.embedder.Model(), len(vecs), len(jobs))
	}
	if err == nil {
		err = v.store.SetVectors(ctx, jobs, vecs)
	}
	v.setErr(err)
	if err != nil {
		return 0, err
	}
	return len(jobs), nil
}

func (v *vectors) setErr(err error) {
	v.mu.Lock()
	v.lastErr = err
	v.mu.Unlock()
}

func (v *vectors) err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastErr
}

// WaitEmbedded returns when every memory written so far has its vector (or
// the embedder cannot be reached, or ctx ends). Writes are acknowledged
// before their vectors land; tests, benchmarks and imports that want
// semantic recall at once wait here.
func (s *Service) WaitEmbedded(ctx context.Context) error {
	v := s.vec
	if v == nil {
		return nil
	}
	if err := v.init(ctx); err != nil {
		return err
	}
	for {
		jobs, err := v.store.Unembedded(ctx, 1)
		if err != nil {
			return err
		}
		if len(jobs) == 0 {
			return nil
		}
		if err := v.err(); err != nil {
			return fmt.Errorf("embedding is failing: %w", err)
		}
		v.kick()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Reindex re-embeds every memory with the service's embedder, whatever the
// store was embedded with, and reports progress as memories get their
// vectors. It returns when all have them.
func (s *Service) Reindex(ctx context.Context, progress func(done, total int)) error {
	v := s.vec
	if v == nil {
		return mnemo.Errorf(mnemo.EINVALID, "no embedder is configured: nothing to reindex")
	}
	space, err := v.space(ctx)
	if err != nil {
		return err
	}
	if err := v.store.SetVectorSpace(ctx, space, true); err != nil {
		return err
	}
	total, err := v.store.CountUnembedded(ctx)
	if err != nil {
		return err
	}
	for done := 0; ; {
		if progress != nil {
			progress(done, total)
		}
		n, err := v.embedQueued(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return v.init(ctx) // the worker takes over
		}
		done += n
	}
}
