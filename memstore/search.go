package memstore

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// defaultSearchLimit is the number of candidates Search returns when
// TextQuery.Limit is zero, as in the sqlite store.
const defaultSearchLimit = 100

// weights of the index columns text, context and meta, as the sqlite
// store gives FTS5's bm25.
var weights = [3]float64{1.0, 0.35, 0.6}

// BM25 parameters, FTS5's.
const (
	k1 = 1.2
	b  = 0.75
)

// phrase is one query term or prefix: the rows that contain it, with the
// weighted frequency of its tokens in each.
type phrase struct {
	rows map[*row]float64
}

// Search returns the live memories of the scope that contain any of q's
// terms or prefixes (every one with MatchAll) and match q's filter, best
// BM25 first. Scores are FTS5's bm25 with the sqlite store's column weights,
// over the scope's own statistics (rows and average length). It never
// degrades.
func (s *Store) Search(_ context.Context, sc mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return mnemo.SearchResult{}, err
	}
	if len(q.Terms) == 0 && len(q.Prefixes) == 0 {
		return mnemo.SearchResult{}, nil
	}
	if q.Limit <= 0 {
		q.Limit = defaultSearchLimit
	}
	now := s.filterNow(&q.Filter)
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.scope(sc)
	if d == nil || d.live == 0 {
		return mnemo.SearchResult{}, nil
	}
	phrases := make([]phrase, 0, len(q.Terms)+len(q.Prefixes))
	for _, t := range q.Terms {
		p := phrase{rows: map[*row]float64{}}
		for _, tok := range strings.Fields(t) { // a term is a word, never syntax
			for _, e := range d.post[tok] {
				p.rows[d.slots[e.n]] += weighted(e.f)
			}
		}
		phrases = append(phrases, p)
	}
	for _, pre := range q.Prefixes {
		p := phrase{rows: map[*row]float64{}}
		if pre = strings.TrimSpace(pre); pre != "" {
			for tok, post := range d.post {
				if strings.HasPrefix(tok, pre) {
					for _, e := range post {
						p.rows[d.slots[e.n]] += weighted(e.f)
					}
				}
			}
		}
		phrases = append(phrases, p)
	}

	n := float64(d.live)
	avgdl := float64(d.totalLen) / n
	if avgdl == 0 {
		avgdl = 1
	}
	idf := make([]float64, len(phrases))
	for i, p := range phrases {
		hits := float64(len(p.rows))
		idf[i] = math.Log((n - hits + 0.5) / (hits + 0.5))
		if idf[i] <= 0 {
			idf[i] = 1e-6
		}
	}
	score := map[*row]float64{}
	count := map[*row]int{}
	for i, p := range phrases {
		for r, f := range p.rows {
			score[r] += idf[i] * (f * (k1 + 1)) / (f + k1*(1-b+b*float64(r.length)/avgdl))
			count[r]++
		}
	}
	hits := make([]mnemo.Hit, 0, min(len(score), q.Limit))
	type cand struct {
		r     *row
		score float64
	}
	cands := make([]cand, 0, len(score))
	for r, sc := range score {
		if q.MatchAll && count[r] < len(phrases) {
			continue
		}
		if !r.matches(&q.Filter, now) {
			continue
		}
		cands = append(cands, cand{r, sc})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.r.seq, b.r.seq))
	})
	for _, c := range cands[:min(len(cands), q.Limit)] {
		hits = append(hits, mnemo.Hit{Memory: c.r.out(false), Lexical: c.score})
	}
	return mnemo.SearchResult{Hits: hits}, nil
}

func weighted(f freq) float64 {
	return weights[0]*float64(f[0]) + weights[1]*float64(f[1]) + weights[2]*float64(f[2])
}
