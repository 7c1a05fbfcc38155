package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/eventseg"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

var _ mnemo.EventStore = (*DB)(nil)

// Cold segments are parts of gzipped tab-separated lines, written and read
// by internal/eventseg, which the postgres backend shares.

// eventCols are the columns an event is read from, in scanEvent's order.
const eventCols = `seq, id, ts, type, source, data, metadata, coalesce(security_level, '')`

type rowScanner interface{ Scan(dest ...any) error }

func scanEvent(r rowScanner, scope mnemo.Scope) (mnemo.Event, error) {
	e := mnemo.Event{Scope: scope}
	var ts int64
	// Into *[]byte: NULL leaves it nil, and the text is copied once.
	if err := r.Scan(&e.Seq, &e.ID, &ts, &e.Type, &e.Source, (*[]byte)(&e.Data), (*[]byte)(&e.Metadata), &e.SecurityLevel); err != nil {
		return e, err
	}
	e.TS = sqlrow.FromNanos(ts)
	return e, nil
}

func nullRaw(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// nullString stores "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// AppendEvents implements mnemo.EventStore.
func (db *DB) AppendEvents(ctx context.Context, scope mnemo.Scope, events []mnemo.Event, relate func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error)) ([]mnemo.Event, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	events = slices.Clone(events)
	for i := range events {
		if err := eventseg.CheckStored(&events[i]); err != nil {
			return nil, err
		}
	}
	st, err := db.appendStmts(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: append events: %w", err)
	}
	defer tx.Rollback()
	ins := tx.StmtContext(ctx, st.insert)
	look := &txLookup{last: tx.StmtContext(ctx, st.last), lastTyp: tx.StmtContext(ctx, st.lastTyp)}
	var rels []mnemo.Relation // stored after the events, many to a statement
	var vecIns *sql.Stmt      // the L3 insert, when an event has vectors
	out := make([]mnemo.Event, len(events))
	for i, e := range events {
		e.Scope = scope
		// The rules see the events before this one, the batch's too, and
		// not this one: it is stored after them.
		if relate != nil {
			found, err := relate(ctx, look, e)
			if err != nil {
				return nil, fmt.Errorf("sqlite: append events: relations of %s: %w", e.ID, err)
			}
			rels = append(rels, found...)
		}
		res, err := ins.ExecContext(ctx, e.ID, scope.TenantID, scope.AgentID, sqlrow.Nanos(e.TS), e.Type, e.Source, nullRaw(e.Data), nullRaw(e.Metadata), nullString(e.SecurityLevel))
		if err != nil {
			if isConstraint(err) {
				return nil, mnemo.Errorf(mnemo.ECONFLICT, "event id %s is already taken", e.ID)
			}
			return nil, fmt.Errorf("sqlite: append events: %w", err)
		}
		if e.Seq, err = res.LastInsertId(); err != nil {
			return nil, fmt.Errorf("sqlite: append events: %w", err)
		}
		if err := db.fail("event"); err != nil {
			return nil, err
		}
		if len(e.Vectors) > 0 {
			if vecIns == nil {
				vecIns = tx.StmtContext(ctx, st.vector)
			}
			if err := addEventVectors(ctx, vecIns, scope, e); err != nil {
				return nil, err
			}
			if err := db.fail("vectors"); err != nil {
				return nil, err
			}
		}
		e.Vectors = nil
		out[i] = e
	}
	if err := addRelations(ctx, tx, st, scope, rels); err != nil {
		return nil, err
	}
	if err := db.fail("relations"); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: append events: %w", err)
	}
	return out, nil
}

// isConstraint reports a UNIQUE, CHECK or trigger failure.
func isConstraint(err error) bool {
	s := err.Error()
	return strings.Contains(s, "constraint failed") || strings.Contains(s, "already taken")
}

// probeCols are the columns the rules' lookups read: what a relation
// needs, not the event's data.
const probeCols = `seq, id, ts, type`

// appendStatements are the statements of an append, prepared once on the
// writer's connection: parsing them for every append cost a third of its
// time.
type appendStatements struct {
	insert, relation, relations, last, lastTyp, vector *sql.Stmt
}

