package storetest

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The InsightStore part of the suite (L4 summaries, EVT-10, EVT-16; L5
// capabilities, EVT-11). Beyond its doc comments it pins:
//
//   - One summary per scope, period and start: putting it again replaces it.
//   - DropSummaries deletes only the periods named, in every scope, by end.
//   - UpdateCapabilities hands fn only the named task types of the scope,
//     and stores what it returns; ReplaceCapabilities drops the rest.

func insightStore(t *testing.T, s mnemo.Store) mnemo.InsightStore {
	is, ok := s.(mnemo.InsightStore)
	if !ok {
		t.Skip("not an InsightStore")
	}
	return is
}

func testSummaries(t *testing.T, s mnemo.Store) {
	is := insightStore(t, s)
	ctx := t.Context()
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	sum := func(p mnemo.Period, start time.Time, events int) mnemo.Summary {
		st, end := p.Bounds(start)
		return mnemo.Summary{Period: p, Start: st, End: end, Events: events, GeneratedAt: end}
	}
	for _, x := range []struct {
		scope mnemo.Scope
		s     mnemo.Summary
	}{
		{scopeAX, sum(mnemo.PeriodDay, day, 1)},
		{scopeAX, sum(mnemo.PeriodDay, day, 2)}, // replaces the first
		{scopeAX, sum(mnemo.PeriodHour, day, 3)},
		{scopeAX, func() mnemo.Summary {
			m := sum(mnemo.PeriodMonth, day, 4)
			m.SecurityLevel = mnemo.SecurityRestricted
			return m
		}()},
		{scopeBX, sum(mnemo.PeriodDay, day, 5)},
	} {
		if err := is.PutSummary(ctx, x.scope, x.s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := is.Summaries(ctx, scopeAX, mnemo.SummaryQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var order []mnemo.Period
	for _, g := range got {
		order = append(order, g.Period)
		if g.Period == mnemo.PeriodDay && g.Events != 2 {
			t.Errorf("the day was not replaced: %d events", g.Events)
		}
		if want := map[bool]string{true: mnemo.SecurityRestricted}[g.Period == mnemo.PeriodMonth]; g.SecurityLevel != want {
			t.Errorf("the %s summary's level is %q, want %q (SEC-12: kept as it came)", g.Period, g.SecurityLevel, want)
		}
	}
	// By start (the month's is the 1st), then period, shortest first.
	if want := []mnemo.Period{mnemo.PeriodMonth, mnemo.PeriodHour, mnemo.PeriodDay}; !equalPeriods(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	from, to := day, day.Add(time.Hour)
	if got, _ := is.Summaries(ctx, scopeAX, mnemo.SummaryQuery{Period: mnemo.PeriodDay, From: &from, To: &to, Limit: 10}); len(got) != 1 {
		t.Errorf("a window and a period: %d summaries, want 1", len(got))
	}
	n, err := is.DropSummaries(ctx, []mnemo.Period{mnemo.PeriodHour, mnemo.PeriodDay}, day.AddDate(0, 0, 1))
	if err != nil || n != 3 {
		t.Fatalf("DropSummaries = %d, %v; want both days and the hour", n, err)
	}
	if got, _ := is.Summaries(ctx, scopeAX, mnemo.SummaryQuery{Limit: 10}); len(got) != 1 || got[0].Period != mnemo.PeriodMonth {
		t.Errorf("after the drop: %+v, want the month", got)
	}
	bad := sum(mnemo.PeriodDay, day, 1)
	bad.End = bad.Start
	if err := is.PutSummary(ctx, scopeAX, bad); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("a period that ends as it starts: %v, want EINVALID", err)
	}
}

func equalPeriods(a, b []mnemo.Period) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testCapabilities(t *testing.T, s mnemo.Store) {
	is := insightStore(t, s)
	ctx := t.Context()
	put := func(scope mnemo.Scope, types []string, caps ...mnemo.Capability) []mnemo.Capability {
		t.Helper()
		var seen []mnemo.Capability
		err := is.UpdateCapabilities(ctx, scope, types, func(have []mnemo.Capability) ([]mnemo.Capability, error) {
			seen = have
			return caps, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen
	}
	put(scopeAX, []string{"deploy", "report"}, mnemo.Capability{TaskType: "deploy", Successes: 1}, mnemo.Capability{TaskType: "report", Successes: 3, Ready: true})
	put(scopeBX, []string{"deploy"}, mnemo.Capability{TaskType: "deploy", Successes: 9})
	if seen := put(scopeAX, []string{"deploy"}, mnemo.Capability{TaskType: "deploy", Successes: 2}); len(seen) != 1 || seen[0].Successes != 1 {
		t.Errorf("fn saw %+v, want only A's deploy with 1 success", seen)
	}
	got, err := is.Capabilities(ctx, scopeAX)
	if err != nil || len(got) != 2 || got[0].TaskType != "deploy" || got[0].Successes != 2 || !got[1].Ready {
		t.Fatalf("Capabilities = %+v, %v", got, err)
	}
	if err := is.ReplaceCapabilities(ctx, scopeAX, []mnemo.Capability{{TaskType: "build", Successes: 4, SecurityLevel: mnemo.SecurityConfidential}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := is.Capabilities(ctx, scopeAX); len(got) != 1 || got[0].TaskType != "build" || got[0].SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("after replace: %+v", got)
	}
	if got, _ := is.Capabilities(ctx, scopeBX); len(got) != 1 || got[0].Successes != 9 {
		t.Errorf("B's capabilities changed: %+v", got)
	}
	if err := is.ReplaceCapabilities(ctx, scopeAX, []mnemo.Capability{{}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("a capability without a task type: %v, want EINVALID", err)
	}
}
