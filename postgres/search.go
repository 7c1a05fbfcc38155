package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// defaultSearchLimit is the number of candidates Search returns when
// TextQuery.Limit is zero.
const defaultSearchLimit = 100

// BM25 as SQLite's FTS5 computes it (REC-10, PG-6), so that recall ranks the same
// on both stores: k1 1.2, b 0.75, the weights of the tsvector's parts as
// the sqlite store gives FTS5's columns (text A 1.0, context C 0.35, meta
// B 0.6), a phrase's idf ln((N - n + 0.5) / (n + 0.5)), 1e-6 when not
// positive, over the scope's statistics (scope_stats, term_stats: see
// migration 0005). A document's length is its number of tokens, all parts
// together, and a phrase's frequency in it the weighted count of its
// tokens' positions.
const (
	bm25K1 = "1.2"
	bm25B  = "0.75"
)

// bm25CTEs returns the CTEs that rank the matches (seq, tsv, tsv_len)
// against the phrases ph (i, prefix, lx: the phrase's lexemes, idf): hits
// are the lexemes of the matches that are in a phrase (the prefix branch
// only when the query has prefixes), tf each phrase's weighted frequency
// in each match. They work on sets rather than row by row: a subquery per
// match grows with the matches (PERF-2).
//
// A query of prefixes only has no terms' lexemes: array_agg is NULL, and
// ts_delete with NULL is NULL, which unnests to nothing.
func bm25CTEs(prefixes bool) string {
	// The terms' branch first cuts each tsvector down to the terms'
	// lexemes (ts_delete of everything else, in C), so that unnest makes
	// a row or two per match rather than one per lexeme.
	hits := `SELECT matches.seq, matches.tsv_len, phx.i, u.weights
			FROM matches CROSS JOIN unnest(ts_delete(matches.tsv, tsvector_to_array(ts_delete(matches.tsv,
				(SELECT array_agg(phx.lexeme) FROM phx WHERE NOT phx.prefix))))) u
			JOIN phx ON u.lexeme = phx.lexeme AND NOT phx.prefix`
	if prefixes {
		hits += `
			UNION ALL
			SELECT matches.seq, matches.tsv_len, phx.i, u.weights
			FROM matches CROSS JOIN unnest(matches.tsv) u JOIN phx ON phx.prefix AND starts_with(u.lexeme, phx.lexeme)`
	}
	return `phx AS (
			SELECT ph.i, ph.prefix, x AS lexeme FROM ph, unnest(ph.lx) x
		), hits AS (
			` + hits + `
		), tf AS (
			SELECT hits.seq, hits.tsv_len::float8 AS dl, hits.i,
				sum(CASE w WHEN 'A' THEN 1.0 WHEN 'C' THEN 0.35 WHEN 'B' THEN 0.6 ELSE 0 END)::float8 AS f
			FROM hits CROSS JOIN unnest(hits.weights) w GROUP BY hits.seq, hits.tsv_len, hits.i
		)`
}

// bm25Score is the BM25 score of one match, summed over its tf rows.
const bm25Score = `sum(ph.idf * tf.f * (` + bm25K1 + ` + 1) / (tf.f + ` + bm25K1 + ` * (1 - ` + bm25B + ` + ` + bm25B + ` * tf.dl / st.avgdl)))`

// rankAtMost is how many matches a search ranks, the newest first: ranking
// reads every match, so a query of words that thousands of memories have
// is answered from the newest 2,000 of them. Recall weighs recency anyway,
// and a query with a rarer word ranks only the memories with it (see
// dropCommonTerms), far fewer.
const rankAtMost = "2000"

