package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
)

// The event layers' part of migrate-store (PG-6): every scope's events
// (L1, hot and cold, in order, ids and times kept), relations (L2),
// event vectors (L3), summaries (L4) and capabilities (L5), from one
// EventStore to another, then a count check of each scope.

// layerCounts is what one scope holds of the event layers.
type layerCounts struct {
	Events       int `json:"events"`
	Relations    int `json:"relations"`
	Summaries    int `json:"summaries"`
	Capabilities int `json:"capabilities"`
	Vectors      int `json:"vectors"` // event vectors copied (not counted in the check)
}

// String is the counts as the copy prints them: "2 events, 1 relation, …".
func (c layerCounts) String() string {
	return fmt.Sprintf("%s, %s, %s, %s, %s", textutil.Count(c.Events, "event", "events"), textutil.Count(c.Relations, "relation", "relations"),
		textutil.Count(c.Summaries, "summary", "summaries"), textutil.Count(c.Capabilities, "capability", "capabilities"),
		textutil.Count(c.Vectors, "event vector", "event vectors"))
}

func (c *layerCounts) add(o layerCounts) {
	c.Events += o.Events
	c.Relations += o.Relations
	c.Summaries += o.Summaries
	c.Capabilities += o.Capabilities
	c.Vectors += o.Vectors
}

// eventCopy is the event-layer copy from src to dst: nil when there is
// nothing to copy or nowhere to copy it.
type eventCopy struct {
	log      *slog.Logger
	src, dst mnemo.EventStore
	dump     eventDumper
	srcIns   mnemo.InsightStore // nil: no L4/L5 on a side
	dstIns   mnemo.InsightStore
	srcVec   mnemo.EventVectorStore // nil: event vectors are not copied
	dstVec   mnemo.EventVectorStore
}

// newEventCopy returns the copy, or nil (with a warning when the source
// has event layers the destination cannot keep).
func newEventCopy(ctx context.Context, log *slog.Logger, src, dst mnemo.LifecycleStore) (*eventCopy, []mnemo.Scope, error) {
	se, ok := src.(mnemo.EventStore)
	if !ok {
		return nil, nil, nil
	}
	dump, ok := src.(eventDumper)
	if !ok {
		log.Warn("the source cannot list its events in bulk: events are not copied")
		return nil, nil, nil
	}
	scopes, err := dump.EventLayerScopes(ctx)
	if err != nil || len(scopes) == 0 {
		return nil, nil, err
	}
	de, ok := dst.(mnemo.EventStore)
	if !ok {
		log.Warn("the destination keeps no events: the event layers (events, relations, summaries, capabilities) are left behind", "scopes", len(scopes))
		return nil, nil, nil
	}
	c := &eventCopy{log: log, src: se, dst: de, dump: dump}
	c.srcIns, _ = src.(mnemo.InsightStore)
	c.dstIns, _ = dst.(mnemo.InsightStore)
	if c.srcIns == nil || c.dstIns == nil {
		c.srcIns, c.dstIns = nil, nil
	}
	if sv, ok := src.(mnemo.EventVectorStore); ok {
		if dv, ok := dst.(mnemo.EventVectorStore); ok {
			// A PostgreSQL without pgvector stores events without their
			// vectors (PG-2) and says so here.
			if _, err := dv.EventVectorModels(ctx, scopes[0]); err != nil {
				log.Warn("the destination keeps no event vectors: events are copied without them", "err", err)
			} else {
				c.srcVec, c.dstVec = sv, dv
			}
		}
	}
	return c, scopes, nil
}

// allEvents returns every event of the scope, hot and cold, in order.
func allEvents(ctx context.Context, es mnemo.EventStore, sc mnemo.Scope) ([]mnemo.Event, error) {
	var out []mnemo.Event
	q := mnemo.EventQuery{Limit: mnemo.MaxListLimit}
	for {
		p, err := es.QueryEvents(ctx, sc, q)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Events...)
		if p.Next == "" || len(p.Events) == 0 {
			return out, nil
		}
		q.Cursor = p.Next
	}
}

// allSummaries returns every summary of the scope, by start: pages by
// start, the summaries of one start (one per period) never filling one.
func allSummaries(ctx context.Context, is mnemo.InsightStore, sc mnemo.Scope) ([]mnemo.Summary, error) {
	var out []mnemo.Summary
	type key struct {
		p mnemo.Period
		s int64
	}
	seen := map[key]bool{}
	q := mnemo.SummaryQuery{Limit: mnemo.MaxListLimit}
	for {
		page, err := is.Summaries(ctx, sc, q)
		if err != nil {
			return nil, err
		}
		fresh := 0
		for _, s := range page {
			k := key{s.Period, s.Start.UnixNano()}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, s)
			fresh++
		}
		if len(page) < q.Limit || fresh == 0 {
			return out, nil
		}
		from := page[len(page)-1].Start
		q.From = &from
	}
}

