package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

var _ mnemo.InsightStore = (*DB)(nil)

// PutSummary implements mnemo.InsightStore.
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
	s.Scope = scope
	body, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("sqlite: put summary: %w", err)
	}
	_, err = db.writer.ExecContext(ctx, `INSERT INTO summaries (tenant_id, agent_id, period, start_ts, end_ts, generated_at, body)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, agent_id, period, start_ts) DO UPDATE SET
			end_ts = excluded.end_ts, generated_at = excluded.generated_at, body = excluded.body`,
		scope.TenantID, scope.AgentID, string(s.Period), sqlrow.Nanos(s.Start), sqlrow.Nanos(s.End), sqlrow.Nanos(s.GeneratedAt), string(body))
	if err != nil {
		if isConstraint(err) {
			return mnemo.Errorf(mnemo.EINVALID, "unknown period %q", s.Period)
		}
		return fmt.Errorf("sqlite: put summary: %w", err)
	}
	return nil
}

// Summaries implements mnemo.InsightStore.
func (db *DB) Summaries(ctx context.Context, scope mnemo.Scope, q mnemo.SummaryQuery) ([]mnemo.Summary, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	w := &where{}
	w.add("tenant_id = ? AND agent_id = ?", scope.TenantID, scope.AgentID)
	if q.Period != "" {
		w.add("period = ?", string(q.Period))
	}
	if q.From != nil {
		w.add("start_ts >= ?", sqlrow.Nanos(*q.From))
	}
	if q.To != nil {
		w.add("start_ts < ?", sqlrow.Nanos(*q.To))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT body FROM summaries WHERE `+w.String()+`
		ORDER BY start_ts, CASE period WHEN 'hour' THEN 0 WHEN 'day' THEN 1 WHEN 'week' THEN 2 WHEN 'month' THEN 3 ELSE 4 END
		LIMIT ?`, append(w.args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: summaries: %w", err)
	}
	defer rows.Close()
	out := []mnemo.Summary{}
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("sqlite: summaries: %w", err)
		}
		var s mnemo.Summary
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, fmt.Errorf("sqlite: summaries: a stored summary does not decode: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: summaries: %w", err)
	}
	return out, nil
}

// DropSummaries implements mnemo.InsightStore.
func (db *DB) DropSummaries(ctx context.Context, periods []mnemo.Period, before time.Time) (int, error) {
	if len(periods) == 0 {
		return 0, nil
	}
	args := []any{}
	for _, p := range periods {
		args = append(args, string(p))
	}
	res, err := db.writer.ExecContext(ctx, `DELETE FROM summaries WHERE period IN (`+placeholders(len(periods))+`) AND end_ts <= ?`,
		append(args, sqlrow.Nanos(before))...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: drop summaries: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// EventScopes implements mnemo.InsightStore. Cold events are older than
// the hot ones, and since is recent: only hot events are looked at.
func (db *DB) EventScopes(ctx context.Context, since time.Time) ([]mnemo.Scope, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT DISTINCT tenant_id, agent_id FROM events WHERE ts >= ? ORDER BY 1, 2`, sqlrow.Nanos(since))
	if err != nil {
		return nil, fmt.Errorf("sqlite: event scopes: %w", err)
	}
	defer rows.Close()
	var out []mnemo.Scope
	for rows.Next() {
		var s mnemo.Scope
		if err := rows.Scan(&s.TenantID, &s.AgentID); err != nil {
			return nil, fmt.Errorf("sqlite: event scopes: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// UpdateCapabilities implements mnemo.InsightStore. The writer's one
// connection serializes updates: two appends never lose each other's
// counts.
func (db *DB) UpdateCapabilities(ctx context.Context, scope mnemo.Scope, taskTypes []string, fn func(have []mnemo.Capability) ([]mnemo.Capability, error)) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	if len(taskTypes) == 0 {
		return nil
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: update capabilities: %w", err)
	}
	defer tx.Rollback()
	have, err := readCapabilities(ctx, tx, `SELECT body FROM capabilities WHERE tenant_id = ? AND agent_id = ? AND task_type IN (`+placeholders(len(taskTypes))+`)`,
		append([]any{scope.TenantID, scope.AgentID}, anys(taskTypes)...)...)
	if err != nil {
		return err
	}
	caps, err := fn(have)
	if err != nil {
		return err
	}
	if err := putCapabilities(ctx, tx, scope, caps, db.now()); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: update capabilities: %w", err)
	}
	return nil
}

// ReplaceCapabilities implements mnemo.InsightStore.
func (db *DB) ReplaceCapabilities(ctx context.Context, scope mnemo.Scope, caps []mnemo.Capability) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: replace capabilities: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM capabilities WHERE tenant_id = ? AND agent_id = ?`, scope.TenantID, scope.AgentID); err != nil {
		return fmt.Errorf("sqlite: replace capabilities: %w", err)
	}
	if err := putCapabilities(ctx, tx, scope, caps, db.now()); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: replace capabilities: %w", err)
	}
	return nil
}

// Capabilities implements mnemo.InsightStore.
func (db *DB) Capabilities(ctx context.Context, scope mnemo.Scope) ([]mnemo.Capability, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	return readCapabilities(ctx, db.reader, `SELECT body FROM capabilities WHERE tenant_id = ? AND agent_id = ? ORDER BY task_type`, scope.TenantID, scope.AgentID)
}

func readCapabilities(ctx context.Context, q queryer, query string, args ...any) ([]mnemo.Capability, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: capabilities: %w", err)
	}
	defer rows.Close()
	out := []mnemo.Capability{}
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("sqlite: capabilities: %w", err)
		}
		var c mnemo.Capability
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, fmt.Errorf("sqlite: capabilities: a stored capability does not decode: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func putCapabilities(ctx context.Context, tx *sql.Tx, scope mnemo.Scope, caps []mnemo.Capability, now time.Time) error {
	for _, c := range caps {
		if c.TaskType == "" {
			return mnemo.Errorf(mnemo.EINVALID, "a capability needs a task type")
		}
		body, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("sqlite: put capability: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO capabilities (tenant_id, agent_id, task_type, ready, successes, updated_at, body)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant_id, agent_id, task_type) DO UPDATE SET
				ready = excluded.ready, successes = excluded.successes, updated_at = excluded.updated_at, body = excluded.body`,
			scope.TenantID, scope.AgentID, c.TaskType, c.Ready, c.Successes, sqlrow.Nanos(now), string(body)); err != nil {
			return fmt.Errorf("sqlite: put capability: %w", err)
		}
	}
	return nil
}