// Search returns the live memories of scope that contain any of q's terms
// or prefixes (all of them with MatchAll) and match q's filter, best first.
// The filter applies before the limit, in the same statement.
//
// Terms and prefixes go through plainto_tsquery with the simple
// configuration, so that they are split and folded exactly as the indexed
// text was: a term is always words, never tsquery syntax.
func (db *DB) Search(ctx context.Context, scope mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	if err := checkScope(scope); err != nil {
		return mnemo.SearchResult{}, err
	}
	// PG-11: from a replica when one is usable; a replica skipped makes
	// the answer degraded, though whole, so that operators see it.
	var sr mnemo.SearchResult
	skipped, err := db.onReplica(ctx, scope.TenantID, func(ctx context.Context) (err error) {
		sr, err = db.searchText(ctx, scope, q)
		return err
	})
	if err == nil && skipped != "" && !sr.Degraded {
		sr.Degraded, sr.Reason, sr.Cause = true, skipped, mnemo.DegradedReplica
	}
	return sr, err
}

func (db *DB) searchText(ctx context.Context, scope mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return mnemo.SearchResult{}, err
	}
	if len(q.Terms) == 0 && len(q.Prefixes) == 0 {
		return mnemo.SearchResult{}, nil
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	if err := db.recurringMisses(ctx, scope, &q.Filter); err != nil {
		return mnemo.SearchResult{}, err
	}
	if !q.MatchAll && len(q.Terms)+len(q.Prefixes) >= 2 {
		rare, allCommon, err := db.dropCommonTerms(ctx, scope, &q)
		if err != nil {
			return mnemo.SearchResult{}, err
		}
		if allCommon && !selective(&q.Filter) {
			// The memories with every word, then those with two of them,
			// hold the best matches, and are far fewer than those with
			// any: rank those first, and every match only if they are too
			// few.
			for _, narrow := range []func(p *params, q *mnemo.TextQuery) string{tsqueryAll, tsqueryPairs} {
				hits, err := db.search(ctx, scope, &q, narrow)
				if err != nil || len(hits) >= q.Limit {
					return mnemo.SearchResult{Hits: hits}, err
				}
			}
		}
		q = *rare
	}
	hits, err := db.search(ctx, scope, &q, tsquery)
	return mnemo.SearchResult{Hits: hits}, err
}

// search runs one full-text query, made of q by tsq, ranked by BM25 over
// q's terms and prefixes.
func (db *DB) search(ctx context.Context, scope mnemo.Scope, q *mnemo.TextQuery, tsq func(*params, *mnemo.TextQuery) string) ([]mnemo.Hit, error) {
	var p params
	query := tsq(&p, q)
	w := liveIn(&p, scope, &q.Filter, db.now())
	ph := phrases(&p, scope, q)
	tenant, agent := p.p(scope.TenantID, "text"), p.p(scope.AgentID, "text")
	limit := p.p(q.Limit, "bigint")
	var hits []mnemo.Hit
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		// The query is repeated in the match rather than taken from a
		// CTE, so that the planner sees its words and their statistics.
		// The ranked matches' rows are read by key, one lateral look-up
		// each (LIMIT 1 keeps the subquery from being flattened into a
		// join): a table without statistics looked small enough to the
		// planner to hash-join every row of the tenant instead.
		rows, err := qr.Query(ctx, `WITH st AS (
				SELECT coalesce(max(s.docs), 0)::float8 AS n,
					coalesce(max(s.total_len)::float8 / nullif(max(s.docs), 0), 1) AS avgdl
				FROM scope_stats s WHERE s.tenant_id = `+tenant+` AND s.agent_id = `+agent+`
			), ph0 (i, prefix, lx, hits) AS (VALUES `+ph+`),
			ph AS (
				SELECT ph0.i, ph0.prefix, ph0.lx, CASE WHEN st.n - ph0.hits <= ph0.hits THEN 1e-6
					ELSE ln((st.n - ph0.hits + 0.5) / (ph0.hits + 0.5)) END AS idf
				FROM ph0, st
			), matches AS (
				SELECT m.seq, m.tsv, m.tsv_len FROM memory_entries m
				WHERE m.tsv @@ `+query+` AND `+w+`
				ORDER BY m.seq DESC LIMIT `+rankAtMost+`
			), `+bm25CTEs(len(q.Prefixes) > 0)+`, ranked AS (
				SELECT tf.seq, `+bm25Score+` AS rank
				FROM tf JOIN ph ON ph.i = tf.i CROSS JOIN st
				GROUP BY tf.seq ORDER BY rank DESC, tf.seq LIMIT `+limit+`
			)
			SELECT `+memoryColumns+`, ranked.rank
			FROM ranked CROSS JOIN LATERAL (SELECT * FROM memory_entries m
				WHERE m.tenant_id = `+tenant+` AND m.seq = ranked.seq LIMIT 1) m
			ORDER BY ranked.rank DESC, m.seq`, p.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h mnemo.Hit
			if h.Memory, err = scanMemory(rows, &h.Lexical); err != nil {
				return err
			}
			hits = append(hits, h)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("search", err)
	}
	return hits, nil
}

