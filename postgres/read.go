package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// Get returns the live memory id of scope, archived and expired included.
func (db *DB) Get(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Memory, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Memory{}, err
	}
	var m mnemo.Memory
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		var err error
		m, err = scanMemory(q.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memory_entries m
			WHERE m.id = $1::text AND m.tenant_id = $2::text AND m.agent_id = $3::text AND NOT m.tombstone`,
			id, scope.TenantID, scope.AgentID))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "memory %s not found", id)
	}
	return m, db.fail("get", err)
}

// GetByKey returns the live memory of key in scope, archived and expired
// included.
func (db *DB) GetByKey(ctx context.Context, scope mnemo.Scope, key string) (mnemo.Memory, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Memory{}, err
	}
	var m mnemo.Memory
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		var err error
		m, err = scanMemory(q.QueryRow(ctx, `SELECT `+memoryColumns+` FROM memory_entries m
			WHERE m.tenant_id = $1::text AND m.agent_id = $2::text AND m.key = $3::text AND NOT m.tombstone`,
			scope.TenantID, scope.AgentID, key))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.ENOTFOUND, "key %s not found", key)
	}
	return m, db.fail("get by key", err)
}

// orders maps a ListQuery order to SQL. The arrival breaks ties between
// memories created in the same nanosecond, by write order. Keys sort by
// their bytes, as in every store.
var orders = map[string]string{
	"":                  `m.created_ns DESC, m.arrival DESC`,
	mnemo.OrderNewest:   `m.created_ns DESC, m.arrival DESC`,
	mnemo.OrderOldest:   `m.created_ns ASC, m.arrival ASC`,
	mnemo.OrderKey:      `m.key COLLATE "C" ASC, m.created_ns ASC, m.arrival ASC`,
	mnemo.OrderVitality: `m.vitality DESC, m.seq DESC`,
	mnemo.OrderOccurred: `m.occurred_start_ns DESC, m.occurred_end_ns DESC, m.seq DESC`,
}

// List returns a page of the live memories matching q and how many match in
// all, from one snapshot.
func (db *DB) List(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) (ms []mnemo.Memory, total int, err error) {
	if err := checkScope(scope); err != nil {
		return nil, 0, err
	}
	// PG-11: from a replica when one is usable.
	_, err = db.onReplica(ctx, scope.TenantID, func(ctx context.Context) (err error) {
		ms, total, err = db.list(ctx, scope, q)
		return err
	})
	return ms, total, err
}

func (db *DB) list(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	order, ok := orders[q.Order]
	if !ok {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "unknown order %q", q.Order)
	}
	if q.Limit < 0 || q.Offset < 0 {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "limit and offset must not be negative")
	}
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return nil, 0, err
	}
	if err := db.recurringMisses(ctx, scope, &q.Filter); err != nil {
		return nil, 0, err
	}
	var p params
	w := liveIn(&p, scope, &q.Filter, db.now())
	cols := memoryColumns
	if q.NoVectors {
		cols = memoryColumnsNoVector
	}
	page := ``
	if q.Limit > 0 {
		page += ` LIMIT ` + p.p(q.Limit, "bigint")
	}
	if q.Offset > 0 {
		page += ` OFFSET ` + p.p(q.Offset, "bigint")
	}
	total := -1
	var ms []mnemo.Memory
	// The total rides on every row (a window count over the whole match,
	// computed before the page is cut): one statement, one snapshot.
	count := `, count(*) OVER ()`
	if q.NoTotal {
		count = `, -1::bigint`
	}
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		rows, err := qr.Query(ctx, `SELECT `+cols+count+` FROM memory_entries m WHERE `+w+` ORDER BY `+order+page, p.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n int
			m, err := scanMemory(rows, &n)
			if err != nil {
				return err
			}
			total = n
			ms = append(ms, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ms) == 0 && !q.NoTotal {
			// Past the end of the page (or nothing matches): count apart.
			return qr.QueryRow(ctx, `SELECT count(*) FROM memory_entries m WHERE `+w, p.args[:len(p.args)-pageArgs(q)]...).Scan(&total)
		}
		return nil
	})
	if err != nil {
		return nil, 0, db.fail("list", err)
	}
	return ms, total, nil
}

// pageArgs is how many parameters LIMIT and OFFSET add.
func pageArgs(q mnemo.ListQuery) int {
	n := 0
	if q.Limit > 0 {
		n++
	}
	if q.Offset > 0 {
		n++
	}
	return n
}

// History returns the revisions of key in scope, oldest first, lost writes
// included. A key never written has no revisions.
func (db *DB) History(ctx context.Context, scope mnemo.Scope, key string) ([]mnemo.Revision, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	var revs []mnemo.Revision
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT seq, memory_id, key, op, at_ns, applied, memory::text FROM history
			WHERE tenant_id = $1::text AND agent_id = $2::text AND key = $3::text ORDER BY seq`,
			scope.TenantID, scope.AgentID, key)
		if err != nil {
			return err
		}
		revs, err = scanRevisions(rows)
		return err
	})
	return revs, db.fail("history", err)
}

