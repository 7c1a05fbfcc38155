package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
	"github.com/mnemo-dev/mnemo/vector"
)

// Embeddings live in the memories table, with their memories: a vector is
// as durable as the write that stored it, and the ANN index (see ann.go) is
// only a cache of them that can always be rebuilt.

// vectorSpace reads the store's vector space and rev.
func vectorSpace(ctx context.Context, q querier) (mnemo.VectorSpace, int64, error) {
	var (
		vs  mnemo.VectorSpace
		rev int64
	)
	err := q.QueryRowContext(ctx, `SELECT model, dimension, rev FROM vector_space WHERE id = 1`).Scan(&vs.Model, &vs.Dimension, &rev)
	if errors.Is(err, sql.ErrNoRows) {
		return mnemo.VectorSpace{}, 0, nil
	} else if err != nil {
		return mnemo.VectorSpace{}, 0, fmt.Errorf("vector space: %w", err)
	}
	return vs, rev, nil
}

// VectorSpace returns the model and dimension of the stored vectors.
func (db *DB) VectorSpace(ctx context.Context) (mnemo.VectorSpace, error) {
	vs, _, err := vectorSpace(ctx, db.reader)
	if err != nil {
		return vs, fmt.Errorf("sqlite: %w", err)
	}
	return vs, nil
}

// SetVectorSpace sets the model and dimension of the store's vectors. See
// mnemo.VectorStore.
func (db *DB) SetVectorSpace(ctx context.Context, vs mnemo.VectorSpace, reset bool) error {
	if vs.Model == "" || vs.Dimension <= 0 {
		return mnemo.Errorf(mnemo.EINVALID, "a vector space needs a model and a positive dimension")
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: vector space: %w", err)
	}
	defer tx.Rollback()
	cur, rev, err := vectorSpace(ctx, tx)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if cur == vs && !reset {
		return nil
	}
	if cur.Model != "" && !reset {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE vector_rev IS NOT NULL`).Scan(&n); err != nil {
			return fmt.Errorf("sqlite: vector space: %w", err)
		}
		if n > 0 {
			return mnemo.Errorf(mnemo.EMISMATCH,
				"the store holds %d vectors of model %s (%d dimensions), not %s (%d dimensions): run `mnemo reindex` to re-embed it",
				n, cur.Model, cur.Dimension, vs.Model, vs.Dimension)
		}
	}
	// Every vector of the old space is dropped and its memory queued. The
	// rev carries on, so that no persisted index can mistake itself for
	// current.
	stmts := []string{
		`UPDATE memories SET embedding = NULL, embedding_model = '', vector_rev = NULL WHERE vector_rev IS NOT NULL OR embedding IS NOT NULL`,
		`UPDATE memories SET embed_text = content WHERE embed_text = '' AND tombstone = 0`,
		`DELETE FROM vector_space`,
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("sqlite: vector space: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO vector_space (id, model, dimension, rev) VALUES (1, ?, ?, ?)`,
		vs.Model, vs.Dimension, rev+1); err != nil {
		return fmt.Errorf("sqlite: vector space: %w", err)
	}
	db.vectors.pub.Lock()
	defer db.vectors.pub.Unlock()
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: vector space: %w", err)
	}
	db.vectors.reset(vs, rev+1)
	return nil
}

