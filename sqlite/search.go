package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// defaultSearchLimit is the number of candidates Search returns when
// TextQuery.Limit is zero.
const defaultSearchLimit = 100

// bm25 ranks a full-text match: lower is better, as FTS5 sorts it. The
// weights are those of the columns text, context and meta.
const bm25 = `bm25(memories_fts, 1.0, 0.35, 0.6)`

// overfetch is how many candidates per hit wanted the full-text index ranks
// before the filter applies, when the filter is not selective.
const overfetch = 2

// Search returns the live memories of scope that contain any of q's terms or
// prefixes and match q's filter, best BM25 first. When the full-text index
// fails it answers by substring matching instead, and says so.
//
// BM25 statistics (document frequency, average length) are those of the
// whole index, all scopes together, as FTS5 keeps them.
func (db *DB) Search(ctx context.Context, scope mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.SearchResult{}, err
	}
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return mnemo.SearchResult{}, err
	}
	if len(q.Terms) == 0 && len(q.Prefixes) == 0 {
		return mnemo.SearchResult{}, nil
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		return mnemo.SearchResult{}, err
	}
	w, err := db.live(ctx, scope, sp, &q.Filter)
	if err != nil {
		return mnemo.SearchResult{}, err
	}

	hits, err := db.match(ctx, sp, &q, w)
	if err == nil {
		return mnemo.SearchResult{Hits: hits}, nil
	} else if ctx.Err() != nil {
		return mnemo.SearchResult{}, ctx.Err()
	}
	db.warnDegraded(err)
	if hits, err = db.like(ctx, &q, w); err != nil {
		return mnemo.SearchResult{}, err
	}
	return mnemo.SearchResult{
		Hits:     hits,
		Degraded: true,
		Reason:   "full-text index unavailable: answered by substring matching",
	}, nil
}

