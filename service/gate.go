package service

import (
	"cmp"
	"context"
	"io"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/security"
)

// The gate (SEC-8). Every answer a Mnemo gives leaves through one of the
// methods below, which conceal it by the clearance the call's context
// carries (security.ClearanceFrom): set by the way in — an API key's mask, the
// MCP channel, the CLI's mask profile — never by the handler of a route or
// a tool. What is built as text (boot, snapshot, the default read, reflect's
// report) is masked as it is built, by the same clearance. A method of an
// embedded service that answers with what memories or events say must be
// declared here, or it would be promoted around the gate: TestGate fails
// for one that is not.
//
// What a caller that reads masked may not do at all is refused here too:
// change a memory's security level (SEC-9), and export, which is whole by
// design (SEC-8).

// gated returns v concealed by the clearance on ctx.
func gated[T any](ctx context.Context, v T, err error) (T, error) {
	return security.Conceal(security.ClearanceFrom(ctx), v), err
}

// errMaskedExport refuses an export to a caller that reads masked.
func errMaskedExport(what string) error {
	return mnemo.Errorf(mnemo.EFORBIDDEN, "an export of %s is whole, and this caller reads confidential and restricted memories masked: export without mask", what)
}

// keyedWrites refuses, to a caller that reads masked, a write that would
// replace the live memory of a key it reads masked (SEC-15): a key holds
// one live memory, and that caller may not replace what it may not read,
// as the Write Guard never merges its write into such a memory (SEC-14).
// The refusal names the key and its level, which every key reads, never
// what the memory says. Deleting a key (a tombstone) is forgetting, which
// such a caller may do by id too.
func (m *Mnemo) keyedWrites(ctx context.Context, sc mnemo.Scope, ds []mnemo.Draft) error {
	c := security.ClearanceFrom(ctx)
	if !c.Masks() {
		return nil
	}
	for i := range ds {
		d := &ds[i]
		if d.Key == "" || d.Tombstone() {
			continue
		}
		old, err := m.Memories.GetByKey(ctx, sc, d.Key)
		switch code := mnemo.ErrorCode(err); {
		case code == mnemo.ENOTFOUND || code == mnemo.EINVALID:
			continue // a new key; or a bad one, which the write reports
		case err != nil:
			return err
		}
		if c.Conceals(old.SecurityLevel) {
			return mnemo.Errorf(mnemo.EFORBIDDEN, "key %s holds a %s memory, which this caller reads masked: a caller that reads confidential and restricted memories masked may not replace it", old.Key, cmp.Or(old.SecurityLevel, mnemo.SecurityInternal))
		}
	}
	return nil
}

// Remember stores one memory (see memory.Service.Remember) and answers
// with it as the caller may read it: what it cannot read back is masked
// (SEC-10). A caller that reads masked may not replace a key's memory it
// reads masked (SEC-15).
func (m *Mnemo) Remember(ctx context.Context, sc mnemo.Scope, d mnemo.Draft) (mnemo.Memory, error) {
	if err := m.keyedWrites(ctx, sc, []mnemo.Draft{d}); err != nil {
		return mnemo.Memory{}, err
	}
	v, err := m.Memories.Remember(ctx, sc, d)
	return gated(ctx, v, err)
}

// RememberBatch is Remember for many memories.
func (m *Mnemo) RememberBatch(ctx context.Context, sc mnemo.Scope, ds []mnemo.Draft) ([]mnemo.Memory, error) {
	if err := m.keyedWrites(ctx, sc, ds); err != nil {
		return nil, err
	}
	v, err := m.Memories.RememberBatch(ctx, sc, ds)
	return gated(ctx, v, err)
}

// RememberUnguarded is RememberBatch without the Write Guard.
func (m *Mnemo) RememberUnguarded(ctx context.Context, sc mnemo.Scope, ds []mnemo.Draft) ([]mnemo.Memory, error) {
	if err := m.keyedWrites(ctx, sc, ds); err != nil {
		return nil, err
	}
	v, err := m.Memories.RememberUnguarded(ctx, sc, ds)
	return gated(ctx, v, err)
}

