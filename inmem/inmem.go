// Package inmem is the in-memory store, a mnemo.Store held in memory
// (not the memory service, which is package memory): maps by scope, id and
// key, every key's history, an inverted index over the analysed index text
// scored with BM25 as SQLite's FTS5 scores it, and exact cosine search over
// the vectors. It is the backend of mock mode, and the in-memory indexes of
// the files store, which folds its log into one on open.
//
// It is also a mnemo.LifecycleStore, a mnemo.StateStore and a
// mnemo.VectorStore, passes the storetest suite, and is safe for concurrent
// use: reads share a read lock, writes take the write lock for the time of
// the change only.
//
// Memories handed back share their slices (Tags, Data, Source, Embedding)
// with the store: callers must not modify them in place.
package inmem

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/filter"
)

// Options configure a Store.
type Options struct {
	// Now is the clock; nil means time.Now. A write's time can also be
	// pinned per call with WithNow.
	Now func() time.Time
}

// Store is an in-memory mnemo.Store. The zero value is not usable; call New.
type Store struct {
	mu     sync.RWMutex
	clock  func() time.Time
	scopes map[mnemo.Scope]*scope
	order  []mnemo.Scope     // scopes in the order first written
	ids    map[string]*row   // every row, live or tombstone, of every scope
	space  mnemo.VectorSpace // zero until set
	docs   map[docKey]mnemo.StateDoc

	seq       int64 // orders history revisions and arrivals
	rowSeq    int64 // numbers rows as they are inserted
	ledgerSeq int64
}

var (
	_ mnemo.Store          = (*Store)(nil)
	_ mnemo.LifecycleStore = (*Store)(nil)
	_ mnemo.StateStore     = (*Store)(nil)
	_ mnemo.ContextIndexer = (*Store)(nil)
	_ mnemo.VectorStore    = (*Store)(nil)
)

// scope is one tenant and agent's memories.
type scope struct {
	id     mnemo.Scope
	listed bool            // in Store.order: memories were written to it
	keys   map[string]*row // rows with a key, live or tombstone
	rows   map[string]*row // by id, live or tombstone
	hist   map[string][]*mnemo.Revision
	ledger []mnemo.LedgerEntry

	// The lexical index: term -> the rows with it, and its frequency in
	// their text, context and meta. A row knows where it is in each list
	// (row.pos), so that it leaves them in constant time.
	// Postings name rows by number (slots), so that the lists hold no
	// pointers: the garbage collector skips them, which at 100,000
	// memories is most of the index.
	post     map[string]*[]posting // a pointer: appending needs one map lookup
	slots    []*row                // rows in the index by number
	free     []int32               // numbers to reuse
	scratch  map[string]int        // index's, reused
	live     int                   // live rows, the documents of BM25
	totalLen int64                 // their tokens
}

type freq [3]uint16

type posting struct {
	n  int32 // the row's slot
	ti int32 // the term's index in the row's distinct terms (row.pos)
	f  freq
}

// row is a memory, or a tombstone of its key.
type row struct {
	sc        *scope
	m         mnemo.Memory
	tomb      bool
	idx       mnemo.IndexText
	slot      int32   // in scope.slots, while indexed
	pos       []int32 // where the row is in each of its terms' posting lists
	length    int     // tokens in all three columns
	embed     string  // the text the vector is made from
	vectored  bool    // m.Embedding is in the store's vector space
	norm      float64 // of m.Embedding, when vectored
	seq       int64   // insertion order of the row
	arrival   int64   // history seq of the write that last changed it
	dataExp   time.Time
	hasExpiry bool // dataExp is set
}

type docKey struct {
	scope    mnemo.Scope
	kind, id string
}

// New returns an empty store.
func New(opts Options) *Store {
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	return &Store{
		clock:  clock,
		scopes: make(map[mnemo.Scope]*scope),
		ids:    make(map[string]*row),
		docs:   make(map[docKey]mnemo.StateDoc),
	}
}

type nowKey struct{}

// WithNow returns a context whose writes happen at t: the time of their
// history revisions, default creation times and ledger entries. The files
// store replays its log with it, so that a replayed write is the write
// that was made.
func WithNow(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, nowKey{}, t.UTC())
}

func (s *Store) now(ctx context.Context) time.Time {
	if t, ok := ctx.Value(nowKey{}).(time.Time); ok {
		return t
	}
	return s.clock().UTC()
}

// Close does nothing: the memories go with the store.
func (s *Store) Close() error { return nil }

// scope returns the data of sc, nil when it was never written.
func (s *Store) scope(sc mnemo.Scope) *scope { return s.scopes[sc] }

