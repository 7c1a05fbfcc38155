package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// ReplayWrites writes recs, writes a failover's spool acknowledged while
// the database was out of reach (PG-4, PG-9), as Write does, but so that
// replaying them again, cut or whole, by this server or another, changes
// nothing (PG-7, PG-10). It runs in one transaction that holds the scope's
// write lock, so that what it finds stays so until it commits:
//
//   - a record the scope has seen is skipped: a keyless one whose id has a
//     memory or a history revision, a keyed one whose key has a revision
//     with its UpdatedAt and op (a write that upserted a key is recorded
//     under the key's memory id, not its own);
//   - a keyed record whose key was forgotten or cleared at or after its
//     UpdatedAt is skipped: the later deletion stands, and its content,
//     which the deletion blanked from history, does not come back;
//   - a keyed record older than its key's stored write is kept in the
//     key's history, unapplied, at its UpdatedAt (when it was
//     acknowledged), the memory unchanged: mnemo.Store.Write keeps every
//     acknowledged revision.
//
// It returns how many records it stored, applied or kept in history.
func (db *DB) ReplayWrites(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return 0, nil
	}
	now := db.now()
	rows := make([]*row, len(recs))
	for i := range recs {
		r, err := prepare(scope, &recs[i], now)
		if err != nil {
			return 0, fmt.Errorf("postgres: replay record %d: %w", i, err)
		}
		rows[i] = r
	}
	n := 0
	err := db.writeTx(ctx, "replay", scope.TenantID, func(tx pgx.Tx) error {
		if err := lockScopeStats(ctx, tx, scope); err != nil {
			return err
		}
		fresh, err := unseen(ctx, tx, scope, rows)
		if err != nil || len(fresh) == 0 {
			n = 0
			return err
		}
		if _, err := db.writeBatch(ctx, tx, scope, fresh, now, writeReplayed); err != nil {
			return err
		}
		n = len(fresh)
		return nil
	})
	return n, err
}

// unseen returns the rows of in that the scope has not seen (see
// ReplayWrites), in their order.
func unseen(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, in []*row) ([]*row, error) {
	var ids, keys []string
	keyless := map[string]bool{}
	for _, r := range in {
		if r.m.Key != "" {
			keys = append(keys, r.m.Key)
		} else {
			ids = append(ids, r.m.ID)
			keyless[r.m.ID] = true
		}
	}
	type revision struct {
		op      string
		at      int64
		updated time.Time // of the revision's memory; zero when blanked
	}
	seenIDs := map[string]bool{}
	revs := map[string][]revision{} // key → its revisions
	rows, err := tx.Query(ctx, `SELECT memory_id, key, op, at_ns, memory->>'updated_at' FROM history
		WHERE tenant_id = $1::text AND agent_id = $2::text AND (memory_id = ANY($3::text[]) OR key = ANY($4::text[]))
		UNION ALL
		SELECT id, NULL, NULL, NULL, NULL FROM memory_entries
		WHERE tenant_id = $1::text AND agent_id = $2::text AND id = ANY($3::text[])`,
		scope.TenantID, scope.AgentID, ids, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id                 string
			key, op, updatedAt *string
			at                 *int64
		)
		if err := rows.Scan(&id, &key, &op, &at, &updatedAt); err != nil {
			return nil, err
		}
		if keyless[id] {
			seenIDs[id] = true
		}
		if key == nil {
			continue
		}
		rv := revision{op: *op, at: *at}
		if updatedAt != nil {
			if t, err := time.Parse(time.RFC3339Nano, *updatedAt); err == nil {
				rv.updated = t
			}
		}
		revs[*key] = append(revs[*key], rv)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*row, 0, len(in))
	for _, r := range in {
		if r.m.Key == "" {
			if !seenIDs[r.m.ID] {
				out = append(out, r)
			}
			continue
		}
		op := mnemo.OpPut
		if r.tombstone {
			op = mnemo.OpTombstone
		}
		seen := false
		for _, rv := range revs[r.m.Key] {
			switch rv.op {
			case mnemo.OpForget, mnemo.OpClear:
				seen = rv.at >= sqlrow.Nanos(r.m.UpdatedAt)
			default:
				seen = rv.op == op && rv.updated.Equal(r.m.UpdatedAt)
			}
			if seen {
				break
			}
		}
		if !seen {
			out = append(out, r)
		}
	}
	return out, nil
}
