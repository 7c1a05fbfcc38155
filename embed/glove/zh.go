package glove

import "strings"

// addChinese adds to s.acc the vectors of the words of a CJK run, found by
// the lexicon in its segments between stop characters (as cjkFeatures
// splits it): each word at the SIF-weighted mean of the vectors of its
// English gloss words, times zhWeight, or zhChar for a single character,
// which is often a bound morpheme of many senses (EMB-8).
func (e *Embedder) addChinese(m *model, s *scratch, run string, z float64) {
	if s.zh == nil {
		s.zh = make([]float64, m.dim)
	}
	for _, seg := range strings.FieldsFunc(run, func(r rune) bool { return strings.ContainsRune(cjkStops, r) }) {
		e.lex.Segment(seg, func(i, chars int) {
			v := s.zh
			clear(v)
			var sum float64
			e.lex.Glosses(i, 0, func(w string) {
				r, ok := m.lookup(w)
				if !ok {
					return
				}
				p := 1 / (float64(r+1) * z)
				wt := e.opt.a / (e.opt.a + p)
				m.add(v, r, wt)
				sum += wt
			})
			if sum == 0 {
				return
			}
			f := e.opt.zhWeight
			if chars == 1 {
				f = e.opt.zhChar
			}
			f /= sum
			for j, x := range v {
				s.acc[j] += f * x
			}
		})
	}
}
