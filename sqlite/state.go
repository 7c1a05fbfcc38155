package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// GetState implements mnemo.StateStore.
func (db *DB) GetState(ctx context.Context, scope mnemo.Scope, kind, id string) (mnemo.StateDoc, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.StateDoc{}, err
	}
	d := mnemo.StateDoc{Scope: scope, Kind: kind, ID: id}
	var at int64
	var body string
	err := db.reader.QueryRowContext(ctx, `SELECT version, updated_at, body FROM state
		WHERE tenant_id = ? AND agent_id = ? AND kind = ? AND id = ?`,
		scope.TenantID, scope.AgentID, kind, id).Scan(&d.Version, &at, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return mnemo.StateDoc{}, mnemo.Errorf(mnemo.ENOTFOUND, "no %s %q", kind, id)
	} else if err != nil {
		return mnemo.StateDoc{}, fmt.Errorf("sqlite: get state: %w", err)
	}
	d.Body, d.UpdatedAt = []byte(body), sqlrow.FromNanos(at)
	return d, nil
}

// PutState implements mnemo.StateStore.
func (db *DB) PutState(ctx context.Context, scope mnemo.Scope, doc mnemo.StateDoc) (int64, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	if err := sqlrow.CheckTime(doc.UpdatedAt); err != nil {
		return 0, err
	}
	var (
		res sql.Result
		err error
	)
	if doc.Version == 0 {
		res, err = db.writer.ExecContext(ctx, `INSERT INTO state (tenant_id, agent_id, kind, id, version, updated_at, body)
			VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT DO NOTHING`,
			scope.TenantID, scope.AgentID, doc.Kind, doc.ID, sqlrow.Nanos(doc.UpdatedAt), string(doc.Body))
	} else {
		res, err = db.writer.ExecContext(ctx, `UPDATE state SET version = version + 1, updated_at = ?, body = ?
			WHERE tenant_id = ? AND agent_id = ? AND kind = ? AND id = ? AND version = ?`,
			sqlrow.Nanos(doc.UpdatedAt), string(doc.Body), scope.TenantID, scope.AgentID, doc.Kind, doc.ID, doc.Version)
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: put state: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("sqlite: put state: %w", err)
	} else if n == 0 {
		return 0, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile", doc.Kind, doc.ID)
	}
	return doc.Version + 1, nil
}

// DeleteState implements mnemo.StateStore.
func (db *DB) DeleteState(ctx context.Context, scope mnemo.Scope, kind, id string, version int64) (bool, error) {
	if err := checkScope(scope); err != nil {
		return false, err
	}
	res, err := db.writer.ExecContext(ctx, `DELETE FROM state
		WHERE tenant_id = ? AND agent_id = ? AND kind = ? AND id = ? AND (? = 0 OR version = ?)`,
		scope.TenantID, scope.AgentID, kind, id, version, version)
	if err != nil {
		return false, fmt.Errorf("sqlite: delete state: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: delete state: %w", err)
	}
	if n == 0 && version != 0 {
		// Gone, or changed: tell which.
		if _, err := db.GetState(ctx, scope, kind, id); err == nil {
			return false, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile", kind, id)
		}
	}
	return n > 0, nil
}

// ListState implements mnemo.StateStore.
func (db *DB) ListState(ctx context.Context, scope mnemo.Scope, kind string) ([]mnemo.StateDoc, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	return db.states(ctx, `SELECT tenant_id, agent_id, kind, id, version, updated_at, body FROM state
		WHERE tenant_id = ? AND agent_id = ? AND kind = ? ORDER BY updated_at DESC, id`,
		scope.TenantID, scope.AgentID, kind)
}

// IdleState implements mnemo.StateStore.
func (db *DB) IdleState(ctx context.Context, kind string, before time.Time, n int) ([]mnemo.StateDoc, error) {
	if n <= 0 {
		n = -1
	}
	return db.states(ctx, `SELECT tenant_id, agent_id, kind, id, version, updated_at, body FROM state
		WHERE kind = ? AND updated_at < ? ORDER BY updated_at, id LIMIT ?`, kind, sqlrow.Nanos(before), n)
}

