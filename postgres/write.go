package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// insertChunk is how many memories one INSERT statement carries.
const insertChunk = 200

// Write applies recs in one transaction. See mnemo.Store.
//
// A record with a key loses last-write-wins when the key's stored row (live
// or tombstone) has a later UpdatedAt; on equal UpdatedAt the record, which
// arrives later, wins. An upsert keeps the stored memory's id, created_at and
// access counters. A put on a tombstoned key stores the record as a new
// memory. A record without a key is an insert: an id already stored is
// ECONFLICT.
//
// Concurrency is optimistic: the batch reads the rows of its keys without
// locking them, decides in memory, and then changes each row only if its
// revision is still the one read (and checks the same of the rows it lost
// to). A batch that lost a race (a row changed, or a new key inserted by
// another writer meanwhile) is rolled back and run again on fresh reads, up
// to Options.WriteAttempts times, after which it fails with ECONFLICT:
// nothing is acknowledged that was not stored.
func (db *DB) Write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	return db.write(ctx, scope, recs, writeNew, nil)
}

// writeMode is what a batch's records are.
type writeMode int

const (
	writeNew      writeMode = iota // Write
	writeReplace                   // Replace: a keyless record replaces its id's memory
	writeReplayed                  // ReplayWrites: writes acknowledged earlier elsewhere
)

// Replace changes a keyless memory in place (API-14), as Write upserts a
// key: the row of the record's id, live and keyless, takes the record,
// keeping its id, creation and accesses, with a revision in history; a
// record older than the row only adds the revision. See mnemo.Store.Replace.
func (db *DB) Replace(ctx context.Context, scope mnemo.Scope, rec mnemo.Record) (mnemo.Memory, error) {
	if rec.Memory.Key != "" || rec.Tombstone || rec.Memory.ID == "" {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.EINVALID, "replace takes a keyless memory with its id")
	}
	ms, err := db.write(ctx, scope, []mnemo.Record{rec}, writeReplace, nil)
	if err != nil {
		return mnemo.Memory{}, err
	}
	return ms[0], nil
}

// write is Write; with writeReplace, each keyless record replaces the live
// keyless memory of its id (ENOTFOUND when there is none). contexts are
// set after the records, in the same transaction (WriteContexts).
func (db *DB) write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, mode writeMode, contexts []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	now := db.now()
	rows := make([]*row, len(recs))
	for i := range recs {
		r, err := prepare(scope, &recs[i], now)
		if err != nil {
			return nil, fmt.Errorf("postgres: write record %d: %w", i, err)
		}
		rows[i] = r
	}
	var out []mnemo.Memory
	err := db.writeTx(ctx, "write", scope.TenantID, func(tx pgx.Tx) error {
		if err := lockScopeStats(ctx, tx, scope); err != nil {
			return err
		}
		var err error
		if out, err = db.writeBatch(ctx, tx, scope, rows, now, mode); err != nil || len(contexts) == 0 {
			return err
		}
		return db.indexContexts(ctx, tx, scope, contexts)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// prepare fills in what a record leaves to the store and validates it.
func prepare(scope mnemo.Scope, rec *mnemo.Record, now time.Time) (*row, error) {
	m := rec.Memory
	idx := rec.Index
	if m.TenantID == "" {
		m.TenantID = scope.TenantID
	}
	if m.AgentID == "" {
		m.AgentID = scope.AgentID
	}
	if m.Scope() != scope {
		return nil, mnemo.Errorf(mnemo.EINVALID, "memory %s belongs to another tenant or agent", m.ID)
	}
	if rec.Tombstone && m.Key == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "a tombstone needs a key")
	}
	if m.ID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		m.ID = id.String()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = now
	}
	if rec.Tombstone {
		// A tombstone keeps the key's slot and its time, not its content.
		m.Content, m.Data, m.Summary = "", nil, ""
		m.Embedding, m.EmbeddingModel = nil, ""
		idx = mnemo.IndexText{}
	}
	r, err := newRow(m, idx, rec.Tombstone)
	if err != nil {
		return nil, err
	}
	if !rec.Tombstone {
		r.embedText = rec.Embed
	}
	return r, nil
}

// stored is a row of a key as the batch read it.
type stored struct {
	seq         int64
	revision    int64
	id          string
	createdAt   int64
	updatedAt   int64
	accessedAt  *int64
	accessCount int
	tombstone   bool
	version     int
}

// slot is what the batch does to one row: the row as the database had it
// (nil for a new one) and as the batch leaves it (nil when unchanged).
type slot struct {
	db   *stored
	next *row
	// keepAccess says the row keeps its stored access counters, which a
	// concurrent Touch may have moved since the read.
	keepAccess bool
	lost       bool // a record lost to the stored row
	seq        int64
}

