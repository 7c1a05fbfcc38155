package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/cpugate"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/internal/ids"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/internal/shorthand"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/temporal"
)

// Options configure a Service. The zero value is usable.
type Options struct {
	Limits mnemo.Limits
	// DefaultLimit and MaxLimit bound recall results (REC-5:
	// default 5, max 20; the default configurable).
	DefaultLimit int
	MaxLimit     int
	// Profile is the default ranking profile (rank.Hybrid when unset).
	Profile *rank.Profile
	// Match turns what a recall found into how well it matched
	// (rank.DefaultMatch when unset; API-17).
	Match  *rank.MatchModel
	Now    func() time.Time
	Logger *slog.Logger

	// Embedder makes the vectors of memories, for semantic recall; nil
	// means lexical recall only. The store must be a VectorStore.
	Embedder mnemo.Embedder
	// QueryEmbedder makes the vectors of queries: Embedder behind a cache,
	// usually (embed/cache). Nil means Embedder.
	QueryEmbedder mnemo.Embedder
	// AsyncEmbedding writes memories without waiting for their vectors,
	// which a background worker adds: for remote embedders, whose latency
	// should not be the write's.
	AsyncEmbedding bool
	// FallbackEmbedder stands in for Embedder while it fails (PG-3:
	// hashed TF-IDF, embed/hashed): recall re-scores its lexical
	// candidates by this embedder's similarity between the query and each
	// candidate's text, computed on the fly and never stored, so that the
	// index keeps one vector space. Nil: the lexical score alone.
	FallbackEmbedder mnemo.Embedder
	// QueryEmbedTimeout bounds a remote embedder's embedding of a query (an
	// in-process one, embed.Loader, is not timed: EMB-8); past it recall
	// degrades as if the embedder had failed (DefaultQueryEmbedTimeout when
	// zero).
	QueryEmbedTimeout time.Duration
	// Gate, when set, lets recall go before background work on the CPU:
	// recall marks itself in flight, the embedding worker yields to it
	// (PERF-2). The store's own background work may share it.
	Gate *cpugate.Gate
	// OnDegraded, when set, is called with a Degraded* cause every time an
	// answer or a write falls back: for metrics. The ledger has the reasons.
	OnDegraded func(cause string)
	// TopicBoost is the recall boost of memories on the session's topic
	// (REC-15: 1.3 when zero).
	TopicBoost float64

	// Guard configures the Write Guard that every Remember passes.
	Guard GuardOptions
	// Extractor, when set, finds memories in the messages of AddMessages
	// (an LLM: MEM-7's should_store). Nil: off.
	Extractor Extractor
}

// Service remembers and recalls on top of a Store. Everything the CLI, the
// HTTP API and the MCP server do goes through it. It is safe for concurrent
// use.
//
// Its fields and New's lines come in four blocks, one per service the root
// splits into, so that each move deletes one block.
type Service struct {
	// memory
	store     mnemo.Backend
	analyzer  *analysis.Analyzer
	limits    mnemo.Limits
	defLimit  int
	maxLimit  int
	profile   rank.Profile
	now       func() time.Time
	log       *slog.Logger
	vec       *vectors // nil without an embedder
	guardOpts GuardOptions
	extractor Extractor
	degraded  sync.Map       // scope and reason -> when last written to the ledger
	warned    sync.Map       // lasting degradations logged once (warnOnce)
	fallback  mnemo.Embedder // while the embedder fails; nil: lexical alone
	noVectors bool           // an embedder is configured, but the store keeps no vectors
	onDegrade func(cause string)

	topicBoost float64 // recall's boost of memories on the session's topic
	match      rank.MatchModel
	said       saidTerms // the match's analysis of what memories say
	// noTimeWho leaves out recall's time and people stages (REC-25 …
	// REC-29), for a benchmark to measure what they cost (export_test.go).
	noTimeWho bool
	// noMatch leaves out the match of an answer (API-17), for a benchmark
	// to measure what it costs (export_test.go).
	noMatch bool

	access *accessRecorder // recall's access records, written in the background
	gate   *cpugate.Gate   // recall is marked in flight on it; nil: no priority
	// sessions serialises the changes of a session's messages that read
	// its other messages (REC-36, REC-37).
	sessions sessionLocks
}