// Unembedded returns up to n live memories waiting for a vector.
func (db *DB) Unembedded(ctx context.Context, n int) ([]mnemo.EmbedJob, error) {
	if n <= 0 {
		return nil, nil
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT id, embed_text FROM memories
		WHERE vector_rev IS NULL AND embed_text <> '' AND tombstone = 0
		ORDER BY seq LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: unembedded: %w", err)
	}
	defer rows.Close()
	var jobs []mnemo.EmbedJob
	for rows.Next() {
		var j mnemo.EmbedJob
		if err := rows.Scan(&j.ID, &j.Text); err != nil {
			return nil, fmt.Errorf("sqlite: unembedded: %w", err)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: unembedded: %w", err)
	}
	return jobs, nil
}

// SetVectors stores the vectors of jobs. See mnemo.VectorStore.
func (db *DB) SetVectors(ctx context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	if len(jobs) != len(vecs) {
		return fmt.Errorf("sqlite: set vectors: %d jobs but %d vectors", len(jobs), len(vecs))
	}
	if len(jobs) == 0 {
		return nil
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: set vectors: %w", err)
	}
	defer tx.Rollback()
	vs, rev, err := vectorSpace(ctx, tx)
	if err != nil {
		return fmt.Errorf("sqlite: set vectors: %w", err)
	}
	if vs.Model == "" {
		return mnemo.Errorf(mnemo.EINVALID, "the store has no vector space: set one first")
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE memories SET embedding = ?, embedding_model = ?, vector_rev = ?
		WHERE id = ? AND embed_text = ? AND tombstone = 0 RETURNING seq`)
	if err != nil {
		return fmt.Errorf("sqlite: set vectors: %w", err)
	}
	defer stmt.Close()
	r0 := rev
	stored := make([]storedVec, 0, len(jobs))
	for i, j := range jobs {
		if len(vecs[i]) != vs.Dimension {
			return mnemo.Errorf(mnemo.EMISMATCH, "a vector of %d dimensions for a store of %d", len(vecs[i]), vs.Dimension)
		}
		if !sqlrow.Finite(vecs[i]) {
			return mnemo.Errorf(mnemo.EINVALID, "memory %s: the vector has a NaN or infinite component", j.ID)
		}
		rev++
		// A memory deleted or rewritten since matches no row: its vector
		// is no longer wanted.
		var seq int64
		err := stmt.QueryRowContext(ctx, sqlrow.EncodeEmbedding(vecs[i]), vs.Model, rev, j.ID, j.Text).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return fmt.Errorf("sqlite: set vectors: %w", err)
		}
		stored = append(stored, storedVec{seq: seq, rev: rev, v: vecs[i]})
	}
	if _, err := tx.ExecContext(ctx, `UPDATE vector_space SET rev = ?`, rev); err != nil {
		return fmt.Errorf("sqlite: set vectors: %w", err)
	}
	db.vectors.pub.Lock()
	defer db.vectors.pub.Unlock()
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: set vectors: %w", err)
	}
	db.vectors.record(vs, r0, rev, stored)
	db.vectors.wake(db) // the indexer inserts the new vectors, off this path
	return nil
}

// exactBelow is the number of filtered memories under which a filtered
// vector search scores each of them rather than walking the index.
const exactBelow = 20000

// pendingScan bounds the vectors a search scores exactly because the
// indexer has not inserted them yet (the newest ones).
const pendingScan = 5000

// SearchVectors returns the live memories of scope matching q's filter
// whose vectors are nearest q.Vector. See mnemo.VectorStore.
//
// The index is asked for more neighbours than wanted, and each is checked
// against the memories table: a neighbour that was deleted, rewritten or
// filtered out is dropped, so the index can be behind the table but never
// make an answer wrong. Vectors stored since the index last caught up are
// scored exactly beside it.
//
// Every filter stays bounded, whatever it selects (docs/ARCHITECTURE.md,
// "Filtered vector search"). A filter with an index of its own (tags,
// types, categories, session, key prefix, creation time) is counted first,
// at most exactBelow+1 rows, and a small set is scored exactly. Any other
// filter (pinned, confidence, vitality, security levels, archived,
// expired) is judged on the neighbours: the share of the first round that
// passes says how far to widen, never past the store's largest efSearch
// (1024) neighbours, so that the graph walk is no longer than an
// unfiltered search's on the largest index; a filter that keeps fewer than the limit of those is selective near the query, so
// the memories it selects are listed (at most exactBelow+1) and, when that
// few, scored exactly. Only a filter that keeps more than exactBelow
// memories but almost none near the query answers from the efSearch
// nearest, which is approximate.
func (db *DB) SearchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) ([]mnemo.VectorHit, error) {
	hits, _, err := db.SearchVectorsLag(ctx, scope, q)
	return hits, err
}

// SearchVectorsLag is SearchVectors, and says when more vectors await the
// indexer than a search scores exactly (pendingScan): the oldest of them
// were not searched. See memory.VectorLagSearcher.
func (db *DB) SearchVectorsLag(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) (hits []mnemo.VectorHit, lag string, err error) {
	if err := checkScope(scope); err != nil {
		return nil, "", err
	}
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return nil, "", err
	}
	hits, lag, err = db.searchVectors(ctx, scope, q)
	return hits, lag, err
}

func (db *DB) searchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) ([]mnemo.VectorHit, string, error) {
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		return nil, "", err
	}
	if sp.lo == 0 {
		return nil, "", nil // a scope never written
	}
	x, rev, err := db.vectors.open(ctx, db, sp)
	if err != nil {
		return nil, "", err
	}
	if x == nil {
		return nil, "", nil // no vector space yet
	}
	ix := x.ix.Load()
	if len(q.Vector) != ix.Dim() {
		return nil, "", mnemo.Errorf(mnemo.EMISMATCH, "a query vector of %d dimensions for a store of %d", len(q.Vector), ix.Dim())
	}
	w, err := db.live(ctx, scope, sp, &q.Filter)
	if err != nil {
		return nil, "", err
	}
	w.add(`m.vector_rev IS NOT NULL`)
	s := &vectorSearch{db: db, ix: ix, q: q.Vector, limit: q.Limit, w: w}
	// Read the index's rev before searching it: a vector the indexer
	// inserts meanwhile is found twice, which merge removes, never missed.
	var lag string
	if at := x.current(); at < rev {
		var more bool
		var ok bool
		if s.pending, more, ok = db.vectors.scorePending(x, at, rev, q.Vector); ok {
			db.vectorExamined.Add(int64(len(s.pending)))
		} else if s.pending, more, err = db.scorePending(ctx, sp, at, q.Vector); err != nil {
			return nil, "", err
		}
		if more {
			lag = fmt.Sprintf("the vector index is catching up: only the newest %d of the vectors it lacks were searched by meaning", db.vectors.pendingScan)
		}
	}

	listed := false
	if selective(&q.Filter) {
		hits, ok, err := s.exact(ctx)
		if err != nil || ok {
			return hits, lag, err
		}
		listed = true
	}
	var hits []mnemo.VectorHit
	k := q.Limit + max(10, q.Limit/4)
	widenMax := max(db.vectors.opts.EfSearch, k)
	for {
		res := ix.Search(q.Vector, k, nil)
		hits, err = s.fetch(ctx, res, k)
		if err != nil || len(hits) >= q.Limit || len(res) < k || k >= widenMax {
			break
		}
		// The share that passed estimates how many neighbours hold
		// enough; widening past widenMax would walk the graph further
		// than any unfiltered search does.
		if listed {
			// The filter keeps more than exactBelow memories, too many
			// to score: widen to widenMax.
			k = min(widenMax, 4*k)
			continue
		}
		if len(hits)*widenMax < q.Limit*len(res) {
			break // too few would pass even among widenMax: score exactly
		}
		k = min(widenMax, max(4*k, 2*k*q.Limit/len(hits)))
	}
	if err != nil || len(hits) >= q.Limit || listed {
		return hits, lag, err
	}
	// Fewer than wanted among the nearest: the filter is selective here.
	exact, ok, err := s.exact(ctx)
	if err != nil || ok {
		return exact, lag, err
	}
	return hits, lag, nil
}

// vectorSearch is one filtered vector search.
type vectorSearch struct {
	db      *DB
	ix      *vector.Index
	q       []float32
	limit   int
	w       *where
	pending []vector.Result // the vectors the index lacks, scored, best first
}

// exact scores every memory the filter selects, if at most exactBelow do,
// and reports whether it did.
func (s *vectorSearch) exact(ctx context.Context) ([]mnemo.VectorHit, bool, error) {
	most := s.db.vectors.exactBelow
	seqs, err := s.db.filteredSeqs(ctx, s.w, most+1)
	if err != nil || len(seqs) > most {
		return nil, false, err
	}
	ids := make([]uint64, len(seqs))
	for i, q := range seqs {
		ids[i] = uint64(q)
	}
	s.db.vectorExamined.Add(int64(len(ids)))
	hits, err := s.fetch(ctx, s.ix.SearchIDs(s.q, s.limit, ids), s.limit)
	return hits, err == nil, err
}

// fetch merges res with the best k pending vectors and loads, best first,
// up to limit of those the filter selects.
func (s *vectorSearch) fetch(ctx context.Context, res []vector.Result, k int) ([]mnemo.VectorHit, error) {
	if len(s.pending) > 0 {
		res = mergeResults(res, s.pending[:min(k, len(s.pending))])
	}
	s.db.vectorExamined.Add(int64(len(res)))
	return s.db.fetchNeighbours(ctx, res, s.w, s.limit)
}

// mergeResults returns a and b merged best first, each id once.
func mergeResults(a, b []vector.Result) []vector.Result {
	out := make([]vector.Result, 0, len(a)+len(b))
	seen := make(map[uint64]bool, len(a)+len(b))
	for _, r := range slices.Concat(a, b) {
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(p, q vector.Result) int { return cmp.Compare(q.Score, p.Score) })
	return out
}

// pendingQuery reads the scope's vectors stored after a rev, newest first,
// along the vector_rev index (see catchUpQuery).
const pendingQuery = `SELECT seq, embedding FROM memories INDEXED BY memories_vector_rev
	WHERE vector_rev > ? AND seq >= ? AND seq < ? AND tombstone = 0 ORDER BY vector_rev DESC LIMIT ?`

// scorePending scores, exactly, the scope's vectors stored after rev that
// the index does not hold yet: the newest pendingScan of them. more
// reports that there were others. It reads their rows (along the
// vector_rev index, as insertBatch does): searches score the scope's
// pending buffer instead when it holds them (pending.go).
func (db *DB) scorePending(ctx context.Context, sp span, rev int64, q []float32) (_ []vector.Result, more bool, err error) {
	rows, err := db.reader.QueryContext(ctx, pendingQuery, rev, sp.lo, sp.hi, db.vectors.pendingScan+1)
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	defer rows.Close()
	qn := vector.Norm(q)
	var (
		out []vector.Result
		n   int
	)
	for rows.Next() {
		var (
			seq  int64
			blob []byte
		)
		if err := rows.Scan(&seq, &blob); err != nil {
			return nil, false, fmt.Errorf("sqlite: vector search: %w", err)
		}
		if n++; n > db.vectors.pendingScan {
			more = true
			break
		}
		v := sqlrow.DecodeEmbedding(blob)
		if len(v) != len(q) {
			continue
		}
		dot := vector.Dot64(v, q)
		if vn := vector.Norm(v); vn > 0 && qn > 0 {
			out = append(out, vector.Result{ID: uint64(seq), Score: float32(dot / (vn * qn))})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("sqlite: vector search: %w", err)
	}
	db.vectorExamined.Add(int64(len(out)))
	slices.SortFunc(out, func(a, b vector.Result) int { return cmp.Compare(b.Score, a.Score) })
	return out, more, nil
}

// filteredSeqs returns up to n seqs of the memories w selects.
func (db *DB) filteredSeqs(ctx context.Context, w *where, n int) ([]int64, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT m.seq FROM memories m WHERE `+w.String()+` LIMIT ?`, append(w.args, n)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: vector search: %w", err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("sqlite: vector search: %w", err)
		}
		seqs = append(seqs, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: vector search: %w", err)
	}
	return seqs, nil
}

// fetchNeighbours loads the memories of res that w selects, in order, at
// most limit. The nearest limit are read first and the rest only for those
// the filter left out: a row read is most of a search's cost (PERF-10).
func (db *DB) fetchNeighbours(ctx context.Context, res []vector.Result, w *where, limit int) ([]mnemo.VectorHit, error) {
	hits := make([]mnemo.VectorHit, 0, min(limit, len(res)))
	for len(res) > 0 && len(hits) < limit {
		part := res
		if len(hits) == 0 {
			part = res[:min(limit, len(res))]
		}
		res = res[len(part):]
		seqs := make([]int64, len(part))
		for i, r := range part {
			seqs[i] = int64(r.ID)
		}
		found, err := db.fetchSeqs(ctx, seqs, w)
		if err != nil {
			return nil, err
		}
		for i, m := range found {
			if m != nil && len(hits) < limit {
				hits = append(hits, mnemo.VectorHit{Memory: *m, Similarity: float64(part[i].Score)})
			}
		}
	}
	return hits, nil
}

// CountUnembedded counts the live memories waiting for a vector.
func (db *DB) CountUnembedded(ctx context.Context) (int, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM memories
		WHERE vector_rev IS NULL AND embed_text <> '' AND tombstone = 0`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: unembedded: %w", err)
	}
	return n, nil
}

// EachVector calls fn with the id and vector of every live memory that has
// one in the store's vector space, in storage order: for exact-search
// baselines and exports of vectors.
func (db *DB) EachVector(ctx context.Context, fn func(id string, v []float32) error) error {
	return db.eachVector(ctx, span{0, math.MaxInt64}, fn)
}

// EachVectorIn is EachVector within one scope: an exact-search baseline
// for that scope's ANN index.
func (db *DB) EachVectorIn(ctx context.Context, scope mnemo.Scope, fn func(id string, v []float32) error) error {
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		return err
	}
	return db.eachVector(ctx, sp, fn)
}

func (db *DB) eachVector(ctx context.Context, sp span, fn func(id string, v []float32) error) error {
	rows, err := db.reader.QueryContext(ctx, `SELECT id, embedding FROM memories
		WHERE vector_rev IS NOT NULL AND tombstone = 0 AND seq >= ? AND seq < ? ORDER BY seq`, sp.lo, sp.hi)
	if err != nil {
		return fmt.Errorf("sqlite: vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   string
			blob []byte
		)
		if err := rows.Scan(&id, &blob); err != nil {
			return fmt.Errorf("sqlite: vectors: %w", err)
		}
		if err := fn(id, sqlrow.DecodeEmbedding(blob)); err != nil {
			return err
		}
	}
	return rows.Err()
}
