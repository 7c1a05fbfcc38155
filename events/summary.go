package events

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/security"
)

// isLong says whether the period's summary has trends, patterns and
// suggestions (EVT-10: week and month; year too).
func isLong(p mnemo.Period) bool {
	return p == mnemo.PeriodWeek || p == mnemo.PeriodMonth || p == mnemo.PeriodYear
}

// Insights are the trends, patterns and suggestions of a long summary.
type Insights struct {
	Trends      []string `json:"trends"`
	Patterns    []string `json:"patterns"`
	Suggestions []string `json:"suggestions"`
}

// Insighter writes a long summary's insights from its statistics (an
// LLM). prev is the previous period's summary when one is stored.
type Insighter interface {
	EventInsights(ctx context.Context, s mnemo.Summary, prev *mnemo.Summary) (Insights, error)
}

// SummaryRetention is how long hour and day summaries are kept (EVT-16:
// a year); week, month and year summaries are kept for good.
const SummaryRetention = 365 * 24 * time.Hour

// insightStore returns the store as an InsightStore, or EUNAVAILABLE.
func (s *Service) insightStore() (mnemo.InsightStore, error) {
	is, ok := s.store.Insights, s.store.Insights != nil
	if !ok {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "this store keeps no summaries or capabilities")
	}
	return is, nil
}

// Summarize generates, stores and returns the summary of the period of
// scope's events that contains at (now when zero). Generating a period
// again replaces its summary. Errors: EINVALID (an unknown period),
// EUNAVAILABLE.
func (s *Service) Summarize(ctx context.Context, scope mnemo.Scope, period mnemo.Period, at time.Time) (mnemo.Summary, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Summary{}, err
	}
	p, err := mnemo.ParsePeriod(string(period))
	if err != nil {
		return mnemo.Summary{}, err
	}
	if err := mnemo.CheckTime("at", at); err != nil { // TIME-1
		return mnemo.Summary{}, err
	}
	is, err := s.insightStore()
	if err != nil {
		return mnemo.Summary{}, err
	}
	if at.IsZero() {
		at = s.now()
	}
	sum, err := s.summarize(ctx, scope, p, at)
	if err != nil {
		return mnemo.Summary{}, err
	}
	if isLong(p) {
		s.addInsights(ctx, is, &sum)
	}
	if err := is.PutSummary(ctx, scope, sum); err != nil {
		return mnemo.Summary{}, err
	}
	return sum, nil
}

// Summaries returns stored summaries of scope. Errors: EINVALID (an unknown
// period, a window that runs backwards, a bad limit), EUNAVAILABLE.
func (s *Service) Summaries(ctx context.Context, scope mnemo.Scope, q mnemo.SummaryQuery) ([]mnemo.Summary, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	if q.Period != "" {
		p, err := mnemo.ParsePeriod(string(q.Period))
		if err != nil {
			return nil, err
		}
		q.Period = p
	}
	if err := cmp.Or(mnemo.CheckTimePtr("from", q.From), mnemo.CheckTimePtr("to", q.To)); err != nil { // TIME-1
		return nil, err
	}
	if q.From != nil && q.To != nil && q.From.After(*q.To) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "time window runs backwards: from %s is after to %s",
			q.From.UTC().Format(time.RFC3339Nano), q.To.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit < 0 || q.Limit > mnemo.MaxListLimit {
		return nil, mnemo.Errorf(mnemo.EINVALID, "limit must be 1 to %d", mnemo.MaxListLimit)
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	is, err := s.insightStore()
	if err != nil {
		return nil, err
	}
	sums, err := is.Summaries(ctx, scope, q)
	for i := range sums {
		levelSummary(&sums[i])
	}
	return sums, err
}

// levelSummary gives a summary stored before levels were kept the level
// its own text calls for (SEC-12); the level of its events is lost with
// them.
func levelSummary(sum *mnemo.Summary) {
	if sum.SecurityLevel == "" {
		classifySummary(sum)
	}
}

// maxKeyEvents bounds a summary's key events.
const maxKeyEvents = 10

// summarize computes the statistics of a period from its events.
func (s *Service) summarize(ctx context.Context, scope mnemo.Scope, p mnemo.Period, at time.Time) (mnemo.Summary, error) {
	start, end := p.Bounds(at)
	sum := mnemo.Summary{
		Scope: scope, Period: p, Start: start, End: end,
		Types: map[string]int{}, Sources: map[string]int{}, ErrorTypes: map[string]int{},
		CapabilityUse: map[string]mnemo.TaskCount{}, Generator: "rules",
		SecurityLevel: mnemo.SecurityInternal,
	}
	sum.Activity.Unit, sum.Activity.Buckets = activityBuckets(p, start, end)
	var errs, done []mnemo.KeyEvent
	firstOfType := map[string]mnemo.KeyEvent{}
	rules := &s.events.Tasks
	err := s.eachEvent(ctx, scope, mnemo.EventQuery{From: &start, To: &end}, func(e mnemo.Event) error {
		sum.Events++
		sum.SecurityLevel = mnemo.Highest(sum.SecurityLevel, e.SecurityLevel) // SEC-12
		sum.Types[e.Type]++
		if e.Source != "" {
			sum.Sources[e.Source]++
		}
		if i := bucketOf(sum.Activity.Unit, start, e.TS); i >= 0 && i < len(sum.Activity.Buckets) {
			sum.Activity.Buckets[i]++
		}
		if sum.Types[e.Type] == 1 {
			firstOfType[e.Type] = mnemo.KeyEvent{ID: e.ID, TS: e.TS, Type: e.Type, Why: "rare"}
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
				errs = append(errs, mnemo.KeyEvent{ID: e.ID, TS: e.TS, Type: e.Type, Why: why})
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
				done = append(done, mnemo.KeyEvent{ID: e.ID, TS: e.TS, Type: e.Type, Why: "completed"})
			}
		} else {
			sum.Tasks.Failed++
			use.Failed++
		}
		sum.CapabilityUse[name] = use
		return nil
	})
	if err != nil {
		return mnemo.Summary{}, err
	}
	if n := sum.Tasks.Succeeded + sum.Tasks.Failed; n > 0 {
		sum.CompletionRate = float64(sum.Tasks.Succeeded) / float64(n)
	}
	key := append(errs, done...)
	for _, t := range slices.Sorted(maps.Keys(firstOfType)) {
		if sum.Types[t] == 1 && !slices.ContainsFunc(key, func(k mnemo.KeyEvent) bool { return k.ID == firstOfType[t].ID }) {
			key = append(key, firstOfType[t])
		}
	}
	if len(key) > maxKeyEvents {
		key = key[:maxKeyEvents]
	}
	slices.SortStableFunc(key, func(a, b mnemo.KeyEvent) int { return a.TS.Compare(b.TS) })
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
	classifySummary(&sum)
	return sum, nil
}

