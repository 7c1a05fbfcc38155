package mnemo

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
)

// ContextOptions configure what the Service builds for a prompt: short-term
// memory of runs, working memory of sessions, snapshots, boot and the
// default read. The zero value is the seeds' defaults.
type ContextOptions struct {
	// Tokenizer counts every token budget; nil means cl100k (package tokens).
	Tokenizer Tokenizer
	// Summarizer writes the one-sentence summaries of compacted rounds;
	// nil means the extractive sentence (no LLM).
	Summarizer Summarizer
	// TurnAnalyzer reads topic, emotion and variables from a session's
	// turns; nil means RuleAnalyzer (no LLM).
	TurnAnalyzer TurnAnalyzer

	RunTokenLimit int // a run's short-term memory, in tokens (seed 000 FR-1: 2,000)
	KeepRounds    int // function-call rounds kept whole when compacting (3)
	MaxRuns       int // open runs per agent (64)
	MaxStepBytes  int // one call's input or output, or one response, in bytes (64 KiB)
	// RunIdle is how long a run may go unchanged before it is taken as
	// abandoned (its agent crashed without closing it) and swept (24 h).
	RunIdle time.Duration

	SessionIdle time.Duration // working memory is deleted after this long idle (seed 001: 30 min)
	MaxSessions int           // sessions with working memory per agent (1,000)
	// ArchiveFacts writes the facts a session marked to long-term memory
	// when its working memory is swept (seed 001: optional).
	ArchiveFacts bool
	TopicBoost   float64 // recall boost of memories on the session's topic (seed 001: 1.3)

	SnapshotTokenLimit int // seed 000 FR-6: 500
}

func (o ContextOptions) withDefaults() ContextOptions {
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
		return 0, Errorf(EINVALID, "token_limit must not be negative")
	case v == 0:
		return def, nil
	case v < least:
		return 0, Errorf(EINVALID, "token_limit %d is too small for %s: at least %d", v, what, least)
	}
	return v, nil
}

// checkTrigger validates a trigger: a word for its type, JSON within
// MaxStepBytes for its payload.
func (s *Service) checkTrigger(t Trigger) (Trigger, error) {
	typ, err := CheckWord("trigger.type", t.Type)
	if err != nil {
		return Trigger{}, err
	}
	payload, err := s.checkStep("trigger.payload", t.Payload)
	if err != nil {
		return Trigger{}, err
	}
	return Trigger{Type: typ, Payload: payload}, nil
}

// stateLocks serialise this process's updates of one state document, so
// that its own writers never race; the version check settles races with
// other processes.
type stateLocks [64]sync.Mutex

func (l *stateLocks) lock(scope Scope, kind, id string) func() {
	h := fnv.New32a()
	for _, s := range []string{scope.TenantID, scope.AgentID, kind, id} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	mu := &l[h.Sum32()%uint32(len(l))]
	mu.Lock()
	return mu.Unlock
}

// stateRetries bounds the retries of a state update that keeps losing to
// concurrent writers.
const stateRetries = 16

// updateState reads the document kind/id into v (absent: create decides),
// applies fn and writes it back, again from the read when another writer
// came first. fn reports whether to write; it may run more than once.
func updateState[T any](ctx context.Context, st StateStore, scope Scope, kind, id string, create bool, now func() time.Time, fn func(v *T, exists bool) (bool, error)) (T, error) {
	var zero T
	for range stateRetries {
		var v T
		doc, err := st.GetState(ctx, scope, kind, id)
		exists := err == nil
		switch {
		case ErrorCode(err) == ENOTFOUND && create:
			doc = StateDoc{Kind: kind, ID: id}
		case err != nil:
			return zero, err
		default:
			if err := json.Unmarshal(doc.Body, &v); err != nil {
				return zero, fmt.Errorf("%s %q: %w", kind, id, err)
			}
		}
		write, err := fn(&v, exists)
		if err != nil || !write {
			return v, err
		}
		body, err := json.Marshal(v)
		if err != nil {
			return zero, err
		}
		doc.Body, doc.UpdatedAt = body, now().UTC()
		_, err = st.PutState(ctx, scope, doc)
		if ErrorCode(err) == ECONFLICT {
			continue
		}
		return v, err
	}
	return zero, Errorf(ECONFLICT, "%s %q is being changed by too many writers at once; retry", kind, id)
}

// getState reads the document kind/id into v.
func getState[T any](ctx context.Context, st StateStore, scope Scope, kind, id string) (T, StateDoc, error) {
	var v T
	doc, err := st.GetState(ctx, scope, kind, id)
	if err != nil {
		return v, doc, err
	}
	if err := json.Unmarshal(doc.Body, &v); err != nil {
		return v, doc, fmt.Errorf("%s %q: %w", kind, id, err)
	}
	return v, doc, nil
}
