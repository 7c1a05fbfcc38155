package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Write applies recs in one transaction. See mnemo.Store.
//
// A record with a key loses last-write-wins when the key's stored row (live
// or tombstone) has a later UpdatedAt; on equal UpdatedAt the record, which
// arrives later, wins. An upsert keeps the stored memory's id, created_at and
// access counters. A put on a tombstoned key stores the record as a new
// memory, with the record's own id and times. A record without a key is an
// insert: an id that is already stored is ECONFLICT.
//
// Missing TenantID and AgentID are taken from scope, a missing ID is a new
// UUIDv7, and zero CreatedAt and UpdatedAt are the clock's now.
func (db *DB) Write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	return db.write(ctx, scope, recs, false)
}

// Replace changes a keyless memory in place (API-14). See mnemo.Store.Replace.
func (db *DB) Replace(ctx context.Context, scope mnemo.Scope, rec mnemo.Record) (mnemo.Memory, error) {
	if rec.Memory.Key != "" || rec.Tombstone || rec.Memory.ID == "" {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.EINVALID, "replace takes a keyless memory with its id")
	}
	ms, err := db.write(ctx, scope, []mnemo.Record{rec}, true)
	if err != nil {
		return mnemo.Memory{}, err
	}
	return ms[0], nil
}

// write is Write; with replace, each keyless record replaces the live
// memory with its id (ENOTFOUND when there is none). It joins the writes
// waiting for the writer and returns once the transaction that applied it
// has committed (writeGroup).
func (db *DB) write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, replace bool) ([]mnemo.Memory, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	w := &groupWrite{ctx: ctx, scope: scope, recs: recs, replace: replace, done: make(chan struct{})}
	db.group.do(ctx, w, db.commitGroup)
	return w.out, w.err
}

// commitGroup applies ws in one transaction, each write in a savepoint
// of its own, so that a write that fails leaves the others to commit
// (MEM-16). When the transaction itself fails (begin, a savepoint or the
// commit), each write runs again alone, so that it fails only for itself.
func (db *DB) commitGroup(ws []*groupWrite) {
	if err := db.writeTx(ws); err != nil {
		if len(ws) == 1 {
			ws[0].out, ws[0].err = nil, err
			return
		}
		for _, w := range ws {
			if err := db.writeTx([]*groupWrite{w}); err != nil {
				w.out, w.err = nil, err
			}
		}
	}
}

