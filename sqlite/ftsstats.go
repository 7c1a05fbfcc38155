package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ftsLen returns the tokens the full-text index holds for the row at seq,
// all columns, and whether it holds the row.
func ftsLen(ctx context.Context, q querier, seq int64) (int64, bool, error) {
	var sz []byte
	err := q.QueryRowContext(ctx, `SELECT sz FROM memories_fts_docsize WHERE id = ?`, seq).Scan(&sz)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, err := docsizeTokens(sz)
	return n, err == nil, err
}

// lexLen returns how many tokens FTS5's tokenizer makes of texts, or false
// when lexTokens cannot be sure.
func lexLen(texts ...string) (int64, bool) {
	var n int64
	for _, t := range texts {
		if !lexTokens(t, func(string) bool { n++; return true }) {
			return 0, false
		}
	}
	return n, true
}

// docsizeTokens sums an FTS5 docsize record: a varint per column.
func docsizeTokens(sz []byte) (int64, error) {
	var total int64
	for len(sz) > 0 {
		v, k := ftsVarint(sz)
		if k == 0 {
			return 0, errors.New("unreadable FTS5 docsize record")
		}
		total += int64(v)
		sz = sz[k:]
	}
	return total, nil
}

// addFTSStats adds docs rows of tokens tokens to the full-text statistics
// of the scope of sp, by exec: a transaction's ExecContext, or a write
// transaction's prepared exec.
func addFTSStats(ctx context.Context, exec func(context.Context, string, ...any) (sql.Result, error), sp span, docs, tokens int64) error {
	if docs == 0 && tokens == 0 {
		return nil
	}
	_, err := exec(ctx, `INSERT INTO fts_scopes (scope, docs, tokens) VALUES (?, ?, ?)
		ON CONFLICT DO UPDATE SET docs = docs + excluded.docs, tokens = tokens + excluded.tokens`,
		sp.lo>>scopeBits, docs, tokens)
	if err != nil {
		return fmt.Errorf("full-text statistics: %w", err)
	}
	return nil
}

// fillFTSStats sets every scope's full-text statistics from the index's
// own record of each row's length, and marks them filled (row 0 of
// fts_scopes, see migrations/0016_fts_scopes.sql). Unless all is set, it
// does nothing when they are marked filled already.
func fillFTSStats(ctx context.Context, tx *sql.Tx, all bool) error {
	if !all {
		var filled int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM fts_scopes WHERE scope = 0`).Scan(&filled); err != nil {
			return fmt.Errorf("full-text statistics: %w", err)
		}
		if filled > 0 {
			return nil
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM fts_scopes`); err != nil {
		return fmt.Errorf("full-text statistics: %w", err)
	}
	type stats struct{ docs, tokens int64 }
	scopes := map[int64]*stats{}
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memories_fts_docsize'`).Scan(&exists); err != nil {
		return fmt.Errorf("full-text statistics: %w", err)
	}
	if exists > 0 {
		rows, err := tx.QueryContext(ctx, `SELECT id, sz FROM memories_fts_docsize`)
		if err != nil {
			return fmt.Errorf("full-text statistics: %w", err)
		}
		for rows.Next() {
			var (
				id int64
				sz []byte
			)
			if err := rows.Scan(&id, &sz); err != nil {
				rows.Close()
				return fmt.Errorf("full-text statistics: %w", err)
			}
			n, err := docsizeTokens(sz)
			if err != nil {
				rows.Close()
				return fmt.Errorf("full-text statistics: row %d: %w", id, err)
			}
			st := scopes[id>>scopeBits]
			if st == nil {
				st = &stats{}
				scopes[id>>scopeBits] = st
			}
			st.docs++
			st.tokens += n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("full-text statistics: %w", err)
		}
	}
	scopes[0] = &stats{} // filled
	for id, st := range scopes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fts_scopes (scope, docs, tokens) VALUES (?, ?, ?)`, id, st.docs, st.tokens); err != nil {
			return fmt.Errorf("full-text statistics: %w", err)
		}
	}
	return nil
}

// fillFTSStats fills the full-text statistics of a store that has none
// yet: one migrated from a version without them.
func (db *DB) fillFTSStats(ctx context.Context) error {
	// Read first, so that opening a filled store takes no write lock.
	var filled int
	if err := db.writer.QueryRowContext(ctx, `SELECT count(*) FROM fts_scopes WHERE scope = 0`).Scan(&filled); err != nil {
		return fmt.Errorf("sqlite: full-text statistics: %w", err)
	}
	if filled > 0 {
		return nil
	}
	return db.refillFTSStats(ctx, false)
}

// refillFTSStats runs fillFTSStats in a write transaction of its own.
func (db *DB) refillFTSStats(ctx context.Context, all bool) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: full-text statistics: %w", err)
	}
	defer tx.Rollback()
	if err := fillFTSStats(ctx, tx, all); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: full-text statistics: %w", err)
	}
	return nil
}

// keptFTSStats returns the rows and tokens fts_scopes holds for each scope
// with any.
func keptFTSStats(ctx context.Context, tx *sql.Tx) (map[int64][2]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT scope, docs, tokens FROM fts_scopes WHERE scope > 0 AND (docs != 0 OR tokens != 0)`)
	if err != nil {
		return nil, fmt.Errorf("full-text statistics: %w", err)
	}
	defer rows.Close()
	kept := map[int64][2]int64{}
	for rows.Next() {
		var id, docs, tokens int64
		if err := rows.Scan(&id, &docs, &tokens); err != nil {
			return nil, fmt.Errorf("full-text statistics: %w", err)
		}
		kept[id] = [2]int64{docs, tokens}
	}
	return kept, rows.Err()
}
