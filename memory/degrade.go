package memory

import (
	"context"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// degradeEvery is how often one degradation of one agent is written to the
// ledger: every recall says it, the ledger once in a while.
const degradeEvery = 10 * time.Minute

// warnOnce logs a lasting degradation (a store that keeps no vectors) the
// first time this process meets it: it will not change until a restart, so
// repeating it per write or recall says nothing new. Every occurrence is
// still counted (OnDegraded) and noted in the ledger (noteDegraded).
func (s *Service) warnOnce(msg string, args ...any) {
	if _, seen := s.warned.LoadOrStore(msg, true); !seen {
		s.log.Warn(msg, args...)
	}
}

// noteDegraded counts a degradation and puts it in the ledger, at most
// once per reason and agent every degradeEvery.
func (s *Service) noteDegraded(ctx context.Context, scope mnemo.Scope, cause, reason string) {
	s.onDegrade(cause)
	k := scope.TenantID + "\x00" + scope.AgentID + "\x00" + reason
	now := s.now()
	if last, ok := s.degraded.Load(k); ok && now.Sub(last.(time.Time)) < degradeEvery {
		return
	}
	s.degraded.Store(k, now)
	s.record(ctx, scope, mnemo.LedgerEntry{Action: mnemo.ActionDegrade, Actor: "system", Reason: reason})
}
