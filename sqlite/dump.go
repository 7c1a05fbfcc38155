package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// The bulk reads of the event layers that migrate-store copies (PG-6).

// EventLayerScopes implements the event dumper of migrate-store: archived events leave
// the events table for cold segments, whose ids cold_events keeps.
func (db *DB) EventLayerScopes(ctx context.Context) ([]mnemo.Scope, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT tenant_id, agent_id FROM events
		UNION SELECT tenant_id, agent_id FROM cold_events
		UNION SELECT tenant_id, agent_id FROM relations
		UNION SELECT tenant_id, agent_id FROM summaries
		UNION SELECT tenant_id, agent_id FROM capabilities
		ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: event layer scopes: %w", err)
	}
	defer rows.Close()
	var out []mnemo.Scope
	for rows.Next() {
		var s mnemo.Scope
		if err := rows.Scan(&s.TenantID, &s.AgentID); err != nil {
			return nil, fmt.Errorf("sqlite: event layer scopes: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// AllRelations implements the event dumper of migrate-store.
func (db *DB) AllRelations(ctx context.Context, scope mnemo.Scope) ([]mnemo.Relation, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT source, target, type, confidence, created_at FROM relations
		WHERE tenant_id = ? AND agent_id = ? ORDER BY created_at, source, target, type`, scope.TenantID, scope.AgentID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: all relations: %w", err)
	}
	defer rows.Close()
	out := []mnemo.Relation{}
	for rows.Next() {
		var r mnemo.Relation
		var at int64
		if err := rows.Scan(&r.Source, &r.Target, &r.Type, &r.Confidence, &at); err != nil {
			return nil, fmt.Errorf("sqlite: all relations: %w", err)
		}
		r.CreatedAt = sqlrow.FromNanos(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
