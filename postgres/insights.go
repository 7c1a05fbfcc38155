package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// L4 summaries (EVT-10, EVT-16) and L5 capabilities (EVT-11), as JSON
// bodies (jsonb), as sqlite/insights.go keeps them.

var _ mnemo.InsightStore = (*DB)(nil)

// PutSummary implements mnemo.InsightStore: an upsert by (scope, period,
// start).
func (db *DB) PutSummary(ctx context.Context, scope mnemo.Scope, s mnemo.Summary) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	for _, t := range []time.Time{s.Start, s.End, s.GeneratedAt} {
		if err := sqlrow.CheckTime(t); err != nil {
			return err
		}
	}
	if !s.Start.Before(s.End) {
		return mnemo.Errorf(mnemo.EINVALID, "a summary's period must start before it ends")
	}
	if !slices.Contains(mnemo.Periods, s.Period) {
		return mnemo.Errorf(mnemo.EINVALID, "unknown period %q", s.Period)
	}
	s.Scope = scope
	body, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("postgres: put summary: %w", err)
	}
	err = db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO summaries (tenant_id, agent_id, period, start_ns, end_ns, generated_ns, body)
			VALUES ($1::text, $2::text, $3::text, $4::bigint, $5::bigint, $6::bigint, $7::text::jsonb)
			ON CONFLICT (tenant_id, agent_id, period, start_ns) DO UPDATE SET
				end_ns = excluded.end_ns, generated_ns = excluded.generated_ns, body = excluded.body`,
			scope.TenantID, scope.AgentID, string(s.Period), sqlrow.Nanos(s.Start), sqlrow.Nanos(s.End), sqlrow.Nanos(s.GeneratedAt), string(body))
		return err
	})
	return db.fail("put summary", err)
}

// Summaries implements mnemo.InsightStore.
func (db *DB) Summaries(ctx context.Context, scope mnemo.Scope, q mnemo.SummaryQuery) ([]mnemo.Summary, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	p := &params{}
	w := `tenant_id = ` + p.p(scope.TenantID, "text") + ` AND agent_id = ` + p.p(scope.AgentID, "text")
	if q.Period != "" {
		w += ` AND period = ` + p.p(string(q.Period), "text")
	}
	if q.From != nil {
		w += ` AND start_ns >= ` + p.p(sqlrow.Nanos(*q.From), "bigint")
	}
	if q.To != nil {
		w += ` AND start_ns < ` + p.p(sqlrow.Nanos(*q.To), "bigint")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	query := `SELECT body::text FROM summaries WHERE ` + w + `
		ORDER BY start_ns, CASE period WHEN 'hour' THEN 0 WHEN 'day' THEN 1 WHEN 'week' THEN 2 WHEN 'month' THEN 3 ELSE 4 END
		LIMIT ` + p.p(limit, "int")
	out := []mnemo.Summary{}
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		out = out[:0]
		rows, err := qr.Query(ctx, query, p.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var body string
			if err := rows.Scan(&body); err != nil {
				return err
			}
			var s mnemo.Summary
			if err := json.Unmarshal([]byte(body), &s); err != nil {
				return fmt.Errorf("a stored summary does not decode: %w", err)
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("summaries", err)
	}
	return out, nil
}

// DropSummaries implements mnemo.InsightStore, across tenants.
func (db *DB) DropSummaries(ctx context.Context, periods []mnemo.Period, before time.Time) (int, error) {
	if len(periods) == 0 {
		return 0, nil
	}
	ps := make([]string, len(periods))
	for i, p := range periods {
		ps[i] = string(p)
	}
	var n int64
	err := db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM summaries WHERE period = ANY($1::text[]) AND end_ns <= $2::bigint`, ps, sqlrow.Nanos(before))
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, db.fail("drop summaries", err)
	}
	return int(n), nil
}

