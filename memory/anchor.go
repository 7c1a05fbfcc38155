package memory

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/temporal"
)

// An event as a time (REC-32): "what did she do after the road trip?",
// "the day before the wedding". A question naming no time may place what
// it asks about by another event; the memory that tells of that event
// best, when it matches strongly and says when it happened, gives the
// time, and the question is asked as one naming it.

// anchorRe finds "(the day|week…) before|after|since <the event>" where
// the event opens with a determiner: its words run to a clause's end.
var anchorRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:the\s+(day|night|week|weekend|month)\s+)?(before|after|since|following|prior\s+to)\s+((?:the|her|his|their|my|our|your)\s+[\p{L}\p{N}' -]{2,60})`)
})

// anchorStop are the words that end an event's phrase: what follows them
// is the question's, not the event's ("after the road trip to relax").
var anchorStop = map[string]bool{"to": true, "and": true, "or": true, "with": true, "did": true, "does": true, "do": true,
	"was": true, "were": true, "is": true, "are": true, "in": true, "on": true, "at": true, "for": true, "when": true,
	"where": true, "while": true, "because": true, "so": true, "that": true, "which": true, "who": true, "as": true,
	"has": true, "had": true, "have": true, "by": true, "from": true, "of": true}

// clauseVerb reports whether w is a verb that makes a clause of an
// event's words: a past in -ed, or one of the verbs said most.
func clauseVerb(w string) bool {
	w = strings.ToLower(strings.Trim(w, ",.?!"))
	return len(w) > 4 && strings.HasSuffix(w, "ed") || clauseVerbs[w]
}

var clauseVerbs = map[string]bool{"go": true, "goes": true, "went": true, "gone": true, "get": true, "gets": true, "got": true,
	"come": true, "comes": true, "came": true, "leave": true, "leaves": true, "left": true, "start": true, "starts": true,
	"began": true, "begin": true, "begins": true, "end": true, "ends": true, "took": true, "take": true, "takes": true,
	"made": true, "make": true, "makes": true, "said": true, "say": true, "says": true, "told": true, "ran": true, "run": true,
	"runs": true, "saw": true, "see": true, "sees": true, "met": true, "meet": true, "meets": true, "gave": true, "give": true,
	"be": true, "been": true, "being": true, "will": true, "would": true, "can": true, "could": true}

// anchor is the event a question's time is placed by.
type anchor struct {
	expr     string // as written: "after the road trip"
	phrase   string // expr and the rest of its clause: "after the road trip to relax"
	unit     string // "day", "week"…; "" for the open side
	relation string // before, after, since
	event    string // "the road trip"
}