func (db *DB) states(ctx context.Context, query string, args ...any) ([]mnemo.StateDoc, error) {
	rows, err := db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list state: %w", err)
	}
	defer rows.Close()
	var out []mnemo.StateDoc
	for rows.Next() {
		var (
			d    mnemo.StateDoc
			at   int64
			body string
		)
		if err := rows.Scan(&d.Scope.TenantID, &d.Scope.AgentID, &d.Kind, &d.ID, &d.Version, &at, &body); err != nil {
			return nil, fmt.Errorf("sqlite: list state: %w", err)
		}
		d.Body, d.UpdatedAt = []byte(body), sqlrow.FromNanos(at)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list state: %w", err)
	}
	return out, nil
}

// CountTypes implements mnemo.Store.
func (db *DB) CountTypes(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if err := sqlrow.CheckFilter(&f); err != nil {
		return nil, err
	}
	if isCensus(&f) {
		return db.census(ctx, scope, f.Now)
	}
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		return nil, err
	}
	w, err := db.live(ctx, scope, sp, &f)
	if err != nil {
		return nil, err
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT m.type, count(*), avg(m.vitality) FROM memories m
		WHERE `+w.String()+` GROUP BY m.type ORDER BY count(*) DESC, m.type`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: count types: %w", err)
	}
	defer rows.Close()
	out := []mnemo.TypeCount{}
	for rows.Next() {
		var tc mnemo.TypeCount
		if err := rows.Scan(&tc.Type, &tc.Count, &tc.MeanVitality); err != nil {
			return nil, fmt.Errorf("sqlite: count types: %w", err)
		}
		out = append(out, tc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: count types: %w", err)
	}
	return out, nil
}

// isCensus reports whether f selects every active memory (none but Now
// set), which type_stats answers.
func isCensus(f *mnemo.Filter) bool {
	g := *f
	g.Now = time.Time{}
	return reflect.ValueOf(g).IsZero()
}

// census counts the active memories by type from type_stats, less those
// expired at now.
func (db *DB) census(ctx context.Context, scope mnemo.Scope, now time.Time) ([]mnemo.TypeCount, error) {
	if now.IsZero() {
		now = db.now()
	}
	n := sqlrow.Nanos(now)
	rows, err := db.reader.QueryContext(ctx, `
		WITH expired (type, n, vitality) AS (
			SELECT type, count(*), total(vitality) FROM memories WHERE seq IN (
				SELECT seq FROM memories WHERE tenant_id = ?1 AND agent_id = ?2 AND expires_at IS NOT NULL
					AND tombstone = 0 AND archived = 0 AND expires_at <= ?3
				UNION
				SELECT seq FROM memories WHERE tenant_id = ?1 AND agent_id = ?2 AND data_expired_at IS NOT NULL
					AND tombstone = 0 AND archived = 0 AND data_expired_at <= ?3)
			GROUP BY type)
		SELECT s.type, s.n - coalesce(e.n, 0) AS live, s.vitality - coalesce(e.vitality, 0)
		FROM type_stats s LEFT JOIN expired e ON e.type = s.type
		WHERE s.tenant_id = ?1 AND s.agent_id = ?2 AND live > 0
		ORDER BY live DESC, s.type`, scope.TenantID, scope.AgentID, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: count types: %w", err)
	}
	defer rows.Close()
	out := []mnemo.TypeCount{}
	for rows.Next() {
		var (
			tc  mnemo.TypeCount
			sum float64
		)
		if err := rows.Scan(&tc.Type, &tc.Count, &sum); err != nil {
			return nil, fmt.Errorf("sqlite: count types: %w", err)
		}
		tc.MeanVitality = sum / float64(tc.Count)
		out = append(out, tc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: count types: %w", err)
	}
	return out, nil
}