// count returns what the scope holds in es's layers.
func (c *eventCopy) count(ctx context.Context, es mnemo.EventStore, is mnemo.InsightStore, sc mnemo.Scope) (layerCounts, error) {
	var n layerCounts
	evs, err := allEvents(ctx, es, sc)
	if err != nil {
		return n, err
	}
	n.Events = len(evs)
	if d, ok := es.(eventDumper); ok {
		rs, err := d.AllRelations(ctx, sc)
		if err != nil {
			return n, err
		}
		n.Relations = len(rs)
	}
	if is != nil {
		ss, err := allSummaries(ctx, is, sc)
		if err != nil {
			return n, err
		}
		cs, err := is.Capabilities(ctx, sc)
		if err != nil {
			return n, err
		}
		n.Summaries, n.Capabilities = len(ss), len(cs)
	}
	return n, nil
}

// scope copies one scope's event layers and returns what the source
// holds. Events the destination has already (an earlier copy) are
// skipped; relations, summaries and capabilities are idempotent writes.
func (c *eventCopy) scope(ctx context.Context, sc mnemo.Scope) (layerCounts, error) {
	var n layerCounts
	evs, err := allEvents(ctx, c.src, sc)
	if err != nil {
		return n, fmt.Errorf("source events: %w", err)
	}
	n.Events = len(evs)
	have, err := allEvents(ctx, c.dst, sc)
	if err != nil {
		return n, fmt.Errorf("destination events: %w", err)
	}
	had := make(map[string]bool, len(have))
	for _, e := range have {
		had[e.ID] = true
	}
	evs = slices.DeleteFunc(evs, func(e mnemo.Event) bool { return had[e.ID] })
	for batch := range slices.Chunk(evs, mnemo.MaxEventBatch) {
		if c.srcVec != nil {
			ids := make([]string, len(batch))
			for i, e := range batch {
				ids[i] = e.ID
			}
			vs, err := c.srcVec.EventVectorsOf(ctx, sc, ids)
			if err != nil {
				return n, fmt.Errorf("source event vectors: %w", err)
			}
			by := map[string][]mnemo.EventVector{}
			for _, v := range vs {
				by[v.EventID] = append(by[v.EventID], v.EventVector)
			}
			for i := range batch {
				batch[i].Vectors = by[batch[i].ID]
			}
			n.Vectors += len(vs)
		}
		// No relate function: the relations are copied as they are below.
		if _, err := c.dst.AppendEvents(ctx, sc, batch, nil); err != nil {
			return n, fmt.Errorf("appending events: %w", err)
		}
	}
	rels, err := c.dump.AllRelations(ctx, sc)
	if err != nil {
		return n, fmt.Errorf("source relations: %w", err)
	}
	n.Relations = len(rels)
	for batch := range slices.Chunk(rels, 5000) {
		if err := c.dst.AddRelations(ctx, sc, batch); err != nil {
			return n, fmt.Errorf("adding relations: %w", err)
		}
	}
	if c.srcIns != nil {
		ss, err := allSummaries(ctx, c.srcIns, sc)
		if err != nil {
			return n, fmt.Errorf("source summaries: %w", err)
		}
		n.Summaries = len(ss)
		for _, s := range ss {
			if err := c.dstIns.PutSummary(ctx, sc, s); err != nil {
				return n, fmt.Errorf("putting a summary: %w", err)
			}
		}
		cs, err := c.srcIns.Capabilities(ctx, sc)
		if err != nil {
			return n, fmt.Errorf("source capabilities: %w", err)
		}
		n.Capabilities = len(cs)
		if len(cs) > 0 {
			if err := c.dstIns.ReplaceCapabilities(ctx, sc, cs); err != nil {
				return n, fmt.Errorf("replacing capabilities: %w", err)
			}
		}
	}
	return n, nil
}

// check compares the destination's counts of each scope with the
// source's and describes each mismatch.
func (c *eventCopy) check(ctx context.Context, scopes []mnemo.Scope, want []layerCounts) ([]string, error) {
	var bad []string
	for i, sc := range scopes {
		got, err := c.count(ctx, c.dst, c.dstIns, sc)
		if err != nil {
			return nil, fmt.Errorf("destination: %w", err)
		}
		w := want[i]
		if _, ok := c.dst.(eventDumper); !ok {
			w.Relations = got.Relations // not countable there
		}
		for _, f := range []struct {
			what      string
			src, dest int
		}{
			{"events", w.Events, got.Events},
			{"relations", w.Relations, got.Relations},
			{"summaries", w.Summaries, got.Summaries},
			{"capabilities", w.Capabilities, got.Capabilities},
		} {
			if f.src != f.dest {
				bad = append(bad, fmt.Sprintf("%s/%s has %d %s in the source and %d in the destination", sc.TenantID, sc.AgentID, f.src, f.what, f.dest))
			}
		}
	}
	return bad, nil
}

// eventDumper is a mnemo.EventStore that reads its event layers back in bulk,
// for migrate-store (PG-6): the sqlite and postgres stores. EventScopes
// (mnemo.InsightStore) sees hot events only, and Relations needs the nodes.
type eventDumper interface {
	// EventLayerScopes returns every scope with an event (hot or cold), a
	// relation, a summary or a capability, sorted by tenant, then agent.
	EventLayerScopes(ctx context.Context) ([]mnemo.Scope, error)
	// AllRelations returns every edge of the scope, oldest first, then by
	// source, target and type.
	AllRelations(ctx context.Context, scope mnemo.Scope) ([]mnemo.Relation, error)
}
