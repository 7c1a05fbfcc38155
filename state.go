package mnemo

import (
	"context"
	"time"
)

// State kinds: the short-lived documents a Service keeps beside memories.
const (
	StateRun     = "run"     // a run's short-term memory (run.go)
	StateSession = "session" // a session's working memory (session.go)
	StateProfile = "profile" // a user's adaptive profile (events/profile.go)
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
// an in-process one (internal/statedoc.NewMem), lost when the process
// ends.
//
// Clear does not touch state: clearing long-term memory keeps working
// memory until its session ends (CTX-11).
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
