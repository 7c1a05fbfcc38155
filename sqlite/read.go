package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// Get returns the live memory id of scope, archived and expired included.
func (db *DB) Get(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Memory, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Memory{}, err
	}
	m, err := scanMemory(db.readStmts.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.id = ? AND m.tenant_id = ? AND m.agent_id = ? AND m.tombstone = 0`,
		id, scope.TenantID, scope.AgentID))
	if errors.Is(err, sql.ErrNoRows) {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", id)
	} else if err != nil {
		return mnemo.Memory{}, fmt.Errorf("sqlite: get: %w", err)
	}
	return m, nil
}

// GetByKey returns the live memory of key in scope, archived and expired
// included.
func (db *DB) GetByKey(ctx context.Context, scope mnemo.Scope, key string) (mnemo.Memory, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Memory{}, err
	}
	m, err := scanMemory(db.readStmts.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.tenant_id = ? AND m.agent_id = ? AND m.key = ? AND m.tombstone = 0`,
		scope.TenantID, scope.AgentID, key))
	if errors.Is(err, sql.ErrNoRows) {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "key %s not found", key)
	} else if err != nil {
		return mnemo.Memory{}, fmt.Errorf("sqlite: get by key: %w", err)
	}
	return m, nil
}

// orders maps a ListQuery order to SQL. The arrival breaks ties between
// memories created in the same nanosecond, by write order.
var orders = map[string]string{
	"":                  `m.created_at DESC, m.arrival DESC`,
	mnemo.OrderNewest:   `m.created_at DESC, m.arrival DESC`,
	mnemo.OrderOldest:   `m.created_at ASC, m.arrival ASC`,
	mnemo.OrderKey:      `m.key ASC, m.created_at ASC, m.arrival ASC`,
	mnemo.OrderVitality: `m.vitality DESC, m.seq DESC`,
	mnemo.OrderOccurred: `m.occurred_start DESC, m.occurred_end DESC, m.seq DESC`,
}

// List returns a page of the live memories matching q and how many match in
// all. The page and the total come from one snapshot.
func (db *DB) List(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	if err := checkScope(scope); err != nil {
		return nil, 0, err
	}
	order, ok := orders[q.Order]
	if !ok {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "unknown order %q", q.Order)
	}
	if q.Limit < 0 || q.Offset < 0 {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "limit and offset must not be negative")
	}
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return nil, 0, err
	}
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		return nil, 0, err
	}
	w, err := db.live(ctx, scope, sp, &q.Filter)
	if err != nil {
		return nil, 0, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = -1 // no limit
	}
	if q.NoTotal && !q.NoVectors && db.shared(ctx) != nil {
		return db.listShared(ctx, w, order, limit, q.Offset)
	}

	cols := memoryColumns
	if q.NoVectors {
		cols = memoryColumnsNoVector
	}
	page := `SELECT ` + cols + ` FROM memories m WHERE ` + w.String() + `
		ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args := append(w.args, limit, q.Offset)
	total := -1
	var rows *sql.Rows
	if q.NoTotal {
		// One statement sees one snapshot: no transaction to begin, and
		// the statement prepared once. Planning it among the memories'
		// indexes cost more than running it, on every turn a
		// conversation's write reads before it (PERF-16).
		rows, err = db.readStmts.QueryContext(ctx, page, args...)
	} else {
		var tx *sql.Tx
		if tx, err = db.reader.BeginTx(ctx, nil); err != nil {
			return nil, 0, fmt.Errorf("sqlite: list: %w", err)
		}
		defer tx.Rollback()
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories m WHERE `+w.String(), w.args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("sqlite: list: %w", err)
		}
		rows, err = tx.QueryContext(ctx, page, args...)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: list: %w", err)
	}
	defer rows.Close()
	var ms []mnemo.Memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("sqlite: list: %w", err)
		}
		ms = append(ms, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("sqlite: list: %w", err)
	}
	return ms, total, nil
}

// listShared is List, without the total, for reads that share their rows
// (ShareReads): it selects the page's seqs, then takes the rows loaded
// before and loads the rest.
func (db *DB) listShared(ctx context.Context, w *where, order string, limit, offset int) ([]mnemo.Memory, int, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT m.seq FROM memories m WHERE `+w.String()+`
		ORDER BY `+order+` LIMIT ? OFFSET ?`, append(w.args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: list: %w", err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, 0, fmt.Errorf("sqlite: list: %w", err)
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("sqlite: list: %w", err)
	}
	rows.Close()
	found, err := db.fetchSeqsSelected(ctx, seqs, w, true)
	if err != nil {
		return nil, 0, err
	}
	var ms []mnemo.Memory
	for _, m := range found {
		if m != nil { // gone since it was selected
			ms = append(ms, *m)
		}
	}
	return ms, -1, nil
}

// History returns the revisions of key in scope, oldest first, lost writes
// included. A key never written has no revisions.
func (db *DB) History(ctx context.Context, scope mnemo.Scope, key string) ([]mnemo.Revision, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT seq, memory_id, key, op, at, applied, memory FROM history
		WHERE tenant_id = ? AND agent_id = ? AND key = ? ORDER BY seq`,
		scope.TenantID, scope.AgentID, key)
	if err != nil {
		return nil, fmt.Errorf("sqlite: history: %w", err)
	}
	return scanRevisions(rows)
}

