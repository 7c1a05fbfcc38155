package agentcontext

import (
	"log/slog"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/statedoc"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/tokens"
)

// Service builds runs, sessions, snapshots, boot and the default read over
// one store. It is safe for concurrent use.
type Service struct {
	store mnemo.Backend
	mem   *memory.Service
	opts  Options
	tok   Tokenizer
	state mnemo.StateStore
	locks statedoc.Locks
	now   func() time.Time
	log   *slog.Logger
}

// Deps are the values the facade passes in.
type Deps struct {
	Now    func() time.Time // nil: time.Now
	Logger *slog.Logger     // nil: discard
	// Memory is the memory service: snapshot surfaces memories through
	// it, and sessions archive their facts into it.
	Memory *memory.Service
}

// New returns a Service over b. b.State keeps runs and sessions: the facade
// installs an in-process one when the store keeps none.
func New(b mnemo.Backend, o Options, d Deps) *Service {
	s := &Service{
		store: b,
		mem:   d.Memory,
		opts:  o.withDefaults(),
		state: b.State,
		now:   d.Now,
		log:   d.Logger,
	}
	s.tok = s.opts.Tokenizer
	if s.tok == nil {
		s.tok, _ = tokens.New(tokens.CL100K)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Close stops the service's background work: it has none.
func (*Service) Close() error { return nil }