// New returns a Service over b. b.State keeps runs, sessions and profiles;
// service.New installs an in-process one when the store keeps none.
func New(b mnemo.Backend, opts Options) *Service {
	// memory
	s := &Service{
		store:    b,
		analyzer: analysis.New(),
		limits:   opts.Limits.WithDefaults(),
		defLimit: opts.DefaultLimit,
		maxLimit: opts.MaxLimit,
		profile:  rank.Hybrid(),
		now:      opts.Now,
		log:      opts.Logger,
	}
	if s.maxLimit <= 0 {
		s.maxLimit = 20
	}
	if s.defLimit <= 0 {
		s.defLimit = 5
	}
	if s.defLimit > s.maxLimit {
		s.defLimit = s.maxLimit
	}
	if opts.Profile != nil {
		s.profile = *opts.Profile
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.gate = opts.Gate
	s.vec = newVectors(b, opts, s.log)
	s.access = newAccessRecorder(b.Touch, s.log)
	s.fallback = opts.FallbackEmbedder
	s.noVectors = s.vec == nil && opts.Embedder != nil
	s.onDegrade = opts.OnDegraded
	if s.onDegrade == nil {
		s.onDegrade = func(string) {}
	}
	s.guardOpts = opts.Guard.withDefaults()
	s.extractor = opts.Extractor
	s.topicBoost = opts.TopicBoost
	if s.topicBoost <= 0 {
		s.topicBoost = 1.3
	}
	s.match = rank.DefaultMatch()
	if opts.Match != nil {
		s.match = *opts.Match
	}

	return s
}

// Init prepares semantic recall: it sets the store's vector space to the
// embedder's and starts embedding queued memories. A store embedded with
// another model or dimension is EMISMATCH (run Reindex). Without Init, the
// first write or recall does it, and a failure degrades recall to lexical.
//
// A store without a vector index (PostgreSQL without pgvector) is no
// error: recall degrades to full text and recency until it has one.
func (s *Service) Init(ctx context.Context) error {
	if s.vec == nil {
		return nil
	}
	var noIndex *noIndexError
	if err := s.vec.init(ctx); errors.As(err, &noIndex) {
		s.warnOnce(noIndexWarning, "err", noIndex.err)
	} else if err != nil {
		return err
	}
	return nil
}

// noIndexWarning is logged once a process when the store cannot keep
// vectors.
const noIndexWarning = "no vector index: memories are written without vectors and recall uses full text and recency"

// Close stops the embedding worker and closes the underlying store.
func (s *Service) Close() error {
	s.vec.close()
	s.access.close()
	return s.store.Close()
}

// Store returns the underlying store.
func (s *Service) Store() mnemo.Store { return s.store.Store }

// Limits returns the write limits in force.
func (s *Service) Limits() mnemo.Limits { return s.limits }

// MaxLimit returns the most results one recall returns.
func (s *Service) MaxLimit() int { return s.maxLimit }

// Remember stores one memory and returns it as stored.
func (s *Service) Remember(ctx context.Context, scope mnemo.Scope, d mnemo.Draft) (mnemo.Memory, error) {
	ms, err := s.RememberBatch(ctx, scope, []mnemo.Draft{d})
	if err != nil {
		return mnemo.Memory{}, err
	}
	return ms[0], nil
}

// RememberBatch stores drafts atomically: all or none, through the Write
// Guard. An invalid draft fails the batch with an error naming its index.
func (s *Service) RememberBatch(ctx context.Context, scope mnemo.Scope, drafts []mnemo.Draft) ([]mnemo.Memory, error) {
	res, err := s.Write(ctx, scope, drafts)
	if err != nil {
		return nil, err
	}
	ms := make([]mnemo.Memory, len(res))
	for i := range res {
		ms[i] = res[i].Memory
	}
	return ms, nil
}

// Write stores drafts atomically through the Write Guard (MEM-10) and
// returns each memory with the gate's decision: a duplicate is not written
// again (the stored memory comes back), a near duplicate of the same type
// replaces the old one (archived), a contradiction is kept beside the old
// one (which ranks lower from then on), and an empty or too short write is
// rejected with the reason. Decisions other than add and update go to the
// ledger.
func (s *Service) Write(ctx context.Context, scope mnemo.Scope, drafts []mnemo.Draft) ([]WriteResult, error) {
	return s.WriteWith(ctx, scope, drafts, WriteOptions{})
}

// WriteOptions change how one write is made.
type WriteOptions struct {
	// AsyncEmbedding acknowledges the write before its vectors are made,
	// whatever Options.AsyncEmbedding says: the memories are queued in the
	// store and the background worker embeds them (MEM-3, PERF-1). For bulk
	// loads: recall finds them by their words until their vectors land
	// (explain says vector "pending").
	AsyncEmbedding bool

	// turns are the drafts' conversation turns, when they are messages
	// (AddMessages, a message corrected), and contexts the index contexts
	// of other messages that change with them, set in the same write.
	turns    []turn
	contexts []mnemo.ContextUpdate
}

// WriteWith is Write with options.
func (s *Service) WriteWith(ctx context.Context, scope mnemo.Scope, drafts []mnemo.Draft, o WriteOptions) ([]WriteResult, error) {
	// The embedding of earlier writes waits meanwhile (PERF-1).
	defer s.gate.BeginWrite()()
	inline := !o.AsyncEmbedding
	recs, err := s.records(ctx, scope, drafts, o.turns, len(drafts) > 1)
	if err != nil {
		return nil, err
	}
	put := s.putWith(o.contexts)
	out := make([]WriteResult, len(recs))
	if s.guardOpts.Off {
		ms, err := s.writeWith(ctx, scope, recs, inline, put)
		if err != nil {
			return nil, err
		}
		for i := range ms {
			out[i] = WriteResult{Memory: ms[i], Guard: GuardDecision{Action: GuardAdd, Reason: "write guard off"}}
			out[i].settle(&recs[i])
		}
		return out, nil
	}
	var (
		todo    []mnemo.Record
		at      []int // todo[k] is drafts[at[k]]
		entries []mnemo.LedgerEntry
		changes []mnemo.LifeChange
	)
	decided, err := s.guardAll(ctx, scope, recs)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		r := &recs[i]
		if r.Tombstone {
			out[i].Guard = GuardDecision{Action: GuardUpdate, Reason: "tombstone: the key is deleted; its history stays"}
			todo, at = append(todo, *r), append(at, i)
			continue
		}
		d, existing := decided[i].d, decided[i].existing
		out[i].Guard = d
		switch d.Action {
		case GuardReject:
			s.record(ctx, scope, mnemo.LedgerEntry{Action: mnemo.ActionGuard, Reason: "rejected: " + d.Reason})
			msg := "write guard rejected the memory: " + d.Reason
			if len(recs) > 1 {
				msg = fmt.Sprintf("memories[%d]: %s", i, msg)
			}
			return nil, mnemo.Errorf(mnemo.EINVALID, "%s", msg)
		case GuardDuplicate:
			existing.Embedding = nil
			out[i].Memory, out[i].Applied = *existing, true
			entries = append(entries, mnemo.LedgerEntry{Action: mnemo.ActionGuard, MemoryIDs: []string{existing.ID}, Reason: "duplicate: " + d.Reason + "; nothing written"})
			continue
		case GuardMerge:
			yes := true
			changes = append(changes, mnemo.LifeChange{ID: existing.ID, Archived: &yes})
		case GuardConflict:
			// The newest wins in ranking: the memories it contradicts lose
			// half their vitality, and stop holding when it was written
			// (REC-27: valid_to; recall as of an earlier time still has them).
			end := r.Memory.CreatedAt
			for _, id := range d.ConflictsWith {
				if old, err := s.store.Get(ctx, scope, id); err == nil {
					v := old.Vitality / 2
					changes = append(changes, mnemo.LifeChange{ID: id, Vitality: &v, ValidTo: &end})
				}
			}
		}
		todo, at = append(todo, *r), append(at, i)
	}
	if len(todo) > 0 {
		ms, err := s.writeWith(ctx, scope, todo, inline, put)
		if err != nil {
			return nil, err
		}
		for k, m := range ms {
			out[at[k]].Memory = m
			out[at[k]].settle(&todo[k])
			switch d := out[at[k]].Guard; d.Action {
			case GuardMerge:
				entries = append(entries, mnemo.LedgerEntry{Action: mnemo.ActionGuard, MemoryIDs: []string{d.ExistingID, m.ID},
					Reason: fmt.Sprintf("merge: %s replaced by %s: %s", d.ExistingID, m.ID, d.Reason)})
			case GuardConflict:
				entries = append(entries, mnemo.LedgerEntry{Action: mnemo.ActionGuard, MemoryIDs: append([]string{m.ID}, d.ConflictsWith...),
					Reason: fmt.Sprintf("conflict: %s contradicts %s: %s", m.ID, strings.Join(d.ConflictsWith, ", "), d.Reason)})
			}
		}
	}
	if len(entries) > 0 || len(changes) > 0 {
		if ls, ok := s.store.Life, s.store.Life != nil; ok {
			now := s.now().UTC()
			for i := range entries {
				entries[i].At, entries[i].Actor = now, "guard"
			}
			if _, err := ls.ApplyLife(ctx, scope, changes, entries); err != nil {
				// The writes stand; what the gate changed besides them is
				// lost, and said.
				s.log.Warn("write guard: archiving or ledger failed", "err", err)
			}
		}
	}
	return out, nil
}

