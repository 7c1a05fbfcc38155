package inmem

import (
	"cmp"
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
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
	l := NewLoader(opts)
	l.Header(snap.Space, snap.Seq, snap.RowSeq, snap.LedgerSeq, snap.Scopes)
	for i := range snap.Rows {
		l.Row(&snap.Rows[i])
	}
	for _, rev := range snap.Revisions {
		l.Revision(rev)
	}
	for _, e := range snap.Ledger {
		l.Ledger(e)
	}
	for _, d := range snap.Docs {
		l.Doc(d)
	}
	return l.Store()
}

// Loader builds a store from a snapshot read a piece at a time, so that a
// reader can index rows while it decodes the next ones. Calls must not
// overlap; Store ends the load.
type Loader struct{ s *Store }

// NewLoader returns a loader of an empty store.
func NewLoader(opts Options) *Loader { return &Loader{s: New(opts)} }

// Header sets what the snapshot holds besides its items.
func (l *Loader) Header(space mnemo.VectorSpace, seq, rowSeq, ledgerSeq int64, scopes []mnemo.Scope) {
	s := l.s
	s.space, s.seq, s.rowSeq, s.ledgerSeq = space, seq, rowSeq, ledgerSeq
	for _, sc := range scopes {
		if d := s.scopeFor(sc); !d.listed {
			d.listed = true
			s.order = append(s.order, sc)
		}
	}
}

// Row adds a row; rows come in the order of their Seq.
func (l *Loader) Row(src *Row) {
	s := l.s
	d := s.scopeFor(src.Memory.Scope())
	r := &row{sc: d, tomb: src.Tombstone, idx: src.Index, embed: src.Embed, vectored: src.Vectored, seq: src.Seq, arrival: src.Arrival}
	r.setMemory(src.Memory)
	if r.vectored {
		r.norm = vector.Norm(r.m.Embedding)
	}
	d.rows[r.m.ID] = r
	s.ids[r.m.ID] = r
	if r.m.Key != "" {
		d.keys[r.m.Key] = r
	}
	if !r.tomb {
		d.index(r)
	}
	s.seq, s.rowSeq = max(s.seq, src.Arrival), max(s.rowSeq, src.Seq)
}

// Revision adds a revision; revisions come in the order of their Seq.
func (l *Loader) Revision(rev Revision) {
	d := l.s.scopeFor(rev.Scope)
	r := rev.Revision
	d.hist[r.Key] = append(d.hist[r.Key], &r)
	l.s.seq = max(l.s.seq, r.Seq)
}

// Ledger adds a ledger entry; entries come in the order of their Seq.
func (l *Loader) Ledger(e mnemo.LedgerEntry) {
	d := l.s.scopeFor(mnemo.Scope{TenantID: e.TenantID, AgentID: e.AgentID})
	d.ledger = append(d.ledger, e)
	l.s.ledgerSeq = max(l.s.ledgerSeq, e.Seq)
}

// Doc adds a state document.
func (l *Loader) Doc(doc mnemo.StateDoc) {
	l.s.docs[docKey{doc.Scope, doc.Kind, doc.ID}] = doc
}

// Store returns the loaded store.
func (l *Loader) Store() *Store { return l.s }
