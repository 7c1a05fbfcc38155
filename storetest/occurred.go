package storetest

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testOccurred checks that a memory's occurred window is kept whole, that a
// memory without one reads as its creation's second (REC-24), and that the
// occurred filters keep the memories whose window overlaps theirs, in List
// and Search alike (REC-25).
func testOccurred(t *testing.T, s mnemo.Store) {
	day := func(d int) time.Time { return time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC) }
	mk := func(n int, o *mnemo.Occurred) mnemo.Memory {
		m := newMemory(scopeAX, n, "", "common words")
		m.CreatedAt, m.UpdatedAt = day(20), day(20)
		m.Occurred = o
		return m
	}
	m1 := mk(1, &mnemo.Occurred{Start: day(7), End: day(8), Expression: "yesterday", Source: mnemo.OccurredText})
	m2 := mk(2, &mnemo.Occurred{Start: day(1), End: day(15), Source: mnemo.OccurredWriter})
	m3 := mk(3, nil) // created on the 20th
	write(t, s, scopeAX, put(m1), put(m2), put(m3))

	for _, m := range []mnemo.Memory{m1, m2} {
		got := get(t, s, scopeAX, m.ID).Occurred
		if got == nil || !got.Start.Equal(m.Occurred.Start) || !got.End.Equal(m.Occurred.End) ||
			got.Expression != m.Occurred.Expression || got.Source != m.Occurred.Source {
			t.Errorf("Get(%s).Occurred = %+v, want %+v", m.ID, got, m.Occurred)
		}
	}
	g3 := get(t, s, scopeAX, m3.ID)
	if got := g3.OccurredOf(); !got.Start.Equal(day(20)) || got.Source != mnemo.OccurredCreated {
		t.Errorf("a memory written without occurred: %+v, want its creation", got)
	}

	now := day(25)
	// Dated: what came from a text or a writer (REC-29).
	dated := mnemo.Filter{Now: now, Dated: true}
	if ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: dated}); !sameSet(ids(ms), ids([]mnemo.Memory{m1, m2})) || total != 2 {
		t.Errorf("List(dated) = %v (total %d), want m1, m2", ids(ms), total)
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: dated, Terms: []string{"common"}}); !sameSet(hitIDs(hits), ids([]mnemo.Memory{m1, m2})) {
		t.Errorf("Search(dated) = %v, want m1, m2", hitIDs(hits))
	}
	p := func(d int) *time.Time { v := day(d); return &v }
	for _, tt := range []struct {
		name          string
		after, before *time.Time
		want          []mnemo.Memory
	}{
		{"the day", p(7), p(8), []mnemo.Memory{m1, m2}},
		{"the day after", p(8), p(9), []mnemo.Memory{m2}},
		{"ends where a window starts", p(15), p(20), nil},
		{"after alone", p(14), nil, []mnemo.Memory{m2, m3}},
		{"before alone", nil, p(2), []mnemo.Memory{m2}},
		{"the creation", p(20), p(21), []mnemo.Memory{m3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := mnemo.Filter{Now: now, OccurredAfter: tt.after, OccurredBefore: tt.before}
			want := ids(tt.want)
			ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: f})
			if !sameSet(ids(ms), want) || total != len(want) {
				t.Errorf("List = %v (total %d), want %v", ids(ms), total, want)
			}
			if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"common"}}); !sameSet(hitIDs(hits), want) {
				t.Errorf("Search = %v, want %v", hitIDs(hits), want)
			}
		})
	}
}
