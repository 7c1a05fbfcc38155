package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// defaultSearchLimit is the number of candidates Search returns when
// TextQuery.Limit is zero.
const defaultSearchLimit = 100

// overfetch is how many candidates per hit wanted the full-text index ranks
// before the filter applies, when the filter is not selective.
const overfetch = 2

// Search returns the live memories of scope that contain any of q's terms or
// prefixes and match q's filter, best BM25 first. When the full-text index
// fails it answers by substring matching instead, and says so.
//
// BM25 statistics (rows, average length, each term's rows) are the
// scope's own (REC-10), not the whole table's as FTS5's bm25() counts
// them: nothing another scope holds moves the ranks or the scores.
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

// match ranks the scope's full-text matches, from the in-memory index
// when it is fresh and can answer, else from the full-text index itself
// (rankFTS): the same ranks either way, over the scope's statistics.
//
// Ranking scores every row that matches before it can sort, so reading
// rows is what to keep off those that do not make the page. Unless the
// filter is selective, match ranks in the index alone, takes a few more
// candidates than wanted, and filters those; only if too few survive does
// it filter every match, which is exact.
func (db *DB) match(ctx context.Context, sp span, q *mnemo.TextQuery, w *where) ([]mnemo.Hit, error) {
	var (
		allCommon bool
		err       error
		mem       = db.lex.fresh(ctx)
		op        = lexOr
	)
	if q.MatchAll {
		// Every term: the index intersects posting lists, as cheap as the
		// rarest term; nothing to drop or narrow.
		op = lexAnd
		if !selective(&q.Filter) {
			ranked, err := db.rank(ctx, mem, q, lexAnd, false, sp, overfetch*q.Limit)
			if err != nil {
				return nil, err
			}
			return db.fetchRanked(ctx, ranked, w, q.Limit)
		}
	} else if q, allCommon, err = db.dropCommonTerms(ctx, mem, sp, q); err != nil {
		return nil, err
	}
	if !q.MatchAll && !selective(&q.Filter) {
		want := overfetch * q.Limit
		// A query of common words only would score every row that has any
		// of them. The rows with two or more of its words are far fewer
		// and hold its best matches: rank those first, and every match
		// only if they are too few.
		for _, op := range narrower(q, allCommon) {
			ranked, err := db.rank(ctx, mem, q, op, false, sp, want)
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
		ranked, err := db.rank(ctx, mem, q, lexOr, false, sp, want)
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
	return db.matchFiltered(ctx, mem, sp, q, op, w)
}

// matchFiltered answers a search whose filter is selective, or dropped too
// many of the best matches: it ranks every match, asks the table which of
// them the filter selects, best first a page at a time, and loads the
// first q.Limit of those. Reading each match's row to filter it made a
// "when" question's search of dated memories (REC-29) the slowest part of
// recall (PERF-10); the in-memory index ranks the dated ones alone.
func (db *DB) matchFiltered(ctx context.Context, mem bool, sp span, q *mnemo.TextQuery, op lexJoin, w *where) ([]mnemo.Hit, error) {
	rs, err := db.rank(ctx, mem, q, op, q.Filter.Dated, sp, math.MaxInt)
	if err != nil {
		return nil, err
	}
	var sel []ranked
	for page := overfetch * q.Limit; len(rs) > 0 && len(sel) < q.Limit; page *= 2 {
		part := rs[:min(page, len(rs))]
		rs = rs[len(part):]
		pass, err := db.selected(ctx, part, w)
		if err != nil {
			return nil, err
		}
		for _, r := range part {
			if pass[r.seq] {
				sel = append(sel, r)
			}
		}
	}
	return db.fetchRanked(ctx, sel, w, q.Limit)
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

// narrower returns, for a query of common terms only, the joins that
// match fewer rows than the query itself and hold its best matches: the
// rows with every term, then the rows with at least two. None for other
// queries, or for queries of fewer than two terms or more than six.
func narrower(q *mnemo.TextQuery, allCommon bool) []lexJoin {
	n := len(q.Terms) + len(q.Prefixes)
	if !allCommon || n < 2 || n > 6 { // at most 15 pairs
		return nil
	}
	if n == 2 {
		return []lexJoin{lexAnd}
	}
	return []lexJoin{lexAnd, lexPairs}
}

// ranked is one full-text match: a memory's seq and its BM25 rank (lower
// is better).
type ranked struct {
	seq  int64
	rank float64
}

// rank returns the best n matches of q's terms and prefixes, joined as op
// says, in the scope's rowid range: from the in-memory index when mem and
// it can answer, else from the full-text index (rankFTS), which gives the
// same rows in the same order with the same ranks. dated lets the
// in-memory index keep to the rows that say when they happened; the
// caller's filter does so for the other (REC-29).
func (db *DB) rank(ctx context.Context, mem bool, q *mnemo.TextQuery, op lexJoin, dated bool, sp span, n int) ([]ranked, error) {
	if mem && len(q.Prefixes) == 0 {
		if toks, ok := db.queryTokens(ctx, q.Terms); ok {
			if rs, ok := db.lex.rank(sp, lexQuery{terms: toks, tokens: true, op: op, dated: dated}, n); ok {
				return rs, nil
			}
		}
	}
	if dated || n == math.MaxInt {
		db.ftsFiltered.Add(1)
	}
	return db.rankFTS(ctx, sp, q, op, n)
}

// queryTokens returns the token FTS5 makes of each term, or false when it
// makes other than exactly one of some term (a phrase, which rankFTS
// matches).
func (db *DB) queryTokens(ctx context.Context, terms []string) ([]string, bool) {
	toks := make([]string, len(terms))
	for i, t := range terms {
		if tok, ok := lexQueryTerm(t); ok {
			toks[i] = tok
			continue
		}
		split, err := db.tokenizer.tokens(ctx, t)
		if err != nil || len(split) != 1 {
			return nil, false
		}
		toks[i] = split[0]
	}
	return toks, true
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
