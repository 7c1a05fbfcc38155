package events

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
)

// Case and lesson bounds: a capability keeps the latest few.
const (
	maxCases   = 5
	maxLessons = 5
)

// CapabilityText is what an LLM writes of a capability.
type CapabilityText struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Conditions  []string `json:"conditions"`
	Lessons     []string `json:"lessons"`
}

// CapabilityDescriber names and describes a capability from its evidence
// (an LLM).
type CapabilityDescriber interface {
	DescribeCapability(ctx context.Context, c mnemo.Capability) (CapabilityText, error)
}

// CapabilityQuery asks which capabilities fit a new task: by text, by task
// type, or both. Neither lists every capability, most successful first.
type CapabilityQuery struct {
	Text     string `json:"text,omitempty"`
	TaskType string `json:"task_type,omitempty"`
	Limit    int    `json:"limit,omitempty"` // 0: 5; at most MaxListLimit
}

// CapabilityMatch is a capability and how well it fits the query.
type CapabilityMatch struct {
	mnemo.Capability
	Score float64 `json:"score"`
	// Why lists what matched: task_type, terms, vector.
	Why []string `json:"why,omitempty"`
}

// outcome is one task outcome, as capabilities learn from it.
type outcome struct {
	event mnemo.Event
	facts eventFacts
}

// learn folds outcomes of one task type into c (the zero Capability for a
// new one), deterministically: the same outcomes in the same order give the
// same capability.
func (r *TaskRules) learn(c mnemo.Capability, taskType string, outs []outcome) mnemo.Capability {
	c.TaskType = taskType
	if c.ToolUses == nil {
		c.ToolUses = map[string]int{}
	}
	if c.ConditionSeen == nil {
		c.ConditionSeen = map[string]int{}
	}
	for _, o := range outs {
		e, f := o.event, o.facts
		c.SecurityLevel = mnemo.Highest(c.SecurityLevel, e.SecurityLevel) // SEC-12: never lower than an outcome's
		if c.FirstSeen.IsZero() || e.TS.Before(c.FirstSeen) {
			c.FirstSeen = e.TS
		}
		if e.TS.After(c.LastSeen) {
			c.LastSeen = e.TS
		}
		if f.Outcome == OutcomeSuccess {
			c.Successes++
			for _, t := range f.Tools {
				c.ToolUses[t]++
			}
			for _, k := range f.Conditions {
				c.ConditionSeen[k]++
			}
			c.SuccessCases = keepLatest(c.SuccessCases, mnemo.TaskCase{EventID: e.ID, TS: e.TS, Text: clipLine(f.What, 200)}, maxCases)
			continue
		}
		c.Failures++
		lesson := f.Lesson
		if lesson == "" {
			lesson = "failed without a reason (" + e.Type + ")"
		}
		if !slices.ContainsFunc(c.FailureLessons, func(t mnemo.TaskCase) bool { return t.Text == clipLine(lesson, 200) }) {
			c.FailureLessons = keepLatest(c.FailureLessons, mnemo.TaskCase{EventID: e.ID, TS: e.TS, Text: clipLine(lesson, 200)}, maxLessons)
		}
	}
	c.Ready = c.Successes >= r.MinSuccesses
	c.Tools = ranked(c.ToolUses, 1)
	// A condition is one when at least half the successes had it.
	c.Conditions = ranked(c.ConditionSeen, (c.Successes+1)/2)
	if c.Extractor != "llm" {
		c.Extractor = "rules"
		c.Name, c.Description = ruleDescription(c)
	}
	classifyCapability(&c)
	return c
}

// classifyCapability raises a capability's level to what its own text
// calls for (SEC-12): at least its outcomes', and the classifier's of what
// it says.
func classifyCapability(c *mnemo.Capability) {
	var cases []string
	for _, tc := range slices.Concat(c.SuccessCases, c.FailureLessons) {
		cases = append(cases, tc.Text)
	}
	text := strings.Join(slices.Concat([]string{capabilityText(*c), c.Note}, cases), "\n")
	c.SecurityLevel = security.ClassifyText(text, cmp.Or(c.SecurityLevel, mnemo.SecurityInternal))
}

