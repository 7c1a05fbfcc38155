package memstore

import (
	"cmp"
	"slices"

	"github.com/mnemo-dev/mnemo"
)

// Snapshot is everything a Store holds, for a store that keeps it
// elsewhere (the files store writes it to state.jsonl on compaction and
// restores it on open). Restore(Snapshot()) answers every call as the
// store did.
type Snapshot struct {
	Space     mnemo.VectorSpace
	Seq       int64 // the last history seq
	RowSeq    int64 // the last row seq
	LedgerSeq int64 // the last ledger seq
	Scopes    []mnemo.Scope
	Rows      []Row      // by Seq
	Revisions []Revision // by Seq
	Ledger    []mnemo.LedgerEntry
	Docs      []mnemo.StateDoc
}

// Row is one memory or tombstone as the store keeps it.
type Row struct {
	Memory    mnemo.Memory // with its tenant and agent
	Tombstone bool
	Index     mnemo.IndexText
	Embed     string
	Vectored  bool
	Seq       int64
	Arrival   int64
}

// Revision is one history revision with its scope.
type Revision struct {
	Scope mnemo.Scope
	mnemo.Revision
}

// Snapshot returns a copy of everything the store holds.
func (s *Store) Snapshot() *Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	snap := &Snapshot{
		Space: s.space, Seq: s.seq, RowSeq: s.rowSeq, LedgerSeq: s.ledgerSeq,
		Scopes: slices.Clone(s.order),
		Rows:   make([]Row, 0, len(s.ids)),
	}
	for _, r := range s.ids {
		snap.Rows = append(snap.Rows, Row{Memory: r.m, Tombstone: r.tomb, Index: r.idx, Embed: r.embed, Vectored: r.vectored, Seq: r.seq, Arrival: r.arrival})
	}
	slices.SortFunc(snap.Rows, func(a, b Row) int { return cmp.Compare(a.Seq, b.Seq) })
	for sc, d := range s.scopes {
		for _, h := range d.hist {
			for _, rev := range h {
				snap.Revisions = append(snap.Revisions, Revision{Scope: sc, Revision: *rev})
			}
		}
		snap.Ledger = append(snap.Ledger, d.ledger...)
	}
	slices.SortFunc(snap.Revisions, func(a, b Revision) int { return cmp.Compare(a.Seq, b.Seq) })
	slices.SortFunc(snap.Ledger, func(a, b mnemo.LedgerEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, d := range s.docs {
		snap.Docs = append(snap.Docs, d)
	}
	slices.SortFunc(snap.Docs, func(a, b mnemo.StateDoc) int {
		return cmp.Or(cmp.Compare(a.Scope.TenantID, b.Scope.TenantID), cmp.Compare(a.Scope.AgentID, b.Scope.AgentID),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return snap
}

// Restore returns a store holding snap.
func Restore(snap *Snapshot, opts Options) *Store {
	s := New(opts)
	s.space, s.seq, s.rowSeq, s.ledgerSeq = snap.Space, snap.Seq, snap.RowSeq, snap.LedgerSeq
	for _, sc := range snap.Scopes {
		s.scopeFor(sc).listed = true
	}
	s.order = slices.Clone(snap.Scopes)
	for i := range snap.Rows {
		src := &snap.Rows[i]
		d := s.scopeFor(src.Memory.Scope())
		r := &row{sc: d, tomb: src.Tombstone, idx: src.Index, embed: src.Embed, vectored: src.Vectored, seq: src.Seq, arrival: src.Arrival}
		r.setMemory(src.Memory)
		d.rows[r.m.ID] = r
		s.ids[r.m.ID] = r
		if r.m.Key != "" {
			d.keys[r.m.Key] = r
		}
		if !r.tomb {
			d.index(r)
		}
	}
	for _, rev := range snap.Revisions {
		d := s.scopeFor(rev.Scope)
		r := rev.Revision
		d.hist[r.Key] = append(d.hist[r.Key], &r)
	}
	for _, e := range snap.Ledger {
		sc := mnemo.Scope{TenantID: e.TenantID, AgentID: e.AgentID}
		d := s.scopeFor(sc)
		d.ledger = append(d.ledger, e)
	}
	for _, doc := range snap.Docs {
		s.docs[docKey{doc.Scope, doc.Kind, doc.ID}] = doc
	}
	return s
}