// Write stores memories through the Write Guard (memory.Service.Write).
func (m *Mnemo) Write(ctx context.Context, sc mnemo.Scope, ds []mnemo.Draft) ([]memory.WriteResult, error) {
	if err := m.keyedWrites(ctx, sc, ds); err != nil {
		return nil, err
	}
	v, err := m.Memories.Write(ctx, sc, ds)
	return gated(ctx, v, err)
}

// WriteWith is Write with options.
func (m *Mnemo) WriteWith(ctx context.Context, sc mnemo.Scope, ds []mnemo.Draft, o memory.WriteOptions) ([]memory.WriteResult, error) {
	if err := m.keyedWrites(ctx, sc, ds); err != nil {
		return nil, err
	}
	v, err := m.Memories.WriteWith(ctx, sc, ds, o)
	return gated(ctx, v, err)
}

// AddMessages stores a conversation's messages (memory.Service.AddMessages).
func (m *Mnemo) AddMessages(ctx context.Context, sc mnemo.Scope, session string, msgs []memory.Message) ([]mnemo.Memory, error) {
	v, err := m.Memories.AddMessages(ctx, sc, session, msgs)
	return gated(ctx, v, err)
}

// Update changes a memory in place (memory.Service.Update). A caller that
// reads masked may not change a security level: lowering it would let it
// read what it may not, raising it hide what others may (SEC-9).
func (m *Mnemo) Update(ctx context.Context, sc mnemo.Scope, id string, p memory.Patch, actor string) (memory.UpdateResult, error) {
	if p.SecurityLevel != nil && security.ClearanceFrom(ctx).Masks() {
		return memory.UpdateResult{}, mnemo.Errorf(mnemo.EFORBIDDEN, "security_level may not be changed by a caller that reads confidential and restricted memories masked")
	}
	v, err := m.Memories.Update(ctx, sc, id, p, actor)
	return gated(ctx, v, err)
}

// Get returns a memory by id.
func (m *Mnemo) Get(ctx context.Context, sc mnemo.Scope, id string) (mnemo.Memory, error) {
	v, err := m.Memories.Get(ctx, sc, id)
	return gated(ctx, v, err)
}

// GetByKey returns the live memory of a key.
func (m *Mnemo) GetByKey(ctx context.Context, sc mnemo.Scope, key string) (mnemo.Memory, error) {
	v, err := m.Memories.GetByKey(ctx, sc, key)
	return gated(ctx, v, err)
}

// List returns a page of memories and their total. Answered as of a past
// time, a key's revision is read at the highest level the key ever had.
func (m *Mnemo) List(ctx context.Context, sc mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	ms, total, err := m.Memories.List(ctx, sc, q)
	if err != nil {
		return nil, 0, err
	}
	if q.AsOf != nil && security.ClearanceFrom(ctx).Masks() {
		ms = slices.Clone(ms)
		m.concealKeyed(ctx, sc, len(ms), func(i int) *mnemo.Memory { return &ms[i] })
	}
	ms, err = gated(ctx, ms, nil)
	return ms, total, err
}

// History returns a key's revisions, each read at the highest level the
// key ever had: a key reclassified restricted hides what it said before
// (SEC-8).
func (m *Mnemo) History(ctx context.Context, sc mnemo.Scope, key string) ([]mnemo.Revision, error) {
	revs, err := m.Memories.History(ctx, sc, key)
	c := security.ClearanceFrom(ctx)
	if err != nil || !c.Masks() {
		return revs, err
	}
	level := m.keyLevel(ctx, sc, key, revs)
	out := make([]mnemo.Revision, len(revs))
	for i, r := range revs {
		if r.Memory != nil {
			mm := *r.Memory
			c.MemoryAs(&mm, level)
			r.Memory = &mm
		}
		out[i] = r
	}
	return gated(ctx, out, nil)
}

