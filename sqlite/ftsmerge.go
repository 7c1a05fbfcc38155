package sqlite

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo/internal/panics"
)

// The full-text index is a set of b-trees, segments: each write
// transaction adds one, and FTS5 merges them level by level as they
// accumulate. A search seeks every term of the query in every segment, and
// bm25 seeks each once more for its statistics: a store loaded in batches
// keeps several, and searches it measurably slower than the same index in
// one segment (PERF-2; figures in docs/BENCHMARKS.md).
//
// Merging every segment into one rewrites the whole index, so ftsMerger
// does it in the background once the writer has been quiet for a while, in
// steps of a few pages each its own transaction, yielding to recalls
// between them; and only when enough was written since the last merge that
// the rewrite costs each memory written little, or once after the store is
// opened, not knowing what was written before.
var (
	// ftsMergeIdle is how long the writer must have been quiet.
	ftsMergeIdle = 2 * time.Second
	// ftsMergeMinRows is how many rows must have been indexed or removed
	// since the last merge, at least, or else a hundredth of the index.
	ftsMergeMinRows int64 = 1000
)

const (
	// ftsMergeSegments is how many segments the index may keep unmerged:
	// FTS5's own merging leaves a few between bulk loads.
	ftsMergeSegments = 4
	// ftsMergeStep is how many pages one merge step writes, about 256 KB:
	// a write waits for at most one step.
	ftsMergeStep = 64
)

// ftsMerger merges the full-text index in the background.
type ftsMerger struct {
	db *DB

	mu      sync.Mutex
	written int64 // rows indexed or removed since the last merge
	due     bool  // merge once regardless of written: the store was just opened
	// erased counts the rows a forget or clear removed since the last
	// merge: FTS5 keeps a removed row's terms in its segments until they
	// are rewritten, so these are merged however few the segments are, and
	// with the writer's secure_delete the old pages are zeroed (API-12).
	erased  int64
	timer   *time.Timer
	running bool
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newFTSMerger(db *DB) *ftsMerger {
	ctx, cancel := context.WithCancel(context.Background())
	m := &ftsMerger{db: db, due: true, ctx: ctx, cancel: cancel}
	m.timer = time.AfterFunc(ftsMergeIdle, m.fire)
	return m
}

// wrote records that a committed transaction indexed or removed n rows of
// the full-text index, and puts the merge check off until the writer is
// quiet.
func (m *ftsMerger) wrote(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.written += n
	if !m.closed {
		m.timer.Reset(ftsMergeIdle)
	}
}

// forgot records that a committed forget or clear removed n rows of the
// full-text index: the next merge, once the writer is quiet, rewrites
// every segment, so that nothing of them stays in the file.
func (m *ftsMerger) forgot(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.erased += n
	if !m.closed {
		m.timer.Reset(ftsMergeIdle)
	}
}

// fire starts a merge check unless one runs.
func (m *ftsMerger) fire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.running {
		return
	}
	m.running = true
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer panics.Recover(m.db.logger, "merging the full-text index", nil)
		err := m.run()
		m.mu.Lock()
		m.running = false
		m.mu.Unlock()
		if err != nil && m.ctx.Err() == nil {
			m.db.logger.Warn("merging the full-text index failed; searches are slower until the next merge", "err", err)
		}
	}()
}

// run merges the index into one segment if it is due and has more than
// ftsMergeSegments.
func (m *ftsMerger) run() error {
	db, ctx := m.db, m.ctx
	if ok, err := db.ftsExists(ctx, db.reader); err != nil || !ok {
		return err
	}
	m.mu.Lock()
	written, due, erased := m.written, m.due, m.erased
	m.mu.Unlock()
	if !due && erased == 0 {
		rows, err := db.ftsRows(ctx)
		if err != nil {
			return err
		}
		if written < max(ftsMergeMinRows, rows/100) {
			return nil
		}
	}
	var segments int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM memories_fts_idx`).Scan(&segments); err != nil {
		return fmt.Errorf("count segments: %w", err)
	}
	if segments > ftsMergeSegments || erased > 0 && segments > 0 {
		for {
			db.vectors.gate.Load().Yield(ctx)
			done, err := db.ftsMergeStep(ctx)
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
	}
	m.mu.Lock()
	m.written -= written // what was written meanwhile counts for the next
	m.erased -= erased
	m.due = false
	m.mu.Unlock()
	return nil
}

// close stops the merger, waiting for a step in progress.
func (m *ftsMerger) close() {
	m.mu.Lock()
	m.closed = true
	m.timer.Stop()
	m.cancel()
	m.mu.Unlock()
	m.wg.Wait()
}

// ftsMergeStep does one step of merging every segment of the full-text
// index into one, and reports whether there was nothing left to merge: a
// 'merge' command with a negative page count is 'optimize' done a step at
// a time, finished when a step changes fewer than two rows.
func (db *DB) ftsMergeStep(ctx context.Context) (done bool, err error) {
	conn, err := db.writer.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var before, after int64
	if err := conn.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, err
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO memories_fts (memories_fts, rank) VALUES ('merge', ?)`, -ftsMergeStep); err != nil {
		return false, fmt.Errorf("merge: %w", err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, err
	}
	return after-before < 2, nil
}

// ftsRows returns how many rows the full-text index holds: the first
// varint of its averages record.
func (db *DB) ftsRows(ctx context.Context) (int64, error) {
	var rec []byte
	err := db.reader.QueryRowContext(ctx, `SELECT block FROM memories_fts_data WHERE id = 1`).Scan(&rec)
	if err != nil {
		return 0, fmt.Errorf("read index size: %w", err)
	}
	n, _ := ftsVarint(rec)
	return int64(n), nil
}

// ftsVarint decodes an SQLite varint, as FTS5 writes them: big-endian
// groups of 7 bits, the ninth byte whole. It returns the value and the
// number of bytes read, 0 if b is too short.
func ftsVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8 && i < len(b); i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}
