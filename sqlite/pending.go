package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mnemo-dev/mnemo/vector"
)

// The vectors a scope's index lacks are scored exactly by every search
// (scorePending). Read from the table, that is a row and a blob a vector:
// right after a bulk load, the newest pendingScan rows of every search
// (344 ms a recall at 100k memories, issue 20). So each write that stores
// vectors also keeps them, unit length, in its scope's pending buffer, which
// a search scores without reading a row, and which the indexer empties as
// it inserts them.
//
// The buffer is only an optimisation: a search uses it when it is sure to
// hold what scorePending would read, the newest pendingScan live vectors
// the index lacks, and whether there are more; otherwise it reads the rows
// as before. It holds only what this process stored: after a restart, or
// a write by another process, it is not trusted until the indexer has
// inserted everything older (annIndexes.known, gapAt).

// trustEmpty lets the pending buffers answer from the store's vector rev
// on when the store holds no vector: there is none for them to miss, and a
// bulk load into a new store is scored from them before the indexer has
// caught up once. The rev and the emptiness are read in one statement, so
// that another process's write is either counted or above known.
func (db *DB) trustEmpty(ctx context.Context) error {
	var (
		rev   int64
		empty bool
	)
	err := db.reader.QueryRowContext(ctx, `SELECT coalesce((SELECT rev FROM vector_space WHERE id = 1), 0),
		NOT EXISTS (SELECT 1 FROM memories WHERE vector_rev IS NOT NULL)`).Scan(&rev, &empty)
	if err != nil {
		return fmt.Errorf("sqlite: vector space: %w", err)
	}
	if empty {
		a := db.vectors
		a.mu.Lock()
		a.known, a.gapAt = rev, 0
		a.mu.Unlock()
	}
	return nil
}

// storedVec is a vector a write committed: the memory's seq, the vector's
// rev, and the vector as stored.
type storedVec struct {
	seq, rev int64
	v        []float32
}

// pendingBytes bounds the vectors of every pending buffer of a DB
// together: about 21 scopes' full buffers at 612 dimensions.
const pendingBytes = 256 << 20

// pendingBuffer holds a scope's vectors stored by this process and not yet
// inserted into its index, at most a pendingScan of them (about 12 MB at
// 612 dimensions and the default 5,000, a scope with vectors pending), and
// while the buffers of the DB together hold more than pendingBytes, a
// scope adding vectors gives up its oldest: on overflow the oldest leave
// it, and it notes that it holds only the newest.
type pendingBuffer struct {
	used *atomic.Int64 // the bytes of vectors in every buffer of the DB
	mu   sync.RWMutex
	// entries are by rev, oldest first; dead ones (deleted, replaced,
	// evicted) wait there for the next trim or compaction.
	entries []pendingEntry
	bySeq   map[int64]int64 // the rev of each seq's live entry
	live    int             // entries not dead
	// evicted is the highest rev that left the buffer for room, not
	// inserted: while the index lacks it, older vectors are pending that
	// the buffer does not hold.
	evicted int64
	// uncounted: a seq was deleted or given a new vector that may have
	// been one of the evicted, so whether any evicted vector is still
	// pending is unknown (until the indexer passes evicted).
	uncounted bool
	maxSeq    int64 // the highest seq recorded: a lower one not held is a rewrite
}

type pendingEntry struct {
	seq, rev int64
	v        []float32 // unit length; nil for a vector with no direction
	dead     bool
}

func newPendingBuffer(used *atomic.Int64) *pendingBuffer {
	return &pendingBuffer{used: used, bySeq: make(map[int64]int64)}
}

// unit returns v scaled to unit length, as scorePending's cosine divides
// by the norms, or nil if v has no direction.
func unit(v []float32) []float32 {
	n := vector.Norm(v)
	if !(n > 0) || !hasDirection(v) {
		return nil
	}
	u := make([]float32, len(v))
	for i, f := range v {
		u[i] = float32(float64(f) / n)
	}
	return u
}

