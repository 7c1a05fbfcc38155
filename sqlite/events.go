package sqlite

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.EventStore = (*DB)(nil)

// codecGzip is the codec of cold segments: gzip of JSON Lines, from the
// standard library, readable with zcat.
const codecGzip = "gzip"

const nanosPerDay = int64(24 * time.Hour)

// dayOf is the UTC day number of a time in unix nanoseconds.
func dayOf(ts int64) int64 {
	if ts < 0 {
		return (ts - nanosPerDay + 1) / nanosPerDay
	}
	return ts / nanosPerDay
}

// eventCols are the columns an event is read from, in scanEvent's order.
const eventCols = `seq, id, ts, type, source, data, metadata`

type rowScanner interface{ Scan(dest ...any) error }

func scanEvent(r rowScanner, scope mnemo.Scope) (mnemo.Event, error) {
	e := mnemo.Event{Scope: scope}
	var (
		ts             int64
		data, metadata sql.NullString
	)
	if err := r.Scan(&e.Seq, &e.ID, &ts, &e.Type, &e.Source, &data, &metadata); err != nil {
		return e, err
	}
	e.TS = fromNanos(ts)
	if data.Valid {
		e.Data = json.RawMessage(data.String)
	}
	if metadata.Valid {
		e.Metadata = json.RawMessage(metadata.String)
	}
	return e, nil
}

