package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// liveIn returns the conditions, joined by AND, selecting the live memories
// of scope (table aliased m) that f matches, expiry judged at f.Now or else
// now. Its parameters are added to p.
func liveIn(p *params, scope mnemo.Scope, f *mnemo.Filter, now time.Time) string {
	c := []string{
		`m.tenant_id = ` + p.p(scope.TenantID, "text"),
		`m.agent_id = ` + p.p(scope.AgentID, "text"),
		`NOT m.tombstone`,
	}
	if len(f.Tags) > 0 {
		if f.AllTags {
			tags, _ := json.Marshal(f.Tags) // a []string always marshals
			c = append(c, `m.tags @> `+p.p(string(tags), "jsonb"))
		} else {
			c = append(c, `m.tags ?| `+p.p(f.Tags, "text[]"))
		}
	}
	switch len(f.Types) {
	case 0:
	case 1:
		c = append(c, `m.type = `+p.p(f.Types[0], "text"))
	default:
		c = append(c, `m.type = ANY(`+p.p(f.Types, "text[]")+`)`)
	}
	if len(f.Categories) > 0 {
		c = append(c, `m.category = ANY(`+p.p(f.Categories, "text[]")+`)`)
	}
	if f.SessionID != "" {
		c = append(c, `m.session_id = `+p.p(f.SessionID, "text"))
	}
	if f.KeyPrefix != "" {
		// A prefix is a path: "/user" matches "/user" and "/user/…", not
		// "/username"; one ending in "/" ("/", "kb://") matches below it.
		k := f.KeyPrefix
		if strings.HasSuffix(k, "/") {
			c = append(c, `starts_with(m.key, `+p.p(k, "text")+`)`)
		} else {
			c = append(c, `(m.key = `+p.p(k, "text")+` OR starts_with(m.key, `+p.p(k+"/", "text")+`))`)
		}
	}
	if f.OccurredAfter != nil { // overlap with [after, before) (REC-25)
		c = append(c, `m.occurred_end_ns > `+p.p(sqlrow.Nanos(*f.OccurredAfter), "bigint"))
	}
	if f.OccurredBefore != nil {
		c = append(c, `m.occurred_start_ns < `+p.p(sqlrow.Nanos(*f.OccurredBefore), "bigint"))
	}
	if f.Dated { // REC-29
		c = append(c, `m.occurred_source IN ('text', 'writer')`)
	}
	if f.AsOf != nil { // what held then (REC-27)
		t := sqlrow.Nanos(*f.AsOf)
		c = append(c, `(m.created_ns <= `+p.p(t, "bigint")+` OR m.occurred_start_ns <= `+p.p(t, "bigint")+`) AND (m.valid_to_ns IS NULL OR m.valid_to_ns > `+p.p(t, "bigint")+`)`)
	}
	if f.CreatedAfter != nil {
		c = append(c, `m.created_ns >= `+p.p(sqlrow.Nanos(*f.CreatedAfter), "bigint"))
	}
	if f.CreatedBefore != nil {
		c = append(c, `m.created_ns < `+p.p(sqlrow.Nanos(*f.CreatedBefore), "bigint"))
	}
	if f.MinConfidence > 0 {
		c = append(c, `m.confidence >= `+p.p(f.MinConfidence, "float8"))
	}
	if f.MinVitality > 0 {
		c = append(c, `m.vitality >= `+p.p(f.MinVitality, "float8"))
	}
	if f.Pinned {
		c = append(c, `m.pinned`)
	}
	if f.Unpinned {
		c = append(c, `NOT m.pinned`)
	}
	if len(f.SecurityLevels) > 0 {
		c = append(c, `m.security_level = ANY(`+p.p(f.SecurityLevels, "text[]")+`)`)
	}
	switch {
	case f.ArchivedOnly:
		c = append(c, `m.archived`)
	case !f.IncludeArchived:
		c = append(c, `NOT m.archived`)
	}
	if !f.IncludeExpired {
		at := f.Now
		if at.IsZero() {
			at = now
		}
		n := p.p(sqlrow.Nanos(at), "bigint")
		c = append(c, `(m.expires_ns IS NULL OR m.expires_ns > `+n+`)`, `(m.data_expired_ns IS NULL OR m.data_expired_ns > `+n+`)`)
	}
	if len(f.NotIDs) > 0 { // recurring memories that do not occur then (REC-30)
		c = append(c, `m.id <> ALL(`+p.p(f.NotIDs, "text[]")+`)`)
	}
	return strings.Join(c, " AND ")
}

// selective reports whether f may drop most of a scope's memories.
func selective(f *mnemo.Filter) bool {
	return len(f.Tags) > 0 || len(f.Types) > 0 || len(f.Categories) > 0 || f.SessionID != "" ||
		f.KeyPrefix != "" || f.CreatedAfter != nil || f.CreatedBefore != nil || f.OccurredAfter != nil || f.OccurredBefore != nil || f.Pinned ||
		len(f.SecurityLevels) > 0 || f.ArchivedOnly
}

// recurringMisses sets f.NotIDs to the recurring memories of scope whose
// occurrences all miss f's occurred bounds (REC-30): the SQL overlap
// cannot tell. The partial index memory_entries_recurring finds them
// without reading the others.
func (db *DB) recurringMisses(ctx context.Context, scope mnemo.Scope, f *mnemo.Filter) error {
	if f.OccurredAfter == nil && f.OccurredBefore == nil {
		return nil
	}
	var p params
	w := liveIn(&p, scope, f, db.now())
	return db.read(ctx, scope.TenantID, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT m.id, m.occurred_start_ns, m.occurred_expr FROM memory_entries m
			WHERE `+w+` AND m.occurred_end_ns = `+sqlrow.RecurringEnd, p.args...)
		if err != nil {
			return fmt.Errorf("postgres: recurring: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id    string
				start int64
				expr  string
			)
			if err := rows.Scan(&id, &start, &expr); err != nil {
				return fmt.Errorf("postgres: recurring: %w", err)
			}
			if sqlrow.RecurringMiss(f, start, expr) {
				f.NotIDs = append(f.NotIDs, id)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("postgres: recurring: %w", err)
		}
		return nil
	})
}
