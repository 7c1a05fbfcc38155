package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/eventseg"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// The event layers L1 and L2 (EVT-1, EVT-2, EVT-7) on PostgreSQL, as
// sqlite/events.go keeps them: hot events in a table, cold ones in
// compressed per-day segments of sqlite's format, relations beside them.
// Migration 0004 has the schema and the triggers that keep events
// append-only.

var _ mnemo.EventStore = (*DB)(nil)

// eventCols are the columns an event is read from, in scanEvent's order.
const eventCols = `seq, id, ts_ns, type, source, data::text, metadata::text, coalesce(security_level, '')`

func scanEvent(r pgx.Row, scope mnemo.Scope) (mnemo.Event, error) {
	e := mnemo.Event{Scope: scope}
	var (
		ts         int64
		data, meta *string
	)
	if err := r.Scan(&e.Seq, &e.ID, &ts, &e.Type, &e.Source, &data, &meta, &e.SecurityLevel); err != nil {
		return e, err
	}
	e.TS = sqlrow.FromNanos(ts)
	if data != nil {
		e.Data = json.RawMessage(*data)
	}
	if meta != nil {
		e.Metadata = json.RawMessage(*meta)
	}
	return e, nil
}

func nullRaw(b json.RawMessage) *string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	return &s
}

// AppendEvents implements mnemo.EventStore (EVT-18): one transaction for the
// events, their relations (relate runs inside it, before each event is
// inserted, and sees the events before it, its batch's too) and their L3
// vectors. Without pgvector the vectors are not kept, as memories'.
func (db *DB) AppendEvents(ctx context.Context, scope mnemo.Scope, events []mnemo.Event, relate func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error)) ([]mnemo.Event, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	events = slices.Clone(events)
	for i := range events {
		if err := eventseg.CheckStored(&events[i]); err != nil {
			return nil, err
		}
		if err := checkEventVectors(events[i]); err != nil {
			return nil, err
		}
	}
	out := make([]mnemo.Event, len(events))
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		look := txLookup{tx: tx}
		var rels []mnemo.Relation // stored after the events, many to a statement
		for i, e := range events {
			e.Scope = scope
			if relate != nil {
				found, err := relate(ctx, look, e)
				if err != nil {
					return fmt.Errorf("relations of %s: %w", e.ID, err)
				}
				rels = append(rels, found...)
			}
			err := tx.QueryRow(ctx, `INSERT INTO events (tenant_id, agent_id, id, ts_ns, type, source, data, metadata, security_level)
				VALUES ($1::text, $2::text, $3::text, $4::bigint, $5::text, $6::text, $7::text::json, $8::text::json, nullif($9::text, '')) RETURNING seq`,
				scope.TenantID, scope.AgentID, e.ID, sqlrow.Nanos(e.TS), e.Type, e.Source, nullRaw(e.Data), nullRaw(e.Metadata), e.SecurityLevel).Scan(&e.Seq)
			if err != nil {
				var pe *pgconn.PgError
				if errors.As(err, &pe) && pe.Code == "23505" {
					return mnemo.Errorf(mnemo.ECONFLICT, "event id %s is already taken", e.ID)
				}
				return err
			}
			if len(e.Vectors) > 0 && db.vectors == nil {
				if err := db.addEventVectors(ctx, tx, scope, e); err != nil {
					return err
				}
			}
			e.Vectors = nil
			out[i] = e
		}
		return addRelations(ctx, tx, scope, rels)
	})
	if err != nil {
		return nil, db.fail("append events", err)
	}
	return out, nil
}

// txLookup is the mnemo.EventLookup of an append: it reads in the append's
// transaction, hot events only.
type txLookup struct{ tx pgx.Tx }

