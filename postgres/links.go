package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// gone is the condition, on relations r, that the end in column col is
// neither a memory (live or archived) nor an event, hot or cold (a cold
// event keeps its row), of the relation's scope.
//
// A node read from an event's text (entity, emotion, intent) is no record
// and never gone: its edges go with their event.
func gone(col string) string {
	return `(r.` + col + ` NOT LIKE '` + mnemo.NodeEntity + `%' AND r.` + col + ` NOT LIKE '` + mnemo.NodeEmotion + `%' AND r.` + col + ` NOT LIKE '` + mnemo.NodeIntent + `%'
		AND NOT EXISTS (SELECT 1 FROM memory_entries m WHERE m.tenant_id = r.tenant_id AND m.agent_id = r.agent_id AND m.id = r.` + col + ` AND NOT m.tombstone)
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = r.tenant_id AND e.agent_id = r.agent_id AND e.id = r.` + col + `))`
}

// PruneLinks implements mnemo.EventStore: the scope's links with an end
// that is gone, deleted unless dry, in one transaction.
func (db *DB) PruneLinks(ctx context.Context, scope mnemo.Scope, dry bool) ([]mnemo.Relation, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	verb := `DELETE FROM relations r`
	if dry {
		verb = `SELECT r.source, r.target, r.type, r.confidence, r.created_ns FROM relations r`
	}
	query := verb + ` WHERE r.tenant_id = $1::text AND r.agent_id = $2::text AND (` + gone("source") + ` OR ` + gone("target") + `)`
	if !dry {
		query = `WITH d AS (` + query + ` RETURNING r.source, r.target, r.type, r.confidence, r.created_ns) SELECT * FROM d`
	}
	out := []mnemo.Relation{}
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		out = out[:0]
		rows, err := tx.Query(ctx, query+` ORDER BY 5, 1, 2, 3`, scope.TenantID, scope.AgentID)
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
		return nil, db.fail("prune links", err)
	}
	return out, nil
}
