package inmem

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// ApplyLife applies changes to live memories of the scope and appends
// entries, atomically, and returns how many memories changed.
func (s *Store) ApplyLife(ctx context.Context, sc mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	now := s.now(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if d := s.scope(sc); d != nil {
		for _, c := range changes {
			r := d.rows[c.ID]
			if r == nil || r.tomb {
				continue
			}
			if c.Vitality != nil {
				r.m.Vitality = *c.Vitality
			}
			if c.Stability != nil {
				r.m.Stability = *c.Stability
			}
			if c.Archived != nil {
				r.m.Archived = *c.Archived
			}
			if c.ValidTo != nil && (r.m.ValidTo == nil || c.ValidTo.Before(*r.m.ValidTo)) { // an earlier end stands (REC-27)
				t := c.ValidTo.UTC()
				r.m.ValidTo = &t
			}
			n++
		}
	}
	s.appendLedger(sc, entries, now)
	return n, nil
}

// AppendLedger appends entries to the scope's ledger.
func (s *Store) AppendLedger(ctx context.Context, sc mnemo.Scope, entries []mnemo.LedgerEntry) error {
	if err := mnemo.CheckScope(sc); err != nil {
		return err
	}
	now := s.now(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appendLedger(sc, entries, now)
	return nil
}

func (s *Store) appendLedger(sc mnemo.Scope, entries []mnemo.LedgerEntry, now time.Time) {
	if len(entries) == 0 {
		return
	}
	d := s.scopeFor(sc) // not listed: a ledger alone is no memory
	for _, e := range entries {
		s.ledgerSeq++
		e.Seq = s.ledgerSeq
		if e.At.IsZero() {
			e.At = now
		}
		e.At = e.At.UTC()
		e.TenantID, e.AgentID = sc.TenantID, sc.AgentID
		e.MemoryIDs = slices.Clone(e.MemoryIDs)
		if len(e.MemoryIDs) == 0 {
			e.MemoryIDs = nil
		}
		e.Details = cloneRaw(e.Details)
		d.ledger = append(d.ledger, e)
	}
}

// Ledger returns the scope's entries matching q, newest first, and how many
// match in all.
func (s *Store) Ledger(_ context.Context, sc mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, 0, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []mnemo.LedgerEntry{}
	d := s.scope(sc)
	if d == nil {
		return out, 0, nil
	}
	total := 0
	for i := len(d.ledger) - 1; i >= 0; i-- {
		e := d.ledger[i]
		if q.Seq != 0 && e.Seq != q.Seq || q.Action != "" && e.Action != q.Action ||
			q.MemoryID != "" && !slices.Contains(e.MemoryIDs, q.MemoryID) ||
			q.Since != nil && e.At.Before(*q.Since) || q.Until != nil && !e.At.Before(*q.Until) {
			continue
		}
		if total >= q.Offset && len(out) < limit {
			out = append(out, e)
		}
		total++
	}
	return out, total, nil
}

// Scopes lists every scope that memories were written to, in the order
// first written.
func (s *Store) Scopes(context.Context) ([]mnemo.Scope, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.order), nil
}

// GetState implements mnemo.StateStore.
func (s *Store) GetState(_ context.Context, sc mnemo.Scope, kind, id string) (mnemo.StateDoc, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return mnemo.StateDoc{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.docs[docKey{sc, kind, id}]
	if !ok {
		return mnemo.StateDoc{}, mnemo.Errorf(mnemo.ENOTFOUND, "no %s %q", kind, id)
	}
	d.Body = slices.Clone(d.Body)
	return d, nil
}

// PutState implements mnemo.StateStore.
func (s *Store) PutState(_ context.Context, sc mnemo.Scope, doc mnemo.StateDoc) (int64, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := docKey{sc, doc.Kind, doc.ID}
	cur, ok := s.docs[k]
	if doc.Version == 0 && ok || doc.Version != 0 && (!ok || cur.Version != doc.Version) {
		return 0, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile", doc.Kind, doc.ID)
	}
	doc.Scope = sc
	doc.Version++
	doc.Body = slices.Clone(doc.Body)
	doc.UpdatedAt = doc.UpdatedAt.UTC()
	s.docs[k] = doc
	return doc.Version, nil
}

// DeleteState implements mnemo.StateStore.
func (s *Store) DeleteState(_ context.Context, sc mnemo.Scope, kind, id string, version int64) (bool, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := docKey{sc, kind, id}
	d, ok := s.docs[k]
	if !ok {
		return false, nil
	}
	if version != 0 && d.Version != version {
		return false, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile", kind, id)
	}
	delete(s.docs, k)
	return true, nil
}

// ListState implements mnemo.StateStore.
func (s *Store) ListState(_ context.Context, sc mnemo.Scope, kind string) ([]mnemo.StateDoc, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []mnemo.StateDoc
	for k, d := range s.docs {
		if k.scope == sc && k.kind == kind {
			d.Body = slices.Clone(d.Body)
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b mnemo.StateDoc) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// IdleState implements mnemo.StateStore.
func (s *Store) IdleState(_ context.Context, kind string, before time.Time, n int) ([]mnemo.StateDoc, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []mnemo.StateDoc
	for k, d := range s.docs {
		if k.kind == kind && d.UpdatedAt.Before(before) {
			d.Body = slices.Clone(d.Body)
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b mnemo.StateDoc) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}