func nullRaw(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// AppendEvents implements mnemo.EventStore.
func (db *DB) AppendEvents(ctx context.Context, scope mnemo.Scope, events []mnemo.Event, relate mnemo.RelateFunc) ([]mnemo.Event, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	for _, e := range events {
		if e.ID == "" || e.Type == "" || e.TS.IsZero() {
			return nil, mnemo.Errorf(mnemo.EINVALID, "an event needs an id, a type and a time")
		}
		if err := checkTime(e.TS); err != nil {
			return nil, err
		}
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: append events: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO events (id, tenant_id, agent_id, ts, type, source, data, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: append events: %w", err)
	}
	defer ins.Close()
	look := &txLookup{tx: tx}
	defer look.close()
	out := make([]mnemo.Event, len(events))
	for i, e := range events {
		e.Scope = scope
		// The rules see the events before this one, the batch's too, and
		// not this one: it is stored after them.
		var rels []mnemo.Relation
		if relate != nil {
			if rels, err = relate(ctx, look, e); err != nil {
				return nil, fmt.Errorf("sqlite: append events: relations of %s: %w", e.ID, err)
			}
		}
		res, err := ins.ExecContext(ctx, e.ID, scope.TenantID, scope.AgentID, nanos(e.TS), e.Type, e.Source, nullRaw(e.Data), nullRaw(e.Metadata))
		if err != nil {
			if isConstraint(err) {
				return nil, mnemo.Errorf(mnemo.ECONFLICT, "event id %s is already taken", e.ID)
			}
			return nil, fmt.Errorf("sqlite: append events: %w", err)
		}
		if e.Seq, err = res.LastInsertId(); err != nil {
			return nil, fmt.Errorf("sqlite: append events: %w", err)
		}
		if err := addRelations(ctx, tx, scope, rels); err != nil {
			return nil, err
		}
		out[i] = e
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

// txLookup is the mnemo.EventLookup of an append: it reads in the append's
// transaction, with statements prepared once per append.
type txLookup struct {
	tx            *sql.Tx
	last, lastTyp *sql.Stmt
}

func (l *txLookup) close() {
	for _, s := range []*sql.Stmt{l.last, l.lastTyp} {
		if s != nil {
			s.Close()
		}
	}
}

// LastEvent implements mnemo.EventLookup: one indexed probe per type.
func (l *txLookup) LastEvent(ctx context.Context, scope mnemo.Scope, source string, types []string, ts time.Time) (mnemo.Event, bool, error) {
	var err error
	if l.last == nil {
		if l.last, err = l.tx.PrepareContext(ctx, `SELECT `+eventCols+` FROM events
			WHERE tenant_id = ? AND agent_id = ? AND source = ? AND ts <= ? ORDER BY ts DESC, seq DESC LIMIT 1`); err != nil {
			return mnemo.Event{}, false, fmt.Errorf("sqlite: last event: %w", err)
		}
		if l.lastTyp, err = l.tx.PrepareContext(ctx, `SELECT `+eventCols+` FROM events
			WHERE tenant_id = ? AND agent_id = ? AND source = ? AND type = ? AND ts <= ? ORDER BY ts DESC, seq DESC LIMIT 1`); err != nil {
			return mnemo.Event{}, false, fmt.Errorf("sqlite: last event: %w", err)
		}
	}
	probe := func(row *sql.Row) (mnemo.Event, bool, error) {
		e, err := scanEvent(row, scope)
		if errors.Is(err, sql.ErrNoRows) {
			return e, false, nil
		} else if err != nil {
			return e, false, fmt.Errorf("sqlite: last event: %w", err)
		}
		return e, true, nil
	}
	if len(types) == 0 {
		return probe(l.last.QueryRowContext(ctx, scope.TenantID, scope.AgentID, source, nanos(ts)))
	}
	var (
		best  mnemo.Event
		found bool
	)
	for _, t := range types {
		e, ok, err := probe(l.lastTyp.QueryRowContext(ctx, scope.TenantID, scope.AgentID, source, t, nanos(ts)))
		if err != nil {
			return mnemo.Event{}, false, err
		}
		if ok && (!found || compareEvents(e, best) > 0) {
			best, found = e, true
		}
	}
	return best, found, nil
}

// compareEvents orders events by time, then arrival.
func compareEvents(a, b mnemo.Event) int {
	return cmp.Or(a.TS.Compare(b.TS), cmp.Compare(a.Seq, b.Seq))
}

// AddRelations implements mnemo.EventStore.
func (db *DB) AddRelations(ctx context.Context, scope mnemo.Scope, rels []mnemo.Relation) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: add relations: %w", err)
	}
	defer tx.Rollback()
	if err := addRelations(ctx, tx, scope, rels); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: add relations: %w", err)
	}
	return nil
}

func addRelations(ctx context.Context, tx *sql.Tx, scope mnemo.Scope, rels []mnemo.Relation) error {
	for _, r := range rels {
		if r.Source == "" || r.Target == "" || r.Type == "" {
			return mnemo.Errorf(mnemo.EINVALID, "a relation needs a source, a target and a type")
		}
		if r.Confidence < 0 || r.Confidence > 1 {
			return mnemo.Errorf(mnemo.EINVALID, "relation confidence must be between 0 and 1, not %g", r.Confidence)
		}
		if err := checkTime(r.CreatedAt); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO relations (tenant_id, agent_id, source, target, type, confidence, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET confidence = max(confidence, excluded.confidence)`,
			scope.TenantID, scope.AgentID, r.Source, r.Target, r.Type, r.Confidence, nanos(r.CreatedAt)); err != nil {
			return fmt.Errorf("sqlite: add relations: %w", err)
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
			r.CreatedAt = fromNanos(at)
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
	if q.From != nil {
		w.add(`ts >= ?`, nanos(*q.From))
	}
	if q.To != nil {
		w.add(`ts < ?`, nanos(*q.To))
	}
	if len(q.Types) > 0 {
		w.add(`type IN (`+placeholders(len(q.Types))+`)`, anys(q.Types)...)
	}
	if len(q.Sources) > 0 {
		w.add(`source IN (`+placeholders(len(q.Sources))+`)`, anys(q.Sources)...)
	}
	if cur != nil {
		ts := nanos(cur.TS)
		w.add(`(ts > ? OR (ts = ? AND seq > ?))`, ts, ts, cur.Seq)
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

// matches reports whether a cold event is in q's window and filters, after
// the cursor.
func matches(e mnemo.Event, q mnemo.EventQuery, cur *mnemo.EventCursor) bool {
	switch {
	case q.From != nil && e.TS.Before(*q.From),
		q.To != nil && !e.TS.Before(*q.To),
		len(q.Types) > 0 && !slices.Contains(q.Types, e.Type),
		len(q.Sources) > 0 && !slices.Contains(q.Sources, e.Source):
		return false
	}
	return cur == nil || e.TS.After(cur.TS) || (e.TS.Equal(cur.TS) && e.Seq > cur.Seq)
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
	rows, err := tx.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE `+w.String()+
		` ORDER BY ts, seq LIMIT ?`, append(w.args, q.Limit+1)...)
	if err != nil {
		return mnemo.EventPage{}, fmt.Errorf("sqlite: query events: %w", err)
	}
	hot := make([]mnemo.Event, 0, min(q.Limit+1, 1024))
	for rows.Next() {
		e, err := scanEvent(rows, scope)
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
	cold, err := coldEvents(ctx, tx, scope, q, cur, q.Limit+1)
	if err != nil {
		return mnemo.EventPage{}, err
	}
	all := hot
	if len(cold) > 0 {
		all = append(cold, hot...)
		slices.SortFunc(all, compareEvents)
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
// order, from the segments that overlap the window.
func coldEvents(ctx context.Context, tx *sql.Tx, scope mnemo.Scope, q mnemo.EventQuery, cur *mnemo.EventCursor, n int) ([]mnemo.Event, error) {
	w := &where{}
	w.add(`tenant_id = ? AND agent_id = ?`, scope.TenantID, scope.AgentID)
	if q.From != nil {
		w.add(`last_ts >= ?`, nanos(*q.From))
	}
	if cur != nil {
		w.add(`last_ts >= ?`, nanos(cur.TS))
	}
	if q.To != nil {
		w.add(`first_ts < ?`, nanos(*q.To))
	}
	rows, err := tx.QueryContext(ctx, `SELECT codec, body FROM event_segments WHERE `+w.String()+` ORDER BY day`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: cold events: %w", err)
	}
	defer rows.Close()
	var out []mnemo.Event
	for rows.Next() && len(out) < n {
		var (
			codec string
			body  []byte
		)
		if err := rows.Scan(&codec, &body); err != nil {
			return nil, fmt.Errorf("sqlite: cold events: %w", err)
		}
		err := decodeSegment(codec, body, scope, func(e mnemo.Event) bool {
			if matches(e, q, cur) {
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

// coldEvent is one line of a cold segment.
type coldEvent struct {
	Seq      int64           `json:"seq"`
	ID       string          `json:"id"`
	TS       int64           `json:"ts"`
	Type     string          `json:"type"`
	Source   string          `json:"source,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// decodeSegment calls fn with each event of a segment, in order, until fn
// returns false.
func decodeSegment(codec string, body []byte, scope mnemo.Scope, fn func(mnemo.Event) bool) error {
	if codec != codecGzip {
		return fmt.Errorf("sqlite: cold segment: unknown codec %q", codec)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("sqlite: cold segment: %w", err)
	}
	defer zr.Close()
	dec := json.NewDecoder(zr)
	for {
		var c coldEvent
		if err := dec.Decode(&c); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("sqlite: cold segment: %w", err)
		}
		e := mnemo.Event{ID: c.ID, Scope: scope, Seq: c.Seq, TS: fromNanos(c.TS), Type: c.Type, Source: c.Source, Data: c.Data, Metadata: c.Metadata}
		if !fn(e) {
			return nil
		}
	}
}

// encodeSegment compresses events, in order, as JSON Lines.
func encodeSegment(events []mnemo.Event) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	enc := json.NewEncoder(bw)
	for _, e := range events {
		if err := enc.Encode(coldEvent{Seq: e.Seq, ID: e.ID, TS: nanos(e.TS), Type: e.Type, Source: e.Source, Data: e.Data, Metadata: e.Metadata}); err != nil {
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// GetEvent implements mnemo.EventStore.
func (db *DB) GetEvent(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Event, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Event{}, err
	}
	e, err := scanEvent(db.reader.QueryRowContext(ctx, `SELECT `+eventCols+` FROM events
		WHERE id = ? AND tenant_id = ? AND agent_id = ?`, id, scope.TenantID, scope.AgentID), scope)
	if err == nil {
		return e, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return mnemo.Event{}, fmt.Errorf("sqlite: get event: %w", err)
	}
	var (
		codec string
		body  []byte
	)
	err = db.reader.QueryRowContext(ctx, `SELECT s.codec, s.body FROM cold_events c
		JOIN event_segments s ON s.tenant_id = c.tenant_id AND s.agent_id = c.agent_id AND s.day = c.day
		WHERE c.id = ? AND c.tenant_id = ? AND c.agent_id = ?`, id, scope.TenantID, scope.AgentID).Scan(&codec, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return mnemo.Event{}, mnemo.Errorf(mnemo.ENOTFOUND, "no event %s", id)
	} else if err != nil {
		return mnemo.Event{}, fmt.Errorf("sqlite: get event: %w", err)
	}
	found := false
	err = decodeSegment(codec, body, scope, func(c mnemo.Event) bool {
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

// ArchiveEvents implements mnemo.EventStore: one transaction per scope and
// day, each adding the day's events to its segment (merged with what an
// earlier archival put there) and then removing them from the hot table.
func (db *DB) ArchiveEvents(ctx context.Context, before time.Time) (int, error) {
	if err := checkTime(before); err != nil {
		return 0, err
	}
	type group struct {
		scope mnemo.Scope
		day   int64
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT DISTINCT tenant_id, agent_id,
		CASE WHEN ts >= 0 THEN ts / ?1 ELSE (ts - ?1 + 1) / ?1 END
		FROM events WHERE ts < ?2`, nanosPerDay, nanos(before))
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
	end := min((day+1)*nanosPerDay, nanos(before))
	rows, err := tx.QueryContext(ctx, `SELECT `+eventCols+` FROM events
		WHERE tenant_id = ? AND agent_id = ? AND ts >= ? AND ts < ? ORDER BY ts, seq`,
		scope.TenantID, scope.AgentID, day*nanosPerDay, end)
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
	var (
		codec string
		body  []byte
		all   []mnemo.Event
	)
	err = tx.QueryRowContext(ctx, `SELECT codec, body FROM event_segments WHERE tenant_id = ? AND agent_id = ? AND day = ?`,
		scope.TenantID, scope.AgentID, day).Scan(&codec, &body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	default:
		if err := decodeSegment(codec, body, scope, func(e mnemo.Event) bool { all = append(all, e); return true }); err != nil {
			return 0, err
		}
	}
	all = append(all, fresh...)
	slices.SortFunc(all, compareEvents)
	if body, err = encodeSegment(all); err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO event_segments (tenant_id, agent_id, day, first_ts, last_ts, count, codec, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET first_ts = excluded.first_ts, last_ts = excluded.last_ts, count = excluded.count,
			codec = excluded.codec, body = excluded.body`,
		scope.TenantID, scope.AgentID, day, nanos(all[0].TS), nanos(all[len(all)-1].TS), len(all), codecGzip, body); err != nil {
		return 0, fmt.Errorf("sqlite: archive events: %w", err)
	}
	for _, e := range fresh {
		if _, err := tx.ExecContext(ctx, `INSERT INTO cold_events (id, tenant_id, agent_id, day) VALUES (?, ?, ?, ?)`,
			e.ID, scope.TenantID, scope.AgentID, day); err != nil {
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