// writeTx applies ws in one transaction and commits it. It sets each
// write's result, and returns an error only when the transaction failed
// as a whole, leaving every result to the caller.
func (db *DB) writeTx(ws []*groupWrite) error {
	// No one write's context ends the transaction: SQLite rolls back the
	// whole transaction of an interrupted statement. A write whose context
	// has ended before its turn is skipped.
	ctx := context.WithoutCancel(ws[0].ctx)
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	defer tx.Rollback()

	t := &wtx{tx: tx, now: db.now(), cached: db.writeStmts}
	defer t.closeStmts()
	committed := false
	defer func() {
		// Once the transaction has let the connection go and every lock
		// below is released: a writer holding the connection may be
		// waiting for one of them.
		if committed {
			db.writeStmts.add(ctx, t.uncached)
		}
	}()
	if t.fts, err = db.ftsExists(ctx, t); err != nil {
		return err
	}
	// The write lock is held from BEGIN IMMEDIATE: the history seqs this
	// transaction takes run on from hist.from, with no other process's
	// between them (lexIndex.follow).
	var hist historySpan
	if err := t.QueryRowContext(ctx, `SELECT `+historyTop).Scan(&hist.from); err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	if t.space, t.rev, err = vectorSpace(ctx, t); err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	rev0 := t.rev
	alone := len(ws) == 1
	bs := make([]*batch, len(ws))
	applied := 0
	for i, w := range ws {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			continue
		}
		if !alone {
			if _, err := t.exec(ctx, `SAVEPOINT write`); err != nil {
				return fmt.Errorf("sqlite: write: %w", err)
			}
		}
		b := &batch{wtx: t, scope: w.scope, replace: w.replace}
		revBefore := t.rev
		if len(w.recs) > 0 {
			w.out, w.err = b.write(ctx, w.recs)
		}
		if w.err == nil && w.contexts != nil {
			w.err = b.indexContexts(ctx, w.contexts)
		}
		switch {
		case w.err == nil:
			bs[i] = b
			applied++
			if !alone {
				if _, err := t.exec(ctx, `RELEASE write`); err != nil {
					return fmt.Errorf("sqlite: write: %w", err)
				}
			}
		case alone:
			return nil
		default:
			// Its rows are gone, and the revs it took are free again.
			t.rev = revBefore
			if _, err := t.exec(ctx, `ROLLBACK TO write`); err != nil {
				return fmt.Errorf("sqlite: write: %w", err)
			}
			if _, err := t.exec(ctx, `RELEASE write`); err != nil {
				return fmt.Errorf("sqlite: write: %w", err)
			}
		}
	}
	if applied == 0 {
		return nil
	}
	revUsed := t.rev != rev0
	if revUsed {
		if _, err := t.exec(ctx, `UPDATE vector_space SET rev = ?`, t.rev); err != nil {
			return fmt.Errorf("sqlite: write: %w", err)
		}
		db.vectors.pub.Lock()
		defer db.vectors.pub.Unlock()
	}
	var (
		lexOps   []lexOp
		vectored []storedVec
		ftsRows  int64
	)
	for _, b := range bs {
		if b != nil {
			lexOps = append(lexOps, b.lexOps...)
			vectored = append(vectored, b.vectored...)
			ftsRows += b.ftsRows
		}
	}
	if err := t.QueryRowContext(ctx, `SELECT `+historyTop).Scan(&hist.to); err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	db.lex.wmu.Lock()
	if err := tx.Commit(); err != nil {
		db.lex.wmu.Unlock()
		return fmt.Errorf("sqlite: write: commit: %w", err)
	}
	committed = true
	db.lex.apply(lexOps, hist)
	db.lex.wmu.Unlock()
	if revUsed {
		db.vectors.record(t.space, rev0, t.rev, vectored)
	}
	for _, b := range bs {
		if b != nil {
			db.vectors.forget(b.span, b.unvectored)
		}
	}
	db.ftsMerge.wrote(ftsRows)
	if revUsed {
		db.vectors.wake(db) // the indexer inserts the new vectors, off this path
	}
	return nil
}

// write applies recs in the batch's transaction and reads back what they
// left.
func (b *batch) write(ctx context.Context, recs []mnemo.Record) ([]mnemo.Memory, error) {
	if err := b.begin(ctx); err != nil {
		return nil, fmt.Errorf("sqlite: write: %w", err)
	}
	seqs := make([]int64, len(recs))
	for i := range recs {
		var err error
		if seqs[i], err = b.apply(ctx, &recs[i]); err != nil {
			return nil, fmt.Errorf("sqlite: write record %d: %w", i, err)
		}
	}
	// Read back what the batch left, so that the caller sees exactly what a
	// later Get returns, including a key written twice in the batch.
	out, err := b.readBack(ctx, seqs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: write: read back: %w", err)
	}
	if err := b.countInserted(ctx); err != nil {
		return nil, fmt.Errorf("sqlite: write: %w", err)
	}
	if err := addFTSStats(ctx, b.exec, b.span, b.ftsDocs, b.ftsTokens); err != nil {
		return nil, fmt.Errorf("sqlite: write: %w", err)
	}
	return out, nil
}

// readBack returns the memories at seqs as the transaction sees them,
// out[i] the one at seqs[i], in one query: a query a record made reading
// back a large share of a bulk write's time (PERF-8).
func (b *batch) readBack(ctx context.Context, seqs []int64) ([]mnemo.Memory, error) {
	list := make([]byte, 0, 8*len(seqs)+2)
	list = append(list, '[')
	for i, s := range seqs {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, s, 10)
	}
	list = append(list, ']')
	// CROSS JOIN looks each memory up by seq, as fetchSeqs does.
	rows, err := b.query(ctx, `SELECT `+memoryColumns+`, m.seq
		FROM json_each(?) AS j CROSS JOIN memories m ON m.seq = j.value`, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[int64]mnemo.Memory, len(seqs))
	for rows.Next() {
		var seq int64
		m, err := scanMemory(rows, &seq)
		if err != nil {
			return nil, err
		}
		found[seq] = m
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]mnemo.Memory, len(seqs))
	for i, s := range seqs {
		m, ok := found[s]
		if !ok {
			return nil, fmt.Errorf("memory seq %d: %w", s, sql.ErrNoRows)
		}
		out[i] = m
	}
	return out, nil
}

