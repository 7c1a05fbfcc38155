package events_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/service"
)

func TestPeriodBounds(t *testing.T) {
	at := time.Date(2026, 3, 4, 15, 42, 7, 0, time.UTC) // a Wednesday
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		p          mnemo.Period
		start, end time.Time
	}{
		{mnemo.PeriodHour, time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC)},
		{mnemo.PeriodDay, day(2026, 3, 4), day(2026, 3, 5)},
		{mnemo.PeriodWeek, day(2026, 3, 2), day(2026, 3, 9)},
		{mnemo.PeriodMonth, day(2026, 3, 1), day(2026, 4, 1)},
		{mnemo.PeriodYear, day(2026, 1, 1), day(2027, 1, 1)},
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			start, end := tc.p.Bounds(at)
			if !start.Equal(tc.start) || !end.Equal(tc.end) {
				t.Errorf("Bounds = [%s, %s), want [%s, %s)", start, end, tc.start, tc.end)
			}
			// The start of a period is in it; its end is in the next.
			if s, _ := tc.p.Bounds(start); !s.Equal(start) {
				t.Errorf("Bounds(start) starts at %s", s)
			}
			if s, _ := tc.p.Bounds(end); !s.Equal(end) {
				t.Errorf("Bounds(end) starts at %s", s)
			}
		})
	}
	// A Sunday belongs to the week that began on the Monday before.
	if s, _ := mnemo.PeriodWeek.Bounds(day(2026, 3, 8).Add(23 * time.Hour)); !s.Equal(day(2026, 3, 2)) {
		t.Errorf("Sunday's week starts %s", s)
	}
}

// dayOfEvents appends, on 2026-03-01 (alice), a day of agent work: two
// deploys completed and one failed, a tool error, and routine events.
func dayOfEvents(t *testing.T, svc *service.Mnemo, scope mnemo.Scope) []mnemo.Event {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	return mustAppend(t, svc, scope,
		ev("AgentStarted", "w1", t0, ""),
		ev("ToolCalled", "w1", t0.Add(time.Minute), `{"tool":"kubectl"}`),
		ev("DeployCompleted", "w1", t0.Add(2*time.Minute), `{"tools":["kubectl","helm"],"conditions":{"env":"staging"},"description":"deployed api v1"}`),
		ev("ToolError", "w1", t0.Add(3*time.Minute), `{"error":"timeout"}`),
		ev("DeployFailed", "w1", t0.Add(4*time.Minute), `{"error":"image not found"}`),
		ev("task.finished", "w2", t0.Add(5*time.Hour), `{"task_type":"Deploy","status":"success","tools":["kubectl"]}`),
		ev("Heartbeat", "w2", t0.Add(5*time.Hour+time.Minute), ""),
		ev("Heartbeat", "w2", t0.Add(5*time.Hour+2*time.Minute), ""),
	)
}

