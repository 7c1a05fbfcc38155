package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// sharedKey is the context key of a sharedRows.
type sharedKey struct{}

// sharedRows are the memory rows that the reads made with one context
// loaded, by seq.
type sharedRows struct {
	db   *DB
	mu   sync.Mutex
	rows map[int64]*mnemo.Memory
}

// ShareReads returns ctx with a record of the memory rows its searches
// and lists load: a later read made with it takes the rows an earlier one
// loaded, asks the table only whether they still pass its filter, and
// loads the rest. Recall's searches (full text, vectors, a "when"
// question's, the dated lists) find many of the same memories, and
// loading a row is most of a search's cost (PERF-10): each is then loaded
// once a recall.
//
// A row taken from the record is as it was when it was loaded: the reads
// answer as if made one after another, which, as reads of the store made
// at different times, they are anyway. It is for the reads of one
// request, not for longer.
func (db *DB) ShareReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedKey{}, &sharedRows{db: db, rows: make(map[int64]*mnemo.Memory)})
}

// shared returns the record of ctx's reads from this store, or nil.
func (db *DB) shared(ctx context.Context) *sharedRows {
	if sh, ok := ctx.Value(sharedKey{}).(*sharedRows); ok && sh.db == db {
		return sh
	}
	return nil
}

// fetchSeqs loads the memories at seqs that w selects: found[i] is the
// memory at seqs[i], or nil when w leaves it out or it is gone. With the
// record of ShareReads, it takes the rows loaded before from it, and
// checks them against w: unless selected says that w selected them all.
func (db *DB) fetchSeqs(ctx context.Context, seqs []int64, w *where) ([]*mnemo.Memory, error) {
	return db.fetchSeqsSelected(ctx, seqs, w, false)
}

func (db *DB) fetchSeqsSelected(ctx context.Context, seqs []int64, w *where, selected bool) ([]*mnemo.Memory, error) {
	sh := db.shared(ctx)
	if sh == nil || len(seqs) == 0 {
		return db.loadSeqs(ctx, seqs, w)
	}
	found := make([]*mnemo.Memory, len(seqs))
	var (
		load, check []int64
		at          = make(map[int64]int, len(seqs))
	)
	sh.mu.Lock()
	for i, s := range seqs {
		at[s] = i
		switch m := sh.rows[s]; {
		case m == nil:
			load = append(load, s)
		case selected:
			found[i] = m
		default:
			check = append(check, s)
		}
	}
	sh.mu.Unlock()
	if len(check) > 0 {
		pass, err := db.passing(ctx, check, w)
		if err != nil {
			return nil, err
		}
		sh.mu.Lock()
		for _, s := range check {
			if pass[s] {
				found[at[s]] = sh.rows[s]
			}
		}
		sh.mu.Unlock()
	}
	if len(load) > 0 {
		loaded, err := db.loadSeqs(ctx, load, w)
		if err != nil {
			return nil, err
		}
		sh.mu.Lock()
		for i, m := range loaded {
			if m != nil {
				found[at[load[i]]] = m
				sh.rows[load[i]] = m
			}
		}
		sh.mu.Unlock()
	}
	return found, nil
}

// loadSeqs reads the rows of fetchSeqs from the table.
func (db *DB) loadSeqs(ctx context.Context, seqs []int64, w *where) (found []*mnemo.Memory, err error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	order := make(map[int64]int, len(seqs))
	for i, s := range seqs {
		order[s] = i
	}
	// CROSS JOIN looks each memory up by seq; a plain IN would let the
	// planner walk the scope's index instead.
	rows, err := db.readStmts.QueryContext(ctx, `SELECT `+memoryColumns+`, m.seq
		FROM json_each(?) AS j CROSS JOIN memories m ON m.seq = j.value WHERE `+w.String(),
		append([]any{seqList(seqs)}, w.args...)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	found = make([]*mnemo.Memory, len(seqs))
	for rows.Next() {
		var seq int64
		m, err := scanMemory(rows, &seq)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		found[order[seq]] = &m
		db.rowsRead.Add(1)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return found, nil
}

// passing reports which of seqs the filter w selects, reading only the
// columns w tests.
func (db *DB) passing(ctx context.Context, seqs []int64, w *where) (map[int64]bool, error) {
	rows, err := db.readStmts.QueryContext(ctx, `SELECT m.seq
		FROM json_each(?) AS j CROSS JOIN memories m ON m.seq = j.value WHERE `+w.String(),
		append([]any{seqList(seqs)}, w.args...)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	pass := make(map[int64]bool, len(seqs))
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		pass[seq] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return pass, nil
}

// seqList is seqs as a JSON array, for json_each.
func seqList(seqs []int64) string {
	var b strings.Builder
	b.Grow(len(seqs) * 8)
	b.WriteByte('[')
	for i, s := range seqs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(s, 10))
	}
	b.WriteByte(']')
	return b.String()
}
