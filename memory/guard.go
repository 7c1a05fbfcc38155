package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// Write Guard decisions (MEM-10): what the gate did with a write.
const (
	GuardAdd       = "add"       // a new memory
	GuardUpdate    = "update"    // a key written again: the key's memory replaced, the old text kept in its history
	GuardDuplicate = "duplicate" // the same text is already stored: nothing written, the existing memory returned
	GuardMerge     = "merge"     // nearly the same as a memory of the same type: the new one replaces it, the old archived
	GuardConflict  = "conflict"  // about the same thing but saying otherwise: both kept, the newest wins in ranking
	GuardReject    = "reject"    // too short or empty: refused
)

// GuardOptions configure the Write Guard. The zero value is on, with the
// defaults.
type GuardOptions struct {
	Off      bool    // no gate: every write is stored as it is
	MinChars int     // fewer letters and digits than this is rejected (3)
	Near     float64 // term overlap (Jaccard) from which a memory of the same type is the same (0.8)
	Related  float64 // term overlap from which a memory may conflict (0.5)
}

func (o GuardOptions) withDefaults() GuardOptions {
	if o.MinChars <= 0 {
		o.MinChars = 3
	}
	if o.Near <= 0 {
		o.Near = 0.8
	}
	if o.Related <= 0 {
		o.Related = 0.5
	}
	return o
}

// GuardDecision is what the Write Guard decided for one write, and why.
type GuardDecision struct {
	Action        string   `json:"action"`
	Reason        string   `json:"reason,omitempty"`
	ExistingID    string   `json:"existing_id,omitempty"`    // the duplicate, merged or updated memory
	ConflictsWith []string `json:"conflicts_with,omitempty"` // memories the new one contradicts
}

// WriteResult is a stored memory and the Write Guard's decision for it.
type WriteResult struct {
	mnemo.Memory
	Guard GuardDecision `json:"guard"`
	// Applied is false when the write lost last-write-wins to a newer
	// revision of its key: Memory is then that revision, which stands, and
	// WinnerUpdatedAt its time.
	Applied         bool       `json:"applied"`
	WinnerUpdatedAt *time.Time `json:"winner_updated_at,omitempty"`
}

// settle records in r whether rec's write was applied: a store returns, for
// a write that lost last-write-wins, the revision that stands, which is
// newer than the write.
func (r *WriteResult) settle(rec *mnemo.Record) {
	r.Applied = !r.Memory.UpdatedAt.After(rec.Memory.UpdatedAt)
	if !r.Applied {
		t := r.Memory.UpdatedAt
		r.WinnerUpdatedAt = &t
	}
}

// guardCandidates is how many lexical neighbours of the same type the gate
// compares a write with.
const guardCandidates = 5

// guardTerms bounds the words the gate searches for together.
const guardTerms = 8