// LastEvent implements mnemo.EventLookup: one indexed probe per type.
func (l txLookup) LastEvent(ctx context.Context, scope mnemo.Scope, source string, types []string, ts time.Time) (mnemo.Event, bool, error) {
	probe := func(row pgx.Row) (mnemo.Event, bool, error) {
		e := mnemo.Event{Scope: scope, Source: source}
		var at int64
		err := row.Scan(&e.Seq, &e.ID, &at, &e.Type)
		e.TS = sqlrow.FromNanos(at)
		if errors.Is(err, pgx.ErrNoRows) {
			return e, false, nil
		} else if err != nil {
			return e, false, fmt.Errorf("postgres: last event: %w", err)
		}
		return e, true, nil
	}
	if len(types) == 0 {
		return probe(l.tx.QueryRow(ctx, `SELECT seq, id, ts_ns, type FROM events
			WHERE tenant_id = $1::text AND agent_id = $2::text AND source = $3::text AND ts_ns <= $4::bigint AND NOT cold
			ORDER BY ts_ns DESC, seq DESC LIMIT 1`, scope.TenantID, scope.AgentID, source, sqlrow.Nanos(ts)))
	}
	var (
		best  mnemo.Event
		found bool
	)
	for _, t := range types {
		e, ok, err := probe(l.tx.QueryRow(ctx, `SELECT seq, id, ts_ns, type FROM events
			WHERE tenant_id = $1::text AND agent_id = $2::text AND source = $3::text AND type = $4::text AND ts_ns <= $5::bigint AND NOT cold
			ORDER BY ts_ns DESC, seq DESC LIMIT 1`, scope.TenantID, scope.AgentID, source, t, sqlrow.Nanos(ts)))
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
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		return addRelations(ctx, tx, scope, rels)
	})
	return db.fail("add relations", err)
}

// addRelations checks rels and stores them in tx, in one statement of
// arrays; an edge stored already keeps the higher confidence.
func addRelations(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, rels []mnemo.Relation) error {
	if len(rels) == 0 {
		return nil
	}
	n := len(rels)
	src, dst, typ := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	conf, at := make([]float64, 0, n), make([]int64, 0, n)
	// One statement may not touch a row twice: the last of a key wins,
	// at its highest confidence.
	type key struct{ s, t, typ string }
	pos := map[key]int{}
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
		k := key{r.Source, r.Target, r.Type}
		if i, ok := pos[k]; ok {
			conf[i] = max(conf[i], r.Confidence)
			continue
		}
		pos[k] = len(src)
		src, dst, typ = append(src, r.Source), append(dst, r.Target), append(typ, r.Type)
		conf, at = append(conf, r.Confidence), append(at, sqlrow.Nanos(r.CreatedAt))
	}
	_, err := tx.Exec(ctx, `INSERT INTO relations (tenant_id, agent_id, source, target, type, confidence, created_ns)
		SELECT $1::text, $2::text, s, t, ty, c, a
		FROM unnest($3::text[], $4::text[], $5::text[], $6::float8[], $7::bigint[]) AS r(s, t, ty, c, a)
		ON CONFLICT (tenant_id, agent_id, source, target, type) DO UPDATE
		SET confidence = greatest(relations.confidence, excluded.confidence)`,
		scope.TenantID, scope.AgentID, src, dst, typ, conf, at)
	return err
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
	types := q.Types
	if types == nil {
		types = []string{}
	}
	var parts []string
	if q.Direction != mnemo.DirIn {
		parts = append(parts, `SELECT source, target, type, confidence, created_ns FROM relations
			WHERE tenant_id = $1::text AND agent_id = $2::text AND source = ANY($3::text[]) AND (cardinality($4::text[]) = 0 OR type = ANY($4::text[]))`)
	}
	if q.Direction != mnemo.DirOut {
		parts = append(parts, `SELECT source, target, type, confidence, created_ns FROM relations
			WHERE tenant_id = $1::text AND agent_id = $2::text AND target = ANY($3::text[]) AND (cardinality($4::text[]) = 0 OR type = ANY($4::text[]))`)
	}
	query := parts[0]
	if len(parts) == 2 {
		query += ` UNION ` + parts[1]
	}
	query += ` ORDER BY created_ns, source, target, type`
	if q.Limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, q.Limit)
	}
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		rows, err := qr.Query(ctx, query, scope.TenantID, scope.AgentID, q.IDs, types)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r mnemo.Relation
			var at int64
			if err := rows.Scan(&r.Source, &r.Target, &r.Type, &r.Confidence, &at); err != nil {
				return err
			}
			r.CreatedAt = sqlrow.FromNanos(at)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("relations", err)
	}
	return out, nil
}

