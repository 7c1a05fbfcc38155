package mnemo

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Period is the granularity of a summary (seed 002 L4). Periods are in
// UTC; a week starts on Monday.
type Period string

// Periods, shortest first.
const (
	PeriodHour  Period = "hour"
	PeriodDay   Period = "day"
	PeriodWeek  Period = "week"
	PeriodMonth Period = "month"
	PeriodYear  Period = "year"
)

// Periods lists every period, shortest first.
var Periods = []Period{PeriodHour, PeriodDay, PeriodWeek, PeriodMonth, PeriodYear}

// ParsePeriod checks a period's name; an unknown one is EINVALID.
func ParsePeriod(s string) (Period, error) {
	p := Period(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Periods, p) {
		return p, nil
	}
	return "", Errorf(EINVALID, "unknown period %q: use hour, day, week, month or year", s)
}

// Bounds returns the period that contains at: [start, end), in UTC.
func (p Period) Bounds(at time.Time) (start, end time.Time) {
	at = at.UTC()
	y, m, d := at.Date()
	switch p {
	case PeriodHour:
		start = at.Truncate(time.Hour)
		return start, start.Add(time.Hour)
	case PeriodDay:
		start = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 1)
	case PeriodWeek:
		back := (int(at.Weekday()) + 6) % 7 // days since Monday
		start = time.Date(y, m, d-back, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 7)
	case PeriodMonth:
		start = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 1, 0)
	default:
		start = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(1, 0, 0)
	}
}

// long says whether the period's summary has trends, patterns and
// suggestions (seed 002: week and month, and year).
func (p Period) long() bool { return p == PeriodWeek || p == PeriodMonth || p == PeriodYear }

