package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// Vectors: each memory keeps the vector it was written with (embedding, as
// float32 bytes, whatever its model), and, when it is in the store's vector
// space, the same vector in the vec column, of type vector(dim), which an
// HNSW index (cosine) searches. SetVectorSpace creates the column and the
// index with the space's dimension.

// hnswWith is the WITH clause of the HNSW index's build parameters, empty
// when both are pgvector's defaults.
func (db *DB) hnswWith() string {
	var with []string
	if db.hnswM > 0 {
		with = append(with, "m = "+strconv.Itoa(db.hnswM))
	}
	if db.hnswEf > 0 {
		with = append(with, "ef_construction = "+strconv.Itoa(db.hnswEf))
	}
	if len(with) == 0 {
		return ""
	}
	return " WITH (" + strings.Join(with, ", ") + ")"
}

// hnswMaxDim is the largest dimension pgvector's HNSW index takes for the
// vector type; above it searches scan exactly.
const hnswMaxDim = 2000

// vectorSpace reads the store's vector space.
func vectorSpace(ctx context.Context, q querier) (mnemo.VectorSpace, error) {
	var vs mnemo.VectorSpace
	err := q.QueryRow(ctx, `SELECT model, dimension FROM vector_space WHERE id = 1`).Scan(&vs.Model, &vs.Dimension)
	if errors.Is(err, pgx.ErrNoRows) {
		return mnemo.VectorSpace{}, nil
	}
	return vs, err
}

// VectorSpace returns the model and dimension of the stored vectors, or
// ErrNoVectorIndex.
func (db *DB) VectorSpace(ctx context.Context) (mnemo.VectorSpace, error) {
	if db.vectors != nil {
		return mnemo.VectorSpace{}, db.vectors
	}
	vs, err := vectorSpace(ctx, db.pool)
	return vs, db.fail("vector space", err)
}

// SetVectorSpace sets the model and dimension of the store's vectors. See
// mnemo.VectorStore. A new space replaces the vec column and its index,
// which locks memory_entries while it runs: it happens when a store is set
// up or reindexed, not in normal work.
func (db *DB) SetVectorSpace(ctx context.Context, vs mnemo.VectorSpace, reset bool) error {
	if vs.Model == "" || vs.Dimension <= 0 {
		return mnemo.Errorf(mnemo.EINVALID, "a vector space needs a model and a positive dimension")
	}
	if db.vectors != nil {
		return db.vectors
	}
	err := db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE vector_space IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		cur, err := vectorSpace(ctx, tx)
		if err != nil {
			return err
		}
		if cur == vs && !reset {
			return nil
		}
		if cur.Model != "" && !reset {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM memory_entries WHERE vectored`).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return mnemo.Errorf(mnemo.EMISMATCH,
					"the store holds %d vectors of model %s (%d dimensions), not %s (%d dimensions): run `mnemo reindex` to re-embed it",
					n, cur.Model, cur.Dimension, vs.Model, vs.Dimension)
			}
		}
		// Every vector of the old space is dropped and its memory queued.
		stmts := []string{
			`LOCK TABLE memory_entries IN ACCESS EXCLUSIVE MODE`,
			`ALTER TABLE memory_entries DROP COLUMN IF EXISTS vec`,
			`ALTER TABLE memory_entries ADD COLUMN vec vector(` + strconv.Itoa(vs.Dimension) + `)`,
			`UPDATE memory_entries SET embedding = NULL, embedding_model = '', vectored = false WHERE vectored OR embedding IS NOT NULL`,
			`UPDATE memory_entries SET embed_text = content WHERE embed_text = '' AND NOT tombstone`,
			`DELETE FROM vector_space`,
		}
		if vs.Dimension <= hnswMaxDim {
			stmts = append(stmts, `CREATE INDEX memory_entries_vec ON memory_entries USING hnsw (vec vector_cosine_ops)`+db.hnswWith())
		} else {
			db.logger.Warn("vectors of more than 2000 dimensions have no HNSW index: vector searches scan", "dimension", vs.Dimension)
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO vector_space (id, model, dimension) VALUES (1, $1::text, $2::integer)`, vs.Model, vs.Dimension)
		return err
	})
	return db.fail("vector space", err)
}

