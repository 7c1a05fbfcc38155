package inmem

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
	// Dense arrays by slot, not maps: a common word's posting list is
	// tens of thousands of rows.
	var (
		f       = make([]float64, len(d.slots)) // one phrase's weighted frequency
		score   = make([]float64, len(d.slots))
		count   = make([]int32, len(d.slots))
		inPhr   []int32 // the slots f holds
		matched []int32 // the slots score holds
	)
	n := float64(d.live)
	avgdl := float64(d.totalLen) / n
	if avgdl == 0 {
		avgdl = 1
	}
	add := func(post []posting) {
		for _, e := range post {
			if f[e.n] == 0 {
				inPhr = append(inPhr, e.n)
			}
			f[e.n] += weighted(e.f)
		}
	}
	phrases := 0
	score1 := func() {
		phrases++
		hits := float64(len(inPhr))
		idf := math.Log((n - hits + 0.5) / (hits + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for _, i := range inPhr {
			fi := f[i]
			if count[i] == 0 {
				matched = append(matched, i)
			}
			score[i] += idf * (fi * (k1 + 1)) / (fi + k1*(1-b+b*float64(d.slots[i].length)/avgdl))
			count[i]++
			f[i] = 0
		}
		inPhr = inPhr[:0]
	}
	for _, t := range q.Terms {
		for _, tok := range strings.Fields(t) { // a term is a word, never syntax
			add(postings(d.post[tok]))
		}
		score1()
	}
	for _, pre := range q.Prefixes {
		if pre = strings.TrimSpace(pre); pre != "" {
			for tok, post := range d.post {
				if strings.HasPrefix(tok, pre) {
					add(*post)
				}
			}
		}
		score1()
	}

	type cand struct {
		r     *row
		score float64
	}
	cands := make([]cand, 0, min(len(matched), 4*q.Limit))
	for _, i := range matched {
		if q.MatchAll && int(count[i]) < phrases {
			continue
		}
		r := d.slots[i]
		if !r.matches(&q.Filter, now) {
			continue
		}
		cands = append(cands, cand{r, score[i]})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.r.seq, b.r.seq))
	})
	hits := make([]mnemo.Hit, 0, min(len(cands), q.Limit))
	for _, c := range cands[:min(len(cands), q.Limit)] {
		hits = append(hits, mnemo.Hit{Memory: c.r.out(false), Lexical: c.score})
	}
	return mnemo.SearchResult{Hits: hits}, nil
}

func weighted(f freq) float64 {
	return weights[0]*float64(f[0]) + weights[1]*float64(f[1]) + weights[2]*float64(f[2])
}

func postings(p *[]posting) []posting {
	if p == nil {
		return nil
	}
	return *p
}
