package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

func TestCapabilitiesAndEventSummary(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			svc := newService(t)
			t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
			var evs []mnemo.Event
			for i, typ := range []string{"DeployFailed", "DeployCompleted", "DeployCompleted", "DeployCompleted", "ReportCompleted"} {
				data := `{"tools":["kubectl"],"description":"deploy the api"}`
				if i == 0 {
					data = `{"error":"image missing"}`
				}
				evs = append(evs, mnemo.Event{Type: typ, Source: "w", TS: t0.Add(time.Duration(i) * time.Minute), Data: json.RawMessage(data)})
			}
			if _, err := svc.AppendEvents(t.Context(), alice, evs); err != nil {
				t.Fatal(err)
			}
			cs := tr.connect(t, svc)

			var caps struct {
				Count        int
				Capabilities []events.CapabilityMatch
			}
			res := ok(t, cs, "capabilities", map[string]any{"text": "deploy the service"}, &caps)
			if caps.Count != 1 || caps.Capabilities[0].TaskType != "Deploy" || caps.Capabilities[0].Successes != 3 ||
				!strings.Contains(text(res), "Lesson: image missing") {
				t.Fatalf("capabilities: %+v %q", caps, text(res))
			}
			ok(t, cs, "capabilities", map[string]any{"task_type": "Report"}, &caps)
			if caps.Count != 0 {
				t.Fatalf("a task type that succeeded once is no capability: %+v", caps)
			}

			var sum mnemo.Summary
			res = ok(t, cs, "event_summary", map[string]any{"period": "week", "at": t0.Format(time.RFC3339)}, &sum)
			if sum.Events != 5 || sum.Tasks.Succeeded != 4 || sum.Tasks.Failed != 1 || len(sum.Suggestions) == 0 || !strings.Contains(text(res), "5 events") {
				t.Fatalf("event_summary: %+v %q", sum, text(res))
			}
			fails(t, cs, "event_summary", map[string]any{"period": "fortnight"}, mnemo.EINVALID)
			// Another agent sees none of it.
			bob := connectMemory(t, svc, mnemo.Scope{TenantID: alice.TenantID, AgentID: "bob"})
			ok(t, bob, "capabilities", map[string]any{"text": "deploy the service"}, &caps)
			ok(t, bob, "event_summary", map[string]any{"period": "week", "at": t0.Format(time.RFC3339)}, &sum)
			if caps.Count != 0 || sum.Events != 0 {
				t.Fatalf("bob sees alice's capabilities (%+v) or events (%d)", caps, sum.Events)
			}
		})
	}
}