// updatedAt returns when the slot's current state was written, and whether
// it is a tombstone; ok is false for a key with no row.
func (s *slot) current() (updated int64, tombstone, ok bool) {
	if s.next != nil {
		return sqlrow.Nanos(s.next.m.UpdatedAt), s.next.tombstone, true
	}
	if s.db != nil {
		return s.db.updatedAt, s.db.tombstone, true
	}
	return 0, false, false
}

// writeBatch is one attempt at a Write, in tx; with writeReplace, keyless
// records replace the memories of their ids; with writeReplayed, a record
// that loses last-write-wins goes to history at its UpdatedAt, when it was
// acknowledged, rather than now.
func (db *DB) writeBatch(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, in []*row, now time.Time, mode writeMode) ([]mnemo.Memory, error) {
	replace := mode == writeReplace
	if _, err := tx.Exec(ctx, `INSERT INTO scopes (tenant_id, agent_id) VALUES ($1::text, $2::text) ON CONFLICT DO NOTHING`,
		scope.TenantID, scope.AgentID); err != nil {
		return nil, err
	}
	// The lock keeps SetVectorSpace from changing the vec column under the
	// batch once it has read the vector space.
	if _, err := tx.Exec(ctx, `LOCK TABLE memory_entries IN ROW EXCLUSIVE MODE`); err != nil {
		return nil, err
	}
	space, err := vectorSpace(ctx, tx)
	if err != nil {
		return nil, err
	}
	vecCol := space.Model != "" && db.vectors == nil

	slots, err := lookupKeys(ctx, tx, scope, in, replace)
	if err != nil {
		return nil, err
	}
	hist, err := historySeqs(ctx, tx, len(in))
	if err != nil {
		return nil, err
	}

	// Decide every record in memory, in order.
	results := make([]*slot, len(in))
	var inserts []*slot
	histRows := make([]historyRow, 0, len(in))
	for i, src := range in {
		r := *src // a fresh copy for each attempt
		m := &r.m
		op := mnemo.OpPut
		if r.tombstone {
			op = mnemo.OpTombstone
		}
		r.vectored = !r.tombstone && r.embedText != "" && db.vectors == nil && space.Model != "" &&
			m.EmbeddingModel == space.Model && len(m.Embedding) == space.Dimension && sqlrow.Finite(m.Embedding)
		if r.vectored && vecCol {
			v := vectorLiteral(m.Embedding)
			r.vec = &v
		}

		sk := m.Key
		if sk == "" && !replace {
			m.Version = mnemo.NextVersion(m.Version, false, 0)
			s := &slot{next: &r}
			inserts = append(inserts, s)
			results[i] = s
			histRows = append(histRows, historyRow{seq: hist[i], m: *m, op: op, applied: true})
			r.arrival = hist[i]
			continue
		}
		if sk == "" {
			sk = idSlot(m.ID)
			if slots[sk].db == nil {
				return nil, mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", m.ID)
			}
		}
		s := slots[sk]
		results[i] = s
		updated, tomb, ok := s.current()
		if ok && updated > sqlrow.Nanos(m.UpdatedAt) {
			// Older than what is stored: history keeps it, the memory
			// does not change.
			h := historyRow{seq: hist[i], m: *m, op: op}
			if mode == writeReplayed {
				h.at = m.UpdatedAt
			}
			histRows = append(histRows, h)
			if s.next == nil {
				s.lost = true
			}
			continue
		}
		if ok && (!tomb || r.tombstone) {
			// An upsert: the memory keeps its identity and accesses, and
			// is one revision further.
			if s.next != nil {
				m.ID, m.CreatedAt = s.next.m.ID, s.next.m.CreatedAt
				m.AccessedAt, m.AccessCount = s.next.m.AccessedAt, s.next.m.AccessCount
				m.Version = mnemo.NextVersion(m.Version, true, s.next.m.Version)
				s.keepAccess = s.keepAccess || s.next == nil
			} else {
				m.ID, m.CreatedAt = s.db.id, sqlrow.FromNanos(s.db.createdAt)
				m.AccessedAt, m.AccessCount = time.Time{}, s.db.accessCount
				if s.db.accessedAt != nil {
					m.AccessedAt = sqlrow.FromNanos(*s.db.accessedAt)
				}
				m.Version = mnemo.NextVersion(m.Version, true, s.db.version)
				s.keepAccess = true
			}
		} else {
			m.Version = mnemo.NextVersion(m.Version, false, 0)
			s.keepAccess = false
		}
		if s.db == nil && s.next == nil {
			inserts = append(inserts, s)
		}
		r.arrival = hist[i]
		s.next = &r
		histRows = append(histRows, historyRow{seq: hist[i], m: *m, op: op, applied: true})
	}

	if err := insertHistory(ctx, tx, scope, histRows, now); err != nil {
		return nil, err
	}
	if err := checkLost(ctx, tx, scope, slots); err != nil {
		return nil, err
	}
	if err := updateRows(ctx, tx, scope, slots, vecCol); err != nil {
		return nil, err
	}
	if err := insertRows(ctx, tx, inserts, vecCol); err != nil {
		return nil, err
	}

	// Read back what the batch left, so that the caller sees exactly what a
	// later Get returns.
	seqs := make([]int64, len(results))
	for i, s := range results {
		seqs[i] = s.seq
	}
	found, err := fetchSeqs(ctx, tx, scope.TenantID, seqs, "", nil, false)
	if err != nil {
		return nil, err
	}
	out := make([]mnemo.Memory, len(results))
	for i, m := range found {
		if m == nil {
			return nil, fmt.Errorf("write: memory at %d not found after the write", seqs[i])
		}
		out[i] = *m
	}
	return out, nil
}

