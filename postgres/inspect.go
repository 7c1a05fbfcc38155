package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

// The inspector's store queries (API-13): the agents of a tenant. The key
// tree (mnemo.KeyTreeLister) is not implemented here yet: its route
// answers unavailable on PostgreSQL. A keyless memory changes in place by
// Replace (write.go).

var (
	_ mnemo.AgentLister = (*DB)(nil)
)

// Agents implements mnemo.AgentLister: one aggregate over the tenant's
// memories.
func (db *DB) Agents(ctx context.Context, tenant string) ([]mnemo.AgentCount, error) {
	if tenant == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "tenant_id is required")
	}
	out := []mnemo.AgentCount{}
	err := db.read(ctx, tenant, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT agent_id, count(*) FILTER (WHERE NOT tombstone AND NOT archived)
			FROM memory_entries WHERE tenant_id = $1::text GROUP BY agent_id ORDER BY agent_id`, tenant)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a mnemo.AgentCount
			if err := rows.Scan(&a.AgentID, &a.Memories); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: agents: %w", err)
	}
	return out, nil
}