// wtx is one write transaction: the writes of a group (writeGroup),
// each a batch, share it, its statements and the store's vector rev.
type wtx struct {
	tx  *sql.Tx
	fts bool // the full-text table exists
	now time.Time

	space mnemo.VectorSpace // of the store's vectors; zero when unset
	rev   int64             // vector_space.rev, counting the vectors stored

	// stmts are the transaction's statements, prepared once and run once
	// per record: preparing each statement anew was a fifth of a bulk
	// write transaction under the pure-Go driver (PERF-1).
	stmts    map[string]*sql.Stmt
	cached   *writeStmts // the writer's prepared statements
	uncached []string    // queries prepared here, not there yet
}

// batch is one Write in its transaction.
type batch struct {
	*wtx
	scope mnemo.Scope
	// replace makes a keyless record replace the live memory with its id.
	replace bool
	span    span  // the scope's seqs
	last    int64 // the highest seq of the scope so far

	// unvectored are the seqs whose vector the batch removed or replaced
	// by none: the ANN index must drop them.
	unvectored []int64
	// vectored are the vectors the batch stored, for the pending buffer.
	vectored []storedVec
	// inserted counts the active memories the batch inserted, by type,
	// for type_stats (updates and deletes are counted by triggers).
	inserted map[string]typeDelta
	// ftsRows counts the rows the batch indexed or removed from the
	// full-text index, for its merger.
	ftsRows int64
	// lexOps are those rows, for the in-memory index once committed.
	lexOps []lexOp
	// ftsDocs and ftsTokens are what the batch changed the scope's
	// full-text statistics by (fts_scopes).
	ftsDocs, ftsTokens int64
}