// match asks the full-text index, within the scope's rowid range, so that
// FTS5 reads only the scope's part of each posting list. CROSS JOIN keeps
// the index as the outer loop: without statistics, SQLite may otherwise walk
// every memory of the scope and look each up in the matches.
//
// FTS5 scores every row that matches before it can sort, so the join with
// memories is what to keep off the rows that do not make the page. Unless
// the filter is selective, match ranks in the index alone, takes a few more
// candidates than wanted, and filters those; only if too few survive does it
// filter every match, which is exact.
func (db *DB) match(ctx context.Context, sp span, q *mnemo.TextQuery, w *where) ([]mnemo.Hit, error) {
	var (
		expr      string
		allCommon bool
		err       error
		mem       = db.lex.fresh(ctx)
	)
	if q.MatchAll {
		// Every term: the index intersects posting lists, as cheap as the
		// rarest term; nothing to drop or narrow.
		expr = matchExprJoin(q, " AND ")
		if !selective(&q.Filter) {
			ranked, err := db.rank(ctx, mem, q, lexAnd, expr, sp, overfetch*q.Limit)
			if err != nil {
				return nil, err
			}
			return db.fetchRanked(ctx, ranked, w, q.Limit)
		}
	} else {
		if q, allCommon, err = db.dropCommonTerms(ctx, mem, sp, q); err != nil {
			return nil, err
		}
		expr = matchExpr(q)
	}
	if !q.MatchAll && !selective(&q.Filter) {
		want := overfetch * q.Limit
		// A query of common words only would score every row that has any
		// of them. The rows with two or more of its words are far fewer
		// and hold its best matches: rank those first, and every match
		// only if they are too few.
		for i, e := range narrower(q, allCommon) {
			// Every term first, then any two.
			ranked, err := db.rank(ctx, mem, q, []lexJoin{lexAnd, lexPairs}[i], e, sp, want)
			if err != nil {
				return nil, err
			}
			if len(ranked) >= q.Limit {
				hits, err := db.fetchRanked(ctx, ranked, w, q.Limit)
				if err != nil || len(hits) >= q.Limit {
					return hits, err
				}
			}
		}
		ranked, err := db.rank(ctx, mem, q, lexOr, expr, sp, want)
		if err != nil {
			return nil, err
		}
		hits, err := db.fetchRanked(ctx, ranked, w, q.Limit)
		// Exact when enough survive the filter, or when the index had no
		// more matches than it returned.
		if err != nil || len(hits) >= q.Limit || len(ranked) < want {
			return hits, err
		}
	}
	if mem && len(q.Prefixes) == 0 {
		op := lexOr
		if q.MatchAll {
			op = lexAnd
		}
		if hits, ok, err := db.matchFiltered(ctx, sp, q, op, w); err != nil || ok {
			return hits, err
		}
	}
	db.ftsFiltered.Add(1)
	args := append([]any{expr, sp.lo, sp.hi}, w.args...)
	rows, err := db.readStmts.QueryContext(ctx, `WITH ranked AS (
			SELECT m.seq, `+bm25+` AS rank
			FROM memories_fts CROSS JOIN memories m ON m.seq = memories_fts.rowid
			WHERE memories_fts MATCH ? AND memories_fts.rowid >= ? AND memories_fts.rowid < ? AND `+w.String()+`
			ORDER BY rank LIMIT ?
		)
		SELECT `+memoryColumns+`, -ranked.rank
		FROM ranked CROSS JOIN memories m ON m.seq = ranked.seq
		ORDER BY ranked.rank, m.seq`, append(args, q.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return scanHits(rows)
}

// filteredMatches is how many matches a filtered search ranks in memory
// at most; past it FTS5 ranks the rows the filter selects.
const filteredMatches = 20_000

// matchFiltered answers a search whose filter is selective, or dropped too
// many of the best matches, from the in-memory index: it ranks every match
// there, asks the table which of them the filter selects, best first a
// page at a time, and loads the first q.Limit of those. FTS5 would score
// every match and read each one's row to filter it, which made a "when"
// question's search of dated memories (REC-29) the slowest part of recall
// (PERF-10). The answer is FTS5's: the same ranks, ties by seq. It
// reports false when the index cannot answer or the matches are too many.
func (db *DB) matchFiltered(ctx context.Context, sp span, q *mnemo.TextQuery, op lexJoin, w *where) ([]mnemo.Hit, bool, error) {
	rs, ok := db.lex.rank(sp, lexQuery{terms: q.Terms, op: op, dated: q.Filter.Dated}, filteredMatches+1)
	if !ok || len(rs) > filteredMatches {
		return nil, false, nil
	}
	var sel []ranked
	for page := overfetch * q.Limit; len(rs) > 0 && len(sel) < q.Limit; page *= 2 {
		part := rs[:min(page, len(rs))]
		rs = rs[len(part):]
		pass, err := db.selected(ctx, part, w)
		if err != nil {
			return nil, false, err
		}
		for _, r := range part {
			if pass[r.seq] {
				sel = append(sel, r)
			}
		}
	}
	hits, err := db.fetchRanked(ctx, sel, w, q.Limit)
	return hits, err == nil, err
}

// selected reports which of rs the filter w selects, reading only the
// columns w tests.
func (db *DB) selected(ctx context.Context, rs []ranked, w *where) (map[int64]bool, error) {
	seqs := make([]int64, len(rs))
	for i, r := range rs {
		seqs[i] = r.seq
	}
	return db.passing(ctx, seqs, w)
}

// commonTermMatches is how many matches in a scope make a query term
// common. FTS5 computes bm25 for every row that matches any term before it
// can sort, so one frequent word makes a query score thousands of rows.
const commonTermMatches = 1000

// dropCommonTerms returns q without its common terms when it has rare ones
// too: the rows to rank are then those with a rare term, and the common
// words, whose BM25 weight is low anyway, no longer decide which rows are
// looked at. This is the "common terms" rule of Lucene and Elasticsearch.
// Counting stops at commonTermMatches, so the check is bounded; in a scope
// with fewer memories than that nothing is ever dropped.
//
// allCommon reports that every term is common, and none was dropped.
func (db *DB) dropCommonTerms(ctx context.Context, mem bool, sp span, q *mnemo.TextQuery) (_ *mnemo.TextQuery, allCommon bool, err error) {
	if len(q.Terms)+len(q.Prefixes) < 2 {
		return q, false, nil
	}
	var rare mnemo.TextQuery
	count := func(term, expr string) (bool, error) {
		if mem && term != "" {
			if n, ok := db.lex.count(sp, term); ok {
				return n <= commonTermMatches, nil
			}
		}
		var n int
		err := db.readStmts.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM memories_fts
			WHERE memories_fts MATCH ? AND rowid >= ? AND rowid < ? LIMIT ?)`,
			expr, sp.lo, sp.hi, commonTermMatches+1).Scan(&n)
		if err != nil {
			return false, fmt.Errorf("sqlite: search: %w", err)
		}
		return n <= commonTermMatches, nil
	}
	for _, t := range q.Terms {
		ok, err := count(t, quote(t))
		if err != nil {
			return nil, false, err
		}
		if ok {
			rare.Terms = append(rare.Terms, t)
		}
	}
	for _, p := range q.Prefixes {
		ok, err := count("", quote(p)+"*")
		if err != nil {
			return nil, false, err
		}
		if ok {
			rare.Prefixes = append(rare.Prefixes, p)
		}
	}
	if len(rare.Terms)+len(rare.Prefixes) == 0 {
		return q, true, nil // all common
	}
	out := *q
	out.Terms, out.Prefixes = rare.Terms, rare.Prefixes
	return &out, false, nil
}

// narrower returns, for a query of common terms only, FTS5 queries that
// match fewer rows than the query itself and hold its best matches: the
// rows with every term, then the rows with at least two. None for other
// queries, or for queries of fewer than two terms.
func narrower(q *mnemo.TextQuery, allCommon bool) []string {
	if !allCommon {
		return nil
	}
	var parts []string
	for _, t := range q.Terms {
		parts = append(parts, quote(t))
	}
	for _, p := range q.Prefixes {
		parts = append(parts, quote(p)+"*")
	}
	if len(parts) < 2 || len(parts) > 6 {
		return nil // at most 15 pairs
	}
	out := []string{strings.Join(parts, " AND ")}
	if len(parts) > 2 {
		var pairs []string
		for i := range parts {
			for j := i + 1; j < len(parts); j++ {
				pairs = append(pairs, "("+parts[i]+" AND "+parts[j]+")")
			}
		}
		out = append(out, strings.Join(pairs, " OR "))
	}
	return out
}

// ranked is one full-text match: a memory's seq and its BM25 rank (lower
// is better).
type ranked struct {
	seq  int64
	rank float64
}

// rank returns the best n matches of expr, q's terms and prefixes joined as
// op says, in the scope's rowid range: from the in-memory index when mem and
// it can answer, which gives the same rows in the same order with the same
// ranks, or else from FTS5 alone.
func (db *DB) rank(ctx context.Context, mem bool, q *mnemo.TextQuery, op lexJoin, expr string, sp span, n int) ([]ranked, error) {
	if mem && len(q.Prefixes) == 0 {
		if rs, ok := db.lex.rank(sp, lexQuery{terms: q.Terms, op: op}, n); ok {
			return rs, nil
		}
	}
	return db.rankInIndex(ctx, expr, sp, n)
}

// rankInIndex returns the best n matches of expr in the scope's rowid range,
// from the full-text index alone.
func (db *DB) rankInIndex(ctx context.Context, expr string, sp span, n int) ([]ranked, error) {
	rows, err := db.readStmts.QueryContext(ctx, `SELECT rowid, `+bm25+` AS rank FROM memories_fts
		WHERE memories_fts MATCH ? AND rowid >= ? AND rowid < ?
		ORDER BY rank LIMIT ?`, expr, sp.lo, sp.hi, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	var out []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.seq, &r.rank); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return out, nil
}

// fetchRanked loads the first n memories of rs that pass the filter, in
// rank order. rs holds more candidates than wanted in case the filter drops
// some; loading a memory (its row, its embedding) is most of a search's
// cost (PERF-2), so it loads the first n, and the rest only if the filter
// dropped any of those.
func (db *DB) fetchRanked(ctx context.Context, rs []ranked, w *where, n int) ([]mnemo.Hit, error) {
	hits := make([]mnemo.Hit, 0, min(n, len(rs)))
	for len(rs) > 0 && len(hits) < n {
		part := rs
		if len(hits) == 0 {
			part = rs[:min(n, len(rs))]
		}
		rs = rs[len(part):]
		seqs := make([]int64, len(part))
		for i, r := range part {
			seqs[i] = r.seq
		}
		found, err := db.fetchSeqs(ctx, seqs, w)
		if err != nil {
			return nil, err
		}
		for i, m := range found {
			if m != nil && len(hits) < n {
				hits = append(hits, mnemo.Hit{Memory: *m, Lexical: -part[i].rank})
			}
		}
	}
	return hits, nil
}

// selective reports whether f may drop most of the matches, beyond the
// archived, expired and low-confidence memories a page can absorb.
func selective(f *mnemo.Filter) bool {
	return len(f.Tags) > 0 || len(f.Types) > 0 || len(f.Categories) > 0 || f.SessionID != "" ||
		f.KeyPrefix != "" || f.CreatedAfter != nil || f.CreatedBefore != nil ||
		f.OccurredAfter != nil || f.OccurredBefore != nil ||
		f.Dated // few memories say when they happened (REC-29)
}

// matchExpr returns the FTS5 query for q: `"term" OR "pre"*`.
func matchExpr(q *mnemo.TextQuery) string { return matchExprJoin(q, " OR ") }

// matchExprJoin returns q's terms and prefixes joined by op.
func matchExprJoin(q *mnemo.TextQuery, op string) string {
	parts := make([]string, 0, len(q.Terms)+len(q.Prefixes))
	for _, t := range q.Terms {
		parts = append(parts, quote(t))
	}
	for _, p := range q.Prefixes {
		parts = append(parts, quote(p)+"*")
	}
	return strings.Join(parts, op)
}

// quote makes s one FTS5 string, which the tokenizer splits like indexed
// text: a term can never be read as an operator or a column name.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// like is the fallback when the full-text index cannot answer: it looks for
// each term as a word, and each prefix as the start of a word, in the index
// text and meta, and scores the fraction of them found.
func (db *DB) like(ctx context.Context, q *mnemo.TextQuery, w *where) ([]mnemo.Hit, error) {
	const hay = `(' ' || m.index_text || ' ' || m.index_meta || ' ')`
	var (
		found []string
		args  []any
	)
	for _, t := range q.Terms {
		found = append(found, hay+` LIKE ? ESCAPE '\'`)
		args = append(args, "% "+escapeLike(t)+" %")
	}
	for _, p := range q.Prefixes {
		found = append(found, hay+` LIKE ? ESCAPE '\'`)
		args = append(args, "% "+escapeLike(p)+"%")
	}
	args = append(args, w.args...)
	args = append(args, q.Limit)
	rows, err := db.readStmts.QueryContext(ctx, `WITH scored AS (
			SELECT m.seq, ((`+strings.Join(found, ") + (")+`)) * 1.0 / `+fmt.Sprint(len(found))+` AS score
			FROM memories m WHERE `+w.String()+`
		)
		SELECT `+memoryColumns+`, scored.score
		FROM scored JOIN memories m ON m.seq = scored.seq
		WHERE scored.score > 0
		ORDER BY scored.score DESC, m.created_at DESC, m.seq
		LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search fallback: %w", err)
	}
	return scanHits(rows)
}

// scanHits reads rows of memoryColumns and a score, and closes rows.
func scanHits(rows *sql.Rows) ([]mnemo.Hit, error) {
	defer rows.Close()
	var hits []mnemo.Hit
	for rows.Next() {
		var h mnemo.Hit
		m, err := scanMemory(rows, &h.Lexical)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		h.Memory = m
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return hits, nil
}

// escapeLike escapes the LIKE wildcards in s for ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
