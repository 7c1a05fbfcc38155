package rank

import (
	"strings"
	"unicode"
)

// Cues of a query that expresses or asks about a preference (REC-13:
// "我喜欢..." recalls preference memories first). Latin cues match whole
// words; CJK cues match anywhere, since CJK text has no spaces.
var (
	preferenceWords = map[string]bool{
		"like": true, "likes": true, "love": true, "loves": true, "prefer": true, "prefers": true,
		"preferred": true, "favorite": true, "favourite": true, "enjoy": true, "enjoys": true,
		"hate": true, "hates": true, "dislike": true, "dislikes": true,
	}
	preferenceCJK = []string{"喜欢", "喜爱", "偏好", "最爱", "讨厌", "爱好", "爱吃", "爱喝", "习惯"}
)

// Intent returns the memory category a query leans to, or "" for none.
// It is a cheap rule, not a classifier: it only decides who gets the
// category boost.
func Intent(query string) string {
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) || unicode.Is(unicode.Han, r)
	}) {
		if preferenceWords[w] {
			return "preference"
		}
	}
	for _, cue := range preferenceCJK {
		if strings.Contains(query, cue) {
			return "preference"
		}
	}
	return ""
}

// CategoryBoost is the category feature of a memory of category cat for a
// query whose intent is intent: 1 on a match, 1/MatchBoost otherwise.
func (p Profile) CategoryBoost(intent, cat string) float64 {
	if p.MatchBoost <= 0 {
		return 1
	}
	if intent != "" && intent == cat {
		return 1
	}
	return 1 / p.MatchBoost
}
