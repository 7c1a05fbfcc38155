package failover

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The event layers (EVT-1) live in the primary only, when it keeps them
// (postgres.DB does): the spool holds memories, not events. While the
// primary is down every event call fails with EUNAVAILABLE, as semantic
// search does; nothing is acknowledged that is not stored.

var (
	_ mnemo.EventStore       = (*Store)(nil)
	_ mnemo.EventVectorStore = (*Store)(nil)
	_ mnemo.InsightStore     = (*Store)(nil)
)

func noEvents(what string) error {
	return mnemo.Errorf(mnemo.EUNAVAILABLE, "the database keeps no %s", what)
}

// eventOp runs fn on the primary as an EventStore.
func (s *Store) eventOp(ctx context.Context, op string, fn func(context.Context, mnemo.EventStore) error) error {
	// A primary without them says so before the call: an unavailable
	// error from the call would mark it down.
	if p := s.primaryOf(); p != nil {
		if _, ok := p.(mnemo.EventStore); !ok {
			return noEvents("events")
		}
	}
	return s.primaryOnly(ctx, op, false, func(ctx context.Context, p Primary) error {
		es, ok := p.(mnemo.EventStore)
		if !ok {
			return fmt.Errorf("failover: the database keeps no %s", "events")
		}
		return fn(ctx, es)
	})
}

// insightOp runs fn on the primary as an InsightStore.
func (s *Store) insightOp(ctx context.Context, op string, fn func(context.Context, mnemo.InsightStore) error) error {
	// A primary without them says so before the call: an unavailable
	// error from the call would mark it down.
	if p := s.primaryOf(); p != nil {
		if _, ok := p.(mnemo.InsightStore); !ok {
			return noEvents("summaries or capabilities")
		}
	}
	return s.primaryOnly(ctx, op, false, func(ctx context.Context, p Primary) error {
		is, ok := p.(mnemo.InsightStore)
		if !ok {
			return fmt.Errorf("failover: the database keeps no %s", "summaries or capabilities")
		}
		return fn(ctx, is)
	})
}

// eventVectorOp runs fn on the primary as an EventVectorStore. As with
// memories' vectors, its unavailable errors (no pgvector) never mark the
// primary down.
func (s *Store) eventVectorOp(ctx context.Context, fn func(context.Context, mnemo.EventVectorStore) error) error {
	return s.vectorOp(ctx, false, func(ctx context.Context, p Primary) error {
		vs, ok := p.(mnemo.EventVectorStore)
		if !ok {
			return noEvents("event vectors")
		}
		return fn(ctx, vs)
	})
}

// AppendEvents implements mnemo.EventStore on the primary.
func (s *Store) AppendEvents(ctx context.Context, scope mnemo.Scope, events []mnemo.Event, relate func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error)) (out []mnemo.Event, err error) {
	err = s.eventOp(ctx, "appending events", func(ctx context.Context, es mnemo.EventStore) (err error) {
		out, err = es.AppendEvents(ctx, scope, events, relate)
		return
	})
	return out, err
}

// QueryEvents implements mnemo.EventStore on the primary.
func (s *Store) QueryEvents(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery) (p mnemo.EventPage, err error) {
	err = s.eventOp(ctx, "querying events", func(ctx context.Context, es mnemo.EventStore) (err error) {
		p, err = es.QueryEvents(ctx, scope, q)
		return
	})
	return p, err
}

// GetEvent implements mnemo.EventStore on the primary.
func (s *Store) GetEvent(ctx context.Context, scope mnemo.Scope, id string) (e mnemo.Event, err error) {
	err = s.eventOp(ctx, "reading an event", func(ctx context.Context, es mnemo.EventStore) (err error) {
		e, err = es.GetEvent(ctx, scope, id)
		return
	})
	return e, err
}

// ArchiveEvents implements mnemo.EventStore on the primary.
func (s *Store) ArchiveEvents(ctx context.Context, before time.Time) (n int, err error) {
	err = s.eventOp(ctx, "archiving events", func(ctx context.Context, es mnemo.EventStore) (err error) {
		n, err = es.ArchiveEvents(ctx, before)
		return
	})
	return n, err
}

// AddRelations implements mnemo.EventStore on the primary.
func (s *Store) AddRelations(ctx context.Context, scope mnemo.Scope, rels []mnemo.Relation) error {
	return s.eventOp(ctx, "adding relations", func(ctx context.Context, es mnemo.EventStore) error {
		return es.AddRelations(ctx, scope, rels)
	})
}

// Relations implements mnemo.EventStore on the primary.
func (s *Store) Relations(ctx context.Context, scope mnemo.Scope, q mnemo.RelationQuery) (rels []mnemo.Relation, err error) {
	err = s.eventOp(ctx, "reading relations", func(ctx context.Context, es mnemo.EventStore) (err error) {
		rels, err = es.Relations(ctx, scope, q)
		return
	})
	return rels, err
}

// PruneLinks implements mnemo.EventStore on the primary.
func (s *Store) PruneLinks(ctx context.Context, scope mnemo.Scope, dry bool) (rels []mnemo.Relation, err error) {
	err = s.eventOp(ctx, "pruning links", func(ctx context.Context, es mnemo.EventStore) (err error) {
		rels, err = es.PruneLinks(ctx, scope, dry)
		return
	})
	return rels, err
}

