package events

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/security"
)

// The graph of L2: events and memories are nodes, relations edges. The
// queries here walk it through EventStore.Relations, one query per hop.

// MaxGraphDepth bounds traversals and paths.
const MaxGraphDepth = 6

// maxGraphNodes bounds the nodes one traversal visits.
const maxGraphNodes = 10000

// GraphQuery selects a walk from a node.
type GraphQuery struct {
	Direction string   `json:"direction,omitempty"` // out, in or both (default)
	Types     []string `json:"types,omitempty"`     // only these relation types
	Depth     int      `json:"depth,omitempty"`     // hops; 0: 1
	Limit     int      `json:"limit,omitempty"`     // edges of Neighbours; 0: 100
}

// Graph is what a traversal reached: each node with its distance in hops,
// and the edges it crossed.
type Graph struct {
	Nodes []GraphNode      `json:"nodes"`
	Edges []mnemo.Relation `json:"edges"`
}

// GraphNode is one node of a Graph.
type GraphNode struct {
	ID    string `json:"id"`
	Depth int    `json:"depth"`
}

func checkGraphQuery(q GraphQuery) (GraphQuery, error) {
	switch strings.ToLower(q.Direction) {
	case "", mnemo.DirBoth:
		q.Direction = mnemo.DirBoth
	case mnemo.DirOut, mnemo.DirIn:
		q.Direction = strings.ToLower(q.Direction)
	default:
		return q, mnemo.Errorf(mnemo.EINVALID, "direction must be out, in or both, not %q", q.Direction)
	}
	if q.Depth < 0 || q.Depth > MaxGraphDepth {
		return q, mnemo.Errorf(mnemo.EINVALID, "depth must be 1 to %d", MaxGraphDepth)
	}
	if q.Depth == 0 {
		q.Depth = 1
	}
	if q.Limit < 0 || q.Limit > mnemo.MaxListLimit {
		return q, mnemo.Errorf(mnemo.EINVALID, "limit must be 1 to %d", mnemo.MaxListLimit)
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	return q, nil
}

// Neighbours returns the edges touching id, filtered by direction and type.
func (s *Service) Neighbours(ctx context.Context, scope mnemo.Scope, id string, q GraphQuery) ([]mnemo.Relation, error) {
	es, q, err := s.graphCall(scope, id, q)
	if err != nil {
		return nil, err
	}
	f := s.relationFilter(ctx, es, scope)
	if !f.Masks() {
		return es.Relations(ctx, scope, mnemo.RelationQuery{IDs: []string{id}, Direction: q.Direction, Types: q.Types, Limit: q.Limit})
	}
	// The limit counts the edges the caller may read (SEC-13).
	rels, err := es.Relations(ctx, scope, mnemo.RelationQuery{IDs: []string{id}, Direction: q.Direction, Types: q.Types})
	if err != nil {
		return nil, err
	}
	if rels, err = f.Keep(ctx, rels); err != nil {
		return nil, err
	}
	return rels[:min(len(rels), q.Limit)], nil
}

// relationFilter keeps, of the edges a walk meets, those the caller may
// read: a caller that reads some levels masked walks only along edges none
// of whose ends is a record it reads masked, so that neither an edge nor a
// node read from a record's text reaches it (SEC-13).
func (s *Service) relationFilter(ctx context.Context, es mnemo.EventStore, scope mnemo.Scope) *security.RelationFilter {
	return security.ClearanceFrom(ctx).Relations(s.store.Store, es, scope)
}

func (s *Service) graphCall(scope mnemo.Scope, id string, q GraphQuery) (mnemo.EventStore, GraphQuery, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, q, err
	}
	es, err := s.eventStore()
	if err != nil {
		return nil, q, err
	}
	if id == "" {
		return nil, q, mnemo.Errorf(mnemo.EINVALID, "a node id is required")
	}
	q, err = checkGraphQuery(q)
	return es, q, err
}

// Traverse walks from id breadth first, up to q.Depth hops along edges of
// q.Types in q.Direction, and returns every node reached (id at depth 0)
// and every edge crossed.
func (s *Service) Traverse(ctx context.Context, scope mnemo.Scope, id string, q GraphQuery) (Graph, error) {
	es, q, err := s.graphCall(scope, id, q)
	if err != nil {
		return Graph{}, err
	}
	f := s.relationFilter(ctx, es, scope)
	g := Graph{Nodes: []GraphNode{{ID: id}}, Edges: []mnemo.Relation{}}
	seen := map[string]bool{id: true}
	type edgeKey struct{ s, t, typ string }
	crossed := map[edgeKey]bool{}
	frontier := []string{id}
	for depth := 1; depth <= q.Depth && len(frontier) > 0; depth++ {
		rels, err := es.Relations(ctx, scope, mnemo.RelationQuery{IDs: frontier, Direction: q.Direction, Types: q.Types})
		if err == nil {
			rels, err = f.Keep(ctx, rels)
		}
		if err != nil {
			return Graph{}, err
		}
		var next []string
		for _, r := range rels {
			k := edgeKey{r.Source, r.Target, r.Type}
			if !crossed[k] {
				crossed[k] = true
				g.Edges = append(g.Edges, r)
			}
			for _, n := range []string{r.Source, r.Target} {
				if !seen[n] {
					seen[n] = true
					g.Nodes = append(g.Nodes, GraphNode{ID: n, Depth: depth})
					next = append(next, n)
				}
			}
		}
		if len(seen) > maxGraphNodes {
			return Graph{}, mnemo.Errorf(mnemo.ETOOLARGE, "the traversal reached over %d nodes; lower depth or filter types", maxGraphNodes)
		}
		frontier = next
	}
	return g, nil
}