// idSlot is the slot of a keyless memory a batch replaces: NUL is in no
// key.
func idSlot(id string) string { return "\x00" + id }

// lookupKeys reads the rows of the batch's keys, one slot per key; with
// replace, also the live keyless rows of its keyless records' ids, one
// slot per id (idSlot).
func lookupKeys(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, in []*row, replace bool) (map[string]*slot, error) {
	slots := make(map[string]*slot)
	var keys, ids []string
	for _, r := range in {
		switch k := r.m.Key; {
		case k != "":
			if _, ok := slots[k]; !ok {
				slots[k] = &slot{}
				keys = append(keys, k)
			}
		case replace:
			if _, ok := slots[idSlot(r.m.ID)]; !ok {
				slots[idSlot(r.m.ID)] = &slot{}
				ids = append(ids, r.m.ID)
			}
		}
	}
	const cols = `SELECT seq, revision, id, key, created_ns, updated_ns, accessed_ns, access_count, tombstone, version FROM memory_entries`
	if len(keys) > 0 {
		if err := readSlots(ctx, tx, slots, cols+` WHERE tenant_id = $1::text AND agent_id = $2::text AND key = ANY($3::text[])`,
			scope.TenantID, scope.AgentID, keys); err != nil {
			return nil, err
		}
	}
	if len(ids) > 0 {
		if err := readSlots(ctx, tx, slots, cols+` WHERE tenant_id = $1::text AND agent_id = $2::text AND id = ANY($3::text[]) AND key IS NULL AND NOT tombstone`,
			scope.TenantID, scope.AgentID, ids); err != nil {
			return nil, err
		}
	}
	return slots, nil
}

// readSlots fills the slots of the rows query finds.
func readSlots(ctx context.Context, tx pgx.Tx, slots map[string]*slot, query string, args ...any) error {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			s   stored
			key *string
		)
		if err := rows.Scan(&s.seq, &s.revision, &s.id, &key, &s.createdAt, &s.updatedAt, &s.accessedAt, &s.accessCount, &s.tombstone, &s.version); err != nil {
			return err
		}
		k := idSlot(s.id)
		if key != nil {
			k = *key
		}
		slots[k].db = &s
		slots[k].seq = s.seq
	}
	return rows.Err()
}

// historySeqs takes n history seqs, in increasing order, so that each
// record's row can name its revision (arrival) before history is written.
func historySeqs(ctx context.Context, tx pgx.Tx, n int) ([]int64, error) {
	rows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('history', 'seq')) FROM generate_series(1, $1::integer)`, n)
	if err != nil {
		return nil, err
	}
	seqs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	slices.Sort(seqs)
	return seqs, nil
}

type historyRow struct {
	seq     int64
	m       mnemo.Memory
	op      string
	applied bool
	at      time.Time // when the store took it; zero for the batch's now
}

// insertHistory appends the batch's revisions. A revision omits the
// embedding: it is derived from the content, and would make history many
// times the size of the memories.
func insertHistory(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, hs []historyRow, now time.Time) error {
	for chunk := range slices.Chunk(hs, 1000) {
		var (
			p    params
			vals []string
		)
		for _, h := range chunk {
			rev := h.m
			rev.Embedding = nil
			at := now
			if !h.at.IsZero() {
				at = h.at
			}
			body, err := json.Marshal(rev)
			if err != nil {
				return fmt.Errorf("history: %w", err)
			}
			vals = append(vals, "("+strings.Join([]string{
				p.p(h.seq, "bigint"), p.p(scope.TenantID, "text"), p.p(scope.AgentID, "text"),
				p.p(h.m.ID, "text"), p.p(sqlrow.NullString(h.m.Key), "text"), p.p(h.op, "text"),
				p.p(sqlrow.Nanos(at), "bigint"), p.p(h.applied, "boolean"), p.p(string(body), "json"),
			}, ", ")+")")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO history (seq, tenant_id, agent_id, memory_id, key, op, at_ns, applied, memory)
			VALUES `+strings.Join(vals, ", "), p.args...); err != nil {
			return err
		}
	}
	return nil
}

