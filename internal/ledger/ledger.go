// Package ledger appends lifecycle ledger entries on a best-effort basis.
package ledger

import (
	"context"
	"log/slog"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Record appends e to the scope's ledger: a no-op when ls is nil (the store
// keeps no ledger). A zero At becomes now, an empty Actor "api". A failure
// is logged, not returned: the ledger must not fail the change it records.
func Record(ctx context.Context, log *slog.Logger, ls mnemo.LifecycleStore, scope mnemo.Scope, e mnemo.LedgerEntry, now time.Time) {
	if ls == nil {
		return
	}
	if e.At.IsZero() {
		e.At = now.UTC()
	}
	if e.Actor == "" {
		e.Actor = "api"
	}
	if err := ls.AppendLedger(context.WithoutCancel(ctx), scope, []mnemo.LedgerEntry{e}); err != nil {
		log.Warn("ledger entry lost", "action", e.Action, "err", err)
	}
}
