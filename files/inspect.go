package files

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

// The inspector's reads (API-13): answered from the fold, as every read.
// A keyless memory changes in place (Replace) by a write line marked as a
// replacement.

var (
	_ mnemo.AgentLister   = (*Store)(nil)
	_ mnemo.KeyTreeLister = (*Store)(nil)
)

// Agents implements mnemo.AgentLister.
func (s *Store) Agents(ctx context.Context, tenant string) ([]mnemo.AgentCount, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.Agents(ctx, tenant)
}

// KeyTree implements mnemo.KeyTreeLister.
func (s *Store) KeyTree(ctx context.Context, sc mnemo.Scope, prefix string, limit int) ([]mnemo.KeyChild, bool, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, false, err
	}
	return mem.KeyTree(ctx, sc, prefix, limit)
}
