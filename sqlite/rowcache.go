package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// rowCacheBytes bounds the memory the decoded rows of rowCache hold: a
// few thousand rows of conversation turns with their vectors, the working
// set of the agents recalling now.
const rowCacheBytes = 32 << 20

// rowCache keeps the memory rows that searches loaded by seq, decoded,
// across requests. Recall asks the same agent's memories again and
// again, and reading a row back (its content, data and vector) is most of
// a search's cost (PERF-10); checking that a kept row is still the stored
// one costs a fifth of that.
//
// A kept row is never trusted on its own: every read asks the table,
// through the read's own filter, for each row's stamp and its volatile
// columns (rowStamp, rowVolatile), and uses the kept row only when the
// stamp is the stored one. So a write of any connection or process is
// seen at once (API-16), a row the filter leaves out is left out, and the
// cache changes what a read costs, never what it answers. The stamp changes
// with every write of a row's other columns: arrival is the history seq
// of the write that stored it (never reused), and vector_rev and
// embedding_model change with its vector. The columns written in place
// otherwise (access, lifecycle) are read with the stamp each time.
//
// It holds two generations of rows, at most rowCacheBytes in all: rows
// go into the newer, a row read from the older moves to the newer, and
// when the newer is full the older is dropped.
type rowCache struct {
	mu       sync.Mutex
	cur, old map[int64]*keptRow
	curBytes int
	budget   int // bytes of one generation
}

// keptRow is a decoded row and the stamp it was read with.
type keptRow struct {
	m     mnemo.Memory
	stamp rowStamp
	size  int
}

// rowStamp identifies what a memory row holds besides rowVolatile.
type rowStamp struct {
	arrival   int64
	vectorRev sql.NullInt64
	model     string
}

// rowVolatile are the columns written in place without a new stamp: an
// access (Touch) and the lifecycle's (ApplyLife).
type rowVolatile struct {
	archived    bool
	accessedAt  sql.NullInt64
	accessCount int
	vitality    float64
	stability   float64
	validTo     sql.NullInt64
}

// stampColumns and volatileColumns are read by a check of kept rows;
// stampColumns also by a load.
const (
	stampColumns    = `m.arrival, m.vector_rev, m.embedding_model`
	volatileColumns = `m.archived, m.accessed_at, m.access_count, m.vitality, m.stability, m.valid_to`
)

func newRowCache(bytes int) *rowCache {
	return &rowCache{cur: make(map[int64]*keptRow), budget: bytes / 2}
}

// get returns the row kept for seq, or nil.
func (c *rowCache) get(seq int64) *keptRow {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.cur[seq]; r != nil {
		return r
	}
	r := c.old[seq]
	if r != nil {
		delete(c.old, seq)
		c.add(seq, r)
	}
	return r
}

// put keeps r for seq.
func (c *rowCache) put(seq int64, r *keptRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.old, seq)
	if prev := c.cur[seq]; prev != nil {
		c.curBytes -= prev.size
	}
	c.add(seq, r)
}

func (c *rowCache) add(seq int64, r *keptRow) {
	if c.curBytes+r.size > c.budget && len(c.cur) > 0 {
		c.old, c.cur, c.curBytes = c.cur, make(map[int64]*keptRow, len(c.cur)), 0
	}
	c.cur[seq] = r
	c.curBytes += r.size
}

// keep returns m as a kept row with its stamp.
func keep(m *mnemo.Memory, stamp rowStamp) *keptRow {
	size := 512 + len(m.ID) + len(m.Key) + len(m.SessionID) + len(m.Content) + len(m.Data) + len(m.Summary) +
		len(m.Source) + 4*len(m.Embedding)
	for _, s := range m.Tags {
		size += 16 + len(s)
	}
	for _, s := range m.Entities {
		size += 16 + len(s)
	}
	return &keptRow{m: *cloneMemory(m), stamp: stamp, size: size}
}

// memory returns a copy of the kept row with the volatile columns v.
func (r *keptRow) memory(v *rowVolatile) *mnemo.Memory {
	m := cloneMemory(&r.m)
	m.Archived, m.AccessCount, m.Vitality, m.Stability = v.archived, v.accessCount, v.vitality, v.stability
	m.AccessedAt = time.Time{}
	if v.accessedAt.Valid {
		m.AccessedAt = sqlrow.FromNanos(v.accessedAt.Int64)
	}
	m.ValidTo = nil
	if v.validTo.Valid {
		t := sqlrow.FromNanos(v.validTo.Int64)
		m.ValidTo = &t
	}
	return m
}