func (s *Store) scopeFor(sc mnemo.Scope) *scope {
	d := s.scopes[sc]
	if d == nil {
		d = &scope{
			id:   sc,
			keys: make(map[string]*row),
			rows: make(map[string]*row),
			hist: make(map[string][]*mnemo.Revision),
			post: make(map[string]*[]posting),
		}
		s.scopes[sc] = d
	}
	return d
}

// tf is a distinct term of a row and its frequency in each column.
type tf struct {
	t string
	f freq
}

// terms returns the distinct terms of r's index text, in the order they
// first appear, with their frequencies, and the number of tokens. The
// caller holds the write lock (scratch is shared).
func (sc *scope) terms(r *row, fs []tf) ([]tf, int) {
	if sc.scratch == nil {
		sc.scratch = make(map[string]int)
	}
	seen := sc.scratch
	clear(seen)
	n := 0
	for c, text := range [3]string{r.idx.Text, r.idx.Context, r.idx.Meta} {
		for t := range strings.FieldsSeq(text) {
			n++
			i, ok := seen[t]
			if !ok {
				i = len(fs)
				seen[t] = i
				fs = append(fs, tf{t: t})
			}
			if fs[i].f[c] < math.MaxUint16 {
				fs[i].f[c]++
			}
		}
	}
	return fs, n
}

// index adds the live row r to its scope's lexical index.
func (sc *scope) index(r *row) {
	var buf [64]tf
	fs, n := sc.terms(r, buf[:0])
	r.length = n
	if k := len(sc.free); k > 0 {
		r.slot = sc.free[k-1]
		sc.free = sc.free[:k-1]
		sc.slots[r.slot] = r
	} else {
		r.slot = int32(len(sc.slots))
		sc.slots = append(sc.slots, r)
	}
	r.pos = make([]int32, len(fs))
	for i, x := range fs {
		p := sc.post[x.t]
		if p == nil {
			p = new([]posting)
			sc.post[x.t] = p
		}
		r.pos[i] = int32(len(*p))
		*p = append(*p, posting{n: r.slot, ti: int32(i), f: x.f})
	}
	sc.live++
	sc.totalLen += int64(r.length)
}

// unindex removes the live row r from the lexical index. Its terms are
// found again from its index text, in the same order.
func (sc *scope) unindex(r *row) {
	var buf [64]tf
	fs, _ := sc.terms(r, buf[:0])
	for ti, x := range fs {
		pp := sc.post[x.t]
		p := *pp
		i, last := r.pos[ti], int32(len(p)-1)
		if i != last {
			p[i] = p[last]
			sc.slots[p[i].n].pos[p[i].ti] = i
		}
		p[last] = posting{}
		if last == 0 {
			delete(sc.post, x.t)
		} else {
			*pp = p[:last]
		}
	}
	sc.slots[r.slot] = nil
	sc.free = append(sc.free, r.slot)
	r.pos = nil
	sc.live--
	sc.totalLen -= int64(r.length)
}

// setMemory stores m in r with its derived fields.
func (r *row) setMemory(m mnemo.Memory) {
	r.m = m
	r.dataExp, r.hasExpiry = mnemo.DataExpiredAt(m.Data)
}

// out returns r's memory as a caller gets it.
func (r *row) out(noVector bool) mnemo.Memory {
	m := r.m
	if noVector {
		m.Embedding = nil
	}
	return m
}

// clean returns m as the store keeps it: times in UTC, slices its own.
func clean(m mnemo.Memory) mnemo.Memory {
	m.CreatedAt = m.CreatedAt.UTC()
	m.UpdatedAt = m.UpdatedAt.UTC()
	if !m.AccessedAt.IsZero() {
		m.AccessedAt = m.AccessedAt.UTC()
	}
	if m.ExpiresAt != nil {
		t := m.ExpiresAt.UTC()
		m.ExpiresAt = &t
	}
	m.Tags = slices.Clone(m.Tags)
	m.Data = cloneRaw(m.Data)
	m.Source = cloneRaw(m.Source)
	m.Embedding = slices.Clone(m.Embedding)
	return m
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return nil
	}
	return slices.Clone(r)
}

// matches reports whether the live row r passes f at now.
func (r *row) matches(f *mnemo.Filter, now time.Time) bool {
	if r.tomb {
		return false
	}
	return filter.Match(f, &r.m, now) && (f.IncludeExpired || !r.hasExpiry || now.Before(r.dataExp))
}

// filterNow is the time expiry is judged at.
func (s *Store) filterNow(f *mnemo.Filter) time.Time {
	if f.Now.IsZero() {
		return s.clock().UTC()
	}
	return f.Now
}
