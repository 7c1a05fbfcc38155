package inmem

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

var (
	_ mnemo.AgentLister   = (*Store)(nil)
	_ mnemo.KeyTreeLister = (*Store)(nil)
)

// Agents implements mnemo.AgentLister.
func (s *Store) Agents(_ context.Context, tenant string) ([]mnemo.AgentCount, error) {
	if err := mnemo.CheckScope(mnemo.Scope{TenantID: tenant, AgentID: "any"}); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []mnemo.AgentCount{}
	for _, sc := range s.order {
		if sc.TenantID != tenant {
			continue
		}
		n := 0
		for _, r := range s.scopes[sc].rows {
			if !r.tomb && !r.m.Archived {
				n++
			}
		}
		out = append(out, mnemo.AgentCount{AgentID: sc.AgentID, Memories: n})
	}
	slices.SortFunc(out, func(a, b mnemo.AgentCount) int { return strings.Compare(a.AgentID, b.AgentID) })
	return out, nil
}

// KeyTree implements mnemo.KeyTreeLister.
func (s *Store) KeyTree(_ context.Context, sc mnemo.Scope, prefix string, limit int) ([]mnemo.KeyChild, bool, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, false, err
	}
	if err := mnemo.CheckKeyTreePrefix(prefix); err != nil {
		return nil, false, err
	}
	s.mu.RLock()
	var keys []string
	if d := s.scopes[sc]; d != nil {
		for k, r := range d.keys {
			if !r.tomb && strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
	}
	s.mu.RUnlock()
	return GroupKeys(prefix, keys, limit)
}

// GroupKeys groups the keys under prefix into prefix's children, in key
// order, at most limit of them (more says whether there were others).
func GroupKeys(prefix string, keys []string, limit int) (children []mnemo.KeyChild, more bool, err error) {
	slices.Sort(keys)
	children = []mnemo.KeyChild{}
	for _, k := range keys {
		name, dir := mnemo.KeyTreeChild(prefix, k)
		if n := len(children); n > 0 && children[n-1].Name == name && children[n-1].Dir == dir {
			children[n-1].Count++
			continue
		}
		if len(children) == limit {
			return children, true, nil
		}
		children = append(children, mnemo.KeyChild{Name: name, Dir: dir, Count: 1})
	}
	return children, false, nil
}