// relationChunk is how many relations one statement inserts: one
// statement per relation cost a quarter of an append.
const relationChunk = 32

// relationInsert inserts n relations.
func relationInsert(n int) string {
	rows := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?),", n), ",")
	return `INSERT INTO relations (tenant_id, agent_id, source, target, type, confidence, created_at) VALUES ` + rows + `
		ON CONFLICT DO UPDATE SET confidence = max(confidence, excluded.confidence)`
}

func (db *DB) appendStmts(ctx context.Context) (*appendStatements, error) {
	db.eventMu.Lock()
	defer db.eventMu.Unlock()
	if db.eventStmts != nil {
		return db.eventStmts, nil
	}
	st := &appendStatements{}
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&st.insert, `INSERT INTO events (id, tenant_id, agent_id, ts, type, source, data, metadata, security_level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&st.relation, relationInsert(1)},
		{&st.relations, relationInsert(relationChunk)},
		{&st.vector, insertEventVector},
		{&st.last, `SELECT ` + probeCols + ` FROM events
			WHERE tenant_id = ? AND agent_id = ? AND source = ? AND ts <= ? ORDER BY ts DESC, seq DESC LIMIT 1`},
		{&st.lastTyp, `SELECT ` + probeCols + ` FROM events
			WHERE tenant_id = ? AND agent_id = ? AND source = ? AND type = ? AND ts <= ? ORDER BY ts DESC, seq DESC LIMIT 1`},
	} {
		var err error
		if *p.dst, err = db.writer.PrepareContext(ctx, p.query); err != nil {
			st.close()
			return nil, fmt.Errorf("sqlite: prepare append: %w", err)
		}
	}
	db.eventStmts = st
	return st, nil
}

func (st *appendStatements) close() {
	if st == nil {
		return
	}
	for _, s := range []*sql.Stmt{st.insert, st.relation, st.relations, st.last, st.lastTyp, st.vector} {
		if s != nil {
			s.Close()
		}
	}
}

// txLookup is the mnemo.EventLookup of an append: it reads in the append's
// transaction.
type txLookup struct {
	last, lastTyp *sql.Stmt
}

// LastEvent implements mnemo.EventLookup: one indexed probe per type.
func (l *txLookup) LastEvent(ctx context.Context, scope mnemo.Scope, source string, types []string, ts time.Time) (mnemo.Event, bool, error) {
	probe := func(row *sql.Row) (mnemo.Event, bool, error) {
		e := mnemo.Event{Scope: scope, Source: source}
		var at int64
		err := row.Scan(&e.Seq, &e.ID, &at, &e.Type)
		e.TS = sqlrow.FromNanos(at)
		if errors.Is(err, sql.ErrNoRows) {
			return e, false, nil
		} else if err != nil {
			return e, false, fmt.Errorf("sqlite: last event: %w", err)
		}
		return e, true, nil
	}
	if len(types) == 0 {
		return probe(l.last.QueryRowContext(ctx, scope.TenantID, scope.AgentID, source, sqlrow.Nanos(ts)))
	}
	var (
		best  mnemo.Event
		found bool
	)
	for _, t := range types {
		e, ok, err := probe(l.lastTyp.QueryRowContext(ctx, scope.TenantID, scope.AgentID, source, t, sqlrow.Nanos(ts)))
		if err != nil {
			return mnemo.Event{}, false, err
		}
		if ok && (!found || eventseg.Compare(e, best) > 0) {
			best, found = e, true
		}
	}
	return best, found, nil
}

// AddRelations implements mnemo.EventStore.
func (db *DB) AddRelations(ctx context.Context, scope mnemo.Scope, rels []mnemo.Relation) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	// Prepared before the transaction: the writer has one connection,
	// which the transaction holds.
	st, err := db.appendStmts(ctx)
	if err != nil {
		return err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: add relations: %w", err)
	}
	defer tx.Rollback()
	if err := addRelations(ctx, tx, st, scope, rels); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: add relations: %w", err)
	}
	return nil
}

// addRelations checks rels and stores them in tx, relationChunk to a
// statement.
func addRelations(ctx context.Context, tx *sql.Tx, st *appendStatements, scope mnemo.Scope, rels []mnemo.Relation) error {
	for _, r := range rels {
		if r.Source == "" || r.Target == "" || r.Type == "" {
			return mnemo.Errorf(mnemo.EINVALID, "a relation needs a source, a target and a type")
		}
		if r.Confidence < 0 || r.Confidence > 1 {
			return mnemo.Errorf(mnemo.EINVALID, "relation confidence must be between 0 and 1, not %g", r.Confidence)
		}
		if err := sqlrow.CheckTime(r.CreatedAt); err != nil {
			return err
		}
	}
	var many, one *sql.Stmt
	args := make([]any, 0, 7*relationChunk)
	for chunk := range slices.Chunk(rels, relationChunk) {
		args = args[:0]
		for _, r := range chunk {
			args = append(args, scope.TenantID, scope.AgentID, r.Source, r.Target, r.Type, r.Confidence, sqlrow.Nanos(r.CreatedAt))
		}
		if len(chunk) == relationChunk {
			if many == nil {
				many = tx.StmtContext(ctx, st.relations)
			}
			if _, err := many.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("sqlite: add relations: %w", err)
			}
			continue
		}
		if one == nil {
			one = tx.StmtContext(ctx, st.relation)
		}
		for i := 0; i < len(args); i += 7 {
			if _, err := one.ExecContext(ctx, args[i:i+7]...); err != nil {
				return fmt.Errorf("sqlite: add relations: %w", err)
			}
		}
	}
	return nil
}

// Relations implements mnemo.EventStore.
func (db *DB) Relations(ctx context.Context, scope mnemo.Scope, q mnemo.RelationQuery) ([]mnemo.Relation, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	out := []mnemo.Relation{}
	if len(q.IDs) == 0 {
		return out, nil
	}
	// SQLite binds at most 32,766 parameters; walk big frontiers in chunks.
	for ids := range slices.Chunk(q.IDs, 500) {
		var parts []string
		var args []any
		in := placeholders(len(ids))
		typeCond := ""
		var typeArgs []any
		if len(q.Types) > 0 {
			typeCond = ` AND type IN (` + placeholders(len(q.Types)) + `)`
			for _, t := range q.Types {
				typeArgs = append(typeArgs, t)
			}
		}
		side := func(col string) {
			parts = append(parts, `SELECT source, target, type, confidence, created_at FROM relations
				WHERE tenant_id = ? AND agent_id = ? AND `+col+` IN (`+in+`)`+typeCond)
			args = append(args, scope.TenantID, scope.AgentID)
			for _, id := range ids {
				args = append(args, id)
			}
			args = append(args, typeArgs...)
		}
		if q.Direction != mnemo.DirIn {
			side("source")
		}
		if q.Direction != mnemo.DirOut {
			side("target")
		}
		query := strings.Join(parts, " UNION ") + ` ORDER BY created_at, source, target, type`
		if q.Limit > 0 {
			query += fmt.Sprintf(" LIMIT %d", q.Limit-len(out))
		}
		rows, err := db.reader.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: relations: %w", err)
		}
		for rows.Next() {
			var r mnemo.Relation
			var at int64
			if err := rows.Scan(&r.Source, &r.Target, &r.Type, &r.Confidence, &at); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: relations: %w", err)
			}
			r.CreatedAt = sqlrow.FromNanos(at)
			out = append(out, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: relations: %w", err)
		}
		if q.Limit > 0 && len(out) >= q.Limit {
			break
		}
	}
	return out, nil
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// eventWhere is the condition of q on the hot table, after the cursor.
func eventWhere(scope mnemo.Scope, q mnemo.EventQuery, cur *mnemo.EventCursor) *where {
	w := &where{}
	w.add(`tenant_id = ? AND agent_id = ?`, scope.TenantID, scope.AgentID)
	// One lower bound, the tighter, so that the index seeks to it: a page
	// after the first starts at its cursor, not at the window's start.
	if lo, ok := lowerBound(q, cur); ok {
		w.add(`ts >= ?`, lo)
	}
	if q.To != nil {
		w.add(`ts < ?`, sqlrow.Nanos(*q.To))
	}
	if len(q.Types) > 0 {
		w.add(`type IN (`+placeholders(len(q.Types))+`)`, anys(q.Types)...)
	}
	if len(q.Sources) > 0 {
		w.add(`source IN (`+placeholders(len(q.Sources))+`)`, anys(q.Sources)...)
	}
	if cur != nil {
		ts := sqlrow.Nanos(cur.TS)
		w.add(`(ts > ? OR seq > ?)`, ts, cur.Seq)
	}
	return w
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// QueryEvents implements mnemo.EventStore: the hot events and the cold
// ones are read separately, each in order, and merged.
func (db *DB) QueryEvents(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery) (mnemo.EventPage, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.EventPage{}, err
	}
	q, err := mnemo.CheckEventQuery(q)
	if err != nil {
		return mnemo.EventPage{}, err
	}
	c, ok, err := mnemo.ParseEventCursor(q.Cursor)
	if err != nil {
		return mnemo.EventPage{}, err
	}
	var cur *mnemo.EventCursor
	if ok {
		cur = &c
	}
	// A read transaction sees the hot table and the segments at one
	// moment, so that an archival in between neither hides nor doubles an
	// event.
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return mnemo.EventPage{}, fmt.Errorf("sqlite: query events: %w", err)
	}
	defer tx.Rollback()

	w := eventWhere(scope, q, cur)
	rows, err := tx.QueryContext(ctx, `SELECT `+eventLine+` FROM events WHERE `+w.String()+
		` ORDER BY ts, seq LIMIT ?`, append(w.args, q.Limit+1)...)
	if err != nil {
		return mnemo.EventPage{}, fmt.Errorf("sqlite: query events: %w", err)
	}
	hot := make([]mnemo.Event, 0, min(q.Limit+1, 1024))
	var line sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return mnemo.EventPage{}, fmt.Errorf("sqlite: query events: %w", err)
		}
		e, _, err := eventseg.ParseLine(line, scope, nil)
		if err != nil {
			rows.Close()
			return mnemo.EventPage{}, fmt.Errorf("sqlite: query events: %w", err)
		}
		hot = append(hot, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return mnemo.EventPage{}, fmt.Errorf("sqlite: query events: %w", err)
	}
	cold, err := db.coldEvents(ctx, tx, scope, q, cur, q.Limit+1)
	if err != nil {
		return mnemo.EventPage{}, err
	}
	all := hot
	if len(cold) > 0 {
		all = append(cold, hot...)
		slices.SortFunc(all, eventseg.Compare)
	}
	page := mnemo.EventPage{Events: all}
	if len(all) > q.Limit {
		page.Events = all[:q.Limit]
		last := page.Events[q.Limit-1]
		page.Next = mnemo.EventCursor{TS: last.TS, Seq: last.Seq}.String()
	}
	return page, nil
}

// coldEvents returns up to n cold events of scope matching q after cur, in
// order, from the segment parts that overlap the window.
func (db *DB) coldEvents(ctx context.Context, tx *sql.Tx, scope mnemo.Scope, q mnemo.EventQuery, cur *mnemo.EventCursor, n int) ([]mnemo.Event, error) {
	w := &where{}
	w.add(`tenant_id = ? AND agent_id = ?`, scope.TenantID, scope.AgentID)
	if lo, ok := lowerBound(q, cur); ok {
		w.add(`last_ts >= ?`, lo)
	}
	if q.To != nil {
		w.add(`first_ts < ?`, sqlrow.Nanos(*q.To))
	}
	rows, err := tx.QueryContext(ctx, `SELECT codec, body FROM event_segments WHERE `+w.String()+` ORDER BY day, part`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: cold events: %w", err)
	}
	defer rows.Close()
	// Lines outside the window or not after the cursor are passed over
	// before they are copied: a page starts inside a part.
	lo, hasLo := lowerBound(q, cur)
	skip := func(seq, ts int64) bool {
		return (hasLo && ts < lo) || (q.To != nil && ts >= sqlrow.Nanos(*q.To)) ||
			(cur != nil && ts == sqlrow.Nanos(cur.TS) && seq <= cur.Seq)
	}
	var out []mnemo.Event
	for len(out) < n && rows.Next() {
		var (
			codec string
			body  []byte
		)
		if err := rows.Scan(&codec, &body); err != nil {
			return nil, fmt.Errorf("sqlite: cold events: %w", err)
		}
		err := db.segments.Decode(codec, body, scope, skip, func(e mnemo.Event) bool {
			if eventseg.Matches(e, q, cur) {
				out = append(out, e)
			}
			return len(out) < n
		})
		if err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// lowerBound is the earliest time a query's next event can have: the later
// of its From and its cursor, in unix nanoseconds.
func lowerBound(q mnemo.EventQuery, cur *mnemo.EventCursor) (int64, bool) {
	switch {
	case cur != nil && q.From != nil:
		return max(sqlrow.Nanos(cur.TS), sqlrow.Nanos(*q.From)), true
	case cur != nil:
		return sqlrow.Nanos(cur.TS), true
	case q.From != nil:
		return sqlrow.Nanos(*q.From), true
	}
	return 0, false
}

// A cold segment part is gzip-compressed lines of tab-separated fields:
// seq, id, ts (unix nanoseconds), type, source, data, metadata, security
// level (none in a line written before levels were kept). No field
// holds a tab or a newline: ids, types and sources have no control
// characters (the Service checks them) and compacted JSON escapes both.
// So a part is read without a JSON decoder, and with zcat and cut too.

// eventLine is an event as one line of parseLine's fields, made by SQLite:
// one column to fetch instead of eight, into a reused buffer, which cut the
// allocations of reading 10k events from 141k to 61k
// (BenchmarkQueryEvents10k).
const eventLine = `seq || char(9) || id || char(9) || ts || char(9) || type || char(9) || source || char(9) ||
	coalesce(data, '') || char(9) || coalesce(metadata, '') || char(9) || coalesce(security_level, '')`

// GetEvent implements mnemo.EventStore.
func (db *DB) GetEvent(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Event, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Event{}, err
	}
	e, err := scanEvent(db.reader.QueryRowContext(ctx, `SELECT `+eventCols+` FROM events
		WHERE tenant_id = ? AND agent_id = ? AND id = ?`, scope.TenantID, scope.AgentID, id), scope)
	if err == nil {
		return e, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return mnemo.Event{}, fmt.Errorf("sqlite: get event: %w", err)
	}
	var day int64
	err = db.reader.QueryRowContext(ctx, `SELECT day FROM cold_events WHERE tenant_id = ? AND agent_id = ? AND id = ?`,
		scope.TenantID, scope.AgentID, id).Scan(&day)
	if errors.Is(err, sql.ErrNoRows) {
		return mnemo.Event{}, mnemo.Errorf(mnemo.ENOTFOUND, "no event %s", id)
	} else if err != nil {
		return mnemo.Event{}, fmt.Errorf("sqlite: get event: %w", err)
	}
	found := false
	err = db.eachPart(ctx, db.reader, scope, day, func(c mnemo.Event) bool {
		if c.ID == id {
			e, found = c, true
		}
		return !found
	})
	if err != nil {
		return mnemo.Event{}, err
	}
	if !found {
		return mnemo.Event{}, fmt.Errorf("sqlite: get event: %s is not in its cold segment", id)
	}
	return e, nil
}

// queryer is what *sql.DB and *sql.Tx have in common for reading rows.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// eachPart calls fn with every cold event of a scope's day, in order,
// until fn returns false.
func (db *DB) eachPart(ctx context.Context, q queryer, scope mnemo.Scope, day int64, fn func(mnemo.Event) bool) error {
	rows, err := q.QueryContext(ctx, `SELECT codec, body FROM event_segments WHERE tenant_id = ? AND agent_id = ? AND day = ? ORDER BY part`,
		scope.TenantID, scope.AgentID, day)
	if err != nil {
		return fmt.Errorf("sqlite: cold segment: %w", err)
	}
	defer rows.Close()
	more := true
	for more && rows.Next() {
		var (
			codec string
			body  []byte
		)
		if err := rows.Scan(&codec, &body); err != nil {
			return fmt.Errorf("sqlite: cold segment: %w", err)
		}
		if err := db.segments.Decode(codec, body, scope, nil, func(e mnemo.Event) bool { more = fn(e); return more }); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ArchiveEvents implements mnemo.EventStore: one transaction per scope and
// day, each adding the day's events to its segment (merged with what an
// earlier archival put there) and then removing them from the hot table.
func (db *DB) ArchiveEvents(ctx context.Context, before time.Time) (int, error) {
	if err := sqlrow.CheckTime(before); err != nil {
		return 0, err
	}
	type group struct {
		scope mnemo.Scope
		day   int64
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT DISTINCT tenant_id, agent_id,
		CASE WHEN ts >= 0 THEN ts / ?1 ELSE (ts - ?1 + 1) / ?1 END
		FROM events WHERE ts < ?2`, eventseg.NanosPerDay, sqlrow.Nanos(before))
	if err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	var groups []group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.scope.TenantID, &g.scope.AgentID, &g.day); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqlite: archive events: %w", err)
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	moved := 0
	for _, g := range groups {
		n, err := db.archiveDay(ctx, g.scope, g.day, before)
		moved += n
		if err != nil {
			return moved, err
		}
	}
	return moved, nil
}

