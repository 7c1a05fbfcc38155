package events

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestTaskFacts(t *testing.T) {
	r := DefaultTaskRules()
	for _, tc := range []struct {
		name, typ, data string
		outcome, task   string
		isErr           bool
		tools, conds    []string
	}{
		{"completed type", "DeployCompleted", ``, OutcomeSuccess, "Deploy", false, nil, nil},
		{"failed type", "deploy.failed", `{"error":"x"}`, OutcomeFailure, "deploy", true, nil, nil},
		{"status decides", "task.finished", `{"status":"error","task_type":"sync"}`, OutcomeFailure, "sync", true, nil, nil},
		{"status over a success type", "TaskCompleted", `{"status":"failed"}`, OutcomeFailure, "Task", true, nil, nil},
		{"status alone", "Step", `{"status":"ok","task":"index"}`, OutcomeSuccess, "index", false, nil, nil},
		{"unknown status", "Step", `{"status":"pending"}`, OutcomeNone, "", false, nil, nil},
		{"error event", "ToolError", ``, OutcomeNone, "", true, nil, nil},
		{"error field", "ToolCalled", `{"error":"boom"}`, OutcomeNone, "", true, nil, nil},
		{"level", "Log", `{"level":"ERROR"}`, OutcomeNone, "", true, nil, nil},
		{"no word boundary", "Undone", ``, OutcomeNone, "", false, nil, nil},
		{"tools and conditions", "BuildSucceeded", `{"tools":["go",1,"go"],"tool":"make","conditions":{"os":"linux","cgo":false}}`, OutcomeSuccess, "Build",
			false, []string{"go", "1", "make"}, []string{"cgo=false", "os=linux"}},
		{"metadata", "Done", ``, OutcomeSuccess, "Done", false, nil, nil},
		{"data not an object", "JobDone", `[1,2]`, OutcomeSuccess, "Job", false, nil, nil},
		{"no type and no task", "", `{"status":"ok"}`, OutcomeNone, "", false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mnemo.Event{Type: tc.typ}
			if tc.data != "" {
				e.Data = json.RawMessage(tc.data)
			}
			f := r.facts(e)
			if f.Outcome != tc.outcome || f.TaskType != tc.task || f.Error != tc.isErr ||
				!slices.Equal(f.Tools, tc.tools) || !slices.Equal(f.Conditions, tc.conds) {
				t.Errorf("facts = %+v; want outcome %q task %q error %v tools %v conditions %v", f, tc.outcome, tc.task, tc.isErr, tc.tools, tc.conds)
			}
			// The cheap pre-test never skips an event with facts.
			if (f.Outcome != OutcomeNone || f.Error) && !mayHaveFacts(e) && !r.typeMatches(e.Type) {
				t.Errorf("mayHaveFacts and typeMatches skip it")
			}
		})
	}
}

// FuzzTaskFacts: any event data reads without a panic, and the pre-test
// that spares decoding never skips an event the rules would count.
func FuzzTaskFacts(f *testing.F) {
	for _, s := range []string{`{"status":"ok","tools":["a"]}`, `{"error":{"x":1}}`, `{"conditions":"c"}`, `"x"`, `{"level":"error"}`, `{"task_type":7}`} {
		f.Add("TaskCompleted", s)
	}
	r := DefaultTaskRules()
	f.Fuzz(func(t *testing.T, typ, data string) {
		e := mnemo.Event{Type: typ, TS: time.Unix(0, 0)}
		if json.Valid([]byte(data)) {
			e.Data = json.RawMessage(data)
		}
		facts := r.facts(e)
		if (facts.Outcome != OutcomeNone || facts.Error || facts.Capability != "") && !mayHaveFacts(e) && !r.typeMatches(e.Type) {
			t.Fatalf("pre-test skips %q %s: %+v", typ, data, facts)
		}
		if facts.Outcome != OutcomeNone && facts.TaskType == "" {
			t.Fatalf("an outcome without a task type: %+v", facts)
		}
	})
}