// keyLevel is the highest level key ever had: its revisions' (revs, read
// when nil) and its live memory's. A history that cannot be read is
// taken at the worst.
func (m *Mnemo) keyLevel(ctx context.Context, sc mnemo.Scope, key string, revs []mnemo.Revision) string {
	if revs == nil {
		var err error
		if revs, err = m.Memories.History(ctx, sc, key); err != nil {
			return mnemo.SecurityRestricted
		}
	}
	level := ""
	for _, r := range revs {
		if r.Memory != nil {
			level = mnemo.Highest(level, r.Memory.SecurityLevel)
		}
	}
	if live, err := m.Memories.GetByKey(ctx, sc, key); err == nil {
		level = mnemo.Highest(level, live.SecurityLevel)
	}
	return level
}

// concealKeyed conceals, for a caller that reads masked, each keyed memory
// that at(i) returns of an answer as of a past time at the highest level
// its key ever had: such an answer holds old revisions, which History
// shows that way. The caller copies the answer first.
func (m *Mnemo) concealKeyed(ctx context.Context, sc mnemo.Scope, n int, at func(int) *mnemo.Memory) {
	c := security.ClearanceFrom(ctx)
	if !c.Masks() {
		return
	}
	levels := map[string]string{}
	for i := range n {
		mm := at(i)
		if mm.Key == "" {
			continue
		}
		level, ok := levels[mm.Key]
		if !ok {
			level = m.keyLevel(ctx, sc, mm.Key, nil)
			levels[mm.Key] = level
		}
		c.MemoryAs(mm, level)
	}
}

// Recall ranks memories for a query (memory.Service.Recall).
func (m *Mnemo) Recall(ctx context.Context, sc mnemo.Scope, q memory.Query) (memory.Result, error) {
	q, err := m.withSessionTopic(ctx, sc, q)
	if err != nil {
		return memory.Result{}, err
	}
	res, err := m.Memories.Recall(ctx, sc, q)
	return m.gateResult(ctx, sc, q, res, err)
}

// Surface is Recall without recording an access.
func (m *Mnemo) Surface(ctx context.Context, sc mnemo.Scope, q memory.Query) (memory.Result, error) {
	q, err := m.withSessionTopic(ctx, sc, q)
	if err != nil {
		return memory.Result{}, err
	}
	res, err := m.Memories.Surface(ctx, sc, q)
	return m.gateResult(ctx, sc, q, res, err)
}

// gateResult conceals a recall's answer; as of a past time, a key's
// revision at the highest level the key ever had.
func (m *Mnemo) gateResult(ctx context.Context, sc mnemo.Scope, q memory.Query, res memory.Result, err error) (memory.Result, error) {
	if err == nil && q.AsOf != nil && security.ClearanceFrom(ctx).Masks() {
		rs := slices.Clone(res.Results)
		m.concealKeyed(ctx, sc, len(rs), func(i int) *mnemo.Memory { return &rs[i].Memory })
		res.Results = rs
	}
	return gated(ctx, res, err)
}

// RecallPath returns the memories under a key prefix.
func (m *Mnemo) RecallPath(ctx context.Context, sc mnemo.Scope, prefix string, limit int) ([]mnemo.Memory, int, error) {
	ms, total, err := m.Memories.RecallPath(ctx, sc, prefix, limit)
	ms, err = gated(ctx, ms, err)
	return ms, total, err
}

// RecallPathLinked is RecallPath and what links lead to from it.
func (m *Mnemo) RecallPathLinked(ctx context.Context, sc mnemo.Scope, prefix string, limit, hops int) (memory.PathResult, error) {
	v, err := m.Memories.RecallPathLinked(ctx, sc, prefix, limit, hops)
	return gated(ctx, v, err)
}

// ExpandLinks returns what links lead to from some memories.
func (m *Mnemo) ExpandLinks(ctx context.Context, sc mnemo.Scope, from []string, hops, limit int) ([]memory.Linked, error) {
	v, err := m.Memories.ExpandLinks(ctx, sc, from, hops, limit)
	return gated(ctx, v, err)
}

// Export writes the scope's memories as JSON Lines: whole, so a caller
// that reads masked may not (SEC-8).
func (m *Mnemo) Export(ctx context.Context, sc mnemo.Scope, w io.Writer, progress func(int, int)) (int, error) {
	if security.ClearanceFrom(ctx).Masks() {
		return 0, errMaskedExport("memories")
	}
	return m.Memories.Export(ctx, sc, w, progress)
}

