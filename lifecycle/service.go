package lifecycle

import (
	"context"
	"log/slog"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/ledger"
	"github.com/mnemo-dev/mnemo/memory"
)

// Service is the lifecycle service over one store. It is safe for
// concurrent use.
type Service struct {
	store mnemo.Backend
	life  Options
	mem   *memory.Service
	sum   Summarizer
	now   func() time.Time
	log   *slog.Logger
}

// Deps are the values the facade passes in.
type Deps struct {
	Now    func() time.Time
	Logger *slog.Logger
	// Memory is the memory service: ingest writes through its guard,
	// compaction stores its summary memory through it.
	Memory *memory.Service
	// Summarizer, when set, writes compaction summaries (nil: extractive).
	Summarizer Summarizer
}

// New returns a Service over b.
func New(b mnemo.Backend, o Options, d Deps) *Service {
	s := &Service{store: b, life: o.withDefaults(), mem: d.Memory, sum: d.Summarizer, now: d.Now, log: d.Logger}
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

// record appends a ledger entry for an action already done, best effort.
func (s *Service) record(ctx context.Context, scope mnemo.Scope, e mnemo.LedgerEntry) {
	ledger.Record(ctx, s.log, s.store.Life, scope, e, s.now())
}

// Summarizer reduces a passage to one sentence of at most maxTokens, for
// the compaction summary of reflect: an LLM when one is configured. When it
// fails, the Service falls back to its extractive sentence and says so.
type Summarizer interface {
	Summarize(ctx context.Context, text string, maxTokens int) (string, error)
}