// Summary is one period's digest of a scope's events (seed 002 L4). Every
// summary has the hour's sections (key events, type distribution, errors)
// and the day's (task completion, capability use, activity); those of a
// week, month or year add trends, patterns and suggestions.
type Summary struct {
	Scope
	Period Period    `json:"period"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Events int       `json:"events"`
	// Types is the type distribution: events per type.
	Types   map[string]int `json:"types"`
	Sources map[string]int `json:"sources"`
	// KeyEvents are the period's notable events, at most 10, in order:
	// errors and failed tasks first chosen, then completed tasks, then
	// types seen only once.
	KeyEvents []KeyEvent `json:"key_events"`
	// Errors counts error events (see TaskRules), by type in ErrorTypes.
	Errors     int            `json:"errors"`
	ErrorTypes map[string]int `json:"error_types"`
	Tasks      TaskCount      `json:"tasks"`
	// CompletionRate is Tasks.Succeeded over all task outcomes, 0 without any.
	CompletionRate float64 `json:"completion_rate"`
	// CapabilityUse counts outcomes per capability: data.capability, or
	// the task type.
	CapabilityUse map[string]TaskCount `json:"capability_use"`
	Activity      Activity             `json:"activity"`
	Trends        []string             `json:"trends,omitempty"`
	Patterns      []string             `json:"patterns,omitempty"`
	Suggestions   []string             `json:"suggestions,omitempty"`
	// Generator is who wrote trends, patterns and suggestions: "llm" or
	// "rules"; Note says why the rules were used when an LLM is configured.
	Generator   string    `json:"generator"`
	Note        string    `json:"note,omitempty"`
	GeneratedAt time.Time `json:"generated_at"`
}

// KeyEvent is a notable event of a summary and why.
type KeyEvent struct {
	ID   string    `json:"id"`
	TS   time.Time `json:"ts"`
	Type string    `json:"type"`
	Why  string    `json:"why"` // error, failed, completed, rare
}

// TaskCount counts task outcomes.
type TaskCount struct {
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

// Activity is how the events spread over a period: per hour of a day or an
// hour, per day of a week or a month, per month of a year.
type Activity struct {
	Unit    string     `json:"unit"` // hour, day or month
	Buckets []int      `json:"buckets"`
	Active  int        `json:"active"`            // buckets with events
	Busiest *time.Time `json:"busiest,omitempty"` // the start of the busiest bucket
}

// Insights are the trends, patterns and suggestions of a long summary.
type Insights struct {
	Trends      []string `json:"trends"`
	Patterns    []string `json:"patterns"`
	Suggestions []string `json:"suggestions"`
}

// EventInsighter writes a long summary's insights from its statistics (an
// LLM). prev is the previous period's summary when one is stored.
type EventInsighter interface {
	EventInsights(ctx context.Context, s Summary, prev *Summary) (Insights, error)
}

// SummaryQuery selects stored summaries: of one period (all when empty),
// starting in [From, To).
type SummaryQuery struct {
	Period Period     `json:"period,omitempty"`
	From   *time.Time `json:"from,omitempty"`
	To     *time.Time `json:"to,omitempty"`
	Limit  int        `json:"limit,omitempty"` // 0: 100; at most MaxListLimit
}

// InsightStore is an EventStore that keeps summaries (L4) and capabilities
// (L5). A Service whose store is not one answers their calls with
// EUNAVAILABLE.
type InsightStore interface {
	// PutSummary stores s, replacing the scope's summary of the same period
	// and start: one per period, however often it is generated.
	PutSummary(ctx context.Context, scope Scope, s Summary) error
	// Summaries returns the scope's summaries matching q, by start, then
	// period (shortest first).
	Summaries(ctx context.Context, scope Scope, q SummaryQuery) ([]Summary, error)
	// DropSummaries deletes, in every scope, the summaries of periods that
	// ended before before, and returns how many.
	DropSummaries(ctx context.Context, periods []Period, before time.Time) (int, error)
	// EventScopes returns the scopes with an event at or after since.
	EventScopes(ctx context.Context, since time.Time) ([]Scope, error)
	// UpdateCapabilities reads the scope's capabilities of taskTypes (those
	// stored), calls fn, and stores what it returns, in one transaction.
	UpdateCapabilities(ctx context.Context, scope Scope, taskTypes []string, fn func(have []Capability) ([]Capability, error)) error
	// ReplaceCapabilities replaces every capability of the scope.
	ReplaceCapabilities(ctx context.Context, scope Scope, caps []Capability) error
	// Capabilities returns every capability of the scope, candidates
	// (below the threshold) too.
	Capabilities(ctx context.Context, scope Scope) ([]Capability, error)
}

// SummaryRetention is how long hour and day summaries are kept (seed 002:
// a year); week, month and year summaries are kept for good.
const SummaryRetention = 365 * 24 * time.Hour

// insightStore returns the store as an InsightStore, or EUNAVAILABLE.
func (s *Service) insightStore() (InsightStore, error) {
	is, ok := s.store.Insights, s.store.Insights != nil
	if !ok {
		return nil, Errorf(EUNAVAILABLE, "this store keeps no summaries or capabilities")
	}
	return is, nil
}

// Summarize generates, stores and returns the summary of the period of
// scope's events that contains at (now when zero). Generating a period
// again replaces its summary. Errors: EINVALID (an unknown period),
// EUNAVAILABLE.
func (s *Service) Summarize(ctx context.Context, scope Scope, period Period, at time.Time) (Summary, error) {
	if err := CheckScope(scope); err != nil {
		return Summary{}, err
	}
	p, err := ParsePeriod(string(period))
	if err != nil {
		return Summary{}, err
	}
	is, err := s.insightStore()
	if err != nil {
		return Summary{}, err
	}
	if at.IsZero() {
		at = s.now()
	}
	sum, err := s.summarize(ctx, scope, p, at)
	if err != nil {
		return Summary{}, err
	}
	if p.long() {
		s.addInsights(ctx, is, &sum)
	}
	if err := is.PutSummary(ctx, scope, sum); err != nil {
		return Summary{}, err
	}
	return sum, nil
}

// Summaries returns stored summaries of scope. Errors: EINVALID (an unknown
// period, a window that runs backwards, a bad limit), EUNAVAILABLE.
func (s *Service) Summaries(ctx context.Context, scope Scope, q SummaryQuery) ([]Summary, error) {
	if err := CheckScope(scope); err != nil {
		return nil, err
	}
	if q.Period != "" {
		p, err := ParsePeriod(string(q.Period))
		if err != nil {
			return nil, err
		}
		q.Period = p
	}
	if q.From != nil && q.To != nil && q.From.After(*q.To) {
		return nil, Errorf(EINVALID, "time window runs backwards: from %s is after to %s",
			q.From.UTC().Format(time.RFC3339Nano), q.To.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return nil, Errorf(EINVALID, "limit must be 1 to %d", MaxListLimit)
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	is, err := s.insightStore()
	if err != nil {
		return nil, err
	}
	return is.Summaries(ctx, scope, q)
}

// maxKeyEvents bounds a summary's key events.
const maxKeyEvents = 10

// summarize computes the statistics of a period from its events.
func (s *Service) summarize(ctx context.Context, scope Scope, p Period, at time.Time) (Summary, error) {
	start, end := p.Bounds(at)
	sum := Summary{
		Scope: scope, Period: p, Start: start, End: end,
		Types: map[string]int{}, Sources: map[string]int{}, ErrorTypes: map[string]int{},
		CapabilityUse: map[string]TaskCount{}, Generator: "rules",
	}
	sum.Activity.Unit, sum.Activity.Buckets = activityBuckets(p, start, end)
	var errs, done []KeyEvent
	firstOfType := map[string]KeyEvent{}
	rules := &s.events.Tasks
	err := s.eachEvent(ctx, scope, EventQuery{From: &start, To: &end}, func(e Event) error {
		sum.Events++
		sum.Types[e.Type]++
		if e.Source != "" {
			sum.Sources[e.Source]++
		}
		if i := bucketOf(sum.Activity.Unit, start, e.TS); i >= 0 && i < len(sum.Activity.Buckets) {
			sum.Activity.Buckets[i]++
		}
		if sum.Types[e.Type] == 1 {
			firstOfType[e.Type] = KeyEvent{ID: e.ID, TS: e.TS, Type: e.Type, Why: "rare"}
		}
		if !mayHaveFacts(e) && !rules.typeMatches(e.Type) {
			return nil
		}
		f := rules.facts(e)
		if f.Error {
			sum.Errors++
			sum.ErrorTypes[e.Type]++
			if len(errs) < maxKeyEvents {
				why := "error"
				if f.Outcome == OutcomeFailure {
					why = "failed"
				}
				errs = append(errs, KeyEvent{ID: e.ID, TS: e.TS, Type: e.Type, Why: why})
			}
		}
		if f.Outcome == OutcomeNone {
			return nil
		}
		name := cmp.Or(f.Capability, f.TaskType)
		use := sum.CapabilityUse[name]
		if f.Outcome == OutcomeSuccess {
			sum.Tasks.Succeeded++
			use.Succeeded++
			if len(done) < maxKeyEvents {
				done = append(done, KeyEvent{ID: e.ID, TS: e.TS, Type: e.Type, Why: "completed"})
			}
		} else {
			sum.Tasks.Failed++
			use.Failed++
		}
		sum.CapabilityUse[name] = use
		return nil
	})
	if err != nil {
		return Summary{}, err
	}
	if n := sum.Tasks.Succeeded + sum.Tasks.Failed; n > 0 {
		sum.CompletionRate = float64(sum.Tasks.Succeeded) / float64(n)
	}
	key := append(errs, done...)
	for _, t := range slices.Sorted(maps.Keys(firstOfType)) {
		if sum.Types[t] == 1 && !slices.ContainsFunc(key, func(k KeyEvent) bool { return k.ID == firstOfType[t].ID }) {
			key = append(key, firstOfType[t])
		}
	}
	if len(key) > maxKeyEvents {
		key = key[:maxKeyEvents]
	}
	slices.SortStableFunc(key, func(a, b KeyEvent) int { return a.TS.Compare(b.TS) })
	sum.KeyEvents = key
	busiest := -1
	for i, n := range sum.Activity.Buckets {
		if n > 0 {
			sum.Activity.Active++
			if busiest < 0 || n > sum.Activity.Buckets[busiest] {
				busiest = i
			}
		}
	}
	if busiest >= 0 {
		t := bucketStart(sum.Activity.Unit, start, busiest)
		sum.Activity.Busiest = &t
	}
	sum.GeneratedAt = s.now().UTC()
	return sum, nil
}

// mayHaveFacts says whether an event's data or metadata may hold a field
// the task rules read: a cheap test that spares decoding most events.
func mayHaveFacts(e Event) bool {
	for _, raw := range [][]byte{e.Data, e.Metadata} {
		if len(raw) > 0 && raw[0] == '{' && (bytes.Contains(raw, []byte(`"status"`)) || bytes.Contains(raw, []byte(`"error"`)) ||
			bytes.Contains(raw, []byte(`"level"`)) || bytes.Contains(raw, []byte(`"capability"`))) {
			return true
		}
	}
	return false
}

// typeMatches says whether a type ends in an outcome or error suffix.
func (r *TaskRules) typeMatches(typ string) bool {
	for _, ss := range [][]string{r.SuccessSuffixes, r.FailureSuffixes, r.ErrorSuffixes} {
		if _, _, ok := cutSuffix(typ, ss); ok {
			return true
		}
	}
	return false
}

// activityBuckets returns the unit and the empty buckets of a period.
func activityBuckets(p Period, start, end time.Time) (string, []int) {
	switch p {
	case PeriodHour:
		return "minute", make([]int, 60)
	case PeriodDay:
		return "hour", make([]int, 24)
	case PeriodYear:
		return "month", make([]int, 12)
	}
	return "day", make([]int, int(end.Sub(start).Hours()/24+0.5))
}

func bucketOf(unit string, start, ts time.Time) int {
	switch unit {
	case "minute":
		return int(ts.Sub(start) / time.Minute)
	case "hour":
		return int(ts.Sub(start) / time.Hour)
	case "month":
		return int(ts.Month()) - 1
	}
	return int(ts.Sub(start) / (24 * time.Hour))
}

func bucketStart(unit string, start time.Time, i int) time.Time {
	switch unit {
	case "minute":
		return start.Add(time.Duration(i) * time.Minute)
	case "hour":
		return start.Add(time.Duration(i) * time.Hour)
	case "month":
		return start.AddDate(0, i, 0)
	}
	return start.AddDate(0, 0, i)
}

// addInsights writes a long summary's trends, patterns and suggestions:
// the configured EventInsighter's, or the rules' when there is none or it
// fails (and Note says so).
func (s *Service) addInsights(ctx context.Context, is InsightStore, sum *Summary) {
	var prev *Summary
	prevStart, _ := sum.Period.Bounds(sum.Start.Add(-time.Nanosecond))
	if got, err := is.Summaries(ctx, sum.Scope, SummaryQuery{Period: sum.Period, From: &prevStart, To: &sum.Start, Limit: 1}); err == nil && len(got) > 0 {
		prev = &got[0]
	}
	if in := s.events.Insighter; in != nil {
		ins, err := in.EventInsights(ctx, *sum, prev)
		if err == nil && len(ins.Trends)+len(ins.Patterns)+len(ins.Suggestions) > 0 {
			sum.Trends, sum.Patterns, sum.Suggestions, sum.Generator = ins.Trends, ins.Patterns, ins.Suggestions, "llm"
			return
		}
		if err == nil {
			err = fmt.Errorf("the answer had no insights")
		}
		sum.Note = "LLM insights failed, rules used instead: " + ErrorMessage(err)
		s.log.Warn("event summary: LLM insights failed, rules used", "period", sum.Period, "start", sum.Start, "err", err)
	}
	ins := ruleInsights(*sum, prev)
	sum.Trends, sum.Patterns, sum.Suggestions, sum.Generator = ins.Trends, ins.Patterns, ins.Suggestions, "rules"
}

// ruleInsights are the deterministic insights of a summary.
func ruleInsights(sum Summary, prev *Summary) Insights {
	var in Insights
	pct := func(r float64) string { return fmt.Sprintf("%.0f%%", r*100) }
	if prev != nil {
		in.Trends = append(in.Trends, fmt.Sprintf("events %s: %d this %s, %d the previous one", direction(prev.Events, sum.Events), sum.Events, sum.Period, prev.Events))
		in.Trends = append(in.Trends, fmt.Sprintf("errors %s: %d, from %d", direction(prev.Errors, sum.Errors), sum.Errors, prev.Errors))
		if prev.Tasks.Succeeded+prev.Tasks.Failed > 0 && sum.Tasks.Succeeded+sum.Tasks.Failed > 0 {
			in.Trends = append(in.Trends, fmt.Sprintf("task completion rate %s: %s, from %s", direction(int(prev.CompletionRate*1000), int(sum.CompletionRate*1000)), pct(sum.CompletionRate), pct(prev.CompletionRate)))
		}
	} else {
		half := len(sum.Activity.Buckets) / 2
		a, b := 0, 0
		for i, n := range sum.Activity.Buckets {
			if i < half {
				a += n
			} else {
				b += n
			}
		}
		in.Trends = append(in.Trends, fmt.Sprintf("events %s within the %s: %d in its first half, %d in its second", direction(a, b), sum.Period, a, b))
	}
	if sum.Activity.Busiest != nil {
		in.Patterns = append(in.Patterns, fmt.Sprintf("busiest %s: %s (%d of %d %ss active)", sum.Activity.Unit, sum.Activity.Busiest.Format(time.RFC3339), sum.Activity.Active, len(sum.Activity.Buckets), sum.Activity.Unit))
	}
	if t, n := top(sum.Types); n > 0 {
		in.Patterns = append(in.Patterns, fmt.Sprintf("most frequent event type: %s (%d of %d)", t, n, sum.Events))
	}
	if t, n := top(sum.ErrorTypes); n >= 3 {
		in.Patterns = append(in.Patterns, fmt.Sprintf("recurring error: %s (%d times)", t, n))
	}
	for _, name := range slices.Sorted(maps.Keys(sum.CapabilityUse)) {
		u := sum.CapabilityUse[name]
		if n := u.Succeeded + u.Failed; u.Failed >= 2 && float64(u.Failed)/float64(n) >= 0.3 {
			in.Suggestions = append(in.Suggestions, fmt.Sprintf("review %s: %d of %d attempts failed; look at their failure lessons before the next one", name, u.Failed, n))
		}
	}
	if prev != nil && sum.Errors > prev.Errors && sum.Errors >= 3 {
		in.Suggestions = append(in.Suggestions, fmt.Sprintf("errors rose from %d to %d: check what changed this %s", prev.Errors, sum.Errors, sum.Period))
	}
	if len(in.Suggestions) == 0 {
		in.Suggestions = append(in.Suggestions, "nothing needs attention: no task type fails often and errors did not rise")
	}
	return in
}

func direction(before, after int) string {
	switch {
	case after > before:
		return "rose"
	case after < before:
		return "fell"
	}
	return "held steady"
}

// top returns the largest count of m (the first name on ties).
func top(m map[string]int) (string, int) {
	name, n := "", 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] > n {
			name, n = k, m[k]
		}
	}
	return name, n
}

// SummarizeClosed generates the summaries of the last closed hour, day,
// week, month and year of every scope with events in the last year and
// more, that are not stored yet or were generated before their period
// closed, and drops hour and day summaries older than a year. It is what
// serve runs on its ticker; it returns how many summaries it wrote.
func (s *Service) SummarizeClosed(ctx context.Context) (int, error) {
	is, err := s.insightStore()
	if err != nil {
		return 0, err
	}
	now := s.now().UTC()
	yearStart, _ := PeriodYear.Bounds(now)
	since, _ := PeriodYear.Bounds(yearStart.Add(-time.Nanosecond))
	scopes, err := is.EventScopes(ctx, since)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sc := range scopes {
		for _, p := range Periods {
			cur, _ := p.Bounds(now)
			start, end := p.Bounds(cur.Add(-time.Nanosecond))
			got, err := is.Summaries(ctx, sc, SummaryQuery{Period: p, From: &start, To: &end, Limit: 1})
			if err != nil {
				return n, err
			}
			if len(got) > 0 && !got[0].GeneratedAt.Before(end) {
				continue
			}
			sum, err := s.summarize(ctx, sc, p, start)
			if err != nil {
				return n, err
			}
			if sum.Events == 0 && len(got) == 0 {
				continue
			}
			if p.long() {
				s.addInsights(ctx, is, &sum)
			}
			if err := is.PutSummary(ctx, sc, sum); err != nil {
				return n, err
			}
			n++
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
	}
	if _, err := s.DropOldSummaries(ctx); err != nil {
		return n, err
	}
	return n, nil
}

// DropOldSummaries applies seed 002's retention: hour and day summaries of
// periods that ended more than a year ago are deleted; week, month and
// year summaries are kept. It returns how many it deleted.
func (s *Service) DropOldSummaries(ctx context.Context) (int, error) {
	is, err := s.insightStore()
	if err != nil {
		return 0, err
	}
	return is.DropSummaries(ctx, []Period{PeriodHour, PeriodDay}, s.now().Add(-SummaryRetention))
}