// guarded is the Write Guard's decision for one record.
type guarded struct {
	d        GuardDecision
	existing *mnemo.Memory
}

// guardAll decides for every record but tombstones. The decisions are
// reads of the store, independent of each other (a batch is compared with
// what is stored, not with itself), so a batch's are made on as many
// goroutines as there are CPUs: the guard's lookups are most of a bulk
// write's time once embedding is asynchronous (PERF-1, MEM-10).
func (s *Service) guardAll(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]guarded, error) {
	out := make([]guarded, len(recs))
	errs := s.spread(ctx, len(recs), "write guard", func(i int) error {
		if recs[i].Tombstone {
			return nil
		}
		var err error
		out[i].d, out[i].existing, err = s.guard(ctx, scope, &recs[i].Memory)
		return err
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// spread calls f(0) … f(n-1) on up to GOMAXPROCS goroutines and returns
// the error of each; a panic in f is its error. One goroutine goes on
// throughout; the others step aside while a recall runs, so that a bulk
// write leaves it a core (PERF-2). Once ctx is done the calls not yet
// begun are skipped.
func (s *Service) spread(ctx context.Context, n int, what string, f func(i int) error) []error {
	errs := make([]error, n)
	if n == 1 {
		errs[0] = panics.Call(s.log, what, func() error { return f(0) })
		return errs
	}
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for w := range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				if w > 0 {
					s.gate.Yield(ctx)
				}
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				errs[i] = panics.Call(s.log, what, func() error { return f(i) })
			}
		})
	}
	wg.Wait()
	return errs
}

