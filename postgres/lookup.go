package postgres

import (
	"context"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// Lookup answers, in one query, which of ids scope holds and, for each of
// keys with a row (live or tombstone), when that row was last written: what
// the failover needs to tell its spool's last write of a key from the
// database's.
func (db *DB) Lookup(ctx context.Context, scope mnemo.Scope, ids, keys []string) (map[string]bool, map[string]time.Time, error) {
	if err := checkScope(scope); err != nil {
		return nil, nil, err
	}
	has, times := map[string]bool{}, map[string]time.Time{}
	if len(ids) == 0 && len(keys) == 0 {
		return has, times, nil
	}
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT id, key, updated_ns FROM memory_entries
			WHERE tenant_id = $1::text AND agent_id = $2::text AND (id = ANY($3::text[]) OR key = ANY($4::text[]))`,
			scope.TenantID, scope.AgentID, ids, keys)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id      string
				key     *string
				updated int64
			)
			if err := rows.Scan(&id, &key, &updated); err != nil {
				return err
			}
			has[id] = true
			if key != nil {
				times[*key] = sqlrow.FromNanos(updated)
			}
		}
		return rows.Err()
	})
	return has, times, db.fail("lookup", err)
}
