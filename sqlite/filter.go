package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// where builds a conjunction of conditions on memories aliased m, with
// positional parameters.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) String() string { return strings.Join(w.conds, " AND ") }

// liveIn returns the conditions selecting the live memories of scope, whose
// seqs are sp, that f matches, expiry judged at f.Now or else now.
func liveIn(scope mnemo.Scope, sp span, f *mnemo.Filter, now time.Time) *where {
	w := &where{}
	if len(f.Tags) == 0 {
		w.add(`m.tenant_id = ? AND m.agent_id = ? AND m.tombstone = 0`, scope.TenantID, scope.AgentID)
	} else {
		// Each tag's memories of the scope are one range of memory_tags_tag,
		// so the tag leads: a rare tag is cheap to count even in a large
		// scope. Without statistics SQLite takes the scope's equality for
		// the more selective and walks every memory of the scope; the unary
		// + keeps the scope columns from choosing the index.
		w.add(`+m.tenant_id = ? AND +m.agent_id = ? AND m.tombstone = 0`, scope.TenantID, scope.AgentID)
		const tagged = `SELECT seq FROM memory_tags WHERE tag = ? AND seq >= ? AND seq < ?`
		if f.AllTags {
			sets := make([]string, len(f.Tags))
			for i, t := range f.Tags {
				sets[i] = tagged
				w.args = append(w.args, t, sp.lo, sp.hi)
			}
			w.conds = append(w.conds, `m.seq IN (`+strings.Join(sets, ` INTERSECT `)+`)`)
		} else {
			w.add(`m.seq IN (SELECT seq FROM memory_tags WHERE tag IN (SELECT value FROM json_each(?)) AND seq >= ? AND seq < ?)`,
				jsonArray(f.Tags), sp.lo, sp.hi)
		}
	}
	switch len(f.Types) {
	case 0:
	case 1:
		// An equality, so that an index on type serves its order too.
		w.add(`m.type = ?`, f.Types[0])
	default:
		w.add(`m.type IN (SELECT value FROM json_each(?))`, jsonArray(f.Types))
	}
	if len(f.Categories) > 0 {
		w.add(`m.category IN (SELECT value FROM json_each(?))`, jsonArray(f.Categories))
	}
	if f.SessionID != "" {
		w.add(`m.session_id = ?`, f.SessionID)
	}
	if f.KeyPrefix != "" {
		// Ranges, so that the key index answers them. No byte of valid
		// UTF-8 is 0xFF, so p+"\xff" sorts after every key starting with p.
		// A prefix is a path: "/user" matches "/user" and "/user/…", not
		// "/username"; one ending in "/" ("/", "kb://") matches below it.
		p := f.KeyPrefix
		if strings.HasSuffix(p, "/") {
			w.add(`m.key >= ? AND m.key < ?`, p, p+"\xff")
		} else {
			w.add(`(m.key = ? OR (m.key >= ? AND m.key < ?))`, p, p+"/", p+"/\xff")
		}
	}
	if f.CreatedAfter != nil {
		w.add(`m.created_at >= ?`, sqlrow.Nanos(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		w.add(`m.created_at < ?`, sqlrow.Nanos(*f.CreatedBefore))
	}
	// Overlap with [after, before) (REC-25); a row written before
	// migration 0011 has its creation's window.
	if f.OccurredAfter != nil {
		w.add(`m.occurred_end > ?`, sqlrow.Nanos(*f.OccurredAfter))
	}
	if f.OccurredBefore != nil {
		w.add(`m.occurred_start < ?`, sqlrow.Nanos(*f.OccurredBefore))
	}
	if f.Dated { // REC-29
		w.add(`m.occurred_source IN ('text', 'writer')`)
	}
	if f.AsOf != nil { // what held then (REC-27)
		t := sqlrow.Nanos(*f.AsOf)
		w.add(`(m.created_at <= ? OR m.occurred_start <= ?) AND (m.valid_to IS NULL OR m.valid_to > ?)`, t, t, t)
	}
	if f.MinConfidence > 0 {
		w.add(`m.confidence >= ?`, f.MinConfidence)
	}
	if f.MinVitality > 0 {
		w.add(`m.vitality >= ?`, f.MinVitality)
	}
	if f.Pinned {
		w.add(`m.pinned = 1`)
	}
	if f.Unpinned {
		w.add(`m.pinned = 0`)
	}
	if len(f.SecurityLevels) > 0 {
		w.add(`m.security_level IN (SELECT value FROM json_each(?))`, jsonArray(f.SecurityLevels))
	}
	switch {
	case f.ArchivedOnly:
		w.add(`m.archived = 1`)
	case !f.IncludeArchived:
		w.add(`m.archived = 0`)
	}
	if !f.IncludeExpired {
		at := f.Now
		if at.IsZero() {
			at = now
		}
		n := sqlrow.Nanos(at)
		w.add(`(m.expires_at IS NULL OR m.expires_at > ?) AND (m.data_expired_at IS NULL OR m.data_expired_at > ?)`, n, n)
	}
	if len(f.NotIDs) > 0 { // recurring memories that do not occur then (REC-30)
		w.add(`m.id NOT IN (`+strings.TrimSuffix(strings.Repeat("?,", len(f.NotIDs)), ",")+`)`, anys(f.NotIDs)...)
	}
	return w
}

// live is liveIn, with the recurring memories whose occurrences miss f's
// occurred bounds left out (REC-30): they are found by the partial index
// memories_recurring, and judged in Go.
func (db *DB) live(ctx context.Context, scope mnemo.Scope, sp span, f *mnemo.Filter) (*where, error) {
	if f.OccurredAfter != nil || f.OccurredBefore != nil {
		w := liveIn(scope, sp, f, db.now())
		rows, err := db.reader.QueryContext(ctx, `SELECT m.id, m.occurred_start, m.occurred_expr FROM memories m
			WHERE `+w.String()+` AND m.tombstone = 0 AND m.occurred_end = `+sqlrow.RecurringEnd, w.args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: recurring: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id    string
				start int64
				expr  string
			)
			if err := rows.Scan(&id, &start, &expr); err != nil {
				return nil, fmt.Errorf("sqlite: recurring: %w", err)
			}
			if sqlrow.RecurringMiss(f, start, expr) {
				f.NotIDs = append(f.NotIDs, id)
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: recurring: %w", err)
		}
	}
	return liveIn(scope, sp, f, db.now()), nil
}
