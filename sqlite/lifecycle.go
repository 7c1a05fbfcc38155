package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

var _ mnemo.LifecycleStore = (*DB)(nil)

// ApplyLife implements mnemo.LifecycleStore.
func (db *DB) ApplyLife(ctx context.Context, scope mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sqlite: apply life: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `UPDATE memories SET
			vitality = coalesce(?, vitality), stability = coalesce(?, stability), archived = coalesce(?, archived),
			valid_to = CASE WHEN ? IS NULL OR valid_to <= ? THEN valid_to ELSE ? END
		WHERE id = ? AND tenant_id = ? AND agent_id = ? AND tombstone = 0`)
	if err != nil {
		return 0, fmt.Errorf("sqlite: apply life: %w", err)
	}
	defer stmt.Close()
	n := 0
	for _, c := range changes {
		var archived any
		if c.Archived != nil {
			archived = *c.Archived
		}
		vt := sqlrow.NullTimePtr(c.ValidTo) // an earlier end stands (REC-27)
		res, err := stmt.ExecContext(ctx, nullFloat(c.Vitality), nullFloat(c.Stability), archived, vt, vt, vt, c.ID, scope.TenantID, scope.AgentID)
		if err != nil {
			return 0, fmt.Errorf("sqlite: apply life: %w", err)
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
		}
	}
	if err := appendLedger(ctx, tx, scope, entries, db.now()); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sqlite: apply life: %w", err)
	}
	return n, nil
}

func nullFloat(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// AppendLedger implements mnemo.LifecycleStore.
func (db *DB) AppendLedger(ctx context.Context, scope mnemo.Scope, entries []mnemo.LedgerEntry) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: ledger: %w", err)
	}
	defer tx.Rollback()
	if err := appendLedger(ctx, tx, scope, entries, db.now()); err != nil {
		return err
	}
	return tx.Commit()
}

func appendLedger(ctx context.Context, tx *sql.Tx, scope mnemo.Scope, entries []mnemo.LedgerEntry, now time.Time) error {
	for _, e := range entries {
		if e.At.IsZero() {
			e.At = now
		}
		if err := sqlrow.CheckTime(e.At); err != nil {
			return err
		}
		at := sqlrow.Nanos(e.At)
		ids, _ := json.Marshal(e.MemoryIDs)
		if e.MemoryIDs == nil {
			ids = []byte("[]")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger (tenant_id, agent_id, at, action, actor, reason, memory_ids, details)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			scope.TenantID, scope.AgentID, at, e.Action, e.Actor, e.Reason, string(ids), sqlrow.NullJSON(e.Details)); err != nil {
			return fmt.Errorf("sqlite: ledger: %w", err)
		}
	}
	return nil
}

// Ledger implements mnemo.LifecycleStore.
func (db *DB) Ledger(ctx context.Context, scope mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	if err := checkScope(scope); err != nil {
		return nil, 0, err
	}
	w := &where{}
	w.add(`tenant_id = ? AND agent_id = ?`, scope.TenantID, scope.AgentID)
	if q.Seq != 0 {
		w.add(`seq = ?`, q.Seq)
	}
	if q.Action != "" {
		w.add(`action = ?`, q.Action)
	}
	if q.MemoryID != "" {
		w.add(`EXISTS (SELECT 1 FROM json_each(memory_ids) WHERE value = ?)`, q.MemoryID)
	}
	if q.Since != nil {
		w.add(`at >= ?`, sqlrow.Nanos(*q.Since))
	}
	if q.Until != nil {
		w.add(`at < ?`, sqlrow.Nanos(*q.Until))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	var total int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM ledger WHERE `+w.String(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlite: ledger: %w", err)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT seq, at, action, actor, reason, memory_ids, details FROM ledger
		WHERE `+w.String()+` ORDER BY seq DESC LIMIT ? OFFSET ?`, append(w.args, limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: ledger: %w", err)
	}
	defer rows.Close()
	out := []mnemo.LedgerEntry{}
	for rows.Next() {
		e := mnemo.LedgerEntry{TenantID: scope.TenantID, AgentID: scope.AgentID}
		var (
			at      int64
			ids     string
			details sql.NullString
		)
		if err := rows.Scan(&e.Seq, &at, &e.Action, &e.Actor, &e.Reason, &ids, &details); err != nil {
			return nil, 0, fmt.Errorf("sqlite: ledger: %w", err)
		}
		e.At = sqlrow.FromNanos(at)
		if err := json.Unmarshal([]byte(ids), &e.MemoryIDs); err != nil {
			return nil, 0, fmt.Errorf("sqlite: ledger: %w", err)
		}
		if len(e.MemoryIDs) == 0 {
			e.MemoryIDs = nil
		}
		if details.Valid && strings.TrimSpace(details.String) != "" {
			e.Details = json.RawMessage(details.String)
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// Scopes implements mnemo.LifecycleStore.
func (db *DB) Scopes(ctx context.Context) ([]mnemo.Scope, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT tenant_id, agent_id FROM scopes ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: scopes: %w", err)
	}
	defer rows.Close()
	var out []mnemo.Scope
	for rows.Next() {
		var sc mnemo.Scope
		if err := rows.Scan(&sc.TenantID, &sc.AgentID); err != nil {
			return nil, fmt.Errorf("sqlite: scopes: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}
