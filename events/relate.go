package events

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
)

// RelationRules are the rules that relate a structured event to the events
// before it (EVT-6: rules for structured events):
//
//   - parent/child: data.parent_id or metadata.parent_id names the parent;
//   - temporal: the previous event of the same source (and agent) precedes it;
//   - causal: a start (AgentStarted, task.started) causes the end of the
//     same thing (AgentStopped, task.failed), and an error (ToolFailed)
//     causes its retry (ToolRetry), or data.retry_of names what it retries.
//
// Types are matched by suffix in any of the usual spellings: AgentStarted,
// agent.started, agent_started, AGENT_STARTED.
type RelationRules struct {
	Temporal      bool
	StartSuffixes []string // "Started"
	EndSuffixes   []string // "Stopped", "Finished", ...
	ErrorSuffixes []string // "Failed", "Error", ...
	RetrySuffixes []string // "Retry", "Retried", ...
	// Pairs name ends whose start the suffixes do not find: end type →
	// start types.
	Pairs map[string][]string
}

// DefaultRelationRules returns the rules a Service uses unless configured.
func DefaultRelationRules() RelationRules {
	return RelationRules{
		Temporal:      true,
		StartSuffixes: []string{"Started", "Start"},
		EndSuffixes:   []string{"Stopped", "Finished", "Completed", "Succeeded", "Failed", "Ended", "Closed", "Cancelled"},
		ErrorSuffixes: []string{"Failed", "Error", "Failure"},
		RetrySuffixes: []string{"Retry", "Retried", "Retrying"},
	}
}

// Confidence of each rule: explicit links are certain, name patterns likely.
const (
	confExplicit = 1.0
	confPair     = 0.9
	confRetry    = 0.8
)

// Relate returns the relate function of the rules (EventStore.AppendEvents), stamping edges with now.
func (r *RelationRules) Relate(now time.Time) func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error) {
	return func(ctx context.Context, look mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
		var out []mnemo.Relation
		add := func(src, typ string, conf float64) {
			if src == "" || src == e.ID {
				return
			}
			for _, o := range out {
				if o.Source == src && o.Type == typ {
					return
				}
			}
			out = append(out, mnemo.Relation{Source: src, Target: e.ID, Type: typ, Confidence: conf, CreatedAt: now})
		}
		links := eventLinks(e)
		add(links.ParentID, mnemo.RelParent, confExplicit)
		if r.Temporal {
			prev, ok, err := look.LastEvent(ctx, e.Scope, e.Source, nil, e.TS)
			if err != nil {
				return nil, err
			}
			if ok {
				add(prev.ID, mnemo.RelPrecedes, confExplicit)
			}
		}
		if starts := r.startsOf(e.Type); len(starts) > 0 {
			start, ok, err := look.LastEvent(ctx, e.Scope, e.Source, starts, e.TS)
			if err != nil {
				return nil, err
			}
			if ok {
				add(start.ID, mnemo.RelCauses, confPair)
			}
		}
		if id := links.RetryOf; id != "" {
			add(id, mnemo.RelCauses, confExplicit)
		} else if errs := r.errorsOf(e.Type); len(errs) > 0 {
			failed, ok, err := look.LastEvent(ctx, e.Scope, e.Source, errs, e.TS)
			if err != nil {
				return nil, err
			}
			if ok {
				add(failed.ID, mnemo.RelCauses, confRetry)
			}
		}
		return out, nil
	}
}

// startsOf returns the start types an end type pairs with; none when typ
// is no end.
func (r *RelationRules) startsOf(typ string) []string {
	out := append([]string(nil), r.Pairs[typ]...)
	if prefix, matched, ok := cutSuffix(typ, r.EndSuffixes); ok {
		for _, s := range r.StartSuffixes {
			out = append(out, prefix+recase(s, matched))
		}
	}
	return out
}

// errorsOf returns the error types a retry type retries; none when typ is
// no retry.
func (r *RelationRules) errorsOf(typ string) []string {
	prefix, matched, ok := cutSuffix(typ, r.RetrySuffixes)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range r.ErrorSuffixes {
		out = append(out, prefix+recase(s, matched))
	}
	return out
}

// cutSuffix finds the longest of suffixes that ends typ, case-insensitively
// and at a word boundary, and returns what comes before it and the suffix
// as typ spells it.
func cutSuffix(typ string, suffixes []string) (prefix, matched string, ok bool) {
	lower := strings.ToLower(typ)
	best := -1
	for _, s := range suffixes {
		ls := strings.ToLower(s)
		if !strings.HasSuffix(lower, ls) || len(ls) <= best {
			continue
		}
		i := len(typ) - len(ls)
		// A word boundary: the start, a separator, or a capital letter
		// after a lower-case one (AgentStarted).
		if i > 0 {
			prev, cur := rune(typ[i-1]), rune(typ[i])
			if !strings.ContainsRune("._-:/ ", prev) && !(unicode.IsUpper(cur) && unicode.IsLower(prev)) {
				continue
			}
		}
		best = len(ls)
	}
	if best < 0 {
		return "", "", false
	}
	return typ[:len(typ)-best], typ[len(typ)-best:], true
}

// recase spells s as like is spelled: Started, started or STARTED.
func recase(s, like string) string {
	switch {
	case like == strings.ToUpper(like):
		return strings.ToUpper(s)
	case like == strings.ToLower(like):
		return strings.ToLower(s)
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}

// links are the fields of an event's data or metadata that name another
// event.
type links struct {
	ParentID string `json:"parent_id"`
	RetryOf  string `json:"retry_of"`
}

// eventLinks reads links from e's data, and from its metadata what data
// does not say.
func eventLinks(e mnemo.Event) links {
	var out links
	for _, raw := range []json.RawMessage{e.Data, e.Metadata} {
		if len(raw) == 0 || raw[0] != '{' {
			continue
		}
		var l struct {
			ParentID any `json:"parent_id"`
			RetryOf  any `json:"retry_of"`
		}
		if json.Unmarshal(raw, &l) != nil {
			continue
		}
		if s, ok := l.ParentID.(string); ok && out.ParentID == "" {
			out.ParentID = s
		}
		if s, ok := l.RetryOf.(string); ok && out.RetryOf == "" {
			out.RetryOf = s
		}
	}
	return out
}
