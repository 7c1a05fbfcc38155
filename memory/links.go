package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/security"
)

// Recall along links (recall_path's traverse_hops, API-3, REC-22): after
// a recall finds its memories, the walk follows the relation graph from
// them and adds what it reaches, after the direct hits.
//
// Links whose far end is gone are ignored when read: the walk only stops at
// live memories (not archived, not expired) and events of the same scope,
// and passes only through those. The sqlite store drops a memory's links
// when it is forgotten or purged, in the same transaction; reflect's govern
// phase removes whatever orphan links are left (EventStore.PruneLinks).
//
// A caller that reads masked walks only the links none of whose ends is a
// record it reads masked, as the graph routes do (SEC-13): a link to a
// restricted memory or event, or from a restricted hit, leads it nowhere.

// MaxTraverseHops bounds how many links a recall follows from a direct hit.
const MaxTraverseHops = 3

// maxLinkedNodes bounds the nodes one expansion looks up.
const maxLinkedNodes = 2000

// Linked is a memory or an event that a recall reached along links from
// one of its direct hits: exactly one of Memory and Event is set.
type Linked struct {
	Memory *mnemo.Memory `json:"memory,omitempty"`
	Event  *mnemo.Event  `json:"event,omitempty"`
	// Hops is how many links away from From it is (1 to MaxTraverseHops).
	Hops int `json:"hops"`
	// From is the direct hit the walk started at; Via the node whose link
	// reached it (From when Hops is 1).
	From string `json:"from"`
	Via  string `json:"via"`
	// Relation is the type of the link from Via; Confidence the product of
	// the confidences of the links walked.
	Relation   string  `json:"relation"`
	Confidence float64 `json:"confidence"`
	// Reason says why it is there, in words.
	Reason string `json:"reason"`
}

// ID is the linked memory's or event's id.
func (l *Linked) ID() string {
	if l.Memory != nil {
		return l.Memory.ID
	}
	if l.Event != nil {
		return l.Event.ID
	}
	return ""
}

// checkHops validates a traverse_hops argument.
func checkHops(hops int) error {
	if hops < 0 || hops > MaxTraverseHops {
		return mnemo.Errorf(mnemo.EINVALID, "traverse_hops must be 0 to %d, not %d", MaxTraverseHops, hops)
	}
	return nil
}

// ExpandLinks walks the links of scope from the nodes of from (direct hits,
// best first), breadth first up to hops links in either direction, and
// returns at most limit live memories and events it reaches, nearest first,
// then by confidence, then by the rank of the hit they came from. The nodes
// of from are never returned. hops 0 returns none; a store that keeps no
// relations has no links, and returns none either.
func (s *Service) ExpandLinks(ctx context.Context, scope mnemo.Scope, from []string, hops, limit int) ([]Linked, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	if err := checkHops(hops); err != nil {
		return nil, err
	}
	out := []Linked{}
	es, ok := s.store.Events, s.store.Events != nil
	if !ok || hops == 0 || limit <= 0 || len(from) == 0 {
		return out, nil
	}
	now := s.now().UTC()
	rank := make(map[string]int, len(from))
	seen := make(map[string]bool, len(from))
	frontier := map[string]Linked{} // node → how it was reached; direct hits: zero Hops
	var order []string              // frontier in a stable order
	for i, id := range from {
		if !seen[id] {
			seen[id] = true
			rank[id] = i
			frontier[id] = Linked{From: id, Confidence: 1}
			order = append(order, id)
		}
	}
	filter := security.ClearanceFrom(ctx).Relations(s.store.Store, es, scope)
	looked := 0
	for hop := 1; hop <= hops && len(frontier) > 0 && len(out) < limit; hop++ {
		rels, err := es.Relations(ctx, scope, mnemo.RelationQuery{IDs: order, Direction: mnemo.DirBoth})
		if err != nil {
			return nil, err
		}
		// A caller that reads masked walks only the edges none of whose
		// ends it reads masked, as the graph routes do (SEC-13).
		if rels, err = filter.Keep(ctx, rels); err != nil {
			return nil, err
		}
		// The best way to each new node at this hop.
		reached := map[string]Linked{}
		var found []string
		for _, r := range rels {
			for _, p := range []string{r.Source, r.Target} {
				at, ok := frontier[p]
				n := r.Other(p)
				if !ok || seen[n] {
					continue
				}
				l := Linked{Hops: hop, From: at.From, Via: p, Relation: r.Type, Confidence: at.Confidence * r.Confidence}
				if old, ok := reached[n]; !ok {
					found = append(found, n)
					reached[n] = l
				} else if better(l, old, rank) {
					reached[n] = l
				}
			}
		}
		next := map[string]Linked{}
		var nextOrder, kept []string
		for _, n := range found {
			seen[n] = true
			if looked >= maxLinkedNodes {
				break
			}
			looked++
			l := reached[n]
			ok, err := s.resolveLinked(ctx, es, scope, n, now, &l)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue // gone, archived or expired: neither returned nor walked through
			}
			next[n] = l
			nextOrder = append(nextOrder, n)
			kept = append(kept, n)
		}
		slices.SortStableFunc(kept, func(a, b string) int {
			la, lb := next[a], next[b]
			if better(la, lb, rank) {
				return -1
			}
			if better(lb, la, rank) {
				return 1
			}
			return cmp.Compare(a, b)
		})
		for _, n := range kept {
			if len(out) == limit {
				break
			}
			l := next[n]
			l.Reason = linkReason(&l)
			out = append(out, l)
		}
		frontier, order = next, nextOrder
	}
	return out, nil
}

