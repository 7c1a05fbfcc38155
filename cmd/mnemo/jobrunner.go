package main

import (
	"context"
	"time"
)

// jobRunner is a Store that several servers may share (PostgreSQL): it
// runs each periodic job (sweeps, the sleep cycle, event summaries and
// retention) once per period across all of them (PG-10). A store that one
// process owns (SQLite, files) has no need of it: the server runs its jobs
// itself.
type jobRunner interface {
	// RunJob runs fn as job's run for the period that starts at period,
	// on the calling server (holder names it), unless a server has
	// finished that run or is running job now; it reports whether fn
	// ran. A run that fails, or whose server dies in it, counts for no
	// period: the next server to ask in the period runs it again.
	RunJob(ctx context.Context, job string, period time.Time, holder string, fn func(context.Context) error) (bool, error)
}