// phrases returns the rows (i, prefix, lexemes, documents with it) of q's
// terms and prefixes, FTS5's phrases. A term's documents come from
// term_stats; a prefix's are counted, as FTS5 reads its posting lists.
func phrases(p *params, scope mnemo.Scope, q *mnemo.TextQuery) string {
	tenant, agent := p.p(scope.TenantID, "text"), p.p(scope.AgentID, "text")
	rows := make([]string, 0, len(q.Terms)+len(q.Prefixes))
	for _, t := range q.Terms {
		lx := `tsvector_to_array(to_tsvector('simple', ` + p.p(t, "text") + `))`
		// Each lexeme is looked up by the whole key, a subquery per
		// lexeme, so that the planner cannot do otherwise whatever it
		// knows of the table. Without statistics (a new schema before
		// autovacuum's ANALYZE, and PGlite, which runs none), a join with
		// the lexemes, or term = ANY, read every term of the scope for
		// each phrase (PERF-2).
		rows = append(rows, `(`+strconv.Itoa(len(rows))+`, false, `+lx+`, (SELECT coalesce(sum((SELECT ts.df FROM term_stats ts
			WHERE ts.tenant_id = `+tenant+` AND ts.agent_id = `+agent+` AND ts.term = x)), 0)::float8 FROM unnest(`+lx+`) x))`)
	}
	for _, pre := range q.Prefixes {
		lx := `tsvector_to_array(to_tsvector('simple', ` + p.p(pre, "text") + `))`
		rows = append(rows, `(`+strconv.Itoa(len(rows))+`, true, `+lx+`, (SELECT count(*)::float8 FROM memory_entries m2
			WHERE m2.tenant_id = `+tenant+` AND m2.agent_id = `+agent+` AND NOT m2.tombstone AND m2.tsv @@ `+prefixQuery(p, pre)+`))`)
	}
	return strings.Join(rows, ", ")
}

// commonRows is how many documents of a scope a word must be in to be
// common, as in the sqlite store. A common word makes a query rank every
// memory that has it.
const commonRows = 1000

