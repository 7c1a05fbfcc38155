package statedoc

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// memState is the mnemo.StateStore of a Service whose Store is not one: in this
// process only.
type memState struct {
	mu   sync.Mutex
	docs map[stateKey]mnemo.StateDoc
}

type stateKey struct {
	scope    mnemo.Scope
	kind, id string
}

// NewMem returns an in-process StateStore, for a store that keeps no
// state: lost when the process ends.
func NewMem() mnemo.StateStore { return &memState{docs: make(map[stateKey]mnemo.StateDoc)} }

func (m *memState) GetState(_ context.Context, scope mnemo.Scope, kind, id string) (mnemo.StateDoc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[stateKey{scope, kind, id}]
	if !ok {
		return mnemo.StateDoc{}, mnemo.Errorf(mnemo.ENOTFOUND, "no %s %q", kind, id)
	}
	return d, nil
}

func (m *memState) PutState(_ context.Context, scope mnemo.Scope, doc mnemo.StateDoc) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := stateKey{scope, doc.Kind, doc.ID}
	if m.docs[k].Version != doc.Version {
		return 0, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile", doc.Kind, doc.ID)
	}
	doc.Scope = scope
	doc.Version++
	doc.Body = slices.Clone(doc.Body)
	m.docs[k] = doc
	return doc.Version, nil
}

func (m *memState) DeleteState(_ context.Context, scope mnemo.Scope, kind, id string, version int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := stateKey{scope, kind, id}
	d, ok := m.docs[k]
	if !ok {
		return false, nil
	}
	if version != 0 && d.Version != version {
		return false, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile", kind, id)
	}
	delete(m.docs, k)
	return true, nil
}

func (m *memState) ListState(_ context.Context, scope mnemo.Scope, kind string) ([]mnemo.StateDoc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []mnemo.StateDoc
	for k, d := range m.docs {
		if k.scope == scope && k.kind == kind {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b mnemo.StateDoc) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	return out, nil
}

func (m *memState) IdleState(_ context.Context, kind string, before time.Time, n int) ([]mnemo.StateDoc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []mnemo.StateDoc
	for k, d := range m.docs {
		if k.kind == kind && d.UpdatedAt.Before(before) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b mnemo.StateDoc) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}