// Boot returns the warm start, masked as it is built.
func (m *Mnemo) Boot(ctx context.Context, sc mnemo.Scope, q agentcontext.BootQuery) (agentcontext.Boot, error) {
	v, err := m.Prompts.Boot(ctx, sc, q)
	return gated(ctx, v, err)
}

// Snapshot returns the memories a run starts with, masked as it is built.
func (m *Mnemo) Snapshot(ctx context.Context, sc mnemo.Scope, q agentcontext.SnapshotQuery) (agentcontext.Snapshot, error) {
	v, err := m.Prompts.Snapshot(ctx, sc, q)
	return gated(ctx, v, err)
}

// DefaultRead returns the default read, masked as it is built.
func (m *Mnemo) DefaultRead(ctx context.Context, sc mnemo.Scope, q agentcontext.ReadQuery) (agentcontext.ReadResult, error) {
	v, err := m.Prompts.DefaultRead(ctx, sc, q)
	return gated(ctx, v, err)
}

// OpenRun opens a run's short-term memory.
func (m *Mnemo) OpenRun(ctx context.Context, sc mnemo.Scope, o agentcontext.RunOptions) (agentcontext.Run, error) {
	v, err := m.Prompts.OpenRun(ctx, sc, o)
	return gated(ctx, v, err)
}

// GetRun returns a run.
func (m *Mnemo) GetRun(ctx context.Context, sc mnemo.Scope, id string) (agentcontext.Run, error) {
	v, err := m.Prompts.GetRun(ctx, sc, id)
	return gated(ctx, v, err)
}

// ListRuns returns the scope's open runs.
func (m *Mnemo) ListRuns(ctx context.Context, sc mnemo.Scope) ([]agentcontext.Run, error) {
	v, err := m.Prompts.ListRuns(ctx, sc)
	return gated(ctx, v, err)
}

// RecordCall records a function call in a run.
func (m *Mnemo) RecordCall(ctx context.Context, sc mnemo.Scope, id string, call agentcontext.ToolCall) (agentcontext.Run, error) {
	v, err := m.Prompts.RecordCall(ctx, sc, id, call)
	return gated(ctx, v, err)
}

// RecordResponse records a model's response in a run.
func (m *Mnemo) RecordResponse(ctx context.Context, sc mnemo.Scope, id, text string) (agentcontext.Run, error) {
	v, err := m.Prompts.RecordResponse(ctx, sc, id, text)
	return gated(ctx, v, err)
}

// Inject adds an instruction to a run.
func (m *Mnemo) Inject(ctx context.Context, sc mnemo.Scope, id, text string) (agentcontext.Run, error) {
	v, err := m.Prompts.Inject(ctx, sc, id, text)
	return gated(ctx, v, err)
}

// CloseRun closes a run and returns it as it was last.
func (m *Mnemo) CloseRun(ctx context.Context, sc mnemo.Scope, id string) (agentcontext.Run, error) {
	v, err := m.Prompts.CloseRun(ctx, sc, id)
	return gated(ctx, v, err)
}

// AddTurn records a message in a session's working memory.
func (m *Mnemo) AddTurn(ctx context.Context, sc mnemo.Scope, session string, t agentcontext.Turn) (agentcontext.WorkingMemory, error) {
	v, err := m.Prompts.AddTurn(ctx, sc, session, t)
	return gated(ctx, v, err)
}

// GetWorkingMemory returns a session's working memory.
func (m *Mnemo) GetWorkingMemory(ctx context.Context, sc mnemo.Scope, session string) (agentcontext.WorkingMemory, error) {
	v, err := m.Prompts.GetWorkingMemory(ctx, sc, session)
	return gated(ctx, v, err)
}

// ListSessions returns the scope's sessions with working memory.
func (m *Mnemo) ListSessions(ctx context.Context, sc mnemo.Scope) ([]agentcontext.WorkingMemory, error) {
	v, err := m.Prompts.ListSessions(ctx, sc)
	return gated(ctx, v, err)
}

