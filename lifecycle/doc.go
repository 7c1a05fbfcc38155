// Package lifecycle is how memories age and leave (LIFE): reflect (decay,
// tidy, govern, retention, capacity, compaction, purge), soft forget, prune,
// reset and restore from the ledger, and markdown ingest.
package lifecycle

import "github.com/mnemo-dev/mnemo"

// Service is the lifecycle service over one store.
type Service struct{}

// Options configure a Service.
type Options struct{}

// Deps are the values the facade passes in.
type Deps struct{}

// New returns a Service over b.
func New(b mnemo.Backend, o Options, d Deps) *Service { return &Service{} }

// Close stops the service's background work.
func (*Service) Close() error { return nil }
