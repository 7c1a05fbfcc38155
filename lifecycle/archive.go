package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// lifecycle returns the store as a LifecycleStore, or EUNAVAILABLE.
func (s *Service) lifecycle() (mnemo.LifecycleStore, error) {
	ls, ok := s.store.Life, s.store.Life != nil
	if !ok {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "this store keeps no lifecycle (archive, restore, ledger); sqlite does")
	}
	return ls, nil
}

// ArchiveResult says what an archiving action did.
type ArchiveResult struct {
	Archived  []string `json:"archived"` // memory ids
	LedgerSeq int64    `json:"ledger_seq,omitempty"`
	DryRun    bool     `json:"dry_run,omitempty"`
}

// archive archives ids (live ones), writing one ledger entry.
func (s *Service) archive(ctx context.Context, scope mnemo.Scope, ids []string, action, actor, reason string) (ArchiveResult, error) {
	ls, err := s.lifecycle()
	if err != nil {
		return ArchiveResult{}, err
	}
	res := ArchiveResult{Archived: ids}
	if len(ids) == 0 {
		res.Archived = []string{}
		return res, nil
	}
	yes := true
	changes := make([]mnemo.LifeChange, len(ids))
	for i, id := range ids {
		changes[i] = mnemo.LifeChange{ID: id, Archived: &yes}
	}
	if actor == "" {
		actor = "api"
	}
	if _, err := ls.ApplyLife(ctx, scope, changes, []mnemo.LedgerEntry{{At: s.now().UTC(), Action: action, MemoryIDs: ids, Actor: actor, Reason: reason}}); err != nil {
		return ArchiveResult{}, err
	}
	if es, _, err := ls.Ledger(ctx, scope, mnemo.LedgerQuery{Action: action, MemoryID: ids[0], Limit: 1}); err == nil && len(es) == 1 {
		res.LedgerSeq = es[0].Seq
	}
	return res, nil
}

// SoftForget archives memories by id or key instead of deleting them
// (API-12: forget with hard: false): hidden from recall, kept, and
// restorable from the ledger.
func (s *Service) SoftForget(ctx context.Context, scope mnemo.Scope, ids, keys []string, actor string) (ArchiveResult, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ArchiveResult{}, err
	}
	found := make([]string, 0, len(ids)+len(keys))
	for _, id := range ids {
		if m, err := s.store.Get(ctx, scope, id); err == nil && !m.Archived {
			found = append(found, m.ID)
		} else if err != nil && mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			return ArchiveResult{}, err
		}
	}
	for _, k := range keys {
		key, err := mnemo.NormalizeKey(k)
		if err != nil {
			return ArchiveResult{}, err
		}
		if m, err := s.store.GetByKey(ctx, scope, key); err == nil && !m.Archived {
			found = append(found, m.ID)
		} else if err != nil && mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			return ArchiveResult{}, err
		}
	}
	return s.archive(ctx, scope, found, mnemo.ActionArchive, actor, "soft forget: archived on request, restorable")
}

// PruneQuery selects the memories a prune archives (LIFE-3: by
// time, tag, security level or type). At least one criterion is required.
type PruneQuery struct {
	Before         *time.Time `json:"before,omitempty"` // created before
	Tags           []string   `json:"tags,omitempty"`
	Types          []string   `json:"types,omitempty"`
	SecurityLevels []string   `json:"security_levels,omitempty"`
	DryRun         bool       `json:"dry_run,omitempty"`
	Actor          string     `json:"-"`
}

// Prune archives the memories matching q (restorable from the ledger for
// the grace period, erased by reflect's purge after it).
func (s *Service) Prune(ctx context.Context, scope mnemo.Scope, q PruneQuery) (ArchiveResult, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ArchiveResult{}, err
	}
	if err := mnemo.CheckTimePtr("before", q.Before); err != nil { // TIME-1
		return ArchiveResult{}, err
	}
	if q.Before == nil && len(q.Tags) == 0 && len(q.Types) == 0 && len(q.SecurityLevels) == 0 {
		return ArchiveResult{}, mnemo.Errorf(mnemo.EINVALID, "prune needs a criterion: before, tags, types or security levels")
	}
	f := mnemo.Filter{Tags: q.Tags, Types: q.Types, SecurityLevels: q.SecurityLevels, CreatedBefore: q.Before, IncludeExpired: true}
	if err := f.Check(s.now()); err != nil {
		return ArchiveResult{}, err
	}
	ids, err := s.matching(ctx, scope, f)
	if err != nil {
		return ArchiveResult{}, err
	}
	if q.DryRun {
		return ArchiveResult{Archived: ids, DryRun: true}, nil
	}
	var crit []string
	if q.Before != nil {
		crit = append(crit, "created before "+q.Before.UTC().Format(time.RFC3339))
	}
	if len(q.Tags) > 0 {
		crit = append(crit, "tags "+strings.Join(q.Tags, ","))
	}
	if len(q.Types) > 0 {
		crit = append(crit, "types "+strings.Join(q.Types, ","))
	}
	if len(q.SecurityLevels) > 0 {
		crit = append(crit, "security "+strings.Join(q.SecurityLevels, ","))
	}
	return s.archive(ctx, scope, ids, mnemo.ActionPrune, q.Actor, "prune: "+strings.Join(crit, "; "))
}

