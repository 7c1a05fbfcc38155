package events

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// TaskRules say what a task, a success and an error are in events, for the
// summaries (L4, EVT-10) and the capabilities (L5, EVT-11). The conventions:
//
//   - A task outcome is an event whose data.status is one of
//     SuccessStatuses or FailureStatuses, or, without a status, whose type
//     ends in one of SuccessSuffixes (TaskCompleted, deploy.succeeded) or
//     FailureSuffixes (TaskFailed, deploy.failed), matched as the relation
//     rules match types (any spelling, at a word boundary).
//   - Its task type is data.task_type (TaskField), else data.task when it
//     is a string, else the event type without its outcome suffix
//     ("DeployCompleted" → "Deploy"), else the type itself.
//   - An error is a failed task, an event whose type ends in one of
//     ErrorSuffixes (ToolError, tool.failed), or one whose data.level is
//     "error" or whose data.error is set.
//   - What an outcome used and needed: data.tools (strings) or data.tool;
//     data.conditions (strings, a string, or an object of name: value);
//     what it did: data.description, data.summary or data.input; what went
//     wrong: data.error, data.reason or data.lesson.
//
// Metadata is read where data does not say.
type TaskRules struct {
	SuccessSuffixes []string
	FailureSuffixes []string
	ErrorSuffixes   []string
	SuccessStatuses []string
	FailureStatuses []string
	// TaskField is the data field naming the task type ("task_type").
	TaskField string
	// MinSuccesses is how many successes of a task type make it a
	// capability (EVT-11: 3).
	MinSuccesses int
}

// DefaultTaskRules returns the conventions a Service uses unless configured.
func DefaultTaskRules() TaskRules {
	return TaskRules{
		SuccessSuffixes: []string{"Completed", "Succeeded", "Success", "Done", "Finished"},
		FailureSuffixes: []string{"Failed", "Failure", "Errored", "Aborted"},
		ErrorSuffixes:   []string{"Failed", "Failure", "Error", "Errored", "Exception"},
		SuccessStatuses: []string{"success", "succeeded", "completed", "complete", "ok", "done"},
		FailureStatuses: []string{"failure", "failed", "error", "errored", "aborted"},
		TaskField:       "task_type",
		MinSuccesses:    3,
	}
}

func (r TaskRules) withDefaults() TaskRules {
	d := DefaultTaskRules()
	if r.SuccessSuffixes == nil {
		r.SuccessSuffixes = d.SuccessSuffixes
	}
	if r.FailureSuffixes == nil {
		r.FailureSuffixes = d.FailureSuffixes
	}
	if r.ErrorSuffixes == nil {
		r.ErrorSuffixes = d.ErrorSuffixes
	}
	if r.SuccessStatuses == nil {
		r.SuccessStatuses = d.SuccessStatuses
	}
	if r.FailureStatuses == nil {
		r.FailureStatuses = d.FailureStatuses
	}
	if r.TaskField == "" {
		r.TaskField = d.TaskField
	}
	if r.MinSuccesses <= 0 {
		r.MinSuccesses = d.MinSuccesses
	}
	return r
}

// Outcomes of a task.
const (
	OutcomeNone    = ""
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
)

// eventFacts is what the task rules read of one event.
type eventFacts struct {
	Outcome    string // OutcomeSuccess, OutcomeFailure or none
	TaskType   string // when Outcome is set
	Error      bool
	Capability string // data.capability: the capability the event says it used
	Tools      []string
	Conditions []string
	What       string // what it did
	Lesson     string // what went wrong
}

// facts reads e by the rules. Data that is not an object has no fields.
func (r *TaskRules) facts(e mnemo.Event) eventFacts {
	var f eventFacts
	var fields []map[string]json.RawMessage
	for _, raw := range []json.RawMessage{e.Data, e.Metadata} {
		if len(raw) == 0 || raw[0] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			fields = append(fields, m)
		}
	}
	str := func(name string) string {
		for _, m := range fields {
			if v, ok := m[name]; ok {
				if s := jsonString(v); s != "" {
					return s
				}
			}
		}
		return ""
	}
	status := strings.ToLower(str("status"))
	switch {
	case status != "" && containsFold(r.SuccessStatuses, status):
		f.Outcome = OutcomeSuccess
	case status != "" && containsFold(r.FailureStatuses, status):
		f.Outcome = OutcomeFailure
	}
	prefix := ""
	if _, _, ok := cutSuffix(e.Type, r.ErrorSuffixes); ok {
		f.Error = true
	}
	if p, _, ok := cutSuffix(e.Type, r.FailureSuffixes); ok {
		prefix = p
		if status == "" {
			f.Outcome = OutcomeFailure
		}
	} else if p, _, ok := cutSuffix(e.Type, r.SuccessSuffixes); ok {
		prefix = p
		if status == "" {
			f.Outcome = OutcomeSuccess
		}
	}
	errText := str("error")
	if f.Outcome == OutcomeFailure || errText != "" || strings.EqualFold(str("level"), "error") {
		f.Error = true
	}
	f.Capability = str("capability")
	if f.Outcome == OutcomeNone {
		return f
	}
	f.TaskType = str(r.TaskField)
	if f.TaskType == "" {
		f.TaskType = str("task")
	}
	if f.TaskType == "" {
		f.TaskType = strings.TrimRight(prefix, "._-:/ ")
	}
	if f.TaskType == "" {
		f.TaskType = e.Type
	}
	if f.TaskType == "" {
		// Nothing names the task (an event without a type, as an import
		// may hold): an outcome of no task is not counted.
		f.Outcome = OutcomeNone
		return f
	}
	for _, m := range fields {
		f.Tools = appendStrings(f.Tools, m["tools"])
		f.Tools = appendStrings(f.Tools, m["tool"])
		f.Conditions = appendConditions(f.Conditions, m["conditions"])
	}
	f.What = firstNonEmpty(str("description"), str("summary"), str("input"), str("text"))
	f.Lesson = firstNonEmpty(errText, str("reason"), str("lesson"))
	return f
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(v string) bool { return strings.EqualFold(v, s) })
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// jsonString is a JSON string's value, a number's or bool's text, or "".
func jsonString(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return strings.TrimSpace(s)
		}
	case '{', '[', 'n':
		return ""
	default:
		return string(v)
	}
	return ""
}

// appendStrings adds a string or the strings of an array.
func appendStrings(out []string, v json.RawMessage) []string {
	if len(v) == 0 {
		return out
	}
	if v[0] == '[' {
		var vs []json.RawMessage
		if json.Unmarshal(v, &vs) == nil {
			for _, x := range vs {
				if s := jsonString(x); s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
		return out
	}
	if s := jsonString(v); s != "" && !slices.Contains(out, s) {
		out = append(out, s)
	}
	return out
}

// appendConditions adds conditions given as strings, a string, or an
// object of name: value ("name=value").
func appendConditions(out []string, v json.RawMessage) []string {
	if len(v) == 0 || v[0] != '{' {
		return appendStrings(out, v)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return out
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := k
		if s := jsonString(m[k]); s != "" {
			c = fmt.Sprintf("%s=%s", k, s)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