// QueryEvents implements mnemo.EventStore: the hot events and the cold
// ones are read separately, each in order, and merged, in one
// repeatable-read transaction, so that an archival in between neither
// hides nor doubles an event.
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
	b := eventseg.NewCursor(q, cur)
	var all []mnemo.Event
	err = db.tx(ctx, scope.TenantID, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		all = all[:0]
		p := &params{}
		w := `tenant_id = ` + p.p(scope.TenantID, "text") + ` AND agent_id = ` + p.p(scope.AgentID, "text") + ` AND NOT cold`
		if b.HasLo {
			w += ` AND ts_ns >= ` + p.p(b.Lo, "bigint")
		}
		if b.HasTo {
			w += ` AND ts_ns < ` + p.p(b.To, "bigint")
		}
		if len(q.Types) > 0 {
			w += ` AND type = ANY(` + p.p(q.Types, "text[]") + `)`
		}
		if len(q.Sources) > 0 {
			w += ` AND source = ANY(` + p.p(q.Sources, "text[]") + `)`
		}
		if cur != nil {
			w += ` AND (ts_ns, seq) > (` + p.p(sqlrow.Nanos(cur.TS), "bigint") + `, ` + p.p(cur.Seq, "bigint") + `)`
		}
		rows, err := tx.Query(ctx, `SELECT `+eventCols+` FROM events WHERE `+w+` ORDER BY ts_ns, seq LIMIT `+p.p(q.Limit+1, "int"), p.args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			e, err := scanEvent(rows, scope)
			if err != nil {
				rows.Close()
				return err
			}
			all = append(all, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		cold, err := db.coldEvents(ctx, tx, scope, q, cur, b, q.Limit+1)
		if err != nil {
			return err
		}
		if len(cold) > 0 {
			all = append(cold, all...)
			slices.SortFunc(all, eventseg.Compare)
		}
		return nil
	})
	if err != nil {
		return mnemo.EventPage{}, db.fail("query events", err)
	}
	page := mnemo.EventPage{Events: all}
	if page.Events == nil {
		page.Events = []mnemo.Event{}
	}
	if len(all) > q.Limit {
		page.Events = all[:q.Limit]
		last := page.Events[q.Limit-1]
		page.Next = mnemo.EventCursor{TS: last.TS, Seq: last.Seq}.String()
	}
	return page, nil
}

