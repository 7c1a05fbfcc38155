package security

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

// The graph of relations (L2) joins events and memories, and the entity,
// emotion and intent nodes read from events' text (SEC-13). An edge says
// something of each record at its ends — a name read from an event's text,
// a parent named in its data, a link a writer made to a memory — so it is
// as secret as the most secret of them; a node read from text has no level
// of its own, and is reached only along an edge the caller may read.

// RelationFilter keeps, of the relations a walk of the graph meets, those a
// clearance may read, remembering each node's level for the walk's next
// hops. Make one per call: levels change when a memory is reclassified.
type RelationFilter struct {
	c      Clearance
	st     mnemo.Store
	es     mnemo.EventStore // nil: the store keeps no events
	scope  mnemo.Scope
	levels map[string]nodeLevel
}

type nodeLevel struct {
	level  string
	record bool // an event or a memory, not a node read from text
}

// Relations returns a filter of the relations of scope, whose events es
// and memories st hold (es may be nil), as c may read them.
func (c Clearance) Relations(st mnemo.Store, es mnemo.EventStore, scope mnemo.Scope) *RelationFilter {
	return &RelationFilter{c: c, st: st, es: es, scope: scope, levels: map[string]nodeLevel{}}
}

// Masks reports whether the filter can drop a relation: false for a
// clearance that reads everything.
func (f *RelationFilter) Masks() bool { return f.c.Masks() }

// Keep returns the relations of rels the clearance may read, in order:
// those none of whose ends is an event or a memory it reads masked.
func (f *RelationFilter) Keep(ctx context.Context, rels []mnemo.Relation) ([]mnemo.Relation, error) {
	if !f.c.Masks() {
		return rels, nil
	}
	out := make([]mnemo.Relation, 0, len(rels))
	for _, r := range rels {
		ok, err := f.Readable(ctx, r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// Readable reports whether the clearance may read r.
func (f *RelationFilter) Readable(ctx context.Context, r mnemo.Relation) (bool, error) {
	if !f.c.Masks() {
		return true, nil
	}
	for _, id := range []string{r.Source, r.Target} {
		n, err := f.level(ctx, id)
		if err != nil {
			return false, err
		}
		if n.record && f.c.Conceals(n.level) {
			return false, nil
		}
	}
	return true, nil
}

// level returns the level of node id: the event's or the memory's it
// names; a node that is neither (read from text, or gone) is no record.
func (f *RelationFilter) level(ctx context.Context, id string) (nodeLevel, error) {
	if n, ok := f.levels[id]; ok {
		return n, nil
	}
	n, err := f.lookup(ctx, id)
	if err != nil {
		return nodeLevel{}, err
	}
	f.levels[id] = n
	return n, nil
}

func (f *RelationFilter) lookup(ctx context.Context, id string) (nodeLevel, error) {
	if f.es != nil {
		e, err := f.es.GetEvent(ctx, f.scope, id)
		switch {
		case err == nil:
			ClassifyEvent(&e) // stored before levels were kept (SEC-11)
			return nodeLevel{level: e.SecurityLevel, record: true}, nil
		case mnemo.ErrorCode(err) != mnemo.ENOTFOUND:
			return nodeLevel{}, err
		}
	}
	m, err := f.st.Get(ctx, f.scope, id)
	switch {
	case err == nil:
		return nodeLevel{level: m.SecurityLevel, record: true}, nil
	case mnemo.ErrorCode(err) != mnemo.ENOTFOUND:
		return nodeLevel{}, err
	}
	return nodeLevel{}, nil
}
