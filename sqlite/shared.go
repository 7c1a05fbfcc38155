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
	// loading holds the seqs a read is loading, with a channel closed
	// when it has: another read waits for those rather than load them
	// too, as recall's searches run at once.
	loading map[int64]chan struct{}
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
	return context.WithValue(ctx, sharedKey{}, &sharedRows{
		db: db, rows: make(map[int64]*mnemo.Memory), loading: make(map[int64]chan struct{}),
	})
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
// record of ShareReads, it takes the rows loaded before from it, or waits
// for a read loading them, and checks them against w: unless selected
// says that w selected them all.
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
		load, check, wait []int64
		waits             []chan struct{}
		at                = make(map[int64]int, len(seqs))
		done              = make(chan struct{})
	)
	sh.mu.Lock()
	for i, s := range seqs {
		at[s] = i
		if sh.rows[s] != nil {
			check = append(check, s)
		} else if ch := sh.loading[s]; ch != nil {
			wait, waits = append(wait, s), append(waits, ch)
		} else {
			load = append(load, s)
			sh.loading[s] = done
		}
	}
	sh.mu.Unlock()

	// Its own rows first: another read may be waiting for them.
	loaded, err := sh.load(ctx, load, w, done)
	if err != nil {
		return nil, err
	}
	for i, m := range loaded {
		found[at[load[i]]] = m
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// What the other read did not load (its filter left it out, or it
	// failed) is this one's to load.
	var again []int64
	sh.mu.Lock()
	for _, s := range wait {
		if sh.rows[s] != nil {
			check = append(check, s)
		} else {
			again = append(again, s)
		}
	}
	sh.mu.Unlock()
	if selected {
		sh.mu.Lock()
		for _, s := range check {
			found[at[s]] = sh.rows[s]
		}
		sh.mu.Unlock()
	} else if len(check) > 0 {
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
	if len(again) > 0 {
		// As the first time: another read may have claimed them since,
		// and what this one loads is recorded for the next.
		loaded, err := db.fetchSeqsSelected(ctx, again, w, selected)
		if err != nil {
			return nil, err
		}
		for i, m := range loaded {
			found[at[again[i]]] = m
		}
	}
	return found, nil
}

// load loads seqs, which this read claimed with done, into the record,
// and closes done, whatever happens: other reads wait for it.
func (sh *sharedRows) load(ctx context.Context, seqs []int64, w *where, done chan struct{}) (loaded []*mnemo.Memory, err error) {
	defer func() {
		sh.mu.Lock()
		for i, s := range seqs {
			if i < len(loaded) && loaded[i] != nil {
				sh.rows[s] = loaded[i]
			}
			delete(sh.loading, s)
		}
		sh.mu.Unlock()
		close(done)
	}()
	return sh.db.loadSeqs(ctx, seqs, w)
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