// guard decides for one validated memory. For a duplicate it returns the
// stored memory; for a merge or conflict, the memories to change.
func (s *Service) guard(ctx context.Context, scope mnemo.Scope, m *mnemo.Memory) (GuardDecision, *mnemo.Memory, error) {
	g := s.guardOpts
	clear := security.ClearanceFrom(ctx)
	text := strings.TrimSpace(m.Content + " " + m.Summary)
	// Free text must say something. Structured data under a key is content
	// whatever it holds, {} included (FS-17).
	if len(m.Data) == 0 {
		if strings.TrimSpace(text) == "" {
			return GuardDecision{Action: GuardReject, Reason: "no content: nothing to remember"}, nil, nil
		}
		if n := meaningful(text); n < g.MinChars {
			return GuardDecision{Action: GuardReject, Reason: fmt.Sprintf("too short: %d letters or digits, at least %d", n, g.MinChars)}, nil, nil
		}
	} else if m.Key == "" && textutil.EmptyJSON(m.Data) && textutil.EmptyJSON([]byte(strings.TrimSpace(m.Content))) && strings.TrimSpace(m.Summary) == "" {
		return GuardDecision{Action: GuardReject, Reason: "no content: nothing to remember"}, nil, nil
	}
	if m.Key != "" {
		// A key holds structured state (FS-17): any JSON is content,
		// {} included; it changes by its key, last write wins.
		old, err := s.store.GetByKey(ctx, scope, m.Key)
		switch {
		case err == nil:
			return GuardDecision{Action: GuardUpdate, ExistingID: old.ID, Reason: "the key's memory is replaced; its old text stays in the key's history"}, nil, nil
		case mnemo.ErrorCode(err) != mnemo.ENOTFOUND:
			return GuardDecision{}, nil, err
		}
		return GuardDecision{Action: GuardAdd}, nil, nil
	}
	// The text is what will be indexed, not a query: "Python*" is the
	// word python, never a prefix (read as a query, a text of only
	// prefixes had no terms, and slicing them panicked).
	words := s.analyzer.Terms(text)
	mine := termSet(words)
	if len(mine) == 0 {
		return GuardDecision{Action: GuardAdd}, nil, nil
	}
	// The same text, or nearly, has most of its words: search for memories
	// with all of its longest (rarest, as a rule) words, no filter (a
	// filter makes the index score every match), and check the type here.
	// A word the new text adds, or changes, is in no stored memory: when
	// all of them find nothing, each of the three longest is left out in turn.
	terms := dedupe(words)
	slices.SortStableFunc(terms, func(a, b string) int { return len(b) - len(a) })
	terms = terms[:min(guardTerms, max(1, (len(terms)*3+4)/5))]
	if len(terms) >= 5 {
		// Every query below has every word past the three longest: when
		// no memory has those, none can match. Asked first, this is the
		// one lookup a new memory (most of a bulk load) pays, instead of
		// two (PERF-1, MEM-10).
		rest, err := s.store.Search(ctx, scope, mnemo.TextQuery{Filter: mnemo.Filter{Now: s.now()}, Terms: terms[3:], Limit: 1, MatchAll: true})
		if err != nil {
			return GuardDecision{}, nil, err
		}
		if len(rest.Hits) == 0 {
			return GuardDecision{Action: GuardAdd}, nil, nil
		}
	}
	var sr mnemo.SearchResult
	for skip := -1; skip < min(3, len(terms)) && len(sr.Hits) == 0; skip++ {
		q := terms
		if skip >= 0 {
			if len(terms) < 3 {
				break // two words less one is no longer the same text
			}
			q = slices.Delete(slices.Clone(terms), skip, skip+1)
		}
		var err error
		sr, err = s.store.Search(ctx, scope, mnemo.TextQuery{Filter: mnemo.Filter{Now: s.now()}, Terms: q, Limit: guardCandidates, MatchAll: true})
		if err != nil {
			return GuardDecision{}, nil, err
		}
		// A caller that reads masked is answered as if what it may not
		// read were not stored: a duplicate, a merge or a conflict would
		// tell it what such a memory says, and a merge would let it
		// replace one (SEC-14).
		sr.Hits = slices.DeleteFunc(sr.Hits, func(h mnemo.Hit) bool { return clear.Conceals(h.Memory.SecurityLevel) })
	}
	var conflicts []string
	for _, h := range sr.Hits {
		c := h.Memory
		if c.Key != "" || c.Type != m.Type {
			continue // a keyed memory changes by its key; another type is another thing
		}
		if normalText(c.Content) == normalText(m.Content) && string(c.Data) == string(m.Data) {
			return GuardDecision{Action: GuardDuplicate, ExistingID: c.ID, Reason: "the same text is already stored"}, &c, nil
		}
		sim := jaccard(mine, termSet(s.analyzer.Terms(c.Content+" "+c.Summary)))
		switch {
		case sim >= g.Near && !contradicts(text, c.Content):
			return GuardDecision{Action: GuardMerge, ExistingID: c.ID, Reason: fmt.Sprintf("%.0f%% the same words as a memory of type %s: it is replaced, and archived", 100*sim, m.Type)}, &c, nil
		case sim >= g.Related && contradicts(text, c.Content):
			conflicts = append(conflicts, c.ID)
		}
	}
	if len(conflicts) > 0 {
		return GuardDecision{Action: GuardConflict, ConflictsWith: conflicts,
			Reason: "about the same thing but saying otherwise (a negation or a number differs): both kept, the newest ranks first"}, nil, nil
	}
	return GuardDecision{Action: GuardAdd}, nil, nil
}

// meaningful counts letters and digits.
func meaningful(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

func normalText(s string) string { return strings.ToLower(textutil.OneLine(s)) }

// dedupe returns ts without repeats, in the order of first occurrence.
func dedupe(ts []string) []string {
	seen := make(map[string]bool, len(ts))
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func termSet(ts []string) map[string]bool {
	set := make(map[string]bool, len(ts))
	for _, t := range ts {
		set[t] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// negations are words that turn a statement around.
var negations = []string{"not", "no", "never", "n't", "don't", "doesn't", "isn't", "aren't", "won't", "cannot", "不", "没", "别", "无", "非"}

// contradicts reports whether two statements about the same thing say
// otherwise: one is negated and the other not, or their numbers differ.
func contradicts(a, b string) bool {
	if negated(a) != negated(b) {
		return true
	}
	na, nb := numbers(a), numbers(b)
	return len(na) > 0 && len(nb) > 0 && !slices.Equal(na, nb)
}

func negated(s string) bool {
	lower := " " + strings.ToLower(s) + " "
	for _, n := range negations {
		if n[0] >= 0x80 {
			if strings.Contains(lower, n) {
				return true
			}
			continue
		}
		if strings.Contains(lower, " "+n+" ") || strings.Contains(lower, n+" ") && strings.HasPrefix(n, "n'") {
			return true
		}
	}
	return false
}

func numbers(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' }) {
		if f = strings.Trim(f, "."); f != "" {
			out = append(out, f)
		}
	}
	return out
}
