// Package events is the event memory (docs/REQUIREMENTS.md, EVT): L1
// append-only events, L2 relations and the graph, L3 event vectors, L4
// summaries, L5 capabilities, replay and export, and the adaptive profile.
package events

import "github.com/mnemo-dev/mnemo"

// Service is the events service over one store.
type Service struct{}

// Options configure a Service.
type Options struct{}

// Deps are the values the facade passes in.
type Deps struct{}

// New returns a Service over b.
func New(b mnemo.Backend, o Options, d Deps) *Service { return &Service{} }

// Close stops the service's background work.
func (*Service) Close() error { return nil }
