package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

// The inspector's store queries (API-13, API-14): the agents of a tenant,
// one level of the key tree; Replace is in write.go.

var (
	_ mnemo.AgentLister   = (*DB)(nil)
	_ mnemo.KeyTreeLister = (*DB)(nil)
)

// Agents implements mnemo.AgentLister: the tenant's scopes, with their
// active memories counted by type_stats (a few rows per agent, no scan).
func (db *DB) Agents(ctx context.Context, tenant string) ([]mnemo.AgentCount, error) {
	if tenant == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "tenant_id is required")
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT s.agent_id,
			coalesce((SELECT sum(t.n) FROM type_stats t WHERE t.tenant_id = s.tenant_id AND t.agent_id = s.agent_id), 0)
		FROM scopes s WHERE s.tenant_id = ? ORDER BY s.agent_id`, tenant)
	if err != nil {
		return nil, fmt.Errorf("sqlite: agents: %w", err)
	}
	defer rows.Close()
	out := []mnemo.AgentCount{}
	for rows.Next() {
		var a mnemo.AgentCount
		if err := rows.Scan(&a.AgentID, &a.Memories); err != nil {
			return nil, fmt.Errorf("sqlite: agents: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: agents: %w", err)
	}
	return out, nil
}

// KeyTree implements mnemo.KeyTreeLister with a skip scan of the key
// index: the first key at or after a cursor names a child; a directory
// child is counted by one range of the index and skipped past. Each child
// costs two index lookups, however many keys are below it.
func (db *DB) KeyTree(ctx context.Context, scope mnemo.Scope, prefix string, limit int) ([]mnemo.KeyChild, bool, error) {
	if err := checkScope(scope); err != nil {
		return nil, false, err
	}
	if err := mnemo.CheckKeyTreePrefix(prefix); err != nil {
		return nil, false, err
	}
	if limit <= 0 || limit > mnemo.MaxKeyTreeChildren {
		limit = mnemo.MaxKeyTreeChildren
	}
	// No byte of valid UTF-8 is 0xFF: p+"\xff" sorts after every key
	// starting with p.
	end := prefix + "\xff"
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: key tree: %w", err)
	}
	defer tx.Rollback()
	children := []mnemo.KeyChild{}
	for cursor := prefix; ; {
		var key string
		err := tx.QueryRowContext(ctx, `SELECT key FROM memories
			WHERE tenant_id = ? AND agent_id = ? AND key >= ? AND key < ? AND tombstone = 0
			ORDER BY key LIMIT 1`, scope.TenantID, scope.AgentID, cursor, end).Scan(&key)
		if errors.Is(err, sql.ErrNoRows) {
			return children, false, nil
		} else if err != nil {
			return nil, false, fmt.Errorf("sqlite: key tree: %w", err)
		}
		if len(children) == limit {
			return children, true, nil
		}
		name, dir := mnemo.KeyTreeChild(prefix, key)
		c := mnemo.KeyChild{Name: name, Dir: dir, Count: 1}
		if dir {
			lo := prefix + name
			hi := lo + "\xff"
			err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories
				WHERE tenant_id = ? AND agent_id = ? AND key >= ? AND key < ? AND tombstone = 0`,
				scope.TenantID, scope.AgentID, lo, hi).Scan(&c.Count)
			if err != nil {
				return nil, false, fmt.Errorf("sqlite: key tree: %w", err)
			}
			cursor = hi
		} else {
			cursor = key + "\x00"
		}
		children = append(children, c)
	}
}