// coldEvents returns up to n cold events of scope matching q after cur, in
// order, from the segment parts that overlap the window.
func (db *DB) coldEvents(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, q mnemo.EventQuery, cur *mnemo.EventCursor, b eventseg.Cursor, n int) ([]mnemo.Event, error) {
	p := &params{}
	w := `tenant_id = ` + p.p(scope.TenantID, "text") + ` AND agent_id = ` + p.p(scope.AgentID, "text")
	if b.HasLo {
		w += ` AND last_ns >= ` + p.p(b.Lo, "bigint")
	}
	if b.HasTo {
		w += ` AND first_ns < ` + p.p(b.To, "bigint")
	}
	rows, err := tx.Query(ctx, `SELECT codec, body FROM event_segments WHERE `+w+` ORDER BY day, part`, p.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []mnemo.Event
	for len(out) < n && rows.Next() {
		var (
			codec string
			body  []byte
		)
		if err := rows.Scan(&codec, &body); err != nil {
			return nil, err
		}
		err := db.seg.Decode(codec, body, scope, b.Skip, func(e mnemo.Event) bool {
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

// GetEvent implements mnemo.EventStore: a hot event from its row, a cold
// one from its day's segment.
func (db *DB) GetEvent(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Event, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Event{}, err
	}
	var e mnemo.Event
	var cold bool
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		row := tx.QueryRow(ctx, `SELECT `+eventCols+`, cold FROM events WHERE tenant_id = $1::text AND agent_id = $2::text AND id = $3::text`,
			scope.TenantID, scope.AgentID, id)
		e, cold, err = scanEventCold(row, scope)
		if err != nil || !cold {
			return err
		}
		found := false
		err = db.eachPart(ctx, tx, scope, eventseg.DayOf(sqlrow.Nanos(e.TS)), func(c mnemo.Event) bool {
			if c.ID == id {
				e, found = c, true
			}
			return !found
		})
		if err == nil && !found {
			err = fmt.Errorf("cold event %s is not in its segment", id)
		}
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return mnemo.Event{}, mnemo.Errorf(mnemo.ENOTFOUND, "no event %s", id)
	} else if err != nil {
		return mnemo.Event{}, db.fail("get event", err)
	}
	return e, nil
}

func scanEventCold(r pgx.Row, scope mnemo.Scope) (mnemo.Event, bool, error) {
	e := mnemo.Event{Scope: scope}
	var (
		ts         int64
		data, meta *string
		cold       bool
	)
	if err := r.Scan(&e.Seq, &e.ID, &ts, &e.Type, &e.Source, &data, &meta, &e.SecurityLevel, &cold); err != nil {
		return e, false, err
	}
	e.TS = sqlrow.FromNanos(ts)
	if data != nil {
		e.Data = json.RawMessage(*data)
	}
	if meta != nil {
		e.Metadata = json.RawMessage(*meta)
	}
	return e, cold, nil
}

// eachPart calls fn with every cold event of a scope's day, in order,
// until fn returns false.
func (db *DB) eachPart(ctx context.Context, q querier, scope mnemo.Scope, day int64, fn func(mnemo.Event) bool) error {
	rows, err := q.Query(ctx, `SELECT codec, body FROM event_segments WHERE tenant_id = $1::text AND agent_id = $2::text AND day = $3::bigint ORDER BY part`,
		scope.TenantID, scope.AgentID, day)
	if err != nil {
		return err
	}
	defer rows.Close()
	more := true
	for more && rows.Next() {
		var (
			codec string
			body  []byte
		)
		if err := rows.Scan(&codec, &body); err != nil {
			return err
		}
		if err := db.seg.Decode(codec, body, scope, nil, func(e mnemo.Event) bool { more = fn(e); return more }); err != nil {
			return err
		}
	}
	return rows.Err()
}

// dayExpr is the UTC day of ts_ns, rounded down (integer division
// truncates towards zero).
const dayExpr = `CASE WHEN ts_ns >= 0 THEN ts_ns / 86400000000000 ELSE (ts_ns - 86399999999999) / 86400000000000 END`

// ArchiveEvents implements mnemo.EventStore (EVT-14): one transaction per
// scope and day, each merging the day's hot events into its segment parts
// and then dropping their bodies from the hot table (the rows stay, slim,
// so that their ids stay taken).
func (db *DB) ArchiveEvents(ctx context.Context, before time.Time) (int, error) {
	if err := sqlrow.CheckTime(before); err != nil {
		return 0, err
	}
	type group struct {
		scope mnemo.Scope
		day   int64
	}
	var groups []group
	err := db.read(ctx, allTenants, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT DISTINCT tenant_id, agent_id, `+dayExpr+` FROM events
			WHERE ts_ns < $1::bigint AND NOT cold ORDER BY 1, 2, 3`, sqlrow.Nanos(before))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var g group
			if err := rows.Scan(&g.scope.TenantID, &g.scope.AgentID, &g.day); err != nil {
				return err
			}
			groups = append(groups, g)
		}
		return rows.Err()
	})
	if err != nil {
		return 0, db.fail("archive events", err)
	}
	moved := 0
	for _, g := range groups {
		var n int
		err := db.tx(ctx, g.scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
			var err error
			n, err = db.archiveDay(ctx, tx, g.scope, g.day, before)
			return err
		})
		if err != nil {
			return moved, db.fail("archive events", err)
		}
		moved += n
	}
	return moved, nil
}

func (db *DB) archiveDay(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, day int64, before time.Time) (int, error) {
	end := min((day+1)*eventseg.NanosPerDay, sqlrow.Nanos(before))
	// FOR UPDATE: a concurrent archival of the same day waits, then finds
	// these events cold and skips them.
	rows, err := tx.Query(ctx, `SELECT `+eventCols+` FROM events
		WHERE tenant_id = $1::text AND agent_id = $2::text AND ts_ns >= $3::bigint AND ts_ns < $4::bigint AND NOT cold
		ORDER BY ts_ns, seq FOR UPDATE`, scope.TenantID, scope.AgentID, day*eventseg.NanosPerDay, end)
	if err != nil {
		return 0, err
	}
	var fresh []mnemo.Event
	for rows.Next() {
		e, err := scanEvent(rows, scope)
		if err != nil {
			rows.Close()
			return 0, err
		}
		fresh = append(fresh, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
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
			return 0, err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO event_segments (tenant_id, agent_id, day, part, first_ns, last_ns, count, codec, body)
			VALUES ($1::text, $2::text, $3::bigint, $4::int, $5::bigint, $6::bigint, $7::int, $8::text, $9::bytea)
			ON CONFLICT (tenant_id, agent_id, day, part) DO UPDATE SET first_ns = excluded.first_ns, last_ns = excluded.last_ns,
				count = excluded.count, codec = excluded.codec, body = excluded.body`,
			scope.TenantID, scope.AgentID, day, part, sqlrow.Nanos(chunk[0].TS), sqlrow.Nanos(chunk[len(chunk)-1].TS),
			len(chunk), eventseg.Codec, body); err != nil {
			return 0, err
		}
		part++
	}
	ids := make([]string, len(fresh))
	for i, e := range fresh {
		ids[i] = e.ID
	}
	if _, err := tx.Exec(ctx, `UPDATE events SET cold = true, data = NULL, metadata = NULL
		WHERE tenant_id = $1::text AND agent_id = $2::text AND id = ANY($3::text[])`, scope.TenantID, scope.AgentID, ids); err != nil {
		return 0, err
	}
	return len(fresh), nil
}