func (db *DB) archiveDay(ctx context.Context, scope mnemo.Scope, day int64, before time.Time) (int, error) {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	defer tx.Rollback()
	end := min((day+1)*eventseg.NanosPerDay, sqlrow.Nanos(before))
	rows, err := tx.QueryContext(ctx, `SELECT `+eventCols+` FROM events
		WHERE tenant_id = ? AND agent_id = ? AND ts >= ? AND ts < ? ORDER BY ts, seq`,
		scope.TenantID, scope.AgentID, day*eventseg.NanosPerDay, end)
	if err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	var fresh []mnemo.Event
	for rows.Next() {
		e, err := scanEvent(rows, scope)
		if err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqlite: archive events: %w", err)
		}
		fresh = append(fresh, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	if len(fresh) == 0 {
		return 0, nil
	}
	// Merge with what the day's parts hold and cut again: every part but
	// the last stays full, so no part shrinks.
	var all []mnemo.Event
	if err := db.eachPart(ctx, tx, scope, day, func(e mnemo.Event) bool { all = append(all, e); return true }); err != nil {
		return 0, err
	}
	all = append(all, fresh...)
	slices.SortFunc(all, eventseg.Compare)
	part := 0
	for chunk := range slices.Chunk(all, eventseg.PartSize) {
		body, err := eventseg.Encode(chunk)
		if err != nil {
			return 0, fmt.Errorf("sqlite: archive events: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO event_segments (tenant_id, agent_id, day, part, first_ts, last_ts, count, codec, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET first_ts = excluded.first_ts, last_ts = excluded.last_ts, count = excluded.count,
				codec = excluded.codec, body = excluded.body`,
			scope.TenantID, scope.AgentID, day, part, sqlrow.Nanos(chunk[0].TS), sqlrow.Nanos(chunk[len(chunk)-1].TS), len(chunk), eventseg.Codec, body); err != nil {
			return 0, fmt.Errorf("sqlite: archive events: %w", err)
		}
		part++
	}
	for _, e := range fresh {
		if _, err := tx.ExecContext(ctx, `INSERT INTO cold_events (tenant_id, agent_id, id, day) VALUES (?, ?, ?, ?)`,
			scope.TenantID, scope.AgentID, e.ID, day); err != nil {
			return 0, fmt.Errorf("sqlite: archive events: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM events WHERE seq = ?`, e.Seq); err != nil {
			return 0, fmt.Errorf("sqlite: archive events: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	return len(fresh), nil
}