// summaryText is the text of a summary that came from its events or a
// model: names and insights, not counts and times.
func summaryText(sum *mnemo.Summary) string {
	parts := slices.Concat(slices.Collect(maps.Keys(sum.Types)), slices.Collect(maps.Keys(sum.Sources)),
		slices.Collect(maps.Keys(sum.CapabilityUse)), sum.Trends, sum.Patterns, sum.Suggestions, []string{sum.Note})
	return strings.Join(parts, "\n")
}

// classifySummary raises a summary's level to what its own text calls for
// (SEC-12): at least its events', and the classifier's of what it says.
func classifySummary(sum *mnemo.Summary) {
	sum.SecurityLevel = security.ClassifyText(summaryText(sum), cmp.Or(sum.SecurityLevel, mnemo.SecurityInternal))
}

// mayHaveFacts says whether an event's data or metadata may hold a field
// the task rules read: a cheap test that spares decoding most events.
func mayHaveFacts(e mnemo.Event) bool {
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
func activityBuckets(p mnemo.Period, start, end time.Time) (string, []int) {
	switch p {
	case mnemo.PeriodHour:
		return "minute", make([]int, 60)
	case mnemo.PeriodDay:
		return "hour", make([]int, 24)
	case mnemo.PeriodYear:
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
// the configured Insighter's, or the rules' when there is none or it
// fails (and Note says so).
func (s *Service) addInsights(ctx context.Context, is mnemo.InsightStore, sum *mnemo.Summary) {
	var prev *mnemo.Summary
	prevStart, _ := sum.Period.Bounds(sum.Start.Add(-time.Nanosecond))
	if got, err := is.Summaries(ctx, sum.Scope, mnemo.SummaryQuery{Period: sum.Period, From: &prevStart, To: &sum.Start, Limit: 1}); err == nil && len(got) > 0 {
		prev = &got[0]
	}
	if in := s.events.Insighter; in != nil {
		ins, err := in.EventInsights(ctx, *sum, prev)
		if err == nil && len(ins.Trends)+len(ins.Patterns)+len(ins.Suggestions) > 0 {
			sum.Trends, sum.Patterns, sum.Suggestions, sum.Generator = ins.Trends, ins.Patterns, ins.Suggestions, "llm"
			// The model read the previous summary too (SEC-12).
			if prev != nil {
				sum.SecurityLevel = mnemo.Highest(sum.SecurityLevel, prev.SecurityLevel)
			}
			classifySummary(sum)
			return
		}
		if err == nil {
			err = fmt.Errorf("the answer had no insights")
		}
		sum.Note = "LLM insights failed, rules used instead: " + mnemo.ErrorMessage(err)
		s.log.Warn("event summary: LLM insights failed, rules used", "period", sum.Period, "start", sum.Start, "err", err)
	}
	ins := ruleInsights(*sum, prev)
	sum.Trends, sum.Patterns, sum.Suggestions, sum.Generator = ins.Trends, ins.Patterns, ins.Suggestions, "rules"
	classifySummary(sum)
}

// ruleInsights are the deterministic insights of a summary.
func ruleInsights(sum mnemo.Summary, prev *mnemo.Summary) Insights {
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
	yearStart, _ := mnemo.PeriodYear.Bounds(now)
	since, _ := mnemo.PeriodYear.Bounds(yearStart.Add(-time.Nanosecond))
	scopes, err := is.EventScopes(ctx, since)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sc := range scopes {
		for _, p := range mnemo.Periods {
			cur, _ := p.Bounds(now)
			start, end := p.Bounds(cur.Add(-time.Nanosecond))
			got, err := is.Summaries(ctx, sc, mnemo.SummaryQuery{Period: p, From: &start, To: &end, Limit: 1})
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
			if isLong(p) {
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

// DropOldSummaries applies EVT-16: hour and day summaries of
// periods that ended more than a year ago are deleted; week, month and
// year summaries are kept. It returns how many it deleted.
func (s *Service) DropOldSummaries(ctx context.Context) (int, error) {
	is, err := s.insightStore()
	if err != nil {
		return 0, err
	}
	return is.DropSummaries(ctx, []mnemo.Period{mnemo.PeriodHour, mnemo.PeriodDay}, s.now().Add(-SummaryRetention))
}