// Unembedded returns up to n live memories, of any scope, waiting for a
// vector, oldest first.
func (db *DB) Unembedded(ctx context.Context, n int) ([]mnemo.EmbedJob, error) {
	if db.vectors != nil {
		return nil, db.vectors
	}
	if n <= 0 {
		return nil, nil
	}
	var jobs []mnemo.EmbedJob
	err := db.read(ctx, allTenants, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT id, embed_text FROM memory_entries
			WHERE NOT vectored AND embed_text <> '' AND NOT tombstone ORDER BY seq LIMIT $1::bigint`, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j mnemo.EmbedJob
			if err := rows.Scan(&j.ID, &j.Text); err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		return rows.Err()
	})
	return jobs, db.fail("unembedded", err)
}

// CountUnembedded counts the live memories waiting for a vector.
func (db *DB) CountUnembedded(ctx context.Context) (int, error) {
	if db.vectors != nil {
		return 0, db.vectors
	}
	var n int
	err := db.read(ctx, allTenants, func(q querier) error {
		return q.QueryRow(ctx, `SELECT count(*) FROM memory_entries WHERE NOT vectored AND embed_text <> '' AND NOT tombstone`).Scan(&n)
	})
	return n, db.fail("unembedded", err)
}

// SetVectors stores the vectors of jobs, in one statement. See
// mnemo.VectorStore.
func (db *DB) SetVectors(ctx context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	ctx = bookkeeping(ctx)
	if db.vectors != nil {
		return db.vectors
	}
	if len(jobs) != len(vecs) {
		return fmt.Errorf("postgres: set vectors: %d jobs but %d vectors", len(jobs), len(vecs))
	}
	if len(jobs) == 0 {
		return nil
	}
	err := db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE memory_entries IN ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		vs, err := vectorSpace(ctx, tx)
		if err != nil {
			return err
		}
		if vs.Model == "" {
			return mnemo.Errorf(mnemo.EINVALID, "the store has no vector space: set one first")
		}
		ids := make([]string, len(jobs))
		texts := make([]string, len(jobs))
		blobs := make([][]byte, len(jobs))
		lits := make([]string, len(jobs))
		for i, j := range jobs {
			if len(vecs[i]) != vs.Dimension {
				return mnemo.Errorf(mnemo.EMISMATCH, "a vector of %d dimensions for a store of %d", len(vecs[i]), vs.Dimension)
			}
			if !sqlrow.Finite(vecs[i]) {
				return mnemo.Errorf(mnemo.EINVALID, "memory %s: the vector has a NaN or infinite component", j.ID)
			}
			ids[i], texts[i], blobs[i], lits[i] = j.ID, j.Text, sqlrow.EncodeEmbedding(vecs[i]), vectorLiteral(vecs[i])
		}
		// A memory deleted or rewritten since matches no row: its vector
		// is no longer wanted.
		_, err = tx.Exec(ctx, `UPDATE memory_entries m
			SET embedding = v.embedding, embedding_model = $5::text, vectored = true, vec = v.vec::vector
			FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[]) AS v (id, embed_text, embedding, vec)
			WHERE m.id = v.id AND m.embed_text = v.embed_text AND NOT m.tombstone`,
			ids, texts, blobs, lits, vs.Model)
		return err
	})
	return db.fail("set vectors", err)
}

// SearchVectors returns the live memories of scope matching q's filter
// whose vectors are nearest q.Vector, best first. See mnemo.VectorStore.
//
// When the filter leaves few memories they are scored exactly. Otherwise
// the HNSW index is walked with hnsw.ef_search set for the query, and the
// filter applied as it goes: pgvector 0.8 scans on until enough rows pass
// (iterative scan); an older pgvector is asked for more neighbours, four
// times more each round, until enough pass or there are no more.
func (db *DB) SearchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) (hits []mnemo.VectorHit, err error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	// PG-11: from a replica when one is usable.
	_, err = db.onReplica(ctx, scope.TenantID, func(ctx context.Context) (err error) {
		hits, err = db.searchVectors(ctx, scope, q)
		return err
	})
	return hits, err
}

func (db *DB) searchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) ([]mnemo.VectorHit, error) {
	if db.vectors != nil {
		return nil, db.vectors
	}
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	if err := db.recurringMisses(ctx, scope, &q.Filter); err != nil {
		return nil, err
	}
	var hits []mnemo.VectorHit
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		vs, err := vectorSpace(ctx, tx)
		if err != nil {
			return err
		}
		if vs.Model == "" {
			return nil // no vector space yet
		}
		if len(q.Vector) != vs.Dimension {
			return mnemo.Errorf(mnemo.EMISMATCH, "a query vector of %d dimensions for a store of %d", len(q.Vector), vs.Dimension)
		}
		if !sqlrow.Finite(q.Vector) {
			return mnemo.Errorf(mnemo.EINVALID, "the query vector has a NaN or infinite component")
		}
		var p params
		vec := p.p(vectorLiteral(q.Vector), "text") + "::vector"
		w := liveIn(&p, scope, &q.Filter, db.now()) + ` AND m.vectored`
		limit := p.p(q.Limit, "bigint")

		// Count the filtered memories, up to the exact search's limit,
		// unless the scope was seen too large for it lately and the filter
		// keeps most of it.
		n := math.MaxInt // known large
		if _, ok := db.large.Load(scope); !ok || selective(&q.Filter) {
			var probe params
			pw := liveIn(&probe, scope, &q.Filter, db.now()) + ` AND m.vectored`
			err = tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM memory_entries m WHERE `+pw+` LIMIT `+
				probe.p(max(db.exact, 0)+1, "bigint")+`) AS f`, probe.args...).Scan(&n)
			if err != nil {
				return err
			}
			if n > db.exact && !selective(&q.Filter) {
				db.large.Store(scope, true)
			}
		}
		if n == 0 {
			return nil
		}
		if n <= db.exact || vs.Dimension > hnswMaxDim {
			// The + 0 keeps the planner off the HNSW index: every
			// filtered memory is scored.
			hits, err = scanVectorHits(tx.Query(ctx, `SELECT `+memoryColumns+`, m.vec <=> `+vec+` AS d
				FROM memory_entries m WHERE `+w+` ORDER BY (m.vec <=> `+vec+`) + 0, m.seq LIMIT `+limit, p.args...))
			return err
		}
		ef := max(db.ef, q.Limit)
		// The walk is decided: too many memories for an exact scan. Sorts
		// are disabled for the transaction so that the planner takes the
		// index, the one path that returns rows in distance order. Left to
		// its costs it scanned every vector of the scope and sorted them
		// wherever the statistics made the scope look small (a table not
		// yet analysed: PGlite runs no autovacuum), or where pgvector's
		// estimate of a walk exceeds that of a scan (up to some tens of
		// thousands of rows), an order of magnitude slower (PERF-2).
		if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1::text, true), set_config('enable_sort', 'off', true)`,
			strconv.Itoa(min(ef, 1000))); err != nil {
			return err
		}
		if db.iterative {
			if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`); err != nil {
				return err
			}
			hits, err = scanVectorHits(tx.Query(ctx, `SELECT `+memoryColumns+`, m.vec <=> `+vec+` AS d
				FROM memory_entries m WHERE `+w+` ORDER BY m.vec <=> `+vec+` LIMIT `+limit, p.args...))
			// Relaxed order may return a neighbour slightly out of place.
			slices.SortStableFunc(hits, func(a, b mnemo.VectorHit) int { return cmpDesc(a.Similarity, b.Similarity) })
			return err
		}
		for k := q.Limit + max(10, q.Limit/4); ; k *= 4 {
			pk := params{args: append([]any(nil), p.args...)}
			kk := pk.p(k, "bigint")
			hits, err = scanVectorHits(tx.Query(ctx, `SELECT `+memoryColumns+`, c.d
				FROM (SELECT seq, vec <=> `+vec+` AS d FROM memory_entries WHERE vectored ORDER BY vec <=> `+vec+` LIMIT `+kk+`) AS c
				JOIN memory_entries m ON m.tenant_id = `+pk.p(scope.TenantID, "text")+` AND m.seq = c.seq
				WHERE `+w+` ORDER BY c.d, m.seq LIMIT `+limit, pk.args...))
			if err != nil || len(hits) >= q.Limit || k >= 1000 {
				return err
			}
		}
	})
	if err != nil {
		return nil, db.fail("vector search", err)
	}
	return hits, nil
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// scanVectorHits reads rows of memoryColumns and a cosine distance.
func scanVectorHits(rows pgx.Rows, err error) ([]mnemo.VectorHit, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []mnemo.VectorHit
	for rows.Next() {
		var (
			h mnemo.VectorHit
			d float64
		)
		if h.Memory, err = scanMemory(rows, &d); err != nil {
			return nil, err
		}
		h.Similarity = 1 - d
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// BulkLoad prepares an empty store for a bulk load (PG-6: migrate-store):
// it drops the full-text (GIN) and HNSW indexes, which are cheaper built
// once over the loaded rows than kept row by row (PGlite inserts into HNSW
// at some 90 rows a second), and returns finish, which builds them again
// with 512 MB of maintenance_work_mem, set for its transaction only. A
// store that already holds memories keeps its indexes, and finish does
// nothing. finish must be called whatever the load's outcome.
func (db *DB) BulkLoad(ctx context.Context) (finish func(context.Context) error, err error) {
	nothing := func(context.Context) error { return nil }
	var dropped []string
	err = db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var empty bool
		if err := tx.QueryRow(ctx, `SELECT NOT EXISTS (SELECT FROM memory_entries)`).Scan(&empty); err != nil || !empty {
			return err
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE memory_entries IN ACCESS EXCLUSIVE MODE`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = to_regclass(quote_ident(current_schema()) || '.memory_entries')
			AND c.relname IN ('memory_entries_vec', 'memory_entries_tsv') ORDER BY 1`)
		if err != nil {
			return err
		}
		if dropped, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		for _, ix := range dropped {
			if _, err := tx.Exec(ctx, `DROP INDEX `+pgx.Identifier{ix}.Sanitize()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(dropped) == 0 {
		return nothing, db.fail("bulk load", err)
	}
	return func(ctx context.Context) error {
		err := db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('maintenance_work_mem', '512MB', true)`); err != nil {
				return err
			}
			for _, ix := range dropped {
				def := `CREATE INDEX IF NOT EXISTS memory_entries_tsv ON memory_entries USING gin (tsv)`
				if ix == "memory_entries_vec" {
					def = `CREATE INDEX IF NOT EXISTS memory_entries_vec ON memory_entries USING hnsw (vec vector_cosine_ops)` + db.hnswWith()
				}
				if _, err := tx.Exec(ctx, def); err != nil {
					return err
				}
			}
			// The planner's statistics of what was loaded, now rather than
			// at autovacuum's next round (never, on PGlite): without them
			// it takes the loaded scope for a few rows, and a search reads
			// the whole scope through a btree instead of the GIN index,
			// many times slower (PERF-2).
			_, err := tx.Exec(ctx, `ANALYZE memory_entries, history, ledger, scope_stats, term_stats`)
			return err
		})
		return db.fail("bulk load: building the indexes", err)
	}, nil
}