// add records vecs, stored in one commit, in rev order. at is the index's
// current rev, bound the most live entries to keep and budget the most
// bytes of every buffer together.
func (p *pendingBuffer) add(vecs []storedVec, at int64, bound int, budget int64) {
	// Normalise outside the lock, as searches read the buffer meanwhile,
	// and only what stays: a seq's last vector, the newest bound of them
	// (a bulk load stores many more).
	units := make([][]float32, len(vecs))
	last := make(map[int64]bool, min(len(vecs), bound))
	for i := len(vecs) - 1; i >= 0 && len(last) < bound; i-- {
		if !last[vecs[i].seq] {
			last[vecs[i].seq] = true
			units[i] = unit(vecs[i].v)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, sv := range vecs {
		if r, ok := p.bySeq[sv.seq]; ok {
			p.kill(r) // a rewrite: the row holds only the new vector
		} else if sv.seq <= p.maxSeq && p.evicted > at {
			p.uncounted = true
		}
		e := pendingEntry{seq: sv.seq, rev: sv.rev, v: units[i]}
		if n := len(p.entries); n == 0 || p.entries[n-1].rev < sv.rev {
			p.entries = append(p.entries, e)
		} else {
			// Commits are recorded in order (annIndexes.pub); this keeps
			// the order should one ever come late.
			j, _ := slices.BinarySearchFunc(p.entries, sv.rev, func(e pendingEntry, r int64) int { return cmp.Compare(e.rev, r) })
			p.entries = slices.Insert(p.entries, j, e)
		}
		p.bySeq[sv.seq] = sv.rev
		p.used.Add(int64(4 * len(e.v)))
		p.live++
		p.maxSeq = max(p.maxSeq, sv.seq)
	}
	p.trimLocked(at)
	for i := 0; (p.live > bound || p.used.Load() > budget) && i < len(p.entries); i++ {
		if e := &p.entries[i]; !e.dead && e.rev > at {
			p.evicted = max(p.evicted, e.rev)
			p.die(e)
		}
	}
	p.trimLocked(at)
}

// kill marks the live entry of rev dead.
func (p *pendingBuffer) kill(rev int64) {
	i, ok := slices.BinarySearchFunc(p.entries, rev, func(e pendingEntry, r int64) int { return cmp.Compare(e.rev, r) })
	if !ok || p.entries[i].dead {
		return
	}
	p.die(&p.entries[i])
}

// die marks e, live, dead.
func (p *pendingBuffer) die(e *pendingEntry) {
	p.used.Add(-int64(4 * len(e.v)))
	e.dead, e.v = true, nil
	if p.bySeq[e.seq] == e.rev {
		delete(p.bySeq, e.seq)
	}
	p.live--
}

// clear empties p, which is dropped: its scope was cleared or the vector
// space changed.
func (p *pendingBuffer) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.entries {
		if e := &p.entries[i]; !e.dead {
			p.die(e)
		}
	}
	p.entries = nil
}

// remove drops seq, deleted or left without a vector; inIndex says the
// index held it, so that it was not an evicted pending vector.
func (p *pendingBuffer) remove(seq int64, inIndex bool, at int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.bySeq[seq]; ok {
		p.kill(r)
	} else if !inIndex && p.evicted > at {
		p.uncounted = true
	}
}

// trim drops the entries the index holds: those up to at.
func (p *pendingBuffer) trim(at int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trimLocked(at)
}

func (p *pendingBuffer) trimLocked(at int64) {
	i := 0
	for ; i < len(p.entries) && (p.entries[i].rev <= at || p.entries[i].dead); i++ {
		if e := &p.entries[i]; !e.dead {
			p.die(e)
		}
	}
	if i > 0 {
		p.entries = slices.Delete(p.entries, 0, i)
	}
	if len(p.entries) > 64 && p.live < len(p.entries)/2 {
		p.entries = slices.DeleteFunc(p.entries, func(e pendingEntry) bool { return e.dead })
	}
	if p.evicted <= at {
		p.uncounted = false // nothing evicted is pending any more
	}
}

// score scores q, of unit length or nil for a query with no direction,
// against the newest scan vectors stored after at, as scorePending does,
// best first; more reports that others are pending. ok is false when the
// buffer cannot tell which vectors those are: the caller reads the rows.
func (p *pendingBuffer) score(q []float32, at int64, scan int) (out []vector.Result, more, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := 0 // live entries after at
	for i := len(p.entries) - 1; i >= 0 && p.entries[i].rev > at; i-- {
		if !p.entries[i].dead {
			n++
		}
	}
	switch older := p.evicted > at; {
	case n > scan:
		more = true
	case older && (n < scan || p.uncounted):
		// scorePending would read some of the evicted vectors, or the
		// buffer cannot tell whether any is left.
		return nil, false, false
	default:
		more = older
	}
	if q == nil {
		return nil, more, true
	}
	out = make([]vector.Result, 0, min(n, scan))
	seen := 0
	for i := len(p.entries) - 1; i >= 0 && seen < scan; i-- {
		e := &p.entries[i]
		if e.rev <= at {
			break
		}
		if e.dead {
			continue
		}
		seen++
		if e.v != nil && len(e.v) == len(q) {
			out = append(out, vector.Result{ID: uint64(e.seq), Score: vector.Dot(q, e.v)})
		}
	}
	slices.SortFunc(out, func(a, b vector.Result) int { return cmp.Compare(b.Score, a.Score) })
	return out, more, true
}
