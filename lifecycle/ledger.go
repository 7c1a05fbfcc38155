package lifecycle

import (
	"cmp"
	"context"

	"github.com/mnemo-dev/mnemo"
)

// Ledger returns the agent's lifecycle events, newest first.
func (s *Service) Ledger(ctx context.Context, scope mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, 0, err
	}
	if err := cmp.Or(mnemo.CheckTimePtr("since", q.Since), mnemo.CheckTimePtr("until", q.Until)); err != nil { // TIME-1
		return nil, 0, err
	}
	if q.Limit < 0 || q.Offset < 0 || q.Limit > mnemo.MaxListLimit {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "limit must be 1 to %d and offset not negative", mnemo.MaxListLimit)
	}
	ls, ok := s.store.Life, s.store.Life != nil
	if !ok {
		return []mnemo.LedgerEntry{}, 0, nil
	}
	return ls.Ledger(ctx, scope, q)
}