func TestSummarizeHourAndDay(t *testing.T) {
	c := newClock()
	c.T = time.Date(2026, 3, 2, 0, 30, 0, 0, time.UTC)
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	evs := dayOfEvents(t, svc, alice)
	mustAppend(t, svc, bob, ev("DeployFailed", "w1", evs[0].TS, `{"error":"other agent"}`))

	hour, err := svc.Summarize(ctx, alice, mnemo.PeriodHour, evs[0].TS.Add(30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if hour.Events != 5 || hour.Errors != 2 || hour.ErrorTypes["ToolError"] != 1 || hour.ErrorTypes["DeployFailed"] != 1 {
		t.Errorf("hour: events %d errors %d %v; want 5 events, 2 errors (ToolError, DeployFailed)", hour.Events, hour.Errors, hour.ErrorTypes)
	}
	if hour.Types["ToolCalled"] != 1 || len(hour.Types) != 5 {
		t.Errorf("hour type distribution %v", hour.Types)
	}
	why := map[string]string{}
	for _, k := range hour.KeyEvents {
		why[k.Type] = k.Why
	}
	if why["ToolError"] != "error" || why["DeployFailed"] != "failed" || why["DeployCompleted"] != "completed" {
		t.Errorf("hour key events %+v", hour.KeyEvents)
	}
	if hour.Trends != nil || hour.Generator != "rules" {
		t.Errorf("an hour has no trends: %+v", hour)
	}

	day, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, evs[0].TS)
	if err != nil {
		t.Fatal(err)
	}
	if day.Events != 8 || day.Tasks != (mnemo.TaskCount{Succeeded: 2, Failed: 1}) {
		t.Errorf("day: %d events, tasks %+v; want 8 and 2 succeeded, 1 failed", day.Events, day.Tasks)
	}
	if got := day.CompletionRate; got < 0.66 || got > 0.67 {
		t.Errorf("completion rate %v, want 2/3", got)
	}
	if u := day.CapabilityUse["Deploy"]; u != (mnemo.TaskCount{Succeeded: 2, Failed: 1}) {
		t.Errorf("capability use %v", day.CapabilityUse)
	}
	a := day.Activity
	if a.Unit != "hour" || len(a.Buckets) != 24 || a.Buckets[9] != 5 || a.Buckets[14] != 3 || a.Active != 2 ||
		a.Busiest == nil || !a.Busiest.Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("activity %+v", a)
	}
	if day.Sources["w2"] != 3 {
		t.Errorf("sources %v", day.Sources)
	}

	// Week: trends, patterns and suggestions from the rules; a week without
	// a previous one compares its halves.
	week, err := svc.Summarize(ctx, alice, mnemo.PeriodWeek, evs[0].TS)
	if err != nil {
		t.Fatal(err)
	}
	if week.Generator != "rules" || len(week.Trends) == 0 || len(week.Patterns) == 0 || len(week.Suggestions) == 0 || week.Note != "" {
		t.Errorf("week insights %+v", week)
	}
	if !strings.Contains(strings.Join(week.Patterns, "|"), "most frequent event type: Heartbeat") {
		t.Errorf("week patterns %q", week.Patterns)
	}
}

func TestSummarizeIdempotent(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	evs := dayOfEvents(t, svc, alice)
	for range 3 {
		if _, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, evs[0].TS); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(t, svc, alice, ev("Late", "w1", evs[0].TS.Add(time.Hour), ""))
	if _, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, evs[0].TS.Add(10*time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Summaries(ctx, alice, mnemo.SummaryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Events != 9 || got[0].Period != mnemo.PeriodDay {
		t.Fatalf("after four generations of one day: %d summaries (%+v); want one, of 9 events", len(got), got)
	}
	// Another agent's summaries are its own.
	if got, _ := svc.Summaries(ctx, bob, mnemo.SummaryQuery{}); len(got) != 0 {
		t.Errorf("bob sees %d summaries", len(got))
	}
}

func TestSummaryBadInput(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	from, to := c.T, c.T.Add(-time.Hour)
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"unknown period", func() error { _, err := svc.Summarize(ctx, alice, "fortnight", time.Time{}); return err }, "unknown period"},
		{"unknown period in a query", func() error {
			_, err := svc.Summaries(ctx, alice, mnemo.SummaryQuery{Period: "minute"})
			return err
		}, "unknown period"},
		{"backwards window", func() error {
			_, err := svc.Summaries(ctx, alice, mnemo.SummaryQuery{From: &from, To: &to})
			return err
		}, "runs backwards"},
		{"limit", func() error { _, err := svc.Summaries(ctx, alice, mnemo.SummaryQuery{Limit: -1}); return err }, "limit"},
		{"capability limit", func() error {
			_, err := svc.Capabilities(ctx, alice, events.CapabilityQuery{Limit: mnemo.MaxListLimit + 1})
			return err
		}, "limit"},
		{"no scope", func() error { _, err := svc.Summarize(ctx, mnemo.Scope{}, mnemo.PeriodDay, time.Time{}); return err }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want EINVALID with %q", err, tc.want)
			}
		})
	}
}