// DeletedAfter implements mnemo.Store.DeletedAfter: the history of the keys
// tombstoned after t (REC-27).
func (db *DB) DeletedAfter(ctx context.Context, scope mnemo.Scope, t time.Time, limit int) ([]mnemo.Revision, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	var revs []mnemo.Revision
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT seq, memory_id, key, op, at_ns, applied, memory::text FROM history
			WHERE tenant_id = $1::text AND agent_id = $2::text AND key IN (
				SELECT key FROM history
				WHERE tenant_id = $1::text AND agent_id = $2::text AND key IS NOT NULL
					AND op = 'tombstone' AND applied AND at_ns > $3::bigint
				GROUP BY key ORDER BY min(at_ns), key LIMIT $4::bigint)
			ORDER BY key, seq`,
			scope.TenantID, scope.AgentID, sqlrow.Nanos(t), limit)
		if err != nil {
			return err
		}
		revs, err = scanRevisions(rows)
		return err
	})
	return revs, db.fail("deleted history", err)
}

// scanRevisions reads history rows (seq, memory_id, key, op, at_ns,
// applied, memory) and closes them.
func scanRevisions(rows pgx.Rows) ([]mnemo.Revision, error) {
	defer rows.Close()
	var revs []mnemo.Revision
	for rows.Next() {
		var (
			r    mnemo.Revision
			at   int64
			body *string
		)
		if err := rows.Scan(&r.Seq, &r.MemoryID, &r.Key, &r.Op, &at, &r.Applied, &body); err != nil {
			return nil, err
		}
		r.At = sqlrow.FromNanos(at)
		if body != nil {
			r.Memory = new(mnemo.Memory)
			if err := json.Unmarshal([]byte(*body), r.Memory); err != nil {
				return nil, fmt.Errorf("revision %d: %w", r.Seq, err)
			}
		}
		revs = append(revs, r)
	}
	return revs, rows.Err()
}

// Stats describes scope. Degraded is never set: the full-text index is part
// of the table. Vectors says whether vectors are available.
func (db *DB) Stats(ctx context.Context, scope mnemo.Scope) (mnemo.Stats, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.Stats{}, err
	}
	var s mnemo.Stats
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		var (
			oldest, newest    *int64
			embedded, pending int
		)
		err := q.QueryRow(ctx, `SELECT
				count(*) FILTER (WHERE NOT tombstone),
				count(*) FILTER (WHERE NOT tombstone AND archived),
				count(*) FILTER (WHERE NOT tombstone AND key IS NOT NULL),
				count(*) FILTER (WHERE tombstone),
				count(DISTINCT session_id) FILTER (WHERE NOT tombstone),
				min(created_ns) FILTER (WHERE NOT tombstone),
				max(created_ns) FILTER (WHERE NOT tombstone),
				count(*) FILTER (WHERE NOT tombstone AND vectored),
				count(*) FILTER (WHERE NOT tombstone AND NOT vectored AND embed_text <> '')
			FROM memory_entries WHERE tenant_id = $1::text AND agent_id = $2::text`,
			scope.TenantID, scope.AgentID,
		).Scan(&s.Memories, &s.Archived, &s.Keys, &s.Tombstones, &s.Sessions, &oldest, &newest, &embedded, &pending)
		if err != nil {
			return err
		}
		if oldest != nil {
			t := sqlrow.FromNanos(*oldest)
			s.Oldest = &t
		}
		if newest != nil {
			t := sqlrow.FromNanos(*newest)
			s.Newest = &t
		}
		if db.vectors != nil {
			if s.Memories == 0 {
				return nil // nothing to say of an empty scope
			}
			// Without pgvector no vector will be made: nothing is pending,
			// nothing indexed, and Unavailable says why.
			s.Vectors = &mnemo.VectorStats{Unavailable: mnemo.ErrorMessage(db.vectors)}
			return nil
		}
		vs, err := vectorSpace(ctx, q)
		if err != nil {
			return err
		}
		if vs.Model != "" {
			// The HNSW index is part of the table: every vector is in it.
			s.Vectors = &mnemo.VectorStats{Model: vs.Model, Dimension: vs.Dimension, Embedded: embedded, Pending: pending, Indexed: embedded}
		}
		return nil
	})
	return s, db.fail("stats", err)
}

// CountTypes counts the memories matching f by type, with their mean
// vitality, most numerous first.
func (db *DB) CountTypes(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if err := sqlrow.CheckFilter(&f); err != nil {
		return nil, err
	}
	if err := db.recurringMisses(ctx, scope, &f); err != nil {
		return nil, err
	}
	var p params
	w := liveIn(&p, scope, &f, db.now())
	out := []mnemo.TypeCount{}
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT m.type, count(*), avg(m.vitality) FROM memory_entries m
			WHERE `+w+` GROUP BY m.type ORDER BY count(*) DESC, m.type COLLATE "C"`, p.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var tc mnemo.TypeCount
			if err := rows.Scan(&tc.Type, &tc.Count, &tc.MeanVitality); err != nil {
				return err
			}
			out = append(out, tc)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("count types", err)
	}
	return out, nil
}