// Reset archives every memory of the agent: it starts from nothing
// (LIFE-4), and can be restored from the ledger for the grace period.
func (s *Service) Reset(ctx context.Context, scope mnemo.Scope, actor string) (ArchiveResult, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ArchiveResult{}, err
	}
	ids, err := s.matching(ctx, scope, mnemo.Filter{IncludeExpired: true})
	if err != nil {
		return ArchiveResult{}, err
	}
	return s.archive(ctx, scope, ids, mnemo.ActionReset, actor, fmt.Sprintf("reset: all %d active memories archived", len(ids)))
}

// matching returns the ids of the active memories matching f.
func (s *Service) matching(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]string, error) {
	ms, err := s.listAll(ctx, scope, f)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	return ids, nil
}

// listAll reads every memory matching f, without vectors, oldest first,
// in pages of reflectChunk.
func (s *Service) listAll(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]mnemo.Memory, error) {
	var ms []mnemo.Memory
	for off := 0; ; off += reflectChunk {
		page, _, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: f, Order: mnemo.OrderOldest, Limit: reflectChunk, Offset: off, NoVectors: true, NoTotal: true})
		if err != nil {
			return nil, err
		}
		ms = append(ms, page...)
		if len(page) < reflectChunk {
			return ms, nil
		}
	}
}

// Restore brings back the memories a ledger entry archived (archive,
// prune, reset) within the grace period, and returns their ids.
func (s *Service) Restore(ctx context.Context, scope mnemo.Scope, seq int64, actor string) ([]string, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	ls, err := s.lifecycle()
	if err != nil {
		return nil, err
	}
	es, _, err := ls.Ledger(ctx, scope, mnemo.LedgerQuery{Seq: seq, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "no ledger entry %d", seq)
	}
	e := es[0]
	switch e.Action {
	case mnemo.ActionArchive, mnemo.ActionPrune, mnemo.ActionReset, mnemo.ActionRetention, mnemo.ActionCompact:
	default:
		return nil, mnemo.Errorf(mnemo.EINVALID, "ledger entry %d is a %s, which cannot be restored", seq, e.Action)
	}
	if age := s.now().Sub(e.At); age > s.life.Grace {
		return nil, mnemo.Errorf(mnemo.EINVALID, "ledger entry %d is %s old, past the grace period of %s: its memories may be erased", seq, age.Round(time.Hour), s.life.Grace)
	}
	no := false
	var ids []string
	var changes []mnemo.LifeChange
	for _, id := range e.MemoryIDs {
		if m, err := s.store.Get(ctx, scope, id); err == nil && m.Archived {
			ids = append(ids, id)
			changes = append(changes, mnemo.LifeChange{ID: id, Archived: &no, Vitality: ptrTo(1.0)})
		}
	}
	if len(ids) == 0 {
		return []string{}, nil
	}
	if e.Action == mnemo.ActionCompact {
		// Undoing a compaction archives its summary.
		var d struct {
			SummaryID string `json:"summary_id"`
		}
		if json.Unmarshal(e.Details, &d) == nil && d.SummaryID != "" {
			yes := true
			changes = append(changes, mnemo.LifeChange{ID: d.SummaryID, Archived: &yes})
		}
	}
	if actor == "" {
		actor = "api"
	}
	_, err = ls.ApplyLife(ctx, scope, changes, []mnemo.LedgerEntry{{At: s.now().UTC(), Action: mnemo.ActionRestore, MemoryIDs: ids, Actor: actor,
		Reason: fmt.Sprintf("restored from ledger entry %d (%s)", seq, e.Action)}})
	return ids, err
}

func ptrTo[T any](v T) *T { return &v }