// RememberUnguarded stores drafts without the Write Guard: for writes the
// Service makes itself (conversation turns, compaction summaries, archived
// session facts).
func (s *Service) RememberUnguarded(ctx context.Context, scope mnemo.Scope, drafts []mnemo.Draft) ([]mnemo.Memory, error) {
	recs, err := s.records(ctx, scope, drafts, nil, len(drafts) > 1)
	if err != nil {
		return nil, err
	}
	return s.write(ctx, scope, recs, true)
}

// turn is what AddMessages knows of a message besides its draft: its
// conversational neighbourhood (context), indexed with a lower weight, and
// the message before it (prev), embedded with it.
type turn struct{ context, prev string }

// records validates drafts into records: defaults, classification, ids and
// index text. turns, when not nil, holds the turn of each draft: the drafts
// are conversation messages, whose content has the higher MaxMessageChars
// limit. listed says the caller sent a list: an error names the draft,
// messages[i] or memories[i].
func (s *Service) records(ctx context.Context, scope mnemo.Scope, drafts []mnemo.Draft, turns []turn, listed bool) ([]mnemo.Record, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	if len(drafts) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "no memories to write")
	}
	if len(drafts) > s.limits.MaxBatch {
		return nil, mnemo.Errorf(mnemo.ETOOLARGE, "%d memories in one batch, the limit is %d", len(drafts), s.limits.MaxBatch)
	}
	lim := s.limits
	if turns != nil {
		lim.MaxContentChars = max(lim.MaxContentChars, lim.MaxMessageChars)
	}
	now := s.now().UTC()
	recs := make([]mnemo.Record, len(drafts))
	// Each draft on its own, on both cores: reading its times, its
	// classification, its entities and its index terms is a bulk load's
	// main cost besides the store's (PERF-1).
	errs := s.spread(ctx, len(drafts), "building a memory", func(i int) error {
		d := &drafts[i]
		m, err := temporal.Build(d, scope, lim, now)
		if err != nil {
			return err
		}
		if !d.Tombstone() {
			security.ClassifyMemory(&m, d.SecurityLevel)
		}
		var t turn
		if turns != nil {
			t = turns[i]
		}
		if !d.Tombstone() {
			// Who it is by or about (REC-28).
			m.Entities = entity.Of(speakerName(&m), m.Content, d.Entities)
		}
		recs[i] = mnemo.Record{Memory: m, Tombstone: d.Tombstone(), Index: s.indexText(&m, t.context)}
		if !d.Tombstone() {
			recs[i].Embed = embedText(&m, t.prev)
		}
		return nil
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs { // the first draft's error, as one by one
		switch {
		case err == nil:
		case !listed:
			return nil, err
		case turns != nil:
			return nil, mnemo.WithPrefix(err, messagePrefix(i))
		default:
			return nil, mnemo.WithPrefix(err, fmt.Sprintf("memories[%d]: ", i))
		}
	}
	// Ids in the drafts' order: they sort by time.
	for i := range recs {
		recs[i].Memory.ID = ids.New()
	}
	return recs, nil
}

// write embeds recs, when inline and the embedder answers at once, and
// stores them; the worker embeds the others.
func (s *Service) write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, inline bool) ([]mnemo.Memory, error) {
	return s.writeWith(ctx, scope, recs, inline, s.store.Write)
}