// checkLost makes sure that every stored row a record lost to is still the
// one read, and keeps it so until the batch commits.
func checkLost(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, slots map[string]*slot) error {
	var seqs, revs []int64
	for _, s := range slots {
		if s.lost && s.next == nil && s.db != nil {
			seqs = append(seqs, s.db.seq)
			revs = append(revs, s.db.revision)
		}
	}
	if len(seqs) == 0 {
		return nil
	}
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM memory_entries m
		JOIN unnest($1::bigint[], $2::bigint[]) AS v (seq, revision) ON m.tenant_id = $3::text AND m.seq = v.seq AND m.revision = v.revision
		FOR SHARE OF m) AS still`, seqs, revs, scope.TenantID).Scan(&n)
	if err != nil {
		return err
	}
	if n != len(seqs) {
		return errRetry
	}
	return nil
}

// updateRows writes the slots whose stored row the batch changes, each only
// if its revision is unchanged, in seq order so that concurrent batches
// lock rows in one order.
func updateRows(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, slots map[string]*slot, vecCol bool) error {
	var upd []*slot
	for _, s := range slots {
		if s.db != nil && s.next != nil {
			upd = append(upd, s)
		}
	}
	slices.SortFunc(upd, func(a, b *slot) int { return int(a.db.seq - b.db.seq) })
	cols := strings.Split(insertColumns, ",")
	for _, s := range upd {
		var (
			p    params
			sets []string
		)
		for i, v := range s.next.args() {
			col := strings.TrimSpace(cols[i])
			if s.keepAccess && (col == "accessed_ns" || col == "access_count") {
				continue
			}
			sets = append(sets, col+" = "+p.p(v, insertCasts[i]))
		}
		if vecCol {
			sets = append(sets, "vec = "+p.p(s.next.vec, "text")+"::vector")
		}
		tag, err := tx.Exec(ctx, `UPDATE memory_entries SET `+strings.Join(sets, ", ")+`, revision = revision + 1
			WHERE tenant_id = `+p.p(scope.TenantID, "text")+` AND seq = `+p.p(s.db.seq, "bigint")+` AND revision = `+p.p(s.db.revision, "bigint"), p.args...)
		if err != nil {
			return conflict(err)
		}
		if tag.RowsAffected() == 0 {
			return errRetry
		}
	}
	return nil
}

// insertRows inserts the new rows, several to a statement, and notes their
// seqs.
func insertRows(ctx context.Context, tx pgx.Tx, ins []*slot, vecCol bool) error {
	cols := insertColumns
	if vecCol {
		cols += ", vec"
	}
	for chunk := range slices.Chunk(ins, insertChunk) {
		var (
			p    params
			vals []string
		)
		byID := make(map[string]*slot, len(chunk))
		for _, s := range chunk {
			args := s.next.args()
			marks := make([]string, len(args), len(args)+1)
			for i, v := range args {
				marks[i] = p.p(v, insertCasts[i])
			}
			if vecCol {
				marks = append(marks, p.p(s.next.vec, "text")+"::vector")
			}
			vals = append(vals, "("+strings.Join(marks, ", ")+")")
			if _, dup := byID[s.next.m.ID]; dup {
				return mnemo.Errorf(mnemo.ECONFLICT, "memory %s already exists", s.next.m.ID)
			}
			byID[s.next.m.ID] = s
		}
		rows, err := tx.Query(ctx, `INSERT INTO memory_entries (`+cols+`) VALUES `+strings.Join(vals, ", ")+` RETURNING id, seq`, p.args...)
		if err != nil {
			return conflict(err)
		}
		for rows.Next() {
			var (
				id  string
				seq int64
			)
			if err := rows.Scan(&id, &seq); err != nil {
				rows.Close()
				return err
			}
			byID[id].seq = seq
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return conflict(err)
		}
	}
	return nil
}

// conflict turns a memory id already taken into ECONFLICT; a key taken
// meanwhile is left for the retry.
func conflict(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" && isIndex(pe.ConstraintName, "memory_entries_id") {
		id := pe.Detail
		if _, rest, ok := strings.Cut(pe.Detail, "=("); ok {
			id, _, _ = strings.Cut(rest, ")")
		}
		return mnemo.Errorf(mnemo.ECONFLICT, "memory %s already exists", id)
	}
	return err
}

// Touch records an access of the live memories ids at time at (the clock's
// now when zero). It does not change their revision: an access is not a
// change a concurrent writer must see.
func (db *DB) Touch(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	ctx = bookkeeping(ctx)
	if err := checkScope(scope); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	if at.IsZero() {
		at = db.now()
	} else if err := sqlrow.CheckTime(at); err != nil {
		return err
	}
	slices.Sort(ids)
	return db.writeTx(ctx, "touch", scope.TenantID, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE memory_entries SET access_count = access_count + 1, accessed_ns = $1::bigint
			WHERE id = ANY($2::text[]) AND tenant_id = $3::text AND agent_id = $4::text AND NOT tombstone`,
			sqlrow.Nanos(at), ids, scope.TenantID, scope.AgentID)
		return err
	})
}

