// Package prompt builds what goes into an agent's prompt (CTX): a run's
// short-term memory and its compaction, a session's working memory, the
// snapshot a run starts with, the warm boot and the default read.
package prompt

import "github.com/mnemo-dev/mnemo"

// Service is the prompt service over one store.
type Service struct{}

// Options configure a Service.
type Options struct{}

// Deps are the values the facade passes in.
type Deps struct{}

// New returns a Service over b.
func New(b mnemo.Backend, o Options, d Deps) *Service { return &Service{} }

// Close stops the service's background work.
func (*Service) Close() error { return nil }