func TestSummaryRetention(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	old := c.T.AddDate(-2, 0, 0)
	mustAppend(t, svc, alice, ev("Old", "w", old, ""), ev("New", "w", c.T.Add(-2*time.Hour), ""))
	for _, p := range mnemo.Periods {
		for _, at := range []time.Time{old, c.T.Add(-2 * time.Hour)} {
			if _, err := svc.Summarize(ctx, alice, p, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := svc.DropOldSummaries(ctx)
	if err != nil || n != 2 {
		t.Fatalf("DropOldSummaries = %d, %v; want the old hour and day", n, err)
	}
	got, _ := svc.Summaries(ctx, alice, mnemo.SummaryQuery{})
	kept := map[mnemo.Period]int{}
	for _, s := range got {
		kept[s.Period]++
		if s.Start.Before(c.T.AddDate(-1, 0, 0)) && (s.Period == mnemo.PeriodHour || s.Period == mnemo.PeriodDay) {
			t.Errorf("an old %s summary survived", s.Period)
		}
	}
	want := map[mnemo.Period]int{mnemo.PeriodHour: 1, mnemo.PeriodDay: 1, mnemo.PeriodWeek: 2, mnemo.PeriodMonth: 2, mnemo.PeriodYear: 2}
	for p, n := range want {
		if kept[p] != n {
			t.Errorf("%d %s summaries kept, want %d (all: %v)", kept[p], p, n, kept)
		}
	}
}

func TestSummarizeClosed(t *testing.T) {
	c := newClock() // 2026-03-01 12:00, a Sunday
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	mustAppend(t, svc, alice, ev("DeployCompleted", "w", c.T.Add(-30*time.Minute), ""))
	mustAppend(t, svc, bob, ev("DeployFailed", "w", c.T.Add(-90*time.Minute), ""))
	// The last closed hour (11:00) is summarized; the current one is open,
	// and bob's 10:00 hour is no longer the last closed one (Summarize
	// writes any period on demand).
	n, err := svc.SummarizeClosed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("SummarizeClosed wrote %d summaries, want alice's closed hour", n)
	}
	if n, err = svc.SummarizeClosed(ctx); err != nil || n != 0 {
		t.Fatalf("again: %d, %v; want nothing new", n, err)
	}
	c.Advance(time.Hour)
	c.Advance(12 * time.Hour) // Monday 01:00: the day and the week closed
	if n, err = svc.SummarizeClosed(ctx); err != nil || n != 4 {
		t.Fatalf("after the day and the week: %d, %v; want both for both agents", n, err)
	}
	got, _ := svc.Summaries(ctx, alice, mnemo.SummaryQuery{Period: mnemo.PeriodWeek})
	if len(got) != 1 || got[0].Events != 1 || len(got[0].Suggestions) == 0 {
		t.Errorf("alice's week: %+v", got)
	}
}

// fakeLLM is an OpenAI-compatible chat server answering with answer, or
// failing with status when it is not 0.
func fakeLLM(t *testing.T, answer string, status int) (*llm.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if status != 0 {
			http.Error(w, "down", status)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}}})
	}))
	t.Cleanup(srv.Close)
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", MaxRetries: 0, RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return client, &calls
}

func TestSummaryInsightsLLM(t *testing.T) {
	for _, tc := range []struct {
		name      string
		answer    string
		status    int
		generator string
		note      string
		trend     string
	}{
		{"answers", `{"trends":["deploys are steady"],"patterns":["mornings are busy"],"suggestions":["pin image tags"]}`, 0, "llm", "", "deploys are steady"},
		{"down", "", http.StatusInternalServerError, "rules", "LLM insights failed, rules used instead", "events"},
		{"not JSON", "I think things went fine.", 0, "rules", "no valid JSON", "events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, calls := fakeLLM(t, tc.answer, tc.status)
			c := newClock()
			svc, _ := newEventService(t, c, events.Options{Insighter: client})
			evs := dayOfEvents(t, svc, alice)
			sum, err := svc.Summarize(context.Background(), alice, mnemo.PeriodMonth, evs[0].TS)
			if err != nil {
				t.Fatal(err)
			}
			if calls.Load() == 0 {
				t.Error("the LLM was not asked")
			}
			if sum.Generator != tc.generator || !strings.Contains(sum.Note, tc.note) || len(sum.Trends) == 0 || !strings.HasPrefix(sum.Trends[0], tc.trend) {
				t.Errorf("generator %q note %q trends %q; want %q, %q, %q", sum.Generator, sum.Note, sum.Trends, tc.generator, tc.note, tc.trend)
			}
			if sum.Events != 8 {
				t.Errorf("statistics are the rules' whatever the LLM does: %d events", sum.Events)
			}
			// Hours and days never ask the LLM.
			before := calls.Load()
			if _, err := svc.Summarize(context.Background(), alice, mnemo.PeriodDay, evs[0].TS); err != nil || calls.Load() != before {
				t.Errorf("a day summary asked the LLM (%v)", err)
			}
		})
	}
}