// SearchEventVectors implements mnemo.EventVectorStore on the primary.
func (s *Store) SearchEventVectors(ctx context.Context, scope mnemo.Scope, q mnemo.EventVectorQuery) (hits []mnemo.EventVectorHit, err error) {
	err = s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) (err error) {
		hits, err = vs.SearchEventVectors(ctx, scope, q)
		return
	})
	return hits, err
}

// EventVectorsOf implements mnemo.EventVectorStore on the primary.
func (s *Store) EventVectorsOf(ctx context.Context, scope mnemo.Scope, ids []string) (out []mnemo.StoredEventVector, err error) {
	err = s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) (err error) {
		out, err = vs.EventVectorsOf(ctx, scope, ids)
		return
	})
	return out, err
}

// EventVectorModels implements mnemo.EventVectorStore on the primary.
func (s *Store) EventVectorModels(ctx context.Context, scope mnemo.Scope) (out map[string][]string, err error) {
	err = s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) (err error) {
		out, err = vs.EventVectorModels(ctx, scope)
		return
	})
	return out, err
}

// TouchEventVectors implements mnemo.EventVectorStore on the primary.
func (s *Store) TouchEventVectors(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	return s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) error {
		return vs.TouchEventVectors(ctx, scope, ids, at)
	})
}

// PruneEventVectors implements mnemo.EventVectorStore on the primary.
func (s *Store) PruneEventVectors(ctx context.Context, before time.Time, minAccess int) (n int, err error) {
	err = s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) (err error) {
		n, err = vs.PruneEventVectors(ctx, before, minAccess)
		return
	})
	return n, err
}

// PendingEventVectors implements mnemo.EventVectorStore on the primary.
func (s *Store) PendingEventVectors(ctx context.Context, n int) (jobs []mnemo.EventVectorJob, err error) {
	err = s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) (err error) {
		jobs, err = vs.PendingEventVectors(ctx, n)
		return
	})
	return jobs, err
}

// SetEventVectors implements mnemo.EventVectorStore on the primary.
func (s *Store) SetEventVectors(ctx context.Context, jobs []mnemo.EventVectorJob, vecs [][]float32) error {
	return s.eventVectorOp(ctx, func(ctx context.Context, vs mnemo.EventVectorStore) error {
		return vs.SetEventVectors(ctx, jobs, vecs)
	})
}

// PutSummary implements mnemo.InsightStore on the primary.
func (s *Store) PutSummary(ctx context.Context, scope mnemo.Scope, sum mnemo.Summary) error {
	return s.insightOp(ctx, "storing a summary", func(ctx context.Context, is mnemo.InsightStore) error {
		return is.PutSummary(ctx, scope, sum)
	})
}

// Summaries implements mnemo.InsightStore on the primary.
func (s *Store) Summaries(ctx context.Context, scope mnemo.Scope, q mnemo.SummaryQuery) (out []mnemo.Summary, err error) {
	err = s.insightOp(ctx, "reading summaries", func(ctx context.Context, is mnemo.InsightStore) (err error) {
		out, err = is.Summaries(ctx, scope, q)
		return
	})
	return out, err
}

// DropSummaries implements mnemo.InsightStore on the primary.
func (s *Store) DropSummaries(ctx context.Context, periods []mnemo.Period, before time.Time) (n int, err error) {
	err = s.insightOp(ctx, "dropping summaries", func(ctx context.Context, is mnemo.InsightStore) (err error) {
		n, err = is.DropSummaries(ctx, periods, before)
		return
	})
	return n, err
}

// EventScopes implements mnemo.InsightStore on the primary.
func (s *Store) EventScopes(ctx context.Context, since time.Time) (out []mnemo.Scope, err error) {
	err = s.insightOp(ctx, "listing event scopes", func(ctx context.Context, is mnemo.InsightStore) (err error) {
		out, err = is.EventScopes(ctx, since)
		return
	})
	return out, err
}

// UpdateCapabilities implements mnemo.InsightStore on the primary.
func (s *Store) UpdateCapabilities(ctx context.Context, scope mnemo.Scope, taskTypes []string, fn func(have []mnemo.Capability) ([]mnemo.Capability, error)) error {
	return s.insightOp(ctx, "updating capabilities", func(ctx context.Context, is mnemo.InsightStore) error {
		return is.UpdateCapabilities(ctx, scope, taskTypes, fn)
	})
}

// ReplaceCapabilities implements mnemo.InsightStore on the primary.
func (s *Store) ReplaceCapabilities(ctx context.Context, scope mnemo.Scope, caps []mnemo.Capability) error {
	return s.insightOp(ctx, "replacing capabilities", func(ctx context.Context, is mnemo.InsightStore) error {
		return is.ReplaceCapabilities(ctx, scope, caps)
	})
}

// Capabilities implements mnemo.InsightStore on the primary.
func (s *Store) Capabilities(ctx context.Context, scope mnemo.Scope) (out []mnemo.Capability, err error) {
	err = s.insightOp(ctx, "reading capabilities", func(ctx context.Context, is mnemo.InsightStore) (err error) {
		out, err = is.Capabilities(ctx, scope)
		return
	})
	return out, err
}
