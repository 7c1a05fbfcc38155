package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// GetState implements mnemo.StateStore.
func (db *DB) GetState(ctx context.Context, scope mnemo.Scope, kind, id string) (mnemo.StateDoc, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.StateDoc{}, err
	}
	d := mnemo.StateDoc{Scope: scope, Kind: kind, ID: id}
	var (
		at   int64
		body string
	)
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		return q.QueryRow(ctx, `SELECT version, updated_ns, body FROM state
			WHERE tenant_id = $1::text AND agent_id = $2::text AND kind = $3::text AND id = $4::text`,
			scope.TenantID, scope.AgentID, kind, id).Scan(&d.Version, &at, &body)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return mnemo.StateDoc{}, mnemo.Errorf(mnemo.ENOTFOUND, "no %s %q", kind, id)
	} else if err != nil {
		return mnemo.StateDoc{}, db.fail("get state", err)
	}
	d.Body, d.UpdatedAt = []byte(body), sqlrow.FromNanos(at)
	return d, nil
}

// PutState implements mnemo.StateStore: an insert for version 0, else an
// update only if the stored version is still doc.Version.
func (db *DB) PutState(ctx context.Context, scope mnemo.Scope, doc mnemo.StateDoc) (int64, error) {
	ctx = bookkeeping(ctx)
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	if err := sqlrow.CheckTime(doc.UpdatedAt); err != nil {
		return 0, err
	}
	var tag pgconn.CommandTag
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var err error
		if doc.Version == 0 {
			tag, err = tx.Exec(ctx, `INSERT INTO state (tenant_id, agent_id, kind, id, version, updated_ns, body)
				VALUES ($1::text, $2::text, $3::text, $4::text, 1, $5::bigint, $6::text) ON CONFLICT DO NOTHING`,
				scope.TenantID, scope.AgentID, doc.Kind, doc.ID, sqlrow.Nanos(doc.UpdatedAt), string(doc.Body))
		} else {
			tag, err = tx.Exec(ctx, `UPDATE state SET version = version + 1, updated_ns = $1::bigint, body = $2::text
				WHERE tenant_id = $3::text AND agent_id = $4::text AND kind = $5::text AND id = $6::text AND version = $7::bigint`,
				sqlrow.Nanos(doc.UpdatedAt), string(doc.Body), scope.TenantID, scope.AgentID, doc.Kind, doc.ID, doc.Version)
		}
		return err
	})
	if err != nil {
		return 0, db.fail("put state", err)
	}
	if tag.RowsAffected() == 0 {
		return 0, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile (version %d is no longer current)", doc.Kind, doc.ID, doc.Version)
	}
	return doc.Version + 1, nil
}

// DeleteState implements mnemo.StateStore.
func (db *DB) DeleteState(ctx context.Context, scope mnemo.Scope, kind, id string, version int64) (bool, error) {
	ctx = bookkeeping(ctx)
	if err := checkScope(scope); err != nil {
		return false, err
	}
	var deleted, exists bool
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM state
			WHERE tenant_id = $1::text AND agent_id = $2::text AND kind = $3::text AND id = $4::text AND ($5::bigint = 0 OR version = $5::bigint)`,
			scope.TenantID, scope.AgentID, kind, id, version)
		if err != nil {
			return err
		}
		deleted = tag.RowsAffected() > 0
		if !deleted && version != 0 {
			// Gone, or changed: tell which.
			return tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM state
				WHERE tenant_id = $1::text AND agent_id = $2::text AND kind = $3::text AND id = $4::text)`,
				scope.TenantID, scope.AgentID, kind, id).Scan(&exists)
		}
		return nil
	})
	if err != nil {
		return false, db.fail("delete state", err)
	}
	if exists {
		return false, mnemo.Errorf(mnemo.ECONFLICT, "%s %q changed meanwhile (version %d is no longer current)", kind, id, version)
	}
	return deleted, nil
}

// ListState implements mnemo.StateStore.
func (db *DB) ListState(ctx context.Context, scope mnemo.Scope, kind string) ([]mnemo.StateDoc, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	return db.states(ctx, scope.TenantID, `SELECT tenant_id, agent_id, kind, id, version, updated_ns, body FROM state
		WHERE tenant_id = $1::text AND agent_id = $2::text AND kind = $3::text ORDER BY updated_ns DESC, id`,
		scope.TenantID, scope.AgentID, kind)
}

// IdleState implements mnemo.StateStore.
func (db *DB) IdleState(ctx context.Context, kind string, before time.Time, n int) ([]mnemo.StateDoc, error) {
	if err := sqlrow.CheckTime(before); err != nil {
		return nil, err
	}
	limit := ``
	args := []any{kind, sqlrow.Nanos(before)}
	if n > 0 {
		limit = ` LIMIT $3::bigint`
		args = append(args, n)
	}
	return db.states(ctx, allTenants, `SELECT tenant_id, agent_id, kind, id, version, updated_ns, body FROM state
		WHERE kind = $1::text AND updated_ns < $2::bigint ORDER BY updated_ns, id`+limit, args...)
}

func (db *DB) states(ctx context.Context, tenant, query string, args ...any) ([]mnemo.StateDoc, error) {
	var out []mnemo.StateDoc
	err := db.read(ctx, tenant, func(q querier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				d    mnemo.StateDoc
				at   int64
				body string
			)
			if err := rows.Scan(&d.Scope.TenantID, &d.Scope.AgentID, &d.Kind, &d.ID, &d.Version, &at, &body); err != nil {
				return err
			}
			d.Body, d.UpdatedAt = []byte(body), sqlrow.FromNanos(at)
			out = append(out, d)
		}
		return rows.Err()
	})
	return out, db.fail("list state", err)
}
