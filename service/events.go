package service

import (
	"cmp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// eventsDeps are the values the events service takes from the facade: the
// memory embedders, for L3 text vectors and for ranking capabilities.
func (o Options) eventsDeps(b mnemo.Backend) events.Deps {
	return events.Deps{
		Now:                o.Now,
		Logger:             o.Logger,
		Embedder:           o.Embedder,
		QueryEmbedder:      o.QueryEmbedder,
		AsyncEmbedding:     o.AsyncEmbedding,
		CapabilityEmbedder: o.capabilityEmbedder(b),
	}
}

// capabilityEmbedder ranks capabilities by meaning only when memories have
// vectors: the store keeps them and an embedder makes them.
func (o Options) capabilityEmbedder(b mnemo.Backend) mnemo.Embedder {
	if o.Embedder == nil || b.Vectors == nil {
		return nil
	}
	return cmp.Or(o.QueryEmbedder, o.Embedder)
}