// outcomes returns n events of a task type's outcome, a minute apart.
func outcomes(start time.Time, typ, data string, n int) []mnemo.Event {
	out := make([]mnemo.Event, n)
	for i := range out {
		out[i] = ev(typ, "agent", start.Add(time.Duration(i)*time.Minute), data)
	}
	return out
}

func TestCapabilityThreshold(t *testing.T) {
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		successes int
		want      int
	}{
		{"two successes", 2, 0},
		{"three successes", 3, 1},
		{"five successes", 5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			svc, _ := newEventService(t, c, events.Options{})
			ctx := context.Background()
			// One by one, and a failure between: capabilities learn as
			// events arrive.
			mustAppend(t, svc, alice, ev("ReportFailed", "agent", t0, `{"error":"no data for the week","tools":["sql"]}`))
			for _, e := range outcomes(t0.Add(time.Hour), "ReportCompleted", `{"tools":["sql","charts"],"conditions":["weekly"],"description":"weekly sales report"}`, tc.successes) {
				mustAppend(t, svc, alice, e)
			}
			got, err := svc.Capabilities(ctx, alice, events.CapabilityQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("%d capabilities, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want == 0 {
				return
			}
			c0 := got[0].Capability
			if c0.TaskType != "Report" || c0.Name != "report" || c0.Successes != tc.successes || c0.Failures != 1 ||
				strings.Join(c0.Tools, ",") != "charts,sql" && strings.Join(c0.Tools, ",") != "sql,charts" ||
				strings.Join(c0.Conditions, ",") != "weekly" || c0.Extractor != "rules" {
				t.Errorf("capability %+v", c0)
			}
			if len(c0.FailureLessons) != 1 || c0.FailureLessons[0].Text != "no data for the week" {
				t.Errorf("failure lessons %+v", c0.FailureLessons)
			}
			if len(c0.SuccessCases) != min(tc.successes, 5) || c0.SuccessCases[0].Text != "weekly sales report" {
				t.Errorf("success cases %+v", c0.SuccessCases)
			}
			// Rebuilding from the events gives the same capability.
			rebuilt, err := svc.ExtractCapabilities(ctx, alice)
			if err != nil || len(rebuilt) != 1 || rebuilt[0].Successes != c0.Successes || rebuilt[0].Description != c0.Description {
				t.Errorf("ExtractCapabilities = %+v, %v; want %+v", rebuilt, err, c0)
			}
			if got, _ := svc.Capabilities(ctx, bob, events.CapabilityQuery{}); len(got) != 0 {
				t.Errorf("bob has alice's capabilities: %+v", got)
			}
		})
	}
}

func TestCapabilityBestMatch(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	mustAppend(t, svc, alice, outcomes(t0, "DeployServiceCompleted", `{"tools":["kubectl"],"description":"roll out the api to kubernetes"}`, 3)...)
	mustAppend(t, svc, alice, outcomes(t0.Add(time.Hour), "SalesReportCompleted", `{"tools":["sql"],"description":"weekly sales numbers as a chart"}`, 6)...)
	mustAppend(t, svc, alice, outcomes(t0.Add(2*time.Hour), "task.completed", `{"task_type":"translate_doc","tools":["deepl"],"description":"translate a document to German"}`, 4)...)
	mustAppend(t, svc, alice, outcomes(t0.Add(3*time.Hour), "EmailCompleted", `{"description":"send the weekly sales report"}`, 2)...) // below threshold
	for _, tc := range []struct {
		name  string
		q     events.CapabilityQuery
		first string
		n     int
	}{
		{"list: most successful first", events.CapabilityQuery{}, "SalesReport", 3},
		{"text", events.CapabilityQuery{Text: "deploy the service to kubernetes"}, "DeployService", 1},
		{"text in other words", events.CapabilityQuery{Text: "translate this document"}, "translate_doc", 1},
		{"type beats text", events.CapabilityQuery{Text: "weekly sales chart", TaskType: "translate_doc"}, "translate_doc", 2},
		{"type alone, any spelling", events.CapabilityQuery{TaskType: "deploy-service"}, "DeployService", 1},
		{"no match", events.CapabilityQuery{Text: "bake bread"}, "", 0},
		{"below threshold never matches", events.CapabilityQuery{Text: "send email"}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := svc.Capabilities(ctx, alice, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("%d matches, want %d: %+v", len(got), tc.n, got)
			}
			if tc.n > 0 && got[0].TaskType != tc.first {
				t.Errorf("best match %s, want %s (%+v)", got[0].TaskType, tc.first, got)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Errorf("not best first: %+v", got)
				}
			}
		})
	}
}

