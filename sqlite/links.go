package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// gone is the condition, on relations r, that the end in column col is
// neither a memory (live or archived) nor an event, hot or cold, of the
// relation's scope.
//
// A node read from an event's text (entity, emotion, intent) is no record
// and never gone: its edges go with their event.
func gone(col string) string {
	return `(r.` + col + ` NOT LIKE '` + mnemo.NodeEntity + `%' AND r.` + col + ` NOT LIKE '` + mnemo.NodeEmotion + `%' AND r.` + col + ` NOT LIKE '` + mnemo.NodeIntent + `%'
		AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = r.` + col + ` AND m.tenant_id = r.tenant_id AND m.agent_id = r.agent_id AND m.tombstone = 0)
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = r.tenant_id AND e.agent_id = r.agent_id AND e.id = r.` + col + `)
		AND NOT EXISTS (SELECT 1 FROM cold_events c WHERE c.tenant_id = r.tenant_id AND c.agent_id = r.agent_id AND c.id = r.` + col + `))`
}

// PruneLinks implements mnemo.EventStore.
func (db *DB) PruneLinks(ctx context.Context, scope mnemo.Scope, dry bool) ([]mnemo.Relation, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prune links: %w", err)
	}
	defer tx.Rollback()
	where := `FROM relations r WHERE r.tenant_id = ? AND r.agent_id = ? AND (` + gone("source") + ` OR ` + gone("target") + `)`
	rows, err := tx.QueryContext(ctx, `SELECT r.source, r.target, r.type, r.confidence, r.created_at `+where+
		` ORDER BY r.created_at, r.source, r.target, r.type`, scope.TenantID, scope.AgentID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prune links: %w", err)
	}
	out := []mnemo.Relation{}
	for rows.Next() {
		var r mnemo.Relation
		var at int64
		if err := rows.Scan(&r.Source, &r.Target, &r.Type, &r.Confidence, &at); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: prune links: %w", err)
		}
		r.CreatedAt = sqlrow.FromNanos(at)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: prune links: %w", err)
	}
	if dry || len(out) == 0 {
		return out, nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM relations AS r WHERE r.tenant_id = ? AND r.agent_id = ? AND (`+gone("source")+` OR `+gone("target")+`)`,
		scope.TenantID, scope.AgentID); err != nil {
		return nil, fmt.Errorf("sqlite: prune links: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: prune links: %w", err)
	}
	return out, nil
}