// putWith is the store's Write, setting the index contexts of ups in the
// same transaction where the store can index a context again.
func (s *Service) putWith(ups []mnemo.ContextUpdate) func(context.Context, mnemo.Scope, []mnemo.Record) ([]mnemo.Memory, error) {
	if len(ups) == 0 || s.store.Contexts == nil {
		return s.store.Write
	}
	return func(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
		return s.writeContexts(ctx, scope, recs, ups)
	}
}

// writeWith is write, storing with put (the store's Write, or Replace).
func (s *Service) writeWith(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, inline bool,
	put func(context.Context, mnemo.Scope, []mnemo.Record) ([]mnemo.Memory, error)) ([]mnemo.Memory, error) {
	// Background embedding steps aside for the writes that do not go
	// through WriteWith too (conversation turns); nested, it is counted twice.
	defer s.gate.BeginWrite()()
	if s.vec != nil {
		var noIndex *noIndexError
		if err := s.vec.init(ctx); errors.As(err, &noIndex) {
			s.warnOnce(noIndexWarning, "err", err)
			s.noteDegraded(ctx, scope, mnemo.DegradedVectorIndex, "no vector index ("+mnemo.ErrorMessage(noIndex.err)+"): memories written without vectors")
		} else if err != nil {
			// The memories are stored and queued all the same.
			s.log.Warn("semantic index unavailable", "err", err)
			s.noteDegraded(ctx, scope, mnemo.DegradedEmbedder, "semantic index unavailable: memories written without vectors, queued for embedding")
		} else if inline {
			if err := s.vec.embedRecords(ctx, recs); err != nil && ctx.Err() == nil {
				s.noteDegraded(ctx, scope, mnemo.DegradedEmbedder, fmt.Sprintf("embedder %s unavailable: memories written without vectors, queued for embedding", s.vec.embedder.Model()))
			}
		}
	}
	ms, err := put(ctx, scope, recs)
	if err != nil {
		return nil, err
	}
	if s.vec != nil {
		if s.vec.queued(recs) {
			s.vec.kick()
		}
	} else if s.noVectors {
		s.warnOnce(noIndexWarning, "err", "the store keeps no vectors")
		s.noteDegraded(ctx, scope, mnemo.DegradedVectorIndex, "no vector index (the store keeps no vectors): memories written without vectors")
	}
	return ms, nil
}

