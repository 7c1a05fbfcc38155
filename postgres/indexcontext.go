package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.ContextIndexer = (*DB)(nil)

// WriteContexts implements mnemo.ContextIndexer (REC-36): the records and
// the contexts in one transaction. The tsvector and the BM25 statistics
// follow the column (0005_bm25.sql). A row's revision stays: nothing a
// writer reads changes, and a write racing this one sets the context it
// computed itself.
func (db *DB) WriteContexts(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	if len(updates) == 0 {
		return db.Write(ctx, scope, recs)
	}
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if len(recs) > 0 {
		return db.write(ctx, scope, recs, writeNew, updates)
	}
	err := db.writeTx(bookkeeping(ctx), "index context", scope.TenantID, func(tx pgx.Tx) error {
		if err := lockScopeStats(ctx, tx, scope); err != nil {
			return err
		}
		return indexContexts(ctx, tx, scope, updates)
	})
	return nil, err
}

// indexContexts sets, in tx, the index context of the scope's live
// memories of updates.
func indexContexts(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, updates []mnemo.ContextUpdate) error {
	// One context an id, the last: UPDATE … FROM takes any of several.
	last := make(map[string]int, len(updates))
	for i, u := range updates {
		last[u.ID] = i
	}
	ids, contexts := make([]string, 0, len(last)), make([]string, 0, len(last))
	for i, u := range updates {
		if last[u.ID] == i {
			ids, contexts = append(ids, u.ID), append(contexts, u.Context)
		}
	}
	// Rows are locked in the order of seq, as writes take them.
	_, err := tx.Exec(ctx, `WITH t AS (
			SELECT m.seq, u.context FROM memory_entries m
			JOIN unnest($1::text[], $2::text[]) AS u(id, context) ON m.id = u.id
			WHERE m.tenant_id = $3::text AND m.agent_id = $4::text
				AND NOT m.tombstone AND m.index_context <> u.context
			ORDER BY m.seq FOR UPDATE OF m)
		UPDATE memory_entries m SET index_context = t.context
		FROM t WHERE m.tenant_id = $3::text AND m.seq = t.seq`,
		ids, contexts, scope.TenantID, scope.AgentID)
	return err
}