// Forget deletes the memories ids and the memories of keys, live or
// tombstoned, and returns how many live memories it deleted. Their history
// revisions lose their content and gain one "forget" revision each.
func (db *DB) Forget(ctx context.Context, scope mnemo.Scope, ids, keys []string) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	if len(ids) == 0 && len(keys) == 0 {
		return 0, nil
	}
	if ids == nil {
		ids = []string{}
	}
	if keys == nil {
		keys = []string{}
	}
	return db.delete(ctx, scope, mnemo.OpForget, `(m.id = ANY($5::text[]) OR m.key = ANY($6::text[]))`, ids, keys)
}

// Clear deletes every memory and tombstone of scope and returns how many live
// memories it deleted, with one "clear" revision per deleted row.
func (db *DB) Clear(ctx context.Context, scope mnemo.Scope) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	db.large.Delete(scope)
	return db.delete(ctx, scope, mnemo.OpClear, `true`)
}

// lockScopeStats locks the scope's row of BM25 statistics (migration
// 0005) first thing in a transaction that adds or removes documents. The
// triggers update it, and its terms' rows, at the end of each statement:
// taken there, after the memory rows, two writers of a scope could each
// hold what the other waits for (a memory row, the statistics), and each
// deadlock costs PostgreSQL's deadlock_timeout (1 s) before a retry. Taken
// first, writers of a scope queue on it instead, as they would at the
// trigger anyway.
func lockScopeStats(ctx context.Context, tx pgx.Tx, scope mnemo.Scope) error {
	_, err := tx.Exec(ctx, `INSERT INTO scope_stats AS s (tenant_id, agent_id, docs, total_len) VALUES ($1::text, $2::text, 0, 0)
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET docs = s.docs`, scope.TenantID, scope.AgentID)
	return err
}

// delete removes the rows of scope matching cond, whose parameters start at
// $5, in one statement.
func (db *DB) delete(ctx context.Context, scope mnemo.Scope, op, cond string, args ...any) (int, error) {
	var n int
	err := db.writeTx(ctx, op, scope.TenantID, func(tx pgx.Tx) error {
		if err := lockScopeStats(ctx, tx, scope); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `WITH d AS (
				DELETE FROM memory_entries m WHERE m.tenant_id = $1::text AND m.agent_id = $2::text AND `+cond+`
				RETURNING m.seq, m.id, m.key, m.tombstone
			), blank AS (
				UPDATE history SET memory = NULL
				WHERE tenant_id = $1::text AND agent_id = $2::text AND memory IS NOT NULL
				AND (memory_id IN (SELECT id FROM d) OR key IN (SELECT key FROM d WHERE key IS NOT NULL))
			), links AS (
				-- A deleted memory's links go with it (REC-22); events keep theirs.
				DELETE FROM relations r WHERE r.tenant_id = $1::text AND r.agent_id = $2::text
				AND (r.source IN (SELECT id FROM d) OR r.target IN (SELECT id FROM d))
			), noted AS (
				INSERT INTO history (tenant_id, agent_id, memory_id, key, op, at_ns, applied, memory)
				SELECT $1::text, $2::text, id, key, $3::text, $4::bigint, true, NULL FROM d ORDER BY seq
			)
			SELECT count(*) FILTER (WHERE NOT tombstone) FROM d`,
			append([]any{scope.TenantID, scope.AgentID, op, sqlrow.Nanos(db.now())}, args...)...).Scan(&n)
	})
	return n, err
}
