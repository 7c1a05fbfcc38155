package mnemo

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// State kinds: the short-lived documents a Service keeps beside memories.
const (
	StateRun     = "run"     // a run's short-term memory (run.go)
	StateSession = "session" // a session's working memory (session.go)
)

// StateDoc is one short-lived document: a run's short-term memory or a
// session's working memory, as JSON the Service encodes. Version counts its
// writes, for optimistic concurrency.
type StateDoc struct {
	Scope     Scope     `json:"scope"`
	Kind      string    `json:"kind"`
	ID        string    `json:"id"`
	Version   int64     `json:"version"`
	Body      []byte    `json:"body"`
	UpdatedAt time.Time `json:"updated_at"`
}

// StateStore is a Store that also keeps state documents, so that a run or a
// session outlives the process that opened it and is shared by every
// process on the store (the CLI, the server). A Store that is not one gets
// the Service's in-process state, lost when the process ends.
//
// Clear does not touch state: clearing long-term memory keeps working
// memory until its session ends (seed 001).
type StateStore interface {
	// GetState returns a document, or ENOTFOUND.
	GetState(ctx context.Context, scope Scope, kind, id string) (StateDoc, error)
	// PutState stores doc.Body under its kind and id if the stored version
	// is still doc.Version (0: there must be none), and returns the new
	// version; ECONFLICT when another write came first.
	PutState(ctx context.Context, scope Scope, doc StateDoc) (int64, error)
	// DeleteState deletes a document if its version is still version (0:
	// any), reporting whether it existed; ECONFLICT when it changed.
	DeleteState(ctx context.Context, scope Scope, kind, id string, version int64) (bool, error)
	// ListState returns the scope's documents of kind, most recently
	// updated first.
	ListState(ctx context.Context, scope Scope, kind string) ([]StateDoc, error)
	// IdleState returns up to n documents of kind, of any scope, not
	// updated since before, oldest first.
	IdleState(ctx context.Context, kind string, before time.Time, n int) ([]StateDoc, error)
}

// memState is the StateStore of a Service whose Store is not one: in this
// process only.
type memState struct {
	mu   sync.Mutex
	docs map[stateKey]StateDoc
}

type stateKey struct {
	scope    Scope
	kind, id string
}

func newMemState() *memState { return &memState{docs: make(map[stateKey]StateDoc)} }

func (m *memState) GetState(_ context.Context, scope Scope, kind, id string) (StateDoc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[stateKey{scope, kind, id}]
	if !ok {
		return StateDoc{}, Errorf(ENOTFOUND, "no %s %q", kind, id)
	}
	return d, nil
}

func (m *memState) PutState(_ context.Context, scope Scope, doc StateDoc) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := stateKey{scope, doc.Kind, doc.ID}
	if m.docs[k].Version != doc.Version {
		return 0, Errorf(ECONFLICT, "%s %q changed meanwhile", doc.Kind, doc.ID)
	}
	doc.Scope = scope
	doc.Version++
	doc.Body = slices.Clone(doc.Body)
	m.docs[k] = doc
	return doc.Version, nil
}

func (m *memState) DeleteState(_ context.Context, scope Scope, kind, id string, version int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := stateKey{scope, kind, id}
	d, ok := m.docs[k]
	if !ok {
		return false, nil
	}
	if version != 0 && d.Version != version {
		return false, Errorf(ECONFLICT, "%s %q changed meanwhile", kind, id)
	}
	delete(m.docs, k)
	return true, nil
}

func (m *memState) ListState(_ context.Context, scope Scope, kind string) ([]StateDoc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []StateDoc
	for k, d := range m.docs {
		if k.scope == scope && k.kind == kind {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b StateDoc) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	return out, nil
}

func (m *memState) IdleState(_ context.Context, kind string, before time.Time, n int) ([]StateDoc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []StateDoc
	for k, d := range m.docs {
		if k.kind == kind && d.UpdatedAt.Before(before) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b StateDoc) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}
