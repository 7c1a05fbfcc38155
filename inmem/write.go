package inmem

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// Write applies recs atomically. See mnemo.Store; the rules are those of
// the sqlite store: last write wins by UpdatedAt, then by arrival; an
// upsert keeps the stored id, creation and access; a put on a tombstoned
// key is a new memory; ids are unique across scopes.
func (s *Store) Write(ctx context.Context, sc mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	return s.write(ctx, sc, recs, false)
}

// Replace changes a keyless memory in place. See mnemo.Store.Replace.
func (s *Store) Replace(ctx context.Context, sc mnemo.Scope, rec mnemo.Record) (mnemo.Memory, error) {
	if rec.Memory.Key != "" || rec.Tombstone || rec.Memory.ID == "" {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.EINVALID, "replace takes a keyless memory with its id")
	}
	ms, err := s.write(ctx, sc, []mnemo.Record{rec}, true)
	if err != nil {
		return mnemo.Memory{}, err
	}
	return ms[0], nil
}

// write is Write; with replace, each keyless record replaces the live
// memory with its id (ENOTFOUND when there is none).
func (s *Store) write(ctx context.Context, sc mnemo.Scope, recs []mnemo.Record, replace bool) ([]mnemo.Memory, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	// Checks that need no state come first; those that do (an id taken)
	// undo what the batch did so far.
	for i := range recs {
		m := &recs[i].Memory
		if (m.TenantID != "" && m.TenantID != sc.TenantID) || (m.AgentID != "" && m.AgentID != sc.AgentID) {
			return nil, mnemo.Errorf(mnemo.EINVALID, "record %d: memory %s belongs to another tenant or agent", i, m.ID)
		}
		if recs[i].Tombstone && m.Key == "" {
			return nil, mnemo.Errorf(mnemo.EINVALID, "record %d: a tombstone needs a key", i)
		}
	}
	now := s.now(ctx)
	prepared := make([]mnemo.Memory, len(recs))
	for i := range recs {
		// The range every store keeps (TIME-1): a memory moves between
		// stores unchanged, and none keeps a date another cannot.
		if err := mnemo.CheckMemoryTimes(&recs[i].Memory); err != nil {
			return nil, mnemo.WithPrefix(err, fmt.Sprintf("record %d: ", i))
		}
		m := clean(recs[i].Memory)
		m.TenantID, m.AgentID = sc.TenantID, sc.AgentID
		if m.ID == "" {
			id, err := uuid.NewV7()
			if err != nil {
				return nil, err
			}
			m.ID = id.String()
		}
		if m.CreatedAt.IsZero() {
			m.CreatedAt = now
		}
		if m.UpdatedAt.IsZero() {
			m.UpdatedAt = now
		}
		prepared[i] = m
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	var undo []func()
	rollback := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	d := s.scopeFor(sc)
	if !d.listed {
		d.listed = true
		s.order = append(s.order, sc)
		undo = append(undo, func() { d.listed = false; s.order = s.order[:len(s.order)-1] })
	}
	seq, rowSeq := s.seq, s.rowSeq
	undo = append(undo, func() { s.seq, s.rowSeq = seq, rowSeq })

	out := make([]*row, len(recs))
	for i := range recs {
		r, err := s.apply(d, &recs[i], prepared[i], now, replace, &undo)
		if err != nil {
			rollback()
			return nil, err
		}
		out[i] = r
	}
	ms := make([]mnemo.Memory, len(out))
	for i, r := range out {
		ms[i] = r.out(false)
	}
	return ms, nil
}

// apply writes one record and returns the row holding its result.
func (s *Store) apply(d *scope, rec *mnemo.Record, m mnemo.Memory, now time.Time, replace bool, undo *[]func()) (*row, error) {
	idx := rec.Index
	op := mnemo.OpPut
	if rec.Tombstone {
		op = mnemo.OpTombstone
		m.Content, m.Data, m.Summary = "", nil, ""
		m.Embedding, m.EmbeddingModel = nil, ""
		idx = mnemo.IndexText{}
	}
	var cur *row
	if m.Key != "" {
		cur = d.keys[m.Key]
	} else if replace {
		if cur = d.rows[m.ID]; cur == nil || cur.tomb || cur.m.Key != "" {
			return nil, mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", m.ID)
		}
	}
	if cur != nil && cur.m.UpdatedAt.After(m.UpdatedAt) {
		s.history(d, &m, op, false, now, undo)
		return cur, nil
	}
	upsert := cur != nil && (!cur.tomb || rec.Tombstone)
	prev := 0
	if upsert {
		m.ID, m.CreatedAt = cur.m.ID, cur.m.CreatedAt
		m.AccessedAt, m.AccessCount = cur.m.AccessedAt, cur.m.AccessCount
		prev = cur.m.Version
	}
	m.Version = mnemo.NextVersion(m.Version, upsert, prev)
	if other := s.ids[m.ID]; other != nil && other != cur {
		return nil, mnemo.Errorf(mnemo.ECONFLICT, "memory %s already exists", m.ID)
	}
	arrival := s.history(d, &m, op, true, now, undo)

	r := cur
	if r == nil {
		s.rowSeq++
		r = &row{sc: d, seq: s.rowSeq}
		d.rows[m.ID] = r
		s.ids[m.ID] = r
		if m.Key != "" {
			d.keys[m.Key] = r
		}
		*undo = append(*undo, func() {
			if !r.tomb {
				d.unindex(r)
			}
			delete(d.rows, r.m.ID)
			delete(s.ids, r.m.ID)
			if r.m.Key != "" {
				delete(d.keys, r.m.Key)
			}
		})
	} else {
		old := *r
		if !r.tomb {
			d.unindex(r)
		}
		delete(d.rows, old.m.ID)
		delete(s.ids, old.m.ID)
		d.rows[m.ID] = r
		s.ids[m.ID] = r
		*undo = append(*undo, func() {
			if !r.tomb {
				d.unindex(r)
			}
			delete(d.rows, r.m.ID)
			delete(s.ids, r.m.ID)
			*r = old
			d.rows[r.m.ID] = r
			s.ids[r.m.ID] = r
			if !r.tomb {
				d.index(r)
			}
		})
	}
	r.setMemory(m)
	r.tomb = rec.Tombstone
	r.idx = idx
	r.arrival = arrival
	r.embed, r.vectored, r.norm = "", false, 0
	if !rec.Tombstone {
		r.embed = rec.Embed
		if r.vectored = s.inSpace(r); r.vectored {
			r.norm = vector.Norm(r.m.Embedding)
		}
		d.index(r)
	}
	return r, nil
}

// inSpace reports whether r's embedding belongs to the store's vector
// space: only those are searched. Any other waits for the embedder.
func (s *Store) inSpace(r *row) bool {
	m := &r.m
	return r.embed != "" && len(m.Embedding) > 0 && s.space.Model != "" &&
		m.EmbeddingModel == s.space.Model && len(m.Embedding) == s.space.Dimension && finite(m.Embedding)
}

func finite(v []float32) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// history appends a revision of m (kept for keys: history is read by key)
// and returns its seq.
func (s *Store) history(d *scope, m *mnemo.Memory, op string, applied bool, now time.Time, undo *[]func()) int64 {
	s.seq++
	if m.Key == "" {
		return s.seq
	}
	rev := *m
	rev.Embedding = nil
	d.hist[m.Key] = append(d.hist[m.Key], &mnemo.Revision{
		Seq: s.seq, MemoryID: m.ID, Key: m.Key, Op: op, At: now, Applied: applied, Memory: &rev,
	})
	key := m.Key
	*undo = append(*undo, func() {
		h := d.hist[key]
		if len(h) == 1 {
			delete(d.hist, key)
		} else {
			d.hist[key] = h[:len(h)-1]
		}
	})
	return s.seq
}

// Touch records an access of the live memories ids at time at.
func (s *Store) Touch(ctx context.Context, sc mnemo.Scope, ids []string, at time.Time) error {
	if err := mnemo.CheckScope(sc); err != nil {
		return err
	}
	if at.IsZero() {
		at = s.now(ctx)
	}
	at = at.UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.scope(sc)
	if d == nil {
		return nil
	}
	for _, id := range ids {
		if r := d.rows[id]; r != nil && !r.tomb {
			r.m.AccessCount++
			r.m.AccessedAt = at
		}
	}
	return nil
}

// Forget deletes the memories ids and those of keys, live or tombstoned,
// and returns how many live memories it deleted. Their history keeps only
// one forget revision each.
func (s *Store) Forget(ctx context.Context, sc mnemo.Scope, ids, keys []string) (int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	now := s.now(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.scope(sc)
	if d == nil {
		return 0, nil
	}
	var rs []*row
	for _, id := range ids {
		if r := d.rows[id]; r != nil && !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	for _, k := range keys {
		if r := d.keys[k]; r != nil && !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	return s.delete(d, rs, mnemo.OpForget, now), nil
}

// Clear deletes every memory and tombstone of the scope and returns how
// many live memories it deleted.
func (s *Store) Clear(ctx context.Context, sc mnemo.Scope) (int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	now := s.now(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.scope(sc)
	if d == nil {
		return 0, nil
	}
	rs := make([]*row, 0, len(d.rows))
	for _, r := range d.rows {
		rs = append(rs, r)
	}
	return s.delete(d, rs, mnemo.OpClear, now), nil
}

// delete removes rs, in row order, blanking their keys' history and adding
// one revision of op each. It holds the lock.
func (s *Store) delete(d *scope, rs []*row, op string, now time.Time) int {
	slices.SortFunc(rs, func(a, b *row) int { return int(a.seq - b.seq) })
	n := 0
	for _, r := range rs {
		if !r.tomb {
			n++
			d.unindex(r)
		}
		delete(d.rows, r.m.ID)
		delete(s.ids, r.m.ID)
		s.seq++
		if k := r.m.Key; k != "" {
			delete(d.keys, k)
			for _, rev := range d.hist[k] {
				rev.Memory = nil
			}
			d.hist[k] = append(d.hist[k], &mnemo.Revision{Seq: s.seq, MemoryID: r.m.ID, Key: k, Op: op, At: now, Applied: true})
		}
		r.m = mnemo.Memory{} // nothing of it stays reachable
	}
	return n
}

// Found names a row Lookup found.
type Found struct {
	ID, Key   string
	Tombstone bool
}

// Lookup returns the rows, live or tombstone, that Forget(ids, keys) would
// delete, in row order: what a store that keeps a log records of a forget.
func (s *Store) Lookup(sc mnemo.Scope, ids, keys []string) []Found {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.scope(sc)
	if d == nil {
		return nil
	}
	var rs []*row
	for _, id := range ids {
		if r := d.rows[id]; r != nil && !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	for _, k := range keys {
		if r := d.keys[k]; r != nil && !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b *row) int { return int(a.seq - b.seq) })
	out := make([]Found, len(rs))
	for i, r := range rs {
		out[i] = Found{ID: r.m.ID, Key: r.m.Key, Tombstone: r.tomb}
	}
	return out
}

// WriteContexts writes recs and then sets the index context of the
// scope's live memories of ups, and the text their vectors are made from
// where an update gives one (mnemo.ContextIndexer, REC-36, REC-37).
func (s *Store) WriteContexts(ctx context.Context, sc mnemo.Scope, recs []mnemo.Record, ups []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	out, err := s.write(ctx, sc, recs, false)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.scope(sc)
	if d == nil {
		return out, nil
	}
	for _, u := range ups {
		r := d.rows[u.ID]
		if r == nil || r.tomb {
			continue
		}
		if u.Embed != "" && u.Embed != r.embed {
			r.embed = u.Embed
			r.m.Embedding, r.m.EmbeddingModel, r.vectored, r.norm = nil, "", false, 0
		}
		if r.idx.Context == u.Context {
			continue
		}
		d.unindex(r)
		r.idx.Context = u.Context
		d.index(r)
	}
	return out, nil
}