// EndSession ends a session.
func (m *Mnemo) EndSession(ctx context.Context, sc mnemo.Scope, session string, archive bool) (agentcontext.SessionEnd, error) {
	v, err := m.Prompts.EndSession(ctx, sc, session, archive)
	return gated(ctx, v, err)
}

// Reflect runs the sleep cycle; its report is masked as it is built.
func (m *Mnemo) Reflect(ctx context.Context, sc mnemo.Scope, o lifecycle.ReflectOptions) (lifecycle.ReflectReport, error) {
	v, err := m.Lifecycle.Reflect(ctx, sc, o)
	return gated(ctx, v, err)
}

// Ingest extracts memories from markdown; what the caller may not read
// back is masked in the answer (SEC-10).
func (m *Mnemo) Ingest(ctx context.Context, sc mnemo.Scope, r lifecycle.IngestRequest) (lifecycle.IngestResult, error) {
	v, err := m.Lifecycle.Ingest(ctx, sc, r)
	return gated(ctx, v, err)
}

// Prune archives the memories matching a criterion.
func (m *Mnemo) Prune(ctx context.Context, sc mnemo.Scope, q lifecycle.PruneQuery) (lifecycle.ArchiveResult, error) {
	v, err := m.Lifecycle.Prune(ctx, sc, q)
	return gated(ctx, v, err)
}

// Reset archives every memory of the scope.
func (m *Mnemo) Reset(ctx context.Context, sc mnemo.Scope, actor string) (lifecycle.ArchiveResult, error) {
	v, err := m.Lifecycle.Reset(ctx, sc, actor)
	return gated(ctx, v, err)
}

// SoftForget archives memories by id or key.
func (m *Mnemo) SoftForget(ctx context.Context, sc mnemo.Scope, ids, keys []string, actor string) (lifecycle.ArchiveResult, error) {
	v, err := m.Lifecycle.SoftForget(ctx, sc, ids, keys, actor)
	return gated(ctx, v, err)
}

// Ledger returns a page of the scope's lifecycle entries.
func (m *Mnemo) Ledger(ctx context.Context, sc mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	es, total, err := m.Lifecycle.Ledger(ctx, sc, q)
	es, err = gated(ctx, es, err)
	return es, total, err
}

// AppendEvent appends one event.
func (m *Mnemo) AppendEvent(ctx context.Context, sc mnemo.Scope, e mnemo.Event) (mnemo.Event, error) {
	v, err := m.Events.AppendEvent(ctx, sc, e)
	return gated(ctx, v, err)
}

// AppendEvents appends events.
func (m *Mnemo) AppendEvents(ctx context.Context, sc mnemo.Scope, es []mnemo.Event) ([]mnemo.Event, error) {
	v, err := m.Events.AppendEvents(ctx, sc, es)
	return gated(ctx, v, err)
}

// GetEvent returns one event.
func (m *Mnemo) GetEvent(ctx context.Context, sc mnemo.Scope, id string) (mnemo.Event, error) {
	v, err := m.Events.GetEvent(ctx, sc, id)
	return gated(ctx, v, err)
}

// QueryEvents returns a page of events.
func (m *Mnemo) QueryEvents(ctx context.Context, sc mnemo.Scope, q mnemo.EventQuery) (mnemo.EventPage, error) {
	v, err := m.Events.QueryEvents(ctx, sc, q)
	return gated(ctx, v, err)
}

// SearchEvents searches events by vector.
func (m *Mnemo) SearchEvents(ctx context.Context, sc mnemo.Scope, q events.Search) ([]events.Hit, error) {
	v, err := m.Events.SearchEvents(ctx, sc, q)
	return gated(ctx, v, err)
}

// Replay re-publishes a window of events to sink (a webhook, NATS, a
// Server-Sent Events stream), each as the caller may read it.
func (m *Mnemo) Replay(ctx context.Context, sc mnemo.Scope, o events.ReplayOptions, sink events.Sink) (events.ReplayResult, error) {
	if c := security.ClearanceFrom(ctx); c.Masks() && sink != nil {
		next := sink
		sink = events.SinkFunc(func(ctx context.Context, e mnemo.Event) error { return next.Publish(ctx, security.Conceal(c, e)) })
	}
	return m.Events.Replay(ctx, sc, o, sink)
}

