package agentcontext

import (
	"context"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Options configure what the Service builds for a prompt: short-term
// memory of runs, working memory of sessions, snapshots, boot and the
// default read. The zero value is the defaults of the CTX requirements.
type Options struct {
	// Tokenizer counts every token budget; nil means cl100k (package tokens).
	Tokenizer Tokenizer
	// Summarizer writes the one-sentence summaries of compacted rounds;
	// nil means the extractive sentence (no LLM).
	Summarizer Summarizer
	// TurnAnalyzer reads topic, emotion and variables from a session's
	// turns; nil means RuleAnalyzer (no LLM).
	TurnAnalyzer TurnAnalyzer

	RunTokenLimit int // a run's short-term memory, in tokens (CTX-3: 2,000)
	KeepRounds    int // function-call rounds kept whole when compacting (3)
	MaxRuns       int // open runs per agent (64)
	MaxStepBytes  int // one call's input or output, or one response, in bytes (64 KiB)
	// RunIdle is how long a run may go unchanged before it is taken as
	// abandoned (its agent crashed without closing it) and swept (24 h).
	RunIdle time.Duration

	SessionIdle time.Duration // working memory is deleted after this long idle (CTX-11: 30 min)
	MaxSessions int           // sessions with working memory per agent (1,000)
	// ArchiveFacts writes the facts a session marked to long-term memory
	// when its working memory is swept (CTX-11: optional).
	ArchiveFacts bool
	TopicBoost   float64 // recall boost of memories on the session's topic (REC-15: 1.3)

	SnapshotTokenLimit int // CTX-14: 500
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.RunTokenLimit, 2000)
	def(&o.KeepRounds, 3)
	def(&o.MaxRuns, 64)
	def(&o.MaxStepBytes, 64<<10)
	def(&o.MaxSessions, 1000)
	def(&o.SnapshotTokenLimit, 500)
	if o.RunIdle <= 0 {
		o.RunIdle = 24 * time.Hour
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 30 * time.Minute
	}
	if o.TopicBoost <= 0 {
		o.TopicBoost = 1.3
	}
	if o.TurnAnalyzer == nil {
		o.TurnAnalyzer = RuleAnalyzer{}
	}
	return o
}

// tokenLimit checks a requested token budget: 0 means def, and a budget
// below least cannot hold what it is for.
func tokenLimit(v, def, least int, what string) (int, error) {
	switch {
	case v < 0:
		return 0, mnemo.Errorf(mnemo.EINVALID, "token_limit must not be negative")
	case v == 0:
		return def, nil
	case v < least:
		return 0, mnemo.Errorf(mnemo.EINVALID, "token_limit %d is too small for %s: at least %d", v, what, least)
	}
	return v, nil
}

// checkTrigger validates a trigger: a word for its type, JSON within
// MaxStepBytes for its payload.
func (s *Service) checkTrigger(t Trigger) (Trigger, error) {
	typ, err := mnemo.CheckWord("trigger.type", t.Type)
	if err != nil {
		return Trigger{}, err
	}
	payload, err := s.checkStep("trigger.payload", t.Payload)
	if err != nil {
		return Trigger{}, err
	}
	return Trigger{Type: typ, Payload: payload}, nil
}

// Tokenizer counts and cuts prompt text as a model's tokenizer does
// (package tokens: cl100k and others, offline).
type Tokenizer interface {
	Count(s string) int
	// Truncate returns the longest prefix of s of at most n tokens, and
	// whether anything was cut.
	Truncate(s string, n int) (string, bool)
}

// Summarizer reduces a passage to one sentence of at most maxTokens, for
// compacting a run's older rounds: an LLM when one is configured. When it
// fails, the Service falls back to its extractive sentence and says so.
type Summarizer interface {
	Summarize(ctx context.Context, text string, maxTokens int) (string, error)
}