// DeletedAfter implements mnemo.Store.DeletedAfter: the history of the keys
// tombstoned after t (REC-27).
func (db *DB) DeletedAfter(ctx context.Context, scope mnemo.Scope, t time.Time, limit int) ([]mnemo.Revision, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT seq, memory_id, key, op, at, applied, memory FROM history
		WHERE tenant_id = ?1 AND agent_id = ?2 AND key IN (
			SELECT key FROM history
			WHERE tenant_id = ?1 AND agent_id = ?2 AND key IS NOT NULL AND op = 'tombstone' AND applied = 1 AND at > ?3
			GROUP BY key ORDER BY min(at), key LIMIT ?4)
		ORDER BY key, seq`,
		scope.TenantID, scope.AgentID, sqlrow.Nanos(t), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: deleted history: %w", err)
	}
	return scanRevisions(rows)
}

// scanRevisions reads history rows (seq, memory_id, key, op, at, applied,
// memory) and closes them.
func scanRevisions(rows *sql.Rows) ([]mnemo.Revision, error) {
	defer rows.Close()
	var revs []mnemo.Revision
	for rows.Next() {
		var (
			r    mnemo.Revision
			at   int64
			body sql.NullString
		)
		if err := rows.Scan(&r.Seq, &r.MemoryID, &r.Key, &r.Op, &at, &r.Applied, &body); err != nil {
			return nil, fmt.Errorf("sqlite: history: %w", err)
		}
		r.At = sqlrow.FromNanos(at)
		if body.Valid {
			r.Memory = new(mnemo.Memory)
			if err := json.Unmarshal([]byte(body.String), r.Memory); err != nil {
				return nil, fmt.Errorf("sqlite: history %d: %w", r.Seq, err)
			}
		}
		revs = append(revs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: history: %w", err)
	}
	return revs, nil
}

// Stats describes scope. Degraded says whether the full-text index can
// answer a query right now.
func (db *DB) Stats(ctx context.Context, scope mnemo.Scope) (mnemo.Stats, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Stats{}, err
	}
	var (
		s              mnemo.Stats
		oldest, newest sql.NullInt64
	)
	err := db.reader.QueryRowContext(ctx, `SELECT
			count(*) FILTER (WHERE tombstone = 0),
			count(*) FILTER (WHERE tombstone = 0 AND archived = 1),
			count(*) FILTER (WHERE tombstone = 0 AND key IS NOT NULL),
			count(*) FILTER (WHERE tombstone = 1),
			count(DISTINCT session_id) FILTER (WHERE tombstone = 0),
			min(created_at) FILTER (WHERE tombstone = 0),
			max(created_at) FILTER (WHERE tombstone = 0)
		FROM memories WHERE tenant_id = ? AND agent_id = ?`,
		scope.TenantID, scope.AgentID,
	).Scan(&s.Memories, &s.Archived, &s.Keys, &s.Tombstones, &s.Sessions, &oldest, &newest)
	if err != nil {
		return mnemo.Stats{}, fmt.Errorf("sqlite: stats: %w", err)
	}
	if oldest.Valid {
		t := sqlrow.FromNanos(oldest.Int64)
		s.Oldest = &t
	}
	if newest.Valid {
		t := sqlrow.FromNanos(newest.Int64)
		s.Newest = &t
	}
	if vs, _, err := vectorSpace(ctx, db.reader); err != nil {
		return mnemo.Stats{}, fmt.Errorf("sqlite: stats: %w", err)
	} else if vs.Model != "" {
		v := &mnemo.VectorStats{Model: vs.Model, Dimension: vs.Dimension}
		err := db.reader.QueryRowContext(ctx, `SELECT
				count(*) FILTER (WHERE vector_rev IS NOT NULL),
				count(*) FILTER (WHERE vector_rev IS NULL AND embed_text <> '')
			FROM memories WHERE tenant_id = ? AND agent_id = ? AND tombstone = 0`,
			scope.TenantID, scope.AgentID).Scan(&v.Embedded, &v.Pending)
		if err != nil {
			return mnemo.Stats{}, fmt.Errorf("sqlite: stats: %w", err)
		}
		// An agent with no vector has an empty index, loaded or not.
		if v.Embedded > 0 {
			v.Indexed = -1
			if sp, err := db.scopeSpan(ctx, scope); err == nil && sp.lo != 0 {
				if v.Indexed, err = db.indexedNow(ctx, sp); err != nil {
					if ctx.Err() != nil {
						return mnemo.Stats{}, ctx.Err()
					}
					db.logger.Warn("vector index unavailable for stats", "err", err)
					v.Indexed = -1
				}
			}
		}
		s.Vectors = v
	}
	// A query exercises the index as a search would.
	var probe sql.NullInt64
	err = db.reader.QueryRowContext(ctx, `SELECT rowid FROM memories_fts WHERE memories_fts MATCH '"mnemo"' LIMIT 1`).Scan(&probe)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		if ctx.Err() != nil {
			return mnemo.Stats{}, ctx.Err()
		}
		s.Degraded = true
	}
	return s, nil
}
