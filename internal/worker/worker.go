// Package worker holds the queue-draining loop the embedding workers share.
package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/mnemo-dev/mnemo/internal/panics"
)

// Batch is how many queued items one step works off.
const Batch = 64

// Drain runs step, which works off one batch of a queue and says how
// many it did, until ctx ends: again at once while it finds work, after a
// backoff (1 s doubling to a minute) while it fails, and otherwise when
// woken or after a minute (work queued by another process).
func Drain(ctx context.Context, wake <-chan struct{}, log *slog.Logger, what string, step func(context.Context) (int, error)) {
	backoff := time.Duration(0)
	for {
		// A panic in one batch is a failed batch: logged with its stack,
		// retried after the backoff, and the worker lives on.
		var n int
		err := panics.Call(log, what, func() (err error) {
			n, err = step(ctx)
			return err
		})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			backoff = min(max(2*backoff, time.Second), time.Minute)
			log.Warn(what+" failed; retrying", "err", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			continue
		case n > 0:
			backoff = 0
			continue // there may be more
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-time.After(time.Minute):
		}
	}
}