func TestExtractCapabilitiesLLM(t *testing.T) {
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, answer string
		status       int
		extractor    string
		capName      string
		note         string
	}{
		{"answers", `{"name":"Deploy a service","description":"Roll out with kubectl after tests pass.","conditions":["tests green"],"lessons":["check the image exists first"]}`, 0, "llm", "Deploy a service", ""},
		{"down", "", http.StatusBadGateway, "rules", "deploy", "LLM description failed, rules used instead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, _ := fakeLLM(t, tc.answer, tc.status)
			c := newClock()
			svc, _ := newEventService(t, c, events.Options{Describer: client})
			ctx := context.Background()
			mustAppend(t, svc, alice, ev("DeployFailed", "a", t0, `{"error":"image missing"}`))
			mustAppend(t, svc, alice, outcomes(t0.Add(time.Hour), "DeployCompleted", `{"tools":["kubectl"]}`, 3)...)
			caps, err := svc.ExtractCapabilities(ctx, alice)
			if err != nil || len(caps) != 1 {
				t.Fatalf("ExtractCapabilities = %+v, %v", caps, err)
			}
			got := caps[0]
			if got.Extractor != tc.extractor || got.Name != tc.capName || !strings.Contains(got.Note, tc.note) || got.Successes != 3 {
				t.Errorf("capability %+v; want extractor %q name %q note %q", got, tc.extractor, tc.capName, tc.note)
			}
			if tc.extractor == "llm" && (got.FailureLessons[0].Text != "check the image exists first" || got.Conditions[0] != "tests green") {
				t.Errorf("LLM lessons and conditions not kept: %+v", got)
			}
			// More events keep the counts current and the LLM's text.
			mustAppend(t, svc, alice, ev("DeployCompleted", "a", t0.Add(2*time.Hour), ""))
			m, _ := svc.Capabilities(ctx, alice, events.CapabilityQuery{TaskType: "Deploy"})
			if len(m) != 1 || m[0].Successes != 4 || m[0].Name != tc.capName {
				t.Errorf("after a fourth success: %+v", m)
			}
		})
	}
}