// fetchSeqs loads the memories at seqs that the conditions w (on m, with
// args) select, or all of them when w is empty: found[i] is the memory at
// seqs[i], or nil when it is left out or gone.
func fetchSeqs(ctx context.Context, q querier, tenant string, seqs []int64, w string, args []any, noVectors bool) ([]*mnemo.Memory, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	cols := memoryColumns
	if noVectors {
		cols = memoryColumnsNoVector
	}
	p := params{args: args}
	// The tenant leads the key (tenant_id, seq), and names the partition.
	cond := `m.tenant_id = ` + p.p(tenant, "text") + ` AND m.seq = ANY(` + p.p(seqs, "bigint[]") + `)`
	if w != "" {
		cond += ` AND ` + w
	}
	rows, err := q.Query(ctx, `SELECT `+cols+`, m.seq FROM memory_entries m WHERE `+cond, p.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	at := make(map[int64][]int, len(seqs))
	for i, s := range seqs {
		at[s] = append(at[s], i)
	}
	found := make([]*mnemo.Memory, len(seqs))
	for rows.Next() {
		var seq int64
		m, err := scanMemory(rows, &seq)
		if err != nil {
			return nil, err
		}
		for _, i := range at[seq] {
			found[i] = &m
		}
	}
	return found, rows.Err()
}

// ImportHistory appends revisions of scope's keys as they were (memory id,
// op, time, won or lost, the record), oldest first, for migrate-store
// (PG-6: moving a store keeps its key history). A key that has history
// here already is skipped, so that copying twice adds nothing; the number
// of revisions appended is returned. Revisions without a key are skipped.
func (db *DB) ImportHistory(ctx context.Context, scope mnemo.Scope, revs []mnemo.Revision) (int, error) {
	if err := checkScope(scope); err != nil {
		return 0, err
	}
	var keys []string
	for _, r := range revs {
		if r.Key != "" && !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	n := 0
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		n = 0
		rows, err := tx.Query(ctx, `SELECT DISTINCT key FROM history WHERE tenant_id = $1::text AND agent_id = $2::text AND key = ANY($3::text[])`,
			scope.TenantID, scope.AgentID, keys)
		if err != nil {
			return err
		}
		had, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, r := range revs {
			if r.Key == "" || slices.Contains(had, r.Key) {
				continue
			}
			var body *string
			if r.Memory != nil {
				rev := *r.Memory
				rev.Embedding = nil
				b, err := json.Marshal(rev)
				if err != nil {
					return fmt.Errorf("history: %w", err)
				}
				s := string(b)
				body = &s
			}
			if _, err := tx.Exec(ctx, `INSERT INTO history (tenant_id, agent_id, memory_id, key, op, at_ns, applied, memory)
				VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::boolean, $8::json)`,
				scope.TenantID, scope.AgentID, r.MemoryID, r.Key, r.Op, sqlrow.Nanos(r.At), r.Applied, body); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, db.fail("import history", err)
}
