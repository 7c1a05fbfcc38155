package postgres

import (
	"context"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// The bulk reads of the event layers that migrate-store copies (PG-6).

// EventLayerScopes implements the event dumper of migrate-store, across tenants. Archived
// events keep their row (cold), so the events table names every scope
// with an event.
func (db *DB) EventLayerScopes(ctx context.Context) ([]mnemo.Scope, error) {
	var out []mnemo.Scope
	err := db.read(ctx, allTenants, func(q querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT tenant_id, agent_id FROM events
			UNION SELECT tenant_id, agent_id FROM relations
			UNION SELECT tenant_id, agent_id FROM summaries
			UNION SELECT tenant_id, agent_id FROM capabilities
			ORDER BY 1, 2`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s mnemo.Scope
			if err := rows.Scan(&s.TenantID, &s.AgentID); err != nil {
				return err
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("event layer scopes", err)
	}
	return out, nil
}

// AllRelations implements the event dumper of migrate-store.
func (db *DB) AllRelations(ctx context.Context, scope mnemo.Scope) ([]mnemo.Relation, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	out := []mnemo.Relation{}
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT source, target, type, confidence, created_ns FROM relations
			WHERE tenant_id = $1::text AND agent_id = $2::text ORDER BY created_ns, source, target, type`,
			scope.TenantID, scope.AgentID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r mnemo.Relation
			var at int64
			if err := rows.Scan(&r.Source, &r.Target, &r.Type, &r.Confidence, &at); err != nil {
				return err
			}
			r.CreatedAt = sqlrow.FromNanos(at)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("all relations", err)
	}
	return out, nil
}