// embedText is what a memory's vector is made from: what was said, by whom,
// and the turn it answers (prev), since a reply alone ("yes, last May")
// often means nothing; a chat's shorthand written out, as a question asks
// (REC-39).
func embedText(m *mnemo.Memory, prev string) string {
	text := turnLine(speakerName(m), m.Content)
	if m.Summary != "" {
		text += "\n" + m.Summary
	}
	if room := embedWords - len(strings.Fields(text)); prev != "" && room > 0 {
		text += "\n" + lastWords(prev, room)
	}
	text, _, _ = shorthand.Expand(text)
	return text
}

// embedWords is about as many words as the built-in sentence encoder reads
// at once (128 tokens), EMB-9. The turn before a message fills the room the
// message leaves, with its last words: context that helps read a short
// reply, which must neither outweigh the reply nor, with a long message
// read in several windows, make the message about the turn before it.
const embedWords = 96

// lastWords returns the last n space-separated words of s, or s if it has
// no more.
func lastWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[len(f)-n:], " ")
}

// indexText analyses what the lexical index sees of m.
func (s *Service) indexText(m *mnemo.Memory, context string) mnemo.IndexText {
	text := turnLine(speakerName(m), m.Content)
	if m.Summary != "" {
		text += "\n" + m.Summary
	}
	var meta strings.Builder
	for _, seg := range strings.FieldsFunc(m.Key, func(r rune) bool { return r == '/' || r == ':' }) {
		meta.WriteString(seg + " ")
	}
	for _, t := range m.Tags {
		meta.WriteString(t + " ")
	}
	// An entity the text does not say (a writer's alias) is searchable
	// too (REC-28); the speaker and the names found are already indexed.
	lower := strings.ToLower(text)
	for _, e := range m.Entities {
		if !strings.Contains(lower, strings.ToLower(e)) {
			meta.WriteString(e + " ")
		}
	}
	meta.WriteString(m.Category)
	return mnemo.IndexText{
		Text:    s.analyzer.IndexString(text),
		Context: s.analyzer.IndexString(context),
		Meta:    s.analyzer.IndexString(meta.String()),
	}
}

// Get returns a live memory by id.
func (s *Service) Get(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Memory, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Memory{}, err
	}
	s.flushScope(ctx, scope) // a read after a recall sees its access
	if id == "" {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.EINVALID, "id is required")
	}
	return s.store.Get(ctx, scope, id)
}

// GetByKey returns the live memory of a key.
func (s *Service) GetByKey(ctx context.Context, scope mnemo.Scope, key string) (mnemo.Memory, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Memory{}, err
	}
	s.flushScope(ctx, scope) // a read after a recall sees its access
	k, err := mnemo.NormalizeKey(key)
	if err != nil {
		return mnemo.Memory{}, err
	}
	return s.store.GetByKey(ctx, scope, k)
}