func TestExportHasSummariesAndCapabilities(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	mustAppend(t, svc, alice, outcomes(t0, "BuildCompleted", `{"tools":["go"]}`, 3)...)
	if _, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, t0); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{}, events.ExportJSON, &buf)
	if err != nil || n.Summaries != 1 || n.Capabilities != 1 {
		t.Fatalf("export = %+v, %v", n, err)
	}
	var doc struct {
		Layers struct {
			L4 []mnemo.Summary    `json:"l4_summaries"`
			L5 []mnemo.Capability `json:"l5_capabilities"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Layers.L4) != 1 || doc.Layers.L4[0].Events != 3 || len(doc.Layers.L5) != 1 || doc.Layers.L5[0].TaskType != "Build" {
		t.Errorf("JSON layers %+v", doc.Layers)
	}
	buf.Reset()
	if _, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{}, events.ExportCSV, &buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]int{}
	for _, r := range rows[1:] {
		layers[r[0]]++
	}
	if layers["L1"] != 3 || layers["L4"] != 1 || layers["L5"] != 1 {
		t.Errorf("CSV rows per layer %v", layers)
	}
	// A window after the summary's day leaves it out; capabilities stay.
	from := t0.AddDate(0, 0, 1)
	buf.Reset()
	if n, err := svc.ExportEvents(ctx, alice, mnemo.EventQuery{From: &from}, events.ExportJSON, &buf); err != nil || n.Summaries != 0 || n.Capabilities != 1 {
		t.Errorf("windowed export = %+v, %v", n, err)
	}
}

// TestCapabilityMatchByMeaning: with an embedder, a task in other words
// finds the capability that means the same.
func TestCapabilityMatchByMeaning(t *testing.T) {
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{Embedder: glove.New()})
	ctx := context.Background()
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	mustAppend(t, svc, alice, outcomes(t0, "DeployServiceCompleted", `{"tools":["kubectl"],"description":"roll out the server to the cluster"}`, 5)...)
	mustAppend(t, svc, alice, outcomes(t0.Add(time.Hour), "task.completed", `{"task_type":"translate_doc","description":"translate a document into German"}`, 3)...)
	for _, tc := range []struct{ text, first string }{
		{"convert this letter to French", "translate_doc"},
		{"ship the new release to production machines", "DeployService"},
	} {
		got, err := svc.Capabilities(ctx, alice, events.CapabilityQuery{Text: tc.text})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].TaskType != tc.first || !slices.Contains(got[0].Why, "vector") {
			t.Errorf("%q: %+v, want %s first, by its vector", tc.text, got, tc.first)
		}
	}
}

// TestSummarizeClosedRegeneratesEarly: a summary generated on demand before
// its period closed is generated again once it has.
func TestSummarizeClosedRegeneratesEarly(t *testing.T) {
	c := newClock() // 12:00
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	mustAppend(t, svc, alice, ev("A", "w", c.T.Add(10*time.Minute), ""))
	if _, err := svc.Summarize(ctx, alice, mnemo.PeriodHour, c.T.Add(20*time.Minute)); err != nil {
		t.Fatal(err)
	}
	c.Advance(30 * time.Minute)
	mustAppend(t, svc, alice, ev("B", "w", c.T, ""))
	c.Advance(time.Hour) // 13:30: the 12:00 hour closed
	if n, err := svc.SummarizeClosed(ctx); err != nil || n != 1 {
		t.Fatalf("SummarizeClosed = %d, %v; want the early hour again", n, err)
	}
	got, _ := svc.Summaries(ctx, alice, mnemo.SummaryQuery{Period: mnemo.PeriodHour})
	if len(got) != 1 || got[0].Events != 2 {
		t.Fatalf("hour summaries %+v, want one of 2 events", got)
	}
}

// TestCapabilitiesConcurrentWriters: outcomes appended by many writers at
// once are all counted.
func TestCapabilitiesConcurrentWriters(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	const writers, each = 8, 10
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			var err error
			for i := range each {
				ts := t0.Add(time.Duration(w*each+i) * time.Second)
				if _, e := svc.AppendEvent(ctx, alice, ev("SyncCompleted", fmt.Sprint("w", w), ts, `{"tools":["rsync"]}`)); e != nil && err == nil {
					err = e
				}
			}
			errs <- err
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.Capabilities(ctx, alice, events.CapabilityQuery{TaskType: "Sync"})
	if err != nil || len(got) != 1 || got[0].Successes != writers*each || got[0].ToolUses["rsync"] != writers*each {
		t.Fatalf("Capabilities = %+v, %v; want %d successes", got, err, writers*each)
	}
}

// TestSummarizeColdEvents: archived events are summarized as they were.
func TestSummarizeColdEvents(t *testing.T) {
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	ctx := context.Background()
	evs := dayOfEvents(t, svc, alice)
	hot, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, evs[0].TS)
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(48 * time.Hour)
	if n, err := svc.ArchiveEvents(ctx, time.Hour); err != nil || n != len(evs) {
		t.Fatalf("ArchiveEvents = %d, %v", n, err)
	}
	cold, err := svc.Summarize(ctx, alice, mnemo.PeriodDay, evs[0].TS)
	if err != nil {
		t.Fatal(err)
	}
	hot.GeneratedAt, cold.GeneratedAt = time.Time{}, time.Time{}
	a, _ := json.Marshal(hot)
	b, _ := json.Marshal(cold)
	if !bytes.Equal(a, b) {
		t.Errorf("cold summary differs:\n hot %s\ncold %s", a, b)
	}
}
