package failover

import (
	"context"
	"time"
)

// jobRunner is a primary that leases each periodic job to one server a
// period (PG-10): postgres.DB.
type jobRunner interface {
	RunJob(ctx context.Context, job string, period time.Time, holder string, fn func(context.Context) error) (bool, error)
}

// RunJob runs a periodic job (PG-10) with the primary's lease (PG-10); a
// primary without one runs fn. While the primary is unreachable no job
// runs: EUNAVAILABLE, and the period goes to a server that reaches it.
func (s *Store) RunJob(ctx context.Context, job string, period time.Time, holder string, fn func(context.Context) error) (bool, error) {
	var ran bool
	err := s.primaryOnly(ctx, "job "+job, false, func(ctx context.Context, p Primary) (err error) {
		if jr, ok := p.(jobRunner); ok {
			ran, err = jr.RunJob(ctx, job, period, holder, fn)
			return err
		}
		ran = true
		return fn(ctx)
	})
	return ran, err
}