// cloneMemory returns a copy of m that shares nothing a caller could
// change with it: a kept row is never changed by what a reader does with
// its copy.
func cloneMemory(m *mnemo.Memory) *mnemo.Memory {
	c := *m
	c.Data = slices.Clone(c.Data)
	c.Source = slices.Clone(c.Source)
	c.Tags = slices.Clone(c.Tags)
	c.Entities = slices.Clone(c.Entities)
	c.Embedding = slices.Clone(c.Embedding)
	if c.ExpiresAt != nil {
		t := *c.ExpiresAt
		c.ExpiresAt = &t
	}
	if c.ValidTo != nil {
		t := *c.ValidTo
		c.ValidTo = &t
	}
	if c.Occurred != nil {
		o := *c.Occurred
		if o.Recurrence != nil {
			rec := *o.Recurrence
			rec.Weekdays = slices.Clone(rec.Weekdays)
			o.Recurrence = &rec
		}
		c.Occurred = &o
	}
	return &c
}

// loadSeqs reads the memories at seqs that w selects: found[i] is the
// memory at seqs[i], or nil when w leaves it out or it is gone. Rows kept
// by the row cache are checked rather than read again (rowCache).
func (db *DB) loadSeqs(ctx context.Context, seqs []int64, w *where) (found []*mnemo.Memory, err error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	found = make([]*mnemo.Memory, len(seqs))
	at := make(map[int64]int, len(seqs))
	var (
		kept  map[int64]*keptRow
		check []int64
		load  []int64
	)
	for i, s := range seqs {
		at[s] = i
	}
	for s := range at {
		if r := db.rows.get(s); r != nil {
			if kept == nil {
				kept = make(map[int64]*keptRow)
			}
			kept[s] = r
			check = append(check, s)
		} else {
			load = append(load, s)
		}
	}
	if len(check) > 0 {
		stale, err := db.checkKept(ctx, check, w, kept, at, found)
		if err != nil {
			return nil, err
		}
		load = append(load, stale...)
	}
	if len(load) == 0 {
		return found, nil
	}
	// CROSS JOIN looks each memory up by seq; a plain IN would let the
	// planner walk the scope's index instead.
	rows, err := db.readStmts.QueryContext(ctx, `SELECT `+memoryColumns+`, m.seq, `+stampColumns+`
		FROM json_each(?) AS j CROSS JOIN memories m ON m.seq = j.value WHERE `+w.String(),
		append([]any{seqList(load)}, w.args...)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq   int64
			stamp rowStamp
		)
		m, err := scanMemory(rows, &seq, &stamp.arrival, &stamp.vectorRev, &stamp.model)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		db.rows.put(seq, keep(&m, stamp))
		found[at[seq]] = &m
		db.rowsRead.Add(1)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return found, nil
}

// checkKept asks the table for the stamp and volatile columns of the kept
// rows at seqs that w selects, sets found for those whose stamp still
// holds, and returns the seqs of the stale ones, to load.
func (db *DB) checkKept(ctx context.Context, seqs []int64, w *where, kept map[int64]*keptRow, at map[int64]int, found []*mnemo.Memory) (stale []int64, err error) {
	rows, err := db.readStmts.QueryContext(ctx, `SELECT m.seq, `+stampColumns+`, `+volatileColumns+`
		FROM json_each(?) AS j CROSS JOIN memories m ON m.seq = j.value WHERE `+w.String(),
		append([]any{seqList(seqs)}, w.args...)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq   int64
			stamp rowStamp
			v     rowVolatile
		)
		if err := rows.Scan(&seq, &stamp.arrival, &stamp.vectorRev, &stamp.model,
			&v.archived, &v.accessedAt, &v.accessCount, &v.vitality, &v.stability, &v.validTo); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		r := kept[seq]
		if r == nil || r.stamp != stamp {
			stale = append(stale, seq)
			continue
		}
		found[at[seq]] = r.memory(&v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return stale, nil
}
