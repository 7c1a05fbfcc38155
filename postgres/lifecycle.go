package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// ApplyLife implements mnemo.LifecycleStore: the changes and the ledger
// entries in one transaction. Each change is a revision of its memory, so
// that a concurrent write that read the memory before it runs again.
func (db *DB) ApplyLife(ctx context.Context, scope mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	ids := make([]string, len(changes))
	vit := make([]*float64, len(changes))
	stab := make([]*float64, len(changes))
	arch := make([]*bool, len(changes))
	vto := make([]*int64, len(changes))
	for i, c := range changes {
		ids[i], vit[i], stab[i], arch[i], vto[i] = c.ID, c.Vitality, c.Stability, c.Archived, sqlrow.NullTimePtr(c.ValidTo)
	}
	var n int
	err := db.writeTx(ctx, "apply life", scope.TenantID, func(tx pgx.Tx) error {
		n = 0
		if len(changes) > 0 {
			// In id order, so that concurrent batches lock rows in one
			// order; a memory changed twice takes its last change.
			tag, err := tx.Exec(ctx, `UPDATE memory_entries m SET
					vitality = coalesce(c.vitality, m.vitality),
					stability = coalesce(c.stability, m.stability),
					archived = coalesce(c.archived, m.archived),
					valid_to_ns = CASE WHEN c.valid_to IS NULL OR m.valid_to_ns <= c.valid_to THEN m.valid_to_ns ELSE c.valid_to END,
					revision = m.revision + 1
				FROM (SELECT DISTINCT ON (id) id, vitality, stability, archived, valid_to
					FROM unnest($1::text[], $2::float8[], $3::float8[], $4::boolean[], $7::bigint[]) WITH ORDINALITY AS u (id, vitality, stability, archived, valid_to, n)
					ORDER BY id, n DESC) AS c
				WHERE m.id = c.id AND m.tenant_id = $5::text AND m.agent_id = $6::text AND NOT m.tombstone`,
				ids, vit, stab, arch, scope.TenantID, scope.AgentID, vto)
			if err != nil {
				return err
			}
			n = int(tag.RowsAffected())
		}
		return appendLedger(ctx, tx, scope, entries, db.now())
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// AppendLedger implements mnemo.LifecycleStore.
func (db *DB) AppendLedger(ctx context.Context, scope mnemo.Scope, entries []mnemo.LedgerEntry) error {
	ctx = bookkeeping(ctx)
	if err := checkScope(scope); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	return db.writeTx(ctx, "ledger", scope.TenantID, func(tx pgx.Tx) error {
		return appendLedger(ctx, tx, scope, entries, db.now())
	})
}

// appendLedger inserts entries in one statement.
func appendLedger(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, entries []mnemo.LedgerEntry, now time.Time) error {
	if len(entries) == 0 {
		return nil
	}
	var (
		p    params
		vals []string
	)
	for _, e := range entries {
		if e.At.IsZero() {
			e.At = now
		}
		if err := sqlrow.CheckTime(e.At); err != nil {
			return err
		}
		ids := []byte("[]")
		if len(e.MemoryIDs) > 0 {
			ids, _ = json.Marshal(e.MemoryIDs) // a []string always marshals
		}
		if len(e.Details) > 0 && !json.Valid(e.Details) {
			return mnemo.Errorf(mnemo.EINVALID, "ledger entry details are not valid JSON")
		}
		vals = append(vals, "("+strings.Join([]string{
			p.p(scope.TenantID, "text"), p.p(scope.AgentID, "text"), p.p(sqlrow.Nanos(e.At), "bigint"),
			p.p(e.Action, "text"), p.p(e.Actor, "text"), p.p(e.Reason, "text"),
			p.p(string(ids), "jsonb"), p.p(sqlrow.NullJSON(e.Details), "json"),
		}, ", ")+")")
	}
	_, err := tx.Exec(ctx, `INSERT INTO ledger (tenant_id, agent_id, at_ns, action, actor, reason, memory_ids, details)
		VALUES `+strings.Join(vals, ", "), p.args...)
	return err
}

// Ledger implements mnemo.LifecycleStore.
func (db *DB) Ledger(ctx context.Context, scope mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	if err := checkScope(scope); err != nil {
		return nil, 0, err
	}
	var p params
	c := []string{`tenant_id = ` + p.p(scope.TenantID, "text"), `agent_id = ` + p.p(scope.AgentID, "text")}
	if q.Seq != 0 {
		c = append(c, `seq = `+p.p(q.Seq, "bigint"))
	}
	if q.Action != "" {
		c = append(c, `action = `+p.p(q.Action, "text"))
	}
	if q.MemoryID != "" {
		c = append(c, `memory_ids ? `+p.p(q.MemoryID, "text"))
	}
	if q.Since != nil {
		c = append(c, `at_ns >= `+p.p(sqlrow.Nanos(*q.Since), "bigint"))
	}
	if q.Until != nil {
		c = append(c, `at_ns < `+p.p(sqlrow.Nanos(*q.Until), "bigint"))
	}
	w := strings.Join(c, " AND ")
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	var total int
	out := []mnemo.LedgerEntry{}
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		if err := qr.QueryRow(ctx, `SELECT count(*) FROM ledger WHERE `+w, p.args...).Scan(&total); err != nil {
			return err
		}
		pp := params{args: append([]any(nil), p.args...)}
		rows, err := qr.Query(ctx, `SELECT seq, at_ns, action, actor, reason, memory_ids::text, details::text FROM ledger
			WHERE `+w+` ORDER BY seq DESC LIMIT `+pp.p(limit, "bigint")+` OFFSET `+pp.p(q.Offset, "bigint"), pp.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e := mnemo.LedgerEntry{TenantID: scope.TenantID, AgentID: scope.AgentID}
			var (
				at      int64
				ids     string
				details *string
			)
			if err := rows.Scan(&e.Seq, &at, &e.Action, &e.Actor, &e.Reason, &ids, &details); err != nil {
				return err
			}
			e.At = sqlrow.FromNanos(at)
			if err := json.Unmarshal([]byte(ids), &e.MemoryIDs); err != nil {
				return err
			}
			if len(e.MemoryIDs) == 0 {
				e.MemoryIDs = nil
			}
			if details != nil && strings.TrimSpace(*details) != "" {
				e.Details = json.RawMessage(*details)
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, db.fail("ledger", err)
	}
	return out, total, nil
}

// Scopes implements mnemo.LifecycleStore: every scope that has written, in
// the order of its first write.
func (db *DB) Scopes(ctx context.Context) ([]mnemo.Scope, error) {
	var out []mnemo.Scope
	err := db.read(ctx, allTenants, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT tenant_id, agent_id FROM scopes ORDER BY seq`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var sc mnemo.Scope
			if err := rows.Scan(&sc.TenantID, &sc.AgentID); err != nil {
				return err
			}
			out = append(out, sc)
		}
		return rows.Err()
	})
	return out, db.fail("scopes", err)
}
