package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/temporal"
)

// testTimeRange checks that a store keeps every time of a memory at the
// ends of the supported range exactly, to the nanosecond, and refuses a
// time a nanosecond outside it with EINVALID naming the field and the
// range (TIME-1): never a different date.
func testTimeRange(t *testing.T, s mnemo.Store) {
	first, last := mnemo.EarliestTime, mnemo.LatestTime.Add(-time.Nanosecond)
	mk := func(n int, edge time.Time) mnemo.Memory {
		m := newMemory(scopeAX, n, "", "edge of time")
		e := edge
		m.CreatedAt, m.UpdatedAt, m.AccessedAt, m.ExpiresAt = edge, edge, edge, &e
		m.ValidTo = &e
		end := mnemo.LatestTime
		if edge.Equal(first) {
			end = first.Add(time.Nanosecond)
		}
		m.Occurred = &mnemo.Occurred{Start: edge, End: end, Expression: "an edge", Source: mnemo.OccurredWriter}
		return m
	}
	m1, m2 := mk(1, first), mk(2, last)
	write(t, s, scopeAX, put(m1), put(m2))
	for _, m := range []mnemo.Memory{m1, m2} {
		got := get(t, s, scopeAX, m.ID)
		checkMemory(t, "at the range's edge", got, m)
		if got.ValidTo == nil || !got.ValidTo.Equal(*m.ValidTo) {
			t.Errorf("%s: ValidTo = %v, want %v", m.ID, got.ValidTo, m.ValidTo)
		}
		if o := got.Occurred; o == nil || !o.Start.Equal(m.Occurred.Start) || !o.End.Equal(m.Occurred.End) {
			t.Errorf("%s: Occurred = %+v, want %+v", m.ID, o, m.Occurred)
		}
	}
	// The filters take the edges too, and find what lies on them.
	for _, tt := range []struct {
		name string
		f    mnemo.Filter
		want []mnemo.Memory
	}{
		{"from the first instant", mnemo.Filter{OccurredAfter: &first, CreatedAfter: &first}, []mnemo.Memory{m1, m2}},
		{"before the last instant", mnemo.Filter{OccurredBefore: &last, CreatedBefore: &last}, []mnemo.Memory{m1}},
		{"at the last instant", mnemo.Filter{OccurredAfter: &last, CreatedAfter: &last}, []mnemo.Memory{m2}},
	} {
		tt.f.Now, tt.f.IncludeExpired = first, true
		if ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: tt.f}); !sameSet(ids(ms), ids(tt.want)) || total != len(tt.want) {
			t.Errorf("List %s = %v (total %d), want %v", tt.name, ids(ms), total, ids(tt.want))
		}
	}

	for _, tt := range []struct {
		field string
		set   func(m *mnemo.Memory, t time.Time)
	}{
		{"created_at", func(m *mnemo.Memory, t time.Time) { m.CreatedAt, m.UpdatedAt = t, t }},
		{"updated_at", func(m *mnemo.Memory, t time.Time) { m.UpdatedAt = t }},
		{"accessed_at", func(m *mnemo.Memory, t time.Time) { m.AccessedAt = t }},
		{"expires_at", func(m *mnemo.Memory, t time.Time) { m.ExpiresAt = &t }},
		{"valid_to", func(m *mnemo.Memory, t time.Time) { m.ValidTo = &t }},
		{"occurred.start", func(m *mnemo.Memory, t time.Time) {
			m.Occurred = &mnemo.Occurred{Start: t, End: t.Add(time.Second), Source: mnemo.OccurredWriter}
		}},
	} {
		for _, out := range []time.Time{first.Add(-time.Nanosecond), mnemo.LatestTime, time.Date(1000, 6, 15, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)} {
			if tt.field == "valid_to" && out.Equal(mnemo.LatestTime) {
				continue // an open window's end
			}
			m := newMemory(scopeAX, 10, "", "out of time")
			tt.set(&m, out)
			_, err := s.Write(t.Context(), scopeAX, []mnemo.Record{put(m)})
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(mnemo.ErrorMessage(err), tt.field) || !strings.Contains(mnemo.ErrorMessage(err), mnemo.TimeRange) {
				t.Errorf("%s %s: Write = %v, want EINVALID naming the field and the range", tt.field, out, err)
			}
		}
	}
	if _, err := s.Get(t.Context(), scopeAX, id(10)); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("a refused memory was kept: Get = %v", err)
	}
}

// testRecurring checks that a recurring memory keeps its rule (REC-30), and
// that the occurred filters find it on its occurrences and not between
// them.
func testRecurring(t *testing.T, s mnemo.Store) {
	sunday := time.Date(2023, 5, 7, 6, 0, 0, 0, time.UTC)
	e, ok := temporal.ExtractRecurrence("hiking every Sunday morning", time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC))
	if !ok || !e.First.Start.Equal(sunday) {
		t.Fatalf("ExtractRecurrence = %+v, %v", e, ok)
	}
	m := newMemory(scopeAX, 1, "", "hiking every sunday morning")
	m.Occurred = &mnemo.Occurred{Start: e.First.Start, End: mnemo.LatestTime, Expression: e.Text, Source: mnemo.OccurredText, Recurrence: e.Recurrence.Data()}
	write(t, s, scopeAX, put(m))
	got := get(t, s, scopeAX, m.ID).Occurred
	if got == nil || got.Recurrence == nil || got.Recurrence.Rule != e.Recurrence.Rule || !got.Recurrence.Anchor.Equal(sunday) || !got.End.Equal(mnemo.LatestTime) {
		t.Fatalf("Get: occurred %+v, want the recurrence %+v", got, e.Recurrence)
	}
	day := func(d int) *time.Time { v := time.Date(2023, 6, d, 0, 0, 0, 0, time.UTC); return &v }
	now := *day(30)
	for _, tt := range []struct {
		name          string
		after, before *time.Time
		want          bool
	}{
		{"a Sunday weeks later", day(4), day(5), true},
		{"the Monday after", day(5), day(6), false},
		{"a week", day(5), day(12), true},
		{"before it began", nil, day(-40), false},
	} {
		f := mnemo.Filter{Now: now, OccurredAfter: tt.after, OccurredBefore: tt.before}
		ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: f})
		if found := len(ms) == 1; found != tt.want || total != len(ms) {
			t.Errorf("%s: List = %v (total %d), want found %v", tt.name, ids(ms), total, tt.want)
		}
		hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"hiking"}})
		if found := len(hits) == 1; found != tt.want {
			t.Errorf("%s: Search = %v, want found %v", tt.name, hitIDs(hits), tt.want)
		}
	}
}