// ShortestPath returns the edges of a shortest path from one node to
// another (breadth first, at most q.Depth hops; 0: MaxGraphDepth), in walk
// order, or ENOTFOUND when there is none that short.
func (s *Service) ShortestPath(ctx context.Context, scope mnemo.Scope, from, to string, q GraphQuery) ([]mnemo.Relation, error) {
	if q.Depth == 0 {
		q.Depth = MaxGraphDepth
	}
	es, q, err := s.graphCall(scope, from, q)
	if err != nil {
		return nil, err
	}
	if to == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "a target node id is required")
	}
	if from == to {
		return []mnemo.Relation{}, nil
	}
	f := s.relationFilter(ctx, es, scope)
	via := map[string]mnemo.Relation{} // node → the edge it was reached by
	seen := map[string]bool{from: true}
	frontier := []string{from}
	for depth := 1; depth <= q.Depth && len(frontier) > 0; depth++ {
		rels, err := es.Relations(ctx, scope, mnemo.RelationQuery{IDs: frontier, Direction: q.Direction, Types: q.Types})
		if err == nil {
			rels, err = f.Keep(ctx, rels)
		}
		if err != nil {
			return nil, err
		}
		inFrontier := make(map[string]bool, len(frontier))
		for _, n := range frontier {
			inFrontier[n] = true
		}
		var next []string
		for _, r := range rels {
			// Walk the edge from its end on the frontier, the way the
			// direction allows.
			for _, n := range []string{r.Source, r.Target} {
				if p := r.Other(n); !seen[n] && inFrontier[p] && allowed(r, p, q.Direction) {
					seen[n] = true
					via[n] = r
					next = append(next, n)
				}
			}
		}
		if seen[to] {
			var path []mnemo.Relation
			for n := to; n != from; {
				r := via[n]
				path = append(path, r)
				n = r.Other(n)
			}
			slices.Reverse(path)
			return path, nil
		}
		if len(seen) > maxGraphNodes {
			break
		}
		frontier = next
	}
	return nil, mnemo.Errorf(mnemo.ENOTFOUND, "no path from %s to %s within %d hops", from, to, q.Depth)
}

// allowed reports whether r may be walked from node in direction dir.
func allowed(r mnemo.Relation, node, dir string) bool {
	switch dir {
	case mnemo.DirOut:
		return r.Source == node
	case mnemo.DirIn:
		return r.Target == node
	}
	return true
}

// Link relates two nodes, each an event or a memory of scope (REC-22):
// type defaults to related, confidence to 1. Errors: ENOTFOUND
// when an end is neither, EINVALID.
func (s *Service) Link(ctx context.Context, scope mnemo.Scope, r mnemo.Relation) (mnemo.Relation, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Relation{}, err
	}
	es, err := s.eventStore()
	if err != nil {
		return mnemo.Relation{}, err
	}
	if r.Source == "" || r.Target == "" {
		return mnemo.Relation{}, mnemo.Errorf(mnemo.EINVALID, "source and target are required")
	}
	if r.Source == r.Target {
		return mnemo.Relation{}, mnemo.Errorf(mnemo.EINVALID, "a node cannot be linked to itself")
	}
	if r.Type == "" {
		r.Type = mnemo.RelRelated
	}
	if r.Type, err = checkEventText("relation type", r.Type, maxEventType, true); err != nil {
		return mnemo.Relation{}, err
	}
	if r.Confidence == 0 {
		r.Confidence = 1
	}
	if r.Confidence < 0 || r.Confidence > 1 {
		return mnemo.Relation{}, mnemo.Errorf(mnemo.EINVALID, "confidence must be between 0 and 1")
	}
	for _, id := range []string{r.Source, r.Target} {
		if err := s.nodeExists(ctx, es, scope, id); err != nil {
			return mnemo.Relation{}, err
		}
	}
	r.CreatedAt = s.now().UTC()
	if err := es.AddRelations(ctx, scope, []mnemo.Relation{r}); err != nil {
		return mnemo.Relation{}, err
	}
	return r, nil
}

// nodeExists checks that id is an event or a live memory of scope.
func (s *Service) nodeExists(ctx context.Context, es mnemo.EventStore, scope mnemo.Scope, id string) error {
	_, err := es.GetEvent(ctx, scope, id)
	if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		return err
	}
	_, err = s.store.Get(ctx, scope, id)
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		return mnemo.Errorf(mnemo.ENOTFOUND, "%s is neither an event nor a memory of this agent", id)
	}
	return err
}