// levelCapabilities gives the capabilities stored before levels were kept
// the level their own text calls for (SEC-12).
func levelCapabilities(caps []mnemo.Capability) {
	for i := range caps {
		if caps[i].SecurityLevel == "" {
			classifyCapability(&caps[i])
		}
	}
}

// keepLatest inserts x in ts order and keeps the latest n.
func keepLatest(list []mnemo.TaskCase, x mnemo.TaskCase, n int) []mnemo.TaskCase {
	i, _ := slices.BinarySearchFunc(list, x, func(a, b mnemo.TaskCase) int { return a.TS.Compare(b.TS) })
	list = slices.Insert(list, i, x)
	if len(list) > n {
		list = list[len(list)-n:]
	}
	return list
}

// ranked returns the names counted at least min times, most counted first.
func ranked(m map[string]int, min int) []string {
	out := []string{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] >= max(min, 1) {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	return out
}

// clipLine folds s to one line of at most n characters.
func clipLine(s string, n int) string { return textutil.Clip(textutil.OneLine(s), n) }

// ruleDescription names and describes a capability from its counts.
func ruleDescription(c mnemo.Capability) (name, desc string) {
	name = humanize(c.TaskType)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: succeeded %d of %d times", name, c.Successes, c.Successes+c.Failures)
	if len(c.Tools) > 0 {
		fmt.Fprintf(&b, "; uses %s", strings.Join(c.Tools, ", "))
	}
	if len(c.Conditions) > 0 {
		fmt.Fprintf(&b, "; when %s", strings.Join(c.Conditions, ", "))
	}
	if len(c.SuccessCases) > 0 && c.SuccessCases[len(c.SuccessCases)-1].Text != "" {
		fmt.Fprintf(&b, "; e.g. %s", c.SuccessCases[len(c.SuccessCases)-1].Text)
	}
	return name, b.String()
}

// humanize spells a task type as words: DeployService, deploy_service and
// deploy.service are "deploy service".
func humanize(t string) string {
	var b strings.Builder
	var prev rune
	for _, r := range t {
		switch {
		case strings.ContainsRune("._-:/ ", r):
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteRune(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// outcomesByType reads the task outcomes of events, grouped by task type.
func (r *TaskRules) outcomesByType(events []mnemo.Event) (map[string][]outcome, []string) {
	by := map[string][]outcome{}
	var types []string
	for _, e := range events {
		f := r.facts(e)
		if f.Outcome == OutcomeNone {
			continue
		}
		if _, ok := by[f.TaskType]; !ok {
			types = append(types, f.TaskType)
		}
		by[f.TaskType] = append(by[f.TaskType], outcome{e, f})
	}
	return by, types
}

// learnCapabilities keeps the capabilities of scope current with newly
// appended events. It is called after the events commit: a failure here
// loses no event, and ExtractCapabilities rebuilds from the events.
func (s *Service) learnCapabilities(ctx context.Context, scope mnemo.Scope, events []mnemo.Event) {
	is, ok := s.store.Insights, s.store.Insights != nil
	if !ok {
		return
	}
	rules := &s.events.Tasks
	by, types := rules.outcomesByType(events)
	if len(types) == 0 {
		return
	}
	err := is.UpdateCapabilities(ctx, scope, types, func(have []mnemo.Capability) ([]mnemo.Capability, error) {
		out := make([]mnemo.Capability, 0, len(types))
		for _, t := range types {
			i := slices.IndexFunc(have, func(c mnemo.Capability) bool { return c.TaskType == t })
			var c mnemo.Capability
			if i >= 0 {
				c = have[i]
			}
			out = append(out, rules.learn(c, t, by[t]))
		}
		return out, nil
	})
	if err != nil {
		s.log.Warn("capabilities: learning from new events failed; ExtractCapabilities rebuilds them", "tenant", scope.TenantID, "agent", scope.AgentID, "err", err)
	}
}

// ExtractCapabilities rebuilds the scope's capabilities from all its
// events (L1, cold ones too), then has the configured CapabilityDescriber
// describe the ready ones (the rules' description stays, with a note, when
// it fails). It returns the ready capabilities, most successful first.
func (s *Service) ExtractCapabilities(ctx context.Context, scope mnemo.Scope) ([]mnemo.Capability, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	is, err := s.insightStore()
	if err != nil {
		return nil, err
	}
	rules := &s.events.Tasks
	by := map[string][]outcome{}
	var order []string
	err = s.eachEvent(ctx, scope, mnemo.EventQuery{}, func(e mnemo.Event) error {
		if !mayHaveFacts(e) && !rules.typeMatches(e.Type) {
			return nil
		}
		if f := rules.facts(e); f.Outcome != OutcomeNone {
			if _, ok := by[f.TaskType]; !ok {
				order = append(order, f.TaskType)
			}
			by[f.TaskType] = append(by[f.TaskType], outcome{e, f})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	caps := make([]mnemo.Capability, 0, len(order))
	for _, t := range order {
		caps = append(caps, rules.learn(mnemo.Capability{}, t, by[t]))
	}
	for i := range caps {
		if caps[i].Ready {
			caps[i] = s.describe(ctx, caps[i])
		}
	}
	if err := is.ReplaceCapabilities(ctx, scope, caps); err != nil {
		return nil, err
	}
	return readyCapabilities(caps), nil
}

// RefreshCapabilities has the CapabilityDescriber describe the scope's
// ready capabilities that it never described or that doubled their
// successes since; serve runs it on its ticker. It returns how many it
// described.
func (s *Service) RefreshCapabilities(ctx context.Context, scope mnemo.Scope) (int, error) {
	if s.events.Describer == nil {
		return 0, nil
	}
	is, err := s.insightStore()
	if err != nil {
		return 0, err
	}
	caps, err := is.Capabilities(ctx, scope)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range caps {
		if !c.Ready || (c.DescribedAt > 0 && c.Successes < 2*c.DescribedAt) {
			continue
		}
		d := s.describe(ctx, c)
		err := is.UpdateCapabilities(ctx, scope, []string{c.TaskType}, func(have []mnemo.Capability) ([]mnemo.Capability, error) {
			if len(have) == 0 {
				return nil, nil
			}
			cur := have[0]
			cur.Name, cur.Description, cur.Conditions, cur.Extractor, cur.Note, cur.DescribedAt = d.Name, d.Description, d.Conditions, d.Extractor, d.Note, d.DescribedAt
			if d.Extractor == "llm" {
				cur.FailureLessons = d.FailureLessons
			}
			cur.SecurityLevel = mnemo.Highest(cur.SecurityLevel, d.SecurityLevel)
			classifyCapability(&cur)
			return []mnemo.Capability{cur}, nil
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// describe has the CapabilityDescriber name and describe c; on failure c
// keeps the rules' text and a note.
func (s *Service) describe(ctx context.Context, c mnemo.Capability) mnemo.Capability {
	d := s.events.Describer
	if d == nil {
		return c
	}
	t, err := d.DescribeCapability(ctx, c)
	if err == nil && strings.TrimSpace(t.Name) == "" {
		err = fmt.Errorf("the answer has no name")
	}
	if err != nil {
		c.Note = "LLM description failed, rules used instead: " + mnemo.ErrorMessage(err)
		s.log.Warn("capabilities: LLM description failed, rules used", "task_type", c.TaskType, "err", err)
		return c
	}
	c.Name, c.Description, c.Extractor, c.Note, c.DescribedAt = clipLine(t.Name, 100), clipLine(t.Description, 1000), "llm", "", c.Successes
	if len(t.Conditions) > 0 {
		c.Conditions = t.Conditions
	}
	for i, l := range t.Lessons {
		if i < len(c.FailureLessons) && strings.TrimSpace(l) != "" {
			c.FailureLessons[i].Text = clipLine(l, 200)
		}
	}
	classifyCapability(&c)
	return c
}

func readyCapabilities(caps []mnemo.Capability) []mnemo.Capability {
	out := []mnemo.Capability{}
	for _, c := range caps {
		if c.Ready {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b mnemo.Capability) int {
		return cmp.Or(cmp.Compare(b.Successes, a.Successes), cmp.Compare(a.TaskType, b.TaskType))
	})
	return out
}

// Capabilities returns the scope's ready capabilities that fit q, best
// first (EVT-12): a capability of q.TaskType first, then
// by the overlap of q.Text's terms with the capability's name, type,
// description, tools and conditions, and, with an embedder, by the
// cosine similarity of their vectors; ties go to the more successful.
// Without text or type it lists them, most successful first.
func (s *Service) Capabilities(ctx context.Context, scope mnemo.Scope, q CapabilityQuery) ([]CapabilityMatch, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	if q.Limit < 0 || q.Limit > mnemo.MaxListLimit {
		return nil, mnemo.Errorf(mnemo.EINVALID, "limit must be 1 to %d", mnemo.MaxListLimit)
	}
	if q.Limit == 0 {
		q.Limit = 5
	}
	is, err := s.insightStore()
	if err != nil {
		return nil, err
	}
	all, err := is.Capabilities(ctx, scope)
	if err != nil {
		return nil, err
	}
	levelCapabilities(all)
	caps := readyCapabilities(all)
	text := strings.TrimSpace(q.Text)
	typ := strings.TrimSpace(q.TaskType)
	out := make([]CapabilityMatch, 0, len(caps))
	if text == "" && typ == "" {
		for _, c := range caps {
			out = append(out, CapabilityMatch{Capability: c})
		}
		return out[:min(len(out), q.Limit)], nil
	}
	qterms := s.analyzer.Terms(text + " " + humanize(typ))
	var vecs [][]float32
	if s.capEmb != nil && text != "" && len(caps) > 0 {
		texts := []string{text}
		for _, c := range caps {
			texts = append(texts, capabilityText(c))
		}
		if v, err := s.capEmb.Embed(ctx, texts); err == nil && len(v) == len(texts) {
			vecs = v
		} else if err != nil {
			s.log.Warn("capabilities: embedding failed, lexical match only", "err", err)
		}
	}
	for i, c := range caps {
		m := CapabilityMatch{Capability: c}
		if typ != "" && (strings.EqualFold(c.TaskType, typ) || humanize(c.TaskType) == humanize(typ)) {
			m.Score += 1
			m.Why = append(m.Why, "task_type")
		}
		if len(qterms) > 0 {
			cterms := s.analyzer.Terms(capabilityText(c))
			hit := 0
			for _, t := range uniq(qterms) {
				if slices.Contains(cterms, t) {
					hit++
				}
			}
			if hit > 0 {
				m.Score += 0.5 * float64(hit) / float64(len(uniq(qterms)))
				m.Why = append(m.Why, "terms")
			}
		}
		if vecs != nil {
			if sim := rank.Cosine(vecs[0], vecs[i+1]); sim > 0 {
				m.Score += 0.5 * sim
				m.Why = append(m.Why, "vector")
			}
		}
		if m.Score > 0 {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b CapabilityMatch) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Successes, a.Successes))
	})
	return out[:min(len(out), q.Limit)], nil
}

// capabilityText is what a capability is matched by.
func capabilityText(c mnemo.Capability) string {
	return strings.Join(slices.Concat([]string{c.Name, humanize(c.TaskType), c.Description}, c.Tools, c.Conditions), " ")
}

func uniq(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// RefreshAllCapabilities runs RefreshCapabilities for every scope with
// events in the last year; serve runs it on its ticker. Without a
// CapabilityDescriber it does nothing.
func (s *Service) RefreshAllCapabilities(ctx context.Context) (int, error) {
	if s.events.Describer == nil {
		return 0, nil
	}
	is, err := s.insightStore()
	if err != nil {
		return 0, err
	}
	scopes, err := is.EventScopes(ctx, s.now().Add(-SummaryRetention))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sc := range scopes {
		k, err := s.RefreshCapabilities(ctx, sc)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