// List returns a page of memories and the total matching.
func (s *Service) List(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, 0, err
	}
	s.flushScope(ctx, scope) // a read after a recall sees its access
	q.Filter = security.ClearanceFrom(ctx).TimeFilter(q.Filter)
	if q.Limit < 0 || q.Offset < 0 {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "limit and offset must not be negative")
	}
	switch {
	case q.Limit == 0:
		q.Limit = 50
	case q.Limit > mnemo.MaxListLimit:
		q.Limit = mnemo.MaxListLimit
	}
	switch q.Order {
	case "", mnemo.OrderNewest, mnemo.OrderOldest, mnemo.OrderKey, mnemo.OrderVitality:
	default:
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "order must be newest, oldest or key, got %q", q.Order)
	}
	if err := q.Filter.Check(s.now()); err != nil {
		return nil, 0, err
	}
	if q.AsOf != nil {
		return s.listAsOf(ctx, scope, q)
	}
	return s.store.List(ctx, scope, q)
}

// listAsOf is List of what held at q.AsOf (REC-27): a key rewritten since
// lists its earlier value, and what was deleted or archived since as it
// held then, in the order asked among the store's; the total counts both.
func (s *Service) listAsOf(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	now := q.Now
	if now.IsZero() {
		now = s.now()
	}
	gone, err := s.goneAsOf(ctx, scope, &q.Filter, *q.AsOf, now)
	if err != nil {
		return nil, 0, err
	}
	page := q
	if len(gone) > 0 {
		// The page may hold deleted keys: read the store's from the start.
		page.Offset, page.Limit = 0, q.Offset+q.Limit
	}
	ms, total, err := s.store.List(ctx, scope, page)
	if err != nil {
		return nil, 0, err
	}
	if ms, err = s.asOf(ctx, scope, ms, *q.AsOf); err != nil || len(gone) == 0 {
		return ms, total, err
	}
	have := make(map[string]bool, len(ms))
	for _, m := range ms {
		have[m.ID] = true
		if m.Key != "" {
			have["key:"+m.Key] = true
		}
	}
	for _, m := range gone {
		if !have[m.ID] && (m.Key == "" || !have["key:"+m.Key]) {
			ms = append(ms, m)
			if total >= 0 {
				total++
			}
		}
	}
	slices.SortStableFunc(ms, listOrder(q.Order))
	ms = ms[min(q.Offset, len(ms)):]
	return ms[:min(q.Limit, len(ms))], total, nil
}

// listOrder compares memories as the stores order a list.
func listOrder(order string) func(a, b mnemo.Memory) int {
	switch order {
	case mnemo.OrderOldest:
		return func(a, b mnemo.Memory) int { return a.CreatedAt.Compare(b.CreatedAt) }
	case mnemo.OrderKey:
		return func(a, b mnemo.Memory) int {
			return cmp.Or(strings.Compare(a.Key, b.Key), a.CreatedAt.Compare(b.CreatedAt))
		}
	case mnemo.OrderVitality:
		return func(a, b mnemo.Memory) int { return cmp.Compare(b.Vitality, a.Vitality) }
	default:
		return func(a, b mnemo.Memory) int { return b.CreatedAt.Compare(a.CreatedAt) }
	}
}

// RecallPath lists the memories whose key starts with prefix, by key
// (recall_path, MEM-9).
func (s *Service) RecallPath(ctx context.Context, scope mnemo.Scope, prefix string, limit int) ([]mnemo.Memory, int, error) {
	p := prefix
	if p != "/" && !strings.HasSuffix(p, "://") {
		var err error
		if p, err = mnemo.NormalizeKey(prefix); err != nil {
			return nil, 0, err
		}
	}
	return s.List(ctx, scope, mnemo.ListQuery{Filter: mnemo.Filter{KeyPrefix: p}, Order: mnemo.OrderKey, Limit: limit})
}