// EventScopes implements mnemo.InsightStore. Cold events are older than
// the hot ones, and since is recent: only hot events are looked at.
func (db *DB) EventScopes(ctx context.Context, since time.Time) ([]mnemo.Scope, error) {
	var out []mnemo.Scope
	err := db.read(ctx, allTenants, func(q querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT DISTINCT tenant_id, agent_id FROM events WHERE ts_ns >= $1::bigint AND NOT cold ORDER BY 1, 2`,
			sqlrow.Nanos(since))
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
		return nil, db.fail("event scopes", err)
	}
	return out, nil
}

// capLock serialises the capability updates of a scope: two appends that
// learn from outcomes at once never lose each other's counts (EVT-17), even for a
// task type not stored yet (no row to lock).
const capLock = `SELECT pg_advisory_xact_lock(hashtextextended('mnemo.capabilities:' || $1::text || ':' || $2::text, 0))`

// UpdateCapabilities implements mnemo.InsightStore.
func (db *DB) UpdateCapabilities(ctx context.Context, scope mnemo.Scope, taskTypes []string, fn func(have []mnemo.Capability) ([]mnemo.Capability, error)) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	if len(taskTypes) == 0 {
		return nil
	}
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, capLock, scope.TenantID, scope.AgentID); err != nil {
			return err
		}
		have, err := readCapabilities(ctx, tx, `SELECT body::text FROM capabilities
			WHERE tenant_id = $1::text AND agent_id = $2::text AND task_type = ANY($3::text[]) ORDER BY task_type`,
			scope.TenantID, scope.AgentID, taskTypes)
		if err != nil {
			return err
		}
		caps, err := fn(have)
		if err != nil {
			return err
		}
		return putCapabilities(ctx, tx, scope, caps, db.now())
	})
	return db.fail("update capabilities", err)
}

// ReplaceCapabilities implements mnemo.InsightStore.
func (db *DB) ReplaceCapabilities(ctx context.Context, scope mnemo.Scope, caps []mnemo.Capability) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, capLock, scope.TenantID, scope.AgentID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM capabilities WHERE tenant_id = $1::text AND agent_id = $2::text`, scope.TenantID, scope.AgentID); err != nil {
			return err
		}
		return putCapabilities(ctx, tx, scope, caps, db.now())
	})
	return db.fail("replace capabilities", err)
}

// Capabilities implements mnemo.InsightStore.
func (db *DB) Capabilities(ctx context.Context, scope mnemo.Scope) ([]mnemo.Capability, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	var out []mnemo.Capability
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		var err error
		out, err = readCapabilities(ctx, q, `SELECT body::text FROM capabilities WHERE tenant_id = $1::text AND agent_id = $2::text ORDER BY task_type`,
			scope.TenantID, scope.AgentID)
		return err
	})
	if err != nil {
		return nil, db.fail("capabilities", err)
	}
	return out, nil
}

func readCapabilities(ctx context.Context, q querier, query string, args ...any) ([]mnemo.Capability, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []mnemo.Capability{}
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var c mnemo.Capability
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			return nil, fmt.Errorf("a stored capability does not decode: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func putCapabilities(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, caps []mnemo.Capability, now time.Time) error {
	for _, c := range caps {
		if c.TaskType == "" {
			return mnemo.Errorf(mnemo.EINVALID, "a capability needs a task type")
		}
		body, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("put capability: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO capabilities (tenant_id, agent_id, task_type, ready, successes, updated_ns, body)
			VALUES ($1::text, $2::text, $3::text, $4::bool, $5::int, $6::bigint, $7::text::jsonb)
			ON CONFLICT (tenant_id, agent_id, task_type) DO UPDATE SET
				ready = excluded.ready, successes = excluded.successes, updated_ns = excluded.updated_ns, body = excluded.body`,
			scope.TenantID, scope.AgentID, c.TaskType, c.Ready, c.Successes, sqlrow.Nanos(now), string(body)); err != nil {
			return err
		}
	}
	return nil
}