// ExportEvents writes a window's events and every layer: whole, so a
// caller that reads masked may not (SEC-8).
func (m *Mnemo) ExportEvents(ctx context.Context, sc mnemo.Scope, q mnemo.EventQuery, format string, w io.Writer) (events.ExportResult, error) {
	if security.ClearanceFrom(ctx).Masks() {
		return events.ExportResult{}, errMaskedExport("events")
	}
	return m.Events.ExportEvents(ctx, sc, q, format, w)
}

// Neighbours returns a node's edges.
func (m *Mnemo) Neighbours(ctx context.Context, sc mnemo.Scope, id string, q events.GraphQuery) ([]mnemo.Relation, error) {
	v, err := m.Events.Neighbours(ctx, sc, id, q)
	return gated(ctx, v, err)
}

// Traverse walks the graph from a node.
func (m *Mnemo) Traverse(ctx context.Context, sc mnemo.Scope, id string, q events.GraphQuery) (events.Graph, error) {
	v, err := m.Events.Traverse(ctx, sc, id, q)
	return gated(ctx, v, err)
}

// ShortestPath returns the shortest path between two nodes.
func (m *Mnemo) ShortestPath(ctx context.Context, sc mnemo.Scope, from, to string, q events.GraphQuery) ([]mnemo.Relation, error) {
	v, err := m.Events.ShortestPath(ctx, sc, from, to, q)
	return gated(ctx, v, err)
}

// Link links two nodes.
func (m *Mnemo) Link(ctx context.Context, sc mnemo.Scope, r mnemo.Relation) (mnemo.Relation, error) {
	v, err := m.Events.Link(ctx, sc, r)
	return gated(ctx, v, err)
}

// RelateEventText relates an event to what its text names.
func (m *Mnemo) RelateEventText(ctx context.Context, sc mnemo.Scope, id string) ([]mnemo.Relation, error) {
	v, err := m.Events.RelateEventText(ctx, sc, id)
	return gated(ctx, v, err)
}

// Summarize summarises a period's events (L4).
func (m *Mnemo) Summarize(ctx context.Context, sc mnemo.Scope, p mnemo.Period, at time.Time) (mnemo.Summary, error) {
	v, err := m.Events.Summarize(ctx, sc, p, at)
	return gated(ctx, v, err)
}

// Summaries returns summaries (L4).
func (m *Mnemo) Summaries(ctx context.Context, sc mnemo.Scope, q mnemo.SummaryQuery) ([]mnemo.Summary, error) {
	v, err := m.Events.Summaries(ctx, sc, q)
	return gated(ctx, v, err)
}

// ExtractCapabilities extracts capabilities from events (L5).
func (m *Mnemo) ExtractCapabilities(ctx context.Context, sc mnemo.Scope) ([]mnemo.Capability, error) {
	v, err := m.Events.ExtractCapabilities(ctx, sc)
	return gated(ctx, v, err)
}

// Capabilities ranks capabilities for a query (L5).
func (m *Mnemo) Capabilities(ctx context.Context, sc mnemo.Scope, q events.CapabilityQuery) ([]events.CapabilityMatch, error) {
	v, err := m.Events.Capabilities(ctx, sc, q)
	return gated(ctx, v, err)
}

// Profile returns the adaptive user profile.
func (m *Mnemo) Profile(ctx context.Context, sc mnemo.Scope) (events.ProfileRecord, error) {
	v, err := m.Events.Profile(ctx, sc)
	return gated(ctx, v, err)
}

// PutProfile replaces the profile.
func (m *Mnemo) PutProfile(ctx context.Context, sc mnemo.Scope, version int64, p events.Profile) (events.ProfileRecord, error) {
	v, err := m.Events.PutProfile(ctx, sc, version, p)
	return gated(ctx, v, err)
}

// RecordInteraction records a user's interaction in the profile.
func (m *Mnemo) RecordInteraction(ctx context.Context, sc mnemo.Scope, text string) (events.ProfileRecord, bool, error) {
	v, changed, err := m.Events.RecordInteraction(ctx, sc, text)
	v, err = gated(ctx, v, err)
	return v, changed, err
}