// Forget deletes memories by id and key for good.
func (s *Service) Forget(ctx context.Context, scope mnemo.Scope, ids, keys []string) (int, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return 0, err
	}
	if len(ids) == 0 && len(keys) == 0 {
		return 0, mnemo.Errorf(mnemo.EINVALID, "give an id or a key to forget")
	}
	norm := make([]string, len(keys))
	for i, k := range keys {
		var err error
		if norm[i], err = mnemo.NormalizeKey(k); err != nil {
			return 0, err
		}
	}
	n, err := s.Erase(ctx, scope, ids, norm)
	if err == nil && n > 0 {
		s.record(ctx, scope, mnemo.LedgerEntry{Action: mnemo.ActionForget, MemoryIDs: ids,
			Reason: fmt.Sprintf("forgotten on request: %d memories (ids %d, keys %s)", n, len(ids), strings.Join(norm, " "))})
	}
	return n, err
}

// Erase deletes the memories of ids and keys (normalized) for good, as
// Forget does but with no ledger entry, for callers that write their own
// (reflect's purge). The conversation messages around a message erased
// are indexed again without it first (REC-37): a failure there fails the
// forgetting, which forgets nothing, and may be asked again.
func (s *Service) Erase(ctx context.Context, scope mnemo.Scope, ids, keys []string) (int, error) {
	gone := s.messagesOf(ctx, scope, ids, keys)
	sessions := make([]string, len(gone))
	for i := range gone {
		sessions[i] = gone[i].SessionID
	}
	defer s.sessions.lock(scope, sessions...)()
	ups, err := s.forgetContexts(ctx, scope, gone)
	if err != nil {
		return 0, err
	}
	if len(ups) > 0 {
		if _, err := s.writeContexts(ctx, scope, nil, ups); err != nil {
			return 0, err
		}
	}
	return s.store.Forget(ctx, scope, ids, keys)
}

// record appends a ledger entry for an action already done. It is best
// effort: the action stands, and its history rows keep the fact, if the
// ledger cannot be written.
func (s *Service) record(ctx context.Context, scope mnemo.Scope, e mnemo.LedgerEntry) {
	ls, ok := s.store.Life, s.store.Life != nil
	if !ok {
		return
	}
	if e.At.IsZero() {
		e.At = s.now().UTC()
	}
	if e.Actor == "" {
		e.Actor = "api"
	}
	if err := ls.AppendLedger(context.WithoutCancel(ctx), scope, []mnemo.LedgerEntry{e}); err != nil {
		s.log.Warn("ledger entry lost", "action", e.Action, "err", err)
	}
}

// Clear deletes every memory of one agent (API-9).
func (s *Service) Clear(ctx context.Context, scope mnemo.Scope) (int, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return 0, err
	}
	n, err := s.store.Clear(ctx, scope)
	if err == nil {
		s.log.Info("cleared memories", "tenant", scope.TenantID, "agent", scope.AgentID, "count", n)
		s.record(ctx, scope, mnemo.LedgerEntry{Action: mnemo.ActionClear, Reason: fmt.Sprintf("cleared on request: %d memories", n)})
	}
	return n, err
}

// History returns a key's revisions, oldest first.
func (s *Service) History(ctx context.Context, scope mnemo.Scope, key string) ([]mnemo.Revision, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	s.flushScope(ctx, scope) // a read after a recall sees its access
	k, err := mnemo.NormalizeKey(key)
	if err != nil {
		return nil, err
	}
	return s.store.History(ctx, scope, k)
}

// Stats describes one agent's memories.
func (s *Service) Stats(ctx context.Context, scope mnemo.Scope) (mnemo.Stats, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Stats{}, err
	}
	s.flushScope(ctx, scope) // a read after a recall sees its access
	st, err := s.store.Stats(ctx, scope)
	if err != nil {
		return st, err
	}
	if s.vec != nil && st.Vectors != nil {
		if c, ok := s.vec.query.(interface{ HitRate() float64 }); ok {
			r := c.HitRate()
			st.Vectors.CacheHitRate = &r
		}
	}
	return st, nil
}

// speakerName is the name of a message's speaker, kept in data by
// AddMessages, so that "who said it" is searchable with the text.
func speakerName(m *mnemo.Memory) string {
	_, name := speaker(m)
	return name
}

func speaker(m *mnemo.Memory) (role, name string) {
	d := messageOf(m)
	return d.Role, d.Name
}
