// Package ids makes the ids of memories, events and runs.
package ids

import "github.com/google/uuid"

// New returns a new UUIDv7, as a string: time-ordered, so ids sort by
// creation.
func New() string { return uuid.Must(uuid.NewV7()).String() }
