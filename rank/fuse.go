package rank

import (
	"math"
	"sort"
)

// rrfK is the rank offset of reciprocal rank fusion, as in its paper.
const rrfK = 60

// Fuse turns each candidate's lexical score (BM25, higher is better, 0 when
// the lexical index did not return it) and semantic score (cosine
// similarity; NaN when the candidate has no vector) into the normalised
// features Keyword and Semantic and their fusion Relevance, all in [0, 1].
//
// Weighted fusion normalises each signal to the query's best candidate (so
// the two scales, BM25's unbounded one and the cosine's, become comparable)
// and adds them with the profile's weights, divided by their sum. RRF adds
// 1/(60+rank) of each list the candidate is in, scaled so that first in
// both lists is 1. A signal that no candidate has drops out of the fusion.
func (p Profile) Fuse(lexical, semantic []float64) (keyword, sem, relevance []float64) {
	n := len(lexical)
	sims := make([]float64, n)
	anyLex, anySem := false, false
	for i, s := range semantic {
		if !math.IsNaN(s) {
			sims[i], anySem = s, true
		}
		anyLex = anyLex || lexical[i] > 0
	}
	keyword, sem = Normalize(lexical), Normalize(sims)
	relevance = make([]float64, n)
	// A signal no candidate has (no embedder, or a query of stop words
	// only) drops out, rather than capping every score at the other's
	// weight.
	wl, ws := p.LexicalWeight, p.SemanticWeight
	if !anySem && wl > 0 {
		ws = 0
	}
	if !anyLex && ws > 0 {
		wl = 0
	}
	if wl+ws <= 0 {
		return keyword, sem, relevance
	}
	if p.Fusion == FusionRRF {
		lr, sr := ranks(lexical), ranks(sims)
		for i := range relevance {
			relevance[i] = (wl*rrf(lr[i]) + ws*rrf(sr[i])) / ((wl + ws) / (rrfK + 1))
		}
		return keyword, sem, relevance
	}
	for i := range relevance {
		relevance[i] = (wl*keyword[i] + ws*sem[i]) / (wl + ws)
	}
	return keyword, sem, relevance
}

// rrf is one list's reciprocal rank term; rank 0 means not in the list.
func rrf(rank int) float64 {
	if rank == 0 {
		return 0
	}
	return 1 / float64(rrfK+rank)
}

// ranks returns the 1-based rank of each positive score, best first; 0 for
// the others.
func ranks(scores []float64) []int {
	idx := make([]int, 0, len(scores))
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	r := make([]int, len(scores))
	for k, i := range idx {
		r[i] = k + 1
	}
	return r
}

// MMR picks up to k of the candidates, by maximal marginal relevance: each
// pick maximises λ·score − (1−λ)·(its greatest similarity to a candidate
// already picked), so that near-duplicates of a pick make way for other
// relevant memories. scores must be sorted best first; sim returns the
// similarity of two candidates in [0, 1]. It returns the picked indexes in
// order and, for each, the penalty it paid.
func MMR(scores []float64, sim func(i, j int) float64, lambda float64, k int) (picked []int, penalty []float64) {
	n := len(scores)
	k = min(k, n)
	if lambda <= 0 || lambda >= 1 || k <= 1 {
		picked = make([]int, k)
		for i := range picked {
			picked[i] = i
		}
		return picked, make([]float64, k)
	}
	maxSim := make([]float64, n) // greatest similarity to the picks so far
	taken := make([]bool, n)
	for len(picked) < k {
		best, bestVal := -1, math.Inf(-1)
		for i := 0; i < n; i++ {
			if taken[i] {
				continue
			}
			if v := lambda*scores[i] - (1-lambda)*maxSim[i]; v > bestVal {
				best, bestVal = i, v
			}
		}
		taken[best] = true
		picked = append(picked, best)
		penalty = append(penalty, maxSim[best])
		for i := 0; i < n; i++ {
			if !taken[i] {
				maxSim[i] = math.Max(maxSim[i], sim(best, i))
			}
		}
	}
	return picked, penalty
}

// Diversified is the final score of a result MMR picked with the given
// penalty (its greatest similarity to a result picked before it): its
// MMR value over λ, relevance − (1−λ)/λ × penalty, at least 0. MMR picks
// in decreasing order of that value (each candidate's only falls as picks
// are added), so the results, in the order picked, are in the order of
// their final scores; the first keeps its relevance.
func Diversified(relevance, penalty, lambda float64) float64 {
	if lambda <= 0 || lambda >= 1 || penalty <= 0 {
		return relevance
	}
	return max(0, relevance-(1-lambda)/lambda*penalty)
}

// SessionPrior moves each score toward the best score of its session:
// (1-p)·score + p·best. Where a conversation is found, the turn that
// answers is more likely beside the best match than in a session that
// matched less, though its own words may match less than another
// session's (REC-34). An empty session is no session: its score is left
// alone, as is a score of 0 (what the profile holds back stays back) and
// every score when p is 0.
func SessionPrior(scores []float64, sessions []string, p float64) {
	if p <= 0 {
		return
	}
	best := make(map[string]float64)
	for i, s := range sessions {
		if s != "" && scores[i] > best[s] {
			best[s] = scores[i]
		}
	}
	for i, s := range sessions {
		if s != "" && scores[i] > 0 {
			scores[i] = (1-p)*scores[i] + p*best[s]
		}
	}
}
