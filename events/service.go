package events

import (
	"log/slog"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/internal/statedoc"
)

// Service is the events service over one store.
type Service struct {
	store    mnemo.Backend
	state    mnemo.StateStore
	locks    statedoc.Locks // serialises profile writers, per document
	now      func() time.Time
	log      *slog.Logger
	analyzer *analysis.Analyzer
	capEmb   mnemo.Embedder // ranks capabilities; nil: by terms only
	events   Options
	after    *postAppend // work after an append commits: L2 text relations, L3 vectors
}

// Deps are the values the facade passes in.
type Deps struct {
	Now    func() time.Time
	Logger *slog.Logger
	// Embedder and QueryEmbedder make L3 text vectors of events and of
	// queries (QueryEmbedder nil: Embedder); AsyncEmbedding leaves them to
	// a worker after the append.
	Embedder       mnemo.Embedder
	QueryEmbedder  mnemo.Embedder
	AsyncEmbedding bool
	// CapabilityEmbedder ranks capabilities by meaning; the facade sets it
	// only when memories have vectors.
	CapabilityEmbedder mnemo.Embedder
}

// New returns a Service over b.
func New(b mnemo.Backend, o Options, d Deps) *Service {
	s := &Service{
		store:    b,
		state:    b.State,
		now:      d.Now,
		log:      d.Logger,
		analyzer: analysis.New(),
		capEmb:   d.CapabilityEmbedder,
		events:   o.withDefaults(),
	}
	if s.state == nil {
		s.state = statedoc.NewMem() // the facade shares one; a bare Service keeps its own
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.after = newPostAppend(b, o, d, s.log)
	return s
}

// Close stops the event workers (L3 vectors, text relations).
func (s *Service) Close() error {
	s.after.close()
	return nil
}