// dropCommonTerms returns q without its common words when it has rarer
// ones too, as the "common terms" rule of Lucene and Elasticsearch does
// (and the sqlite store, with the same threshold, so that both rank the
// same memories): the memories to rank are then those with a rare word,
// and the common words, which weigh little, no longer decide what is looked
// at. allCommon reports that every word of q is common; q is then returned
// as it is.
//
// A word's documents come from the scope's term_stats; a prefix's are
// counted, up to commonRows + 1.
func (db *DB) dropCommonTerms(ctx context.Context, scope mnemo.Scope, q *mnemo.TextQuery) (_ *mnemo.TextQuery, allCommon bool, err error) {
	if at, ok := db.small.Load(scope); ok && time.Since(at.(time.Time)) < time.Minute {
		return q, false, nil
	}
	var p params
	tenant, agent := p.p(scope.TenantID, "text"), p.p(scope.AgentID, "text")
	// The first check is the scope's size: in a scope of at most
	// commonRows documents no word is common, and the scope is
	// remembered as small for a minute, sparing searches this query.
	checks := []string{`coalesce((SELECT s.docs FROM scope_stats s WHERE s.tenant_id = ` + tenant +
		` AND s.agent_id = ` + agent + `), 0) <= ` + strconv.Itoa(commonRows)}
	for _, t := range q.Terms {
		checks = append(checks, `coalesce((SELECT ts.df FROM term_stats ts WHERE ts.tenant_id = `+tenant+
			` AND ts.agent_id = `+agent+` AND ts.term = `+p.p(t, "text")+`), 0) > `+strconv.Itoa(commonRows))
	}
	for _, pre := range q.Prefixes {
		checks = append(checks, `(SELECT count(*) FROM (SELECT FROM memory_entries m WHERE m.tenant_id = `+tenant+
			` AND m.agent_id = `+agent+` AND NOT m.tombstone AND m.tsv @@ `+prefixQuery(&p, pre)+
			` LIMIT `+strconv.Itoa(commonRows+1)+`) x) > `+strconv.Itoa(commonRows))
	}
	var common []bool
	err = db.read(ctx, scope.TenantID, func(qr querier) error {
		return qr.QueryRow(ctx, `SELECT ARRAY[`+strings.Join(checks, ", ")+`]::boolean[]`, p.args...).Scan(&common)
	})
	if err != nil {
		return nil, false, db.fail("search", err)
	}
	if common[0] {
		db.small.Store(scope, time.Now())
	}
	common = common[1:]
	out := *q
	out.Terms, out.Prefixes = nil, nil
	for i, t := range q.Terms {
		if !common[i] {
			out.Terms = append(out.Terms, t)
		}
	}
	for i, pre := range q.Prefixes {
		if !common[len(q.Terms)+i] {
			out.Prefixes = append(out.Prefixes, pre)
		}
	}
	switch {
	case len(out.Terms)+len(out.Prefixes) == 0:
		return q, true, nil
	case len(out.Terms) == len(q.Terms) && len(out.Prefixes) == len(q.Prefixes):
		return q, false, nil
	}
	return &out, false, nil
}

// tsquery returns the SQL expression of q's tsquery: its terms and
// prefixes (prefix:*) joined by OR, or by AND with MatchAll.
func tsquery(p *params, q *mnemo.TextQuery) string {
	op := " || "
	if q.MatchAll {
		op = " && "
	}
	return "(" + strings.Join(tsqueryParts(p, q), op) + ")"
}

// tsqueryAll is q's words joined by AND.
func tsqueryAll(p *params, q *mnemo.TextQuery) string {
	return "(" + strings.Join(tsqueryParts(p, q), " && ") + ")"
}

// tsqueryPairs matches the memories with at least two of q's words (of up
// to six: 15 pairs), or all of them when q has two.
func tsqueryPairs(p *params, q *mnemo.TextQuery) string {
	parts := tsqueryParts(p, q)
	if len(parts) < 3 || len(parts) > 6 {
		return "(" + strings.Join(parts, " && ") + ")"
	}
	var pairs []string
	for i := range parts {
		for j := i + 1; j < len(parts); j++ {
			pairs = append(pairs, "("+parts[i]+" && "+parts[j]+")")
		}
	}
	return "(" + strings.Join(pairs, " || ") + ")"
}

// tsqueryParts returns the tsquery of each term and prefix of q.
func tsqueryParts(p *params, q *mnemo.TextQuery) []string {
	parts := make([]string, 0, len(q.Terms)+len(q.Prefixes))
	for _, t := range q.Terms {
		parts = append(parts, `plainto_tsquery('simple', `+p.p(t, "text")+`)`)
	}
	for _, pre := range q.Prefixes {
		// A prefix that holds no word (punctuation) is the empty query,
		// which matches nothing and leaves the others to match.
		parts = append(parts, prefixQuery(p, pre))
	}
	return parts
}

// prefixQuery is the tsquery of the words that start with pre.
func prefixQuery(p *params, pre string) string {
	return `coalesce((nullif(plainto_tsquery('simple', ` + p.p(pre, "text") + `)::text, '') || ':*')::tsquery, ''::tsquery)`
}
