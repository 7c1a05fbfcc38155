package mnemo

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Period is the granularity of a summary (EVT-10). Periods are in
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

// Summary is one period's digest of a scope's events (EVT-10). Every
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
	// SecurityLevel is the highest level of the period's events and of
	// its own text (SEC-12): a summary is as secret as what it digests.
	SecurityLevel string `json:"security_level,omitempty"`
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

// SummaryQuery selects stored summaries: of one period (all when empty),
// starting in [From, To).
type SummaryQuery struct {
	Period Period     `json:"period,omitempty"`
	From   *time.Time `json:"from,omitempty"`
	To     *time.Time `json:"to,omitempty"`
	Limit  int        `json:"limit,omitempty"` // 0: 100; at most MaxListLimit
}

// InsightStore keeps summaries (L4) and capabilities (L5). It does not embed
// EventStore: the events they are made from are read through the
// Backend's Events. A Service whose store is not an InsightStore answers
// their calls with EUNAVAILABLE.
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

// Capability is a reusable skill of the fifth event layer, L5 (EVT-11): a task
// type that succeeded at least TaskRules.MinSuccesses times, with what it
// takes and what went wrong before. Successes and failures are counted
// from every outcome of the type; the rest is kept current as outcomes
// arrive.
type Capability struct {
	TaskType       string     `json:"task_type"`
	Name           string     `json:"name"`
	Description    string     `json:"description"`
	Conditions     []string   `json:"conditions"`
	Tools          []string   `json:"tools"`
	SuccessCases   []TaskCase `json:"success_cases"`
	FailureLessons []TaskCase `json:"failure_lessons"`
	Successes      int        `json:"successes"`
	Failures       int        `json:"failures"`
	// Ready says the type has succeeded often enough to be a capability;
	// queries return only ready ones.
	Ready bool `json:"ready"`
	// Extractor is who wrote name, description, conditions and lessons:
	// "llm" or "rules"; Note says why the rules were used when an LLM is
	// configured.
	Extractor string    `json:"extractor"`
	Note      string    `json:"note,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// ToolUses and ConditionSeen count, over successes, each tool and
	// condition: Tools and Conditions are derived from them.
	ToolUses      map[string]int `json:"tool_uses,omitempty"`
	ConditionSeen map[string]int `json:"condition_seen,omitempty"`
	// DescribedAt is Successes when the LLM last described it.
	DescribedAt int `json:"described_at,omitempty"`
	// SecurityLevel is the highest level of the outcomes it learnt from
	// and of its own text (SEC-12); it never goes down as outcomes arrive.
	SecurityLevel string `json:"security_level,omitempty"`
}

// TaskCase is one outcome a capability learnt from.
type TaskCase struct {
	EventID string    `json:"event_id"`
	TS      time.Time `json:"ts"`
	Text    string    `json:"text,omitempty"` // what it did, or what went wrong
}