// QueryRowContext runs a query of one row in the transaction, prepared
// as exec's are: the transaction is a querier.
func (b *wtx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := b.stmt(ctx, q)
	if err != nil {
		// The transaction's own path, which reports the error in Scan.
		return b.tx.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// query runs a query in the batch's transaction, prepared as exec's are.
func (b *wtx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := b.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// stmt returns q prepared in the batch's transaction: the writer's
// statement when it has one, else prepared here, and for the writer
// once the transaction has ended (writeStmts).
func (b *wtx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := b.stmts[q]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if p := b.cached.get(q); p != nil {
		st = b.tx.StmtContext(ctx, p)
	} else {
		var err error
		if st, err = b.tx.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		b.uncached = append(b.uncached, q)
	}
	if b.stmts == nil {
		b.stmts = make(map[string]*sql.Stmt)
	}
	b.stmts[q] = st
	return st, nil
}

// exec runs q in the batch's transaction, prepared once per batch.
func (b *wtx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := b.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// queryRow is exec for a query of one row.
func (b *wtx) queryRow(ctx context.Context, q string, args ...any) (*sql.Row, error) {
	st, err := b.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryRowContext(ctx, args...), nil
}

// closeStmts closes the batch's statements.
func (b *wtx) closeStmts() {
	for _, st := range b.stmts {
		st.Close()
	}
}

type typeDelta struct {
	n        int
	vitality float64
}

// countInserted adds the batch's inserted memories to type_stats.
func (b *batch) countInserted(ctx context.Context) error {
	for typ, d := range b.inserted {
		_, err := b.exec(ctx, `INSERT INTO type_stats (tenant_id, agent_id, type, n, vitality) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET n = n + excluded.n, vitality = vitality + excluded.vitality`,
			b.scope.TenantID, b.scope.AgentID, typ, d.n, d.vitality)
		if err != nil {
			return fmt.Errorf("count types: %w", err)
		}
	}
	return nil
}

// begin numbers the scope if it is new, and finds where its seqs are at.
func (b *batch) begin(ctx context.Context) error {
	id, err := scopeID(ctx, b, b.scope)
	if err != nil {
		return err
	}
	if id == 0 {
		res, err := b.tx.ExecContext(ctx, `INSERT INTO scopes (tenant_id, agent_id) VALUES (?, ?)`, b.scope.TenantID, b.scope.AgentID)
		if err != nil {
			return fmt.Errorf("new scope: %w", err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
	}
	b.span = spanOf(id)
	err = b.QueryRowContext(ctx, `SELECT coalesce(max(seq), ?) FROM memories WHERE seq >= ? AND seq < ?`,
		b.span.lo, b.span.lo, b.span.hi).Scan(&b.last)
	if err != nil {
		return fmt.Errorf("last seq: %w", err)
	}
	return nil
}

// stored is what a write needs to know of the row already holding a key.
type stored struct {
	seq         int64
	id          string
	createdAt   int64
	updatedAt   int64
	accessedAt  sql.NullInt64
	accessCount int
	tombstone   bool
	version     int
}

// apply writes one record and returns the seq of the row holding its result.
func (b *batch) apply(ctx context.Context, rec *mnemo.Record) (int64, error) {
	m := rec.Memory
	idx := rec.Index
	if m.TenantID == "" {
		m.TenantID = b.scope.TenantID
	}
	if m.AgentID == "" {
		m.AgentID = b.scope.AgentID
	}
	if m.Scope() != b.scope {
		return 0, mnemo.Errorf(mnemo.EINVALID, "memory %s belongs to another tenant or agent", m.ID)
	}
	if rec.Tombstone && m.Key == "" {
		return 0, mnemo.Errorf(mnemo.EINVALID, "a tombstone needs a key")
	}
	if m.ID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return 0, err
		}
		m.ID = id.String()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = b.now
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = b.now
	}
	op := mnemo.OpPut
	if rec.Tombstone {
		// A tombstone keeps the key's slot and its time, not its content.
		op = mnemo.OpTombstone
		m.Content, m.Data, m.Summary = "", nil, ""
		m.Embedding, m.EmbeddingModel = nil, ""
		idx = mnemo.IndexText{}
	}
	// r refers to m: it is stored with the changes an upsert makes below.
	r, err := newRow(&m, idx, rec.Tombstone)
	if err != nil {
		return 0, err
	}
	if !rec.Tombstone {
		r.embedText = rec.Embed
		b.vector(r)
	}

	var cur *stored
	if m.Key != "" {
		if cur, err = b.lookup(ctx, m.Key); err != nil {
			return 0, err
		}
	} else if b.replace {
		if cur, err = b.lookupID(ctx, m.ID); err != nil {
			return 0, err
		}
		if cur == nil {
			return 0, mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", m.ID)
		}
	}
	if cur != nil && cur.updatedAt > sqlrow.Nanos(m.UpdatedAt) {
		// The record is older than what is stored: history keeps it, the
		// memory does not change.
		if _, err := b.history(ctx, &m, op, false); err != nil {
			return 0, err
		}
		return cur.seq, nil
	}
	upsert := cur != nil && (!cur.tombstone || rec.Tombstone)
	if upsert {
		m.ID, m.CreatedAt = cur.id, sqlrow.FromNanos(cur.createdAt)
		m.AccessedAt, m.AccessCount = time.Time{}, cur.accessCount
		if cur.accessedAt.Valid {
			m.AccessedAt = sqlrow.FromNanos(cur.accessedAt.Int64)
		}
	}
	m.Version = mnemo.NextVersion(m.Version, upsert, cur.versionOf())

	if r.arrival, err = b.history(ctx, &m, op, true); err != nil {
		return 0, err
	}
	seq, err := b.store(ctx, r, cur)
	if err != nil {
		return 0, err
	}
	if rev, ok := r.vectorRev.(int64); ok {
		b.vectored = append(b.vectored, storedVec{seq: seq, rev: rev, v: m.Embedding})
	}
	if cur != nil && !cur.tombstone {
		if err := b.unindex(ctx, seq); err != nil {
			return 0, err
		}
		if r.vectorRev == nil {
			b.unvectored = append(b.unvectored, seq)
		}
	}
	if !rec.Tombstone {
		if err := b.index(ctx, seq, &m, &idx); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// vector stamps r's embedding with a new rev when it belongs to the store's
// vector space, which puts it in the ANN index. Any other memory waits for
// the embedder: an embedding of another model or dimension (an import from
// another store, say) is kept as it came until then, but never indexed, so
// never compared with vectors of this store's model.
func (b *batch) vector(r *row) {
	m := r.m
	if r.embedText == "" || len(m.Embedding) == 0 || b.space.Model == "" ||
		m.EmbeddingModel != b.space.Model || len(m.Embedding) != b.space.Dimension || !sqlrow.Finite(m.Embedding) {
		return
	}
	b.rev++
	r.vectorRev = b.rev
}

// index adds the live memory m, stored at seq, to the full-text index and
// the tag index.
func (b *batch) index(ctx context.Context, seq int64, m *mnemo.Memory, idx *mnemo.IndexText) error {
	if b.fts {
		if _, err := b.exec(ctx, `INSERT INTO memories_fts (rowid, text, context, meta) VALUES (?, ?, ?, ?)`,
			seq, idx.Text, idx.Context, idx.Meta); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		// The tokens as FTS5 counts them: lexTokens's count when it is sure
		// of them, else FTS5's own record of the row.
		n, ok := lexLen(idx.Text, idx.Context, idx.Meta)
		if !ok {
			var err error
			if n, _, err = ftsLen(ctx, b, seq); err != nil {
				return fmt.Errorf("index: %w", err)
			}
		}
		b.ftsDocs++
		b.ftsTokens += n
		b.ftsRows++
		src := m.OccurredOf().Source
		b.lexOps = append(b.lexOps, lexOp{seq: seq, dated: src == mnemo.OccurredText || src == mnemo.OccurredWriter,
			text: [3]string{idx.Text, idx.Context, idx.Meta}})
	}
	for _, tag := range m.Tags {
		if _, err := b.exec(ctx, `INSERT OR IGNORE INTO memory_tags (seq, tag) VALUES (?, ?)`, seq, tag); err != nil {
			return fmt.Errorf("index tags: %w", err)
		}
	}
	return nil
}

// unindex removes the memory at seq from the indexes.
func (b *batch) unindex(ctx context.Context, seq int64) error {
	if b.fts {
		n, held, err := ftsLen(ctx, b, seq)
		if err != nil {
			return fmt.Errorf("unindex: %w", err)
		}
		if _, err := b.exec(ctx, `DELETE FROM memories_fts WHERE rowid = ?`, seq); err != nil {
			return fmt.Errorf("unindex: %w", err)
		}
		if held {
			b.ftsDocs--
			b.ftsTokens -= n
		}
		b.ftsRows++
		b.lexOps = append(b.lexOps, lexOp{seq: seq, del: true})
	}
	if _, err := b.exec(ctx, `DELETE FROM memory_tags WHERE seq = ?`, seq); err != nil {
		return fmt.Errorf("unindex tags: %w", err)
	}
	return nil
}

// lookup returns the row holding key, live or tombstone, or nil.
func (b *batch) lookup(ctx context.Context, key string) (*stored, error) {
	var s stored
	row, err := b.queryRow(ctx, `SELECT seq, id, created_at, updated_at, accessed_at, access_count, tombstone, version
		FROM memories WHERE tenant_id = ? AND agent_id = ? AND key = ?`,
		b.scope.TenantID, b.scope.AgentID, key)
	if err == nil {
		err = row.Scan(&s.seq, &s.id, &s.createdAt, &s.updatedAt, &s.accessedAt, &s.accessCount, &s.tombstone, &s.version)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("lookup key: %w", err)
	}
	return &s, nil
}

// versionOf is the stored row's version, 0 without one.
func (s *stored) versionOf() int {
	if s == nil {
		return 0
	}
	return s.version
}

// lookupID returns the live keyless row of id in the scope, or nil.
func (b *batch) lookupID(ctx context.Context, id string) (*stored, error) {
	var s stored
	err := b.QueryRowContext(ctx, `SELECT seq, id, created_at, updated_at, accessed_at, access_count, tombstone, version
		FROM memories WHERE id = ? AND tenant_id = ? AND agent_id = ? AND key IS NULL AND tombstone = 0`,
		id, b.scope.TenantID, b.scope.AgentID,
	).Scan(&s.seq, &s.id, &s.createdAt, &s.updatedAt, &s.accessedAt, &s.accessCount, &s.tombstone, &s.version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("lookup id: %w", err)
	}
	return &s, nil
}

// store inserts r, or replaces the row cur, and returns the row's seq.
func (b *batch) store(ctx context.Context, r *row, cur *stored) (int64, error) {
	args := r.args()
	marks := strings.Repeat("?, ", len(args)-1) + "?"
	if cur == nil {
		if b.last+1 >= b.span.hi {
			return 0, fmt.Errorf("scope %s/%s has used all its seqs", b.scope.TenantID, b.scope.AgentID)
		}
		seq := b.last + 1
		_, err := b.exec(ctx, `INSERT INTO memories (seq, `+insertColumns+`) VALUES (?, `+marks+`)`,
			append([]any{seq}, args...)...)
		if err != nil {
			return 0, conflict(err, r.m.ID)
		}
		b.last = seq
		if !r.tombstone && !r.m.Archived {
			if b.inserted == nil {
				b.inserted = make(map[string]typeDelta)
			}
			d := b.inserted[r.m.Type]
			d.n++
			d.vitality += r.m.Vitality
			b.inserted[r.m.Type] = d
		}
		return seq, nil
	}
	_, err := b.exec(ctx, `UPDATE memories SET (`+insertColumns+`) = (`+marks+`) WHERE seq = ?`,
		append(args, cur.seq)...)
	if err != nil {
		return 0, conflict(err, r.m.ID)
	}
	return cur.seq, nil
}

// conflict turns a unique-constraint failure, a memory id already taken,
// into ECONFLICT.
func conflict(err error, id string) error {
	var e *sqlite.Error
	if errors.As(err, &e) && (e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return mnemo.Errorf(mnemo.ECONFLICT, "memory %s already exists", id)
	}
	return fmt.Errorf("store memory: %w", err)
}

// history appends a revision of m and returns its seq, which orders every
// write of the database.
//
// The revision omits the embedding: it is derived from the content, and
// would make history many times the size of the memories themselves.
func (b *batch) history(ctx context.Context, m *mnemo.Memory, op string, applied bool) (int64, error) {
	rev := *m
	rev.Embedding = nil
	body, err := json.Marshal(rev)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	res, err := b.exec(ctx, `INSERT INTO history (tenant_id, agent_id, memory_id, key, op, at, applied, memory)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		m.TenantID, m.AgentID, m.ID, sqlrow.NullString(m.Key), op, sqlrow.Nanos(b.now), applied, string(body))
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return res.LastInsertId()
}

// Touch records an access of the live memories ids at time at (the clock's
// now when zero).
func (db *DB) Touch(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
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
	// An access record is bookkeeping, not an acknowledged write: it is
	// committed without waiting for fsync (synchronous=NORMAL keeps the
	// database consistent; a power cut may lose the last few access
	// counts). The next durable write syncs it along. This takes the fsync
	// off every recall.
	conn, err := db.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: touch: %w", err)
	}
	defer conn.Close()
	if db.synchronous != "NORMAL" {
		if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
			return fmt.Errorf("sqlite: touch: %w", err)
		}
		defer func() {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = `+db.synchronous); err != nil {
				// Leave no connection behind that acknowledges writes
				// without syncing them.
				conn.Raw(func(any) error { return driver.ErrBadConn })
				db.logger.Error("restoring synchronous after touch failed", "err", err)
			}
		}()
	}
	// The unary + keeps the planner on the id index: the scope index would
	// walk every memory of the agent.
	_, err = conn.ExecContext(ctx, `UPDATE memories SET access_count = access_count + 1, accessed_at = ?
		WHERE id IN (SELECT value FROM json_each(?)) AND +tenant_id = ? AND +agent_id = ? AND tombstone = 0`,
		sqlrow.Nanos(at), jsonArray(ids), scope.TenantID, scope.AgentID)
	if err != nil {
		return fmt.Errorf("sqlite: touch: %w", err)
	}
	return nil
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
	return db.delete(ctx, scope, mnemo.OpForget,
		`(id IN (SELECT value FROM json_each(:ids)) OR key IN (SELECT value FROM json_each(:keys)))`,
		sql.Named("ids", jsonArray(ids)), sql.Named("keys", jsonArray(keys)))
}

// Clear deletes every memory and tombstone of scope and returns how many live
// memories it deleted. History is treated as by Forget: one "clear" revision
// per deleted row, so that each key's history says what became of it.
func (db *DB) Clear(ctx context.Context, scope mnemo.Scope) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	return db.delete(ctx, scope, mnemo.OpClear, `1`)
}

// delete removes the rows of scope matching cond, a condition on memories
// with named parameters args.
func (db *DB) delete(ctx context.Context, scope mnemo.Scope, op, cond string, args ...any) (int, error) {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", op, err)
	}
	defer tx.Rollback()
	fts, err := db.ftsExists(ctx, tx)
	if err != nil {
		return 0, err
	}
	var hist historySpan // as in writeTx
	if err := tx.QueryRowContext(ctx, `SELECT `+historyTop).Scan(&hist.from); err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", op, err)
	}

	sel := `FROM memories WHERE tenant_id = :tenant AND agent_id = :agent AND ` + cond
	args = append(args, sql.Named("tenant", scope.TenantID), sql.Named("agent", scope.AgentID))
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) `+sel+` AND tombstone = 0`, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", op, err)
	}
	var (
		unindexed          []lexOp // rows to drop from the in-memory full-text index
		ftsDocs, ftsTokens int64   // and what they take from the scope's statistics
	)
	if fts {
		rows, err := tx.QueryContext(ctx, `SELECT seq, (SELECT sz FROM memories_fts_docsize WHERE id = seq) `+sel+` AND tombstone = 0`, args...)
		if err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", op, err)
		}
		for rows.Next() {
			var (
				seq int64
				sz  []byte
			)
			if err := rows.Scan(&seq, &sz); err != nil {
				rows.Close()
				return 0, fmt.Errorf("sqlite: %s: %w", op, err)
			}
			unindexed = append(unindexed, lexOp{seq: seq, del: true})
			if sz != nil {
				n, err := docsizeTokens(sz)
				if err != nil {
					rows.Close()
					return 0, fmt.Errorf("sqlite: %s: memory %d: %w", op, seq, err)
				}
				ftsDocs++
				ftsTokens += n
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", op, err)
		}
	}
	var vectored []int64 // seqs to drop from the ANN index
	if op != mnemo.OpClear {
		rows, err := tx.QueryContext(ctx, `SELECT seq `+sel+` AND vector_rev IS NOT NULL`, args...)
		if err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", op, err)
		}
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				rows.Close()
				return 0, fmt.Errorf("sqlite: %s: %w", op, err)
			}
			vectored = append(vectored, seq)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", op, err)
		}
	}
	stmts := []string{
		`UPDATE history SET memory = NULL
		WHERE tenant_id = :tenant AND agent_id = :agent AND memory IS NOT NULL
		AND (memory_id IN (SELECT id ` + sel + `) OR key IN (SELECT key ` + sel + ` AND key IS NOT NULL))`,
		`INSERT INTO history (tenant_id, agent_id, memory_id, key, op, at, applied, memory)
		SELECT tenant_id, agent_id, id, key, :op, :at, 1, NULL ` + sel + ` ORDER BY seq`,
	}
	if fts {
		stmts = append(stmts, `DELETE FROM memories_fts WHERE rowid IN (SELECT seq `+sel+` AND tombstone = 0)`)
	}
	stmts = append(stmts, `DELETE FROM memory_tags WHERE seq IN (SELECT seq `+sel+`)`)
	// A deleted memory's links go with it (REC-22); events keep theirs.
	stmts = append(stmts, `DELETE FROM relations WHERE tenant_id = :tenant AND agent_id = :agent
		AND (source IN (SELECT id `+sel+`) OR target IN (SELECT id `+sel+`))`)
	stmts = append(stmts, `DELETE `+sel)
	args = append(args, sql.Named("op", op), sql.Named("at", sqlrow.Nanos(db.now())))
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s, args...); err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", op, err)
		}
	}
	if len(unindexed) > 0 {
		if err := addFTSStats(ctx, tx.ExecContext, spanOf(unindexed[0].seq>>scopeBits), -ftsDocs, -ftsTokens); err != nil {
			return 0, fmt.Errorf("sqlite: %s: %w", op, err)
		}
	}
	// A write recorded between the commit and drop would be lost with the
	// scope's pending buffer.
	db.vectors.pub.Lock()
	defer db.vectors.pub.Unlock()
	if err := tx.QueryRowContext(ctx, `SELECT `+historyTop).Scan(&hist.to); err != nil {
		return 0, fmt.Errorf("sqlite: %s: %w", op, err)
	}
	db.lex.wmu.Lock()
	if err := tx.Commit(); err != nil {
		db.lex.wmu.Unlock()
		return 0, fmt.Errorf("sqlite: %s: %w", op, err)
	}
	db.lex.apply(unindexed, hist)
	db.lex.wmu.Unlock()
	if fts {
		db.ftsMerge.wrote(int64(n))
		db.ftsMerge.forgot(int64(len(unindexed)))
	}
	if sp, err := db.scopeSpan(ctx, scope); err == nil && sp.lo != 0 {
		if op == mnemo.OpClear {
			db.vectors.drop(sp)
		} else {
			db.vectors.forget(sp, vectored)
		}
	}
	return n, nil
}

// jsonArray encodes ss for json_each: one parameter for a list of any
// length.
func jsonArray(ss []string) string {
	if len(ss) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ss) // a []string always marshals
	return string(b)
}
