package postgres

import (
	"context"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// defaultSearchLimit is the number of candidates Search returns when
// TextQuery.Limit is zero.
const defaultSearchLimit = 100

// rank scores a full-text match by cover density, with the weights of the
// tsvector's parts ({D, C, B, A}: -, context, meta, text), divided by
// 1 + log(length) so that a long memory does not win by length alone.
const rank = `ts_rank_cd('{0.1, 0.35, 0.6, 1.0}'::float4[], m.tsv, qq.query, 1)`

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
	if err := checkFilter(&q.Filter); err != nil {
		return mnemo.SearchResult{}, err
	}
	if len(q.Terms) == 0 && len(q.Prefixes) == 0 {
		return mnemo.SearchResult{}, nil
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	var p params
	query := tsquery(&p, &q)
	w := liveIn(&p, scope, &q.Filter, db.now())
	limit := p.p(q.Limit, "bigint")
	var hits []mnemo.Hit
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		rows, err := qr.Query(ctx, `SELECT `+memoryColumns+`, `+rank+` AS rank
			FROM memory_entries m CROSS JOIN (SELECT `+query+` AS query) AS qq
			WHERE m.tsv @@ qq.query AND `+w+`
			ORDER BY rank DESC, m.seq
			LIMIT `+limit, p.args...)
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
		return mnemo.SearchResult{}, db.fail("search", err)
	}
	return mnemo.SearchResult{Hits: hits}, nil
}

// tsquery returns the SQL expression of q's tsquery: its terms and
// prefixes (prefix:*) joined by OR, or by AND with MatchAll.
func tsquery(p *params, q *mnemo.TextQuery) string {
	parts := make([]string, 0, len(q.Terms)+len(q.Prefixes))
	for _, t := range q.Terms {
		parts = append(parts, `plainto_tsquery('simple', `+p.p(t, "text")+`)`)
	}
	for _, pre := range q.Prefixes {
		// A prefix that holds no word (punctuation) is the empty query,
		// which matches nothing and leaves the others to match.
		parts = append(parts, `coalesce((nullif(plainto_tsquery('simple', `+p.p(pre, "text")+`)::text, '') || ':*')::tsquery, ''::tsquery)`)
	}
	op := " || "
	if q.MatchAll {
		op = " && "
	}
	return "(" + strings.Join(parts, op) + ")"
}