// better reports whether a is a better way to a node than b: more sure,
// then from a better-ranked hit.
func better(a, b Linked, rank map[string]int) bool {
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	return rank[a.From] < rank[b.From]
}

// resolveLinked fills l with the live memory or the event id names, and
// reports whether it is one.
func (s *Service) resolveLinked(ctx context.Context, es mnemo.EventStore, scope mnemo.Scope, id string, now time.Time, l *Linked) (bool, error) {
	m, err := s.store.Get(ctx, scope, id)
	switch {
	case err == nil:
		if m.Archived || m.Expired(now) {
			return false, nil
		}
		m.Embedding = nil
		l.Memory = &m
		return true, nil
	case mnemo.ErrorCode(err) != mnemo.ENOTFOUND:
		return false, err
	}
	e, err := es.GetEvent(ctx, scope, id)
	switch {
	case err == nil:
		e.Vectors = nil
		l.Event = &e
		return true, nil
	case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
		return false, nil
	}
	return false, err
}

func linkReason(l *Linked) string {
	what := "memory"
	if l.Event != nil {
		what = "event"
	}
	hops := "1 hop"
	if l.Hops > 1 {
		hops = fmt.Sprintf("%d hops", l.Hops)
	}
	s := fmt.Sprintf("%s linked %s from %s", what, hops, l.From)
	if l.Hops > 1 {
		s += " via " + l.Via
	}
	return s + fmt.Sprintf(" (%s, confidence %.2f)", l.Relation, l.Confidence)
}

// PathResult is what RecallPathLinked found: the memories under a key
// prefix, in key order, then what links lead to from them.
type PathResult struct {
	Prefix   string         `json:"prefix"`
	Memories []mnemo.Memory `json:"memories"`
	Total    int            `json:"total"` // memories under the prefix
	Linked   []Linked       `json:"linked"`
}

// RecallPathLinked is RecallPath followed by ExpandLinks (recall_path
// with traverse_hops, API-3): the linked memories and events fill
// what the direct hits leave of limit (default 50).
func (s *Service) RecallPathLinked(ctx context.Context, scope mnemo.Scope, prefix string, limit, hops int) (PathResult, error) {
	if err := checkHops(hops); err != nil {
		return PathResult{}, err
	}
	ms, total, err := s.RecallPath(ctx, scope, prefix, limit)
	if err != nil {
		return PathResult{}, err
	}
	res := PathResult{Prefix: prefix, Memories: ms, Total: total, Linked: []Linked{}}
	if k, err := mnemo.NormalizeKey(prefix); err == nil {
		res.Prefix = k
	}
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, mnemo.MaxListLimit)
	if hops == 0 || len(ms) >= limit {
		return res, nil
	}
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	res.Linked, err = s.ExpandLinks(ctx, scope, ids, hops, limit-len(ms))
	return res, err
}
