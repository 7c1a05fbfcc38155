// Package service is the one object the ways in (http, mcp, cmd/mnemo) and
// Go programs use: it builds the memory, event, prompt and lifecycle
// services over one store and promotes their methods, so that a call site
// reads svc.Remember, svc.AppendEvents, svc.OpenRun or svc.Reflect.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/cpugate"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/statedoc"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/rank"
)

// The embedded services. Each alias names its embedded field, so four
// types that are all called Service sit side by side in Mnemo.
type (
	Memories  = memory.Service
	Events    = events.Service
	Prompts   = agentcontext.Service
	Lifecycle = lifecycle.Service
)

// Mnemo is everything the CLI, the HTTP API and the MCP server do, over one
// store. It is safe for concurrent use.
//
// A method name that two services share must also be defined on Mnemo:
// Go promotes only names that are unambiguous.
type Mnemo struct {
	*Memories
	*Events
	*Prompts
	*Lifecycle
	store mnemo.Store
}

// Options configure a Mnemo. The zero value is usable.
type Options struct {
	Limits mnemo.Limits
	// DefaultLimit and MaxLimit bound recall results (REC-5: default 5,
	// max 20).
	DefaultLimit int
	MaxLimit     int
	// Profile is the default ranking profile (rank.Hybrid when unset).
	Profile *rank.Profile
	Now     func() time.Time
	Logger  *slog.Logger

	// Embedder makes the vectors of memories, for semantic recall; nil
	// means lexical recall only. The store must be a VectorStore.
	Embedder mnemo.Embedder
	// QueryEmbedder makes the vectors of queries: Embedder behind a cache,
	// usually (embed/cache). Nil means Embedder.
	QueryEmbedder mnemo.Embedder
	// AsyncEmbedding writes memories without waiting for their vectors,
	// which a background worker adds.
	AsyncEmbedding bool
	// FallbackEmbedder stands in for Embedder while it fails: recall
	// re-scores its lexical candidates by it, on the fly.
	FallbackEmbedder mnemo.Embedder
	// QueryEmbedTimeout bounds a remote embedder's embedding of a query (EMB-8).
	QueryEmbedTimeout time.Duration
	// OnDegraded, when set, is called with a Degraded* cause every time an
	// answer or a write falls back: for metrics.
	OnDegraded func(cause string)

	// Guard configures the Write Guard that every write passes.
	Guard memory.GuardOptions

	// Extractor, when set, finds memories in the messages of AddMessages.
	Extractor memory.Extractor

	// Context configures runs, sessions, snapshots, boot and the default
	// read.
	Context agentcontext.Options

	// Lifecycle configures reflect: decay, archiving, retention, capacity.
	Lifecycle lifecycle.Options

	// Events configures the event layers: strict types, cold segments,
	// relation rules, vectors, summaries, capabilities, the profile.
	Events events.Options
}

// memoryOptions are the options of the memory service.
func (o Options) memoryOptions() memory.Options {
	return memory.Options{
		Limits:            o.Limits,
		DefaultLimit:      o.DefaultLimit,
		MaxLimit:          o.MaxLimit,
		Profile:           o.Profile,
		Now:               o.Now,
		Logger:            o.Logger,
		Embedder:          o.Embedder,
		QueryEmbedder:     o.QueryEmbedder,
		AsyncEmbedding:    o.AsyncEmbedding,
		FallbackEmbedder:  o.FallbackEmbedder,
		QueryEmbedTimeout: o.QueryEmbedTimeout,
		OnDegraded:        o.OnDegraded,
		Guard:             o.Guard,
		Extractor:         o.Extractor,

		TopicBoost: o.Context.TopicBoost, // the one prompt option recall reads
	}
}

// New returns a Mnemo over store. Close it to close the store.
func New(store mnemo.Store, o Options) *Mnemo {
	b := mnemo.NewBackend(store)
	if b.State == nil {
		b.State = statedoc.NewMem() // one in-process fallback, shared by every service
	}
	m := &Mnemo{store: store}
	mo := o.memoryOptions()
	// One gate for the process's store and services: recall goes before
	// the embedding worker and the store's indexer on the CPU (PERF-2).
	mo.Gate = cpugate.New()
	if g, ok := store.(interface{ UseGate(*cpugate.Gate) }); ok {
		g.UseGate(mo.Gate)
	}
	m.Memories = memory.New(b, mo)
	m.Events = events.New(b, o.Events, o.eventsDeps(b))
	m.Prompts = agentcontext.New(b, o.Context, agentcontext.Deps{Now: o.Now, Logger: o.Logger, Memory: m.Memories})
	m.Lifecycle = lifecycle.New(b, o.Lifecycle, lifecycle.Deps{Now: o.Now, Logger: o.Logger, Memory: m.Memories, Summarizer: o.Context.Summarizer})
	return m
}

// withSessionTopic sets q.SessionTopic, the current topic of q.Session's
// working memory, which recall adds to its query (REC-15). A session
// without working memory has none; any other error fails the recall. A
// scope that is not valid is left to recall to refuse, as it would
// without a session.
func (m *Mnemo) withSessionTopic(ctx context.Context, sc mnemo.Scope, q memory.Query) (memory.Query, error) {
	if q.Session == "" || mnemo.CheckScope(sc) != nil {
		return q, nil
	}
	wm, err := m.Prompts.GetWorkingMemory(ctx, sc, q.Session)
	if err != nil && mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		return q, err
	}
	q.SessionTopic = wm.CurrentTopic
	return q, nil
}

// Init prepares semantic recall (see the memory service's Init).
func (m *Mnemo) Init(ctx context.Context) error { return m.Memories.Init(ctx) }

// Close stops every service's background work, then closes the store.
func (m *Mnemo) Close() error {
	return errors.Join(m.Events.Close(), m.Prompts.Close(), m.Lifecycle.Close(), m.Memories.Close())
}

// Store returns the underlying store.
func (m *Mnemo) Store() mnemo.Store { return m.store }