// zhAnchorRe finds the same in Chinese: an event and 之后 or 以后 (after),
// 之前 or 以前 (before), 的第二天 (the day after) or 的前一天 (the day
// before). Where the event's words begin is zhEvent's.
var zhAnchorRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\p{Han}{2,12}?)(后的第二天|之后的第二天|的第二天|的前一天|之后|以后|之前|以前)`)
})

// zhEventStart are the characters after which a Chinese event's words
// begin: a pronoun, a preposition or a particle before them.
const zhEventStart = "在从自她他我你们的了是，。？！、"

// findZhAnchor is findAnchor for a Chinese question.
func findZhAnchor(text string) (anchor, bool) {
	m := zhAnchorRe().FindStringSubmatchIndex(text)
	if m == nil {
		return anchor{}, false
	}
	span := text[m[2]:m[3]]
	start := m[2]
	if i := strings.LastIndexAny(span, zhEventStart); i >= 0 {
		_, size := utf8.DecodeRuneInString(span[i:])
		start = m[2] + i + size
	}
	event := text[start:m[3]]
	if utf8.RuneCountInString(event) < 2 || temporal.Query(text[start:m[5]], time.Time{}).Found {
		return anchor{}, false // a time, or no event: the rules read times
	}
	a := anchor{expr: text[start:m[5]], phrase: text[start:m[5]], event: event, relation: "after"}
	switch text[m[4]:m[5]] {
	case "之前", "以前":
		a.relation = "before"
	case "的前一天":
		a.relation, a.unit = "before", "day"
	case "后的第二天", "之后的第二天", "的第二天":
		a.unit = "day"
	}
	return a, true
}

// findAnchor is the event text places its time by, if any.
func findAnchor(text string) (anchor, bool) {
	if a, ok := findZhAnchor(text); ok {
		return a, true
	}
	m := anchorRe().FindStringSubmatchIndex(text)
	if m == nil {
		return anchor{}, false
	}
	// "What does she do after the gym?" asks what she does each time,
	// not once after one gym; "what did she do after…" asks of once.
	habitual, past := false, false
	for _, w := range strings.Fields(strings.ToLower(text[:m[0]])) {
		switch w {
		case "does", "do", "doesn't", "don't":
			habitual = true
		case "did", "didn't", "was", "were", "had":
			past = true
		}
	}
	if habitual && !past {
		return anchor{}, false
	}
	words := strings.Fields(text[m[6]:m[7]])
	n := 1 // the determiner
	for n < len(words) && !anchorStop[strings.ToLower(words[n])] {
		if n == 5 || clauseVerb(words[n]) {
			// A long phrase or a clause ("after the kids went to
			// bed"): no event a memory is simply of.
			return anchor{}, false
		}
		n++
	}
	if n < 2 {
		return anchor{}, false
	}
	// The event as written: to the end of its last word kept.
	end := m[6]
	for _, w := range words[:n] {
		end += strings.Index(text[end:], w) + len(w)
	}
	a := anchor{expr: text[m[0]:end], phrase: text[m[0]:m[7]], relation: strings.ToLower(strings.Fields(text[m[4]:m[5]])[0]), event: text[m[6]:end]}
	if m[2] >= 0 {
		a.unit = strings.ToLower(text[m[2]:m[3]])
	}
	switch a.relation {
	case "following":
		a.relation = "after"
	case "prior":
		a.relation = "before"
	}
	return a, true
}

// anchorTime is the time q's event places it at, and q's text without
// the event's words, when a memory tells of the event strongly and is
// dated.
func (s *Service) anchorTime(ctx context.Context, r *recall) (temporal.Asked, bool) {
	if ctx.Value(anchoring{}) != nil {
		return temporal.Asked{}, false // the event's own search places nothing
	}
	a, ok := findAnchor(r.q.Text)
	if !ok {
		return temporal.Asked{}, false
	}
	ctx = context.WithValue(ctx, anchoring{}, true)
	q := Query{Text: a.event, Limit: 1, Now: r.q.Now, Filter: r.q.Filter, Profile: r.q.Profile}
	res, err := s.search(ctx, r.scope, q, false)
	if err != nil || len(res.Results) == 0 || res.Match != rank.MatchStrong {
		return temporal.Asked{}, false
	}
	ev0 := res.Results[0].Memory
	if r.clear.Conceals(ev0.SecurityLevel) {
		// A time its caller may not read places nothing; its creation,
		// which it reads, stands in (SEC-14).
		ev0.Occurred = nil
	}
	occ := ev0.OccurredOf()
	ev := temporal.Window{Start: occ.Start, End: occ.End}
	if !ev.Valid() {
		return temporal.Asked{}, false
	}
	var w temporal.Window
	switch {
	case a.unit != "":
		w = temporal.Beside(a.unit, a.relation == "before", ev)
	case a.relation == "after", a.relation == "since":
		// With the event: what is said of it is often said with it.
		w = temporal.Window{Start: ev.Start, End: mnemo.LatestTime}
	default:
		w = temporal.Window{Start: mnemo.EarliestTime, End: ev.End}
	}
	if !w.Valid() {
		return temporal.Asked{}, false
	}
	// "The day after the wedding" asks of another day than the wedding's:
	// the event's words, to its clause's end ("the day after the lunch
	// with the auditor"), leave the text searched. "After the wedding"
	// asks as often of what was said with it, which its words find.
	text := r.q.Text
	if a.unit != "" {
		text = strings.Join(strings.Fields(strings.Replace(r.q.Text, a.phrase, "", 1)), " ")
	}
	return temporal.Asked{Found: true, Expr: a.expr, Window: w, Text: text, When: r.asked.When}, true
}

// anchoring marks the context of an event's search.
type anchoring struct{}
