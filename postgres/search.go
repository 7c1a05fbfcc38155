package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// defaultSearchLimit is the number of candidates Search returns when
// TextQuery.Limit is zero.
const defaultSearchLimit = 100

// rank scores a full-text match by the frequency of the query's words,
// with the weights of the tsvector's parts ({D, C, B, A}: -, context, meta,
// text), divided by 1 + log(length) so that a long memory does not win by
// length alone. ts_rank costs half of ts_rank_cd (cover density), and the
// Service fuses and normalises the scores anyway.
const rank = `ts_rank('{0.1, 0.35, 0.6, 1.0}'::float4[], matches.tsv, qq.query, 1)`

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
	if err := sqlrow.CheckFilter(&q.Filter); err != nil {
		return mnemo.SearchResult{}, err
	}
	if len(q.Terms) == 0 && len(q.Prefixes) == 0 {
		return mnemo.SearchResult{}, nil
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	if !q.MatchAll && !selective(&q.Filter) && len(q.Terms)+len(q.Prefixes) >= 2 {
		rare, allCommon := db.dropCommonTerms(ctx, &q)
		if allCommon {
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

// search runs one full-text query, made of q by tsq.
func (db *DB) search(ctx context.Context, scope mnemo.Scope, q *mnemo.TextQuery, tsq func(*params, *mnemo.TextQuery) string) ([]mnemo.Hit, error) {
	var p params
	query := tsq(&p, q)
	w := liveIn(&p, scope, &q.Filter, db.now())
	limit := p.p(q.Limit, "bigint")
	var hits []mnemo.Hit
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		// The query is repeated in the match rather than taken from qq,
		// so that the planner sees its words and their statistics.
		rows, err := qr.Query(ctx, `WITH qq AS (SELECT `+query+` AS query),
			matches AS (
				SELECT m.seq, m.tsv FROM memory_entries m
				WHERE m.tsv @@ `+query+` AND `+w+`
				ORDER BY m.seq DESC LIMIT `+rankAtMost+`
			), ranked AS (
				SELECT matches.seq, `+rank+` AS rank FROM matches, qq
				ORDER BY rank DESC, matches.seq LIMIT `+limit+`
			)
			SELECT `+memoryColumns+`, ranked.rank
			FROM ranked JOIN memory_entries m ON m.seq = ranked.seq
			ORDER BY ranked.rank DESC, m.seq`, p.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				h mnemo.Hit
				r float32
			)
			if h.Memory, err = scanMemory(rows, &r); err != nil {
				return err
			}
			h.Lexical = float64(r)
			hits = append(hits, h)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("search", err)
	}
	return hits, nil
}

// commonRows is how many rows a word must be in to be common. A common
// word makes a query rank every memory that has it.
const commonRows = 1000

// dropCommonTerms returns q without its common words when it has rarer
// ones too, as the "common terms" rule of Lucene and Elasticsearch does:
// the memories to rank are then those with a rare word, and the common
// words, which weigh little, no longer decide what is looked at. allCommon
// reports that every word of q is common; q is then returned as it is.
//
// How common a word is comes from the planner's statistics of the tsvector
// column (pg_stats.most_common_elems, kept by ANALYZE and autovacuum), read
// at most once a minute: an estimate over every scope, free at query time.
func (db *DB) dropCommonTerms(ctx context.Context, q *mnemo.TextQuery) (_ *mnemo.TextQuery, allCommon bool) {
	common := db.commonTerms(ctx)
	if len(common) == 0 {
		return q, false
	}
	out := *q
	out.Terms = nil
	for _, t := range q.Terms {
		if !common[t] {
			out.Terms = append(out.Terms, t)
		}
	}
	if len(out.Terms) == len(q.Terms) {
		return q, false
	}
	if len(out.Terms)+len(out.Prefixes) == 0 {
		return q, true
	}
	return &out, false
}

// commonTerms returns the words in more than commonRows rows, by the
// table's statistics, refreshed once a minute.
func (db *DB) commonTerms(ctx context.Context) map[string]bool {
	db.statsMu.Lock()
	defer db.statsMu.Unlock()
	if time.Since(db.statsAt) < time.Minute {
		return db.common
	}
	db.statsAt = time.Now()
	var (
		elems []string
		freqs []float32
		rows  float64
	)
	err := db.pool.QueryRow(ctx, `SELECT coalesce(s.most_common_elems::text::text[], '{}'), coalesce(s.most_common_elem_freqs, '{}'), c.reltuples::float8
		FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'memory_entries' AND s.attname = 'tsv'
		WHERE c.oid = to_regclass(quote_ident(current_schema()) || '.memory_entries')`).Scan(&elems, &freqs, &rows)
	if err != nil {
		db.logger.Warn("reading the statistics of the full-text index failed", "err", err)
		return db.common
	}
	db.common = make(map[string]bool)
	for i, e := range elems {
		if i < len(freqs) && float64(freqs[i])*rows > commonRows {
			db.common[e] = true
		}
	}
	return db.common
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
		parts = append(parts, `coalesce((nullif(plainto_tsquery('simple', `+p.p(pre, "text")+`)::text, '') || ':*')::tsquery, ''::tsquery)`)
	}
	return parts
}
