package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testValidTo checks REC-27 in a store (and that entities, REC-28, are
// kept whole): a memory's valid_to is kept whole,
// a LifecycleStore sets it (a contradiction) without moving an earlier end,
// and the AsOf filter keeps the memories that held at its time, begun
// (created or occurred) by then and not ended, in List and Search alike.
func testValidTo(t *testing.T, s mnemo.Store) {
	day := func(d int) time.Time { return time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC) }
	p := func(d int) *time.Time { v := day(d); return &v }
	mk := func(n, created int, o *mnemo.Occurred, validTo *time.Time) mnemo.Memory {
		m := newMemory(scopeAX, n, "", "held words")
		m.CreatedAt, m.UpdatedAt = day(created), day(created)
		m.Occurred, m.ValidTo = o, validTo
		return m
	}
	m1 := mk(1, 1, nil, nil)                                                                        // holds from the 1st
	m2 := mk(2, 5, nil, p(10))                                                                      // the writer said: until the 10th
	m3 := mk(3, 12, nil, nil)                                                                       // from the 12th
	m4 := mk(4, 20, &mnemo.Occurred{Start: day(2), End: day(3), Source: mnemo.OccurredWriter}, nil) // written on the 20th of the 2nd
	write(t, s, scopeAX, put(m1), put(m2), put(m3), put(m4))
	if got := get(t, s, scopeAX, m2.ID).ValidTo; got == nil || !got.Equal(day(10)) {
		t.Fatalf("Get(m2).ValidTo = %v, want %v", got, day(10))
	}
	if got := get(t, s, scopeAX, m1.ID); got.ValidTo != nil || !slices.Equal(got.Entities, m1.Entities) {
		t.Fatalf("Get(m1): valid_to %v, entities %q; want none, %q", got.ValidTo, got.Entities, m1.Entities)
	}
	if got := get(t, s, scopeAX, m2.ID).Entities; got != nil {
		t.Fatalf("Get(m2).Entities = %q, want none", got)
	}
	if ls, ok := s.(mnemo.LifecycleStore); ok {
		// m1 is contradicted on the 15th; m2 keeps its earlier end.
		if _, err := ls.ApplyLife(context.Background(), scopeAX, []mnemo.LifeChange{{ID: m1.ID, ValidTo: p(15)}, {ID: m2.ID, ValidTo: p(15)}}, nil); err != nil {
			t.Fatal(err)
		}
		if got := get(t, s, scopeAX, m1.ID).ValidTo; got == nil || !got.Equal(day(15)) {
			t.Fatalf("after ApplyLife, m1.ValidTo = %v, want %v", got, day(15))
		}
		if got := get(t, s, scopeAX, m2.ID).ValidTo; got == nil || !got.Equal(day(10)) {
			t.Fatalf("after ApplyLife, m2.ValidTo = %v, want %v kept", got, day(10))
		}
		m1.ValidTo = p(15)
	}
	now := day(25)
	for _, tt := range []struct {
		name string
		at   int
		want []mnemo.Memory
	}{
		{"before all but what occurred earlier", 0, nil},
		{"the 2nd", 2, []mnemo.Memory{m1, m4}},
		{"the 7th", 7, []mnemo.Memory{m1, m2, m4}},
		{"an end is exclusive", 10, []mnemo.Memory{m1, m4}},
		{"the 20th", 20, []mnemo.Memory{m3, m4}},
	} {
		if tt.at == 20 && m1.ValidTo == nil {
			tt.want = append(tt.want, m1) // no LifecycleStore: m1 never ended
		}
		t.Run(tt.name, func(t *testing.T) {
			at := time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC).Add(-time.Hour)
			if tt.at > 0 {
				at = day(tt.at)
			}
			f := mnemo.Filter{Now: now, AsOf: &at}
			want := ids(tt.want)
			ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: f})
			if !sameSet(ids(ms), want) || total != len(want) {
				t.Errorf("List = %v (total %d), want %v", ids(ms), total, want)
			}
			if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"held"}}); !sameSet(hitIDs(hits), want) {
				t.Errorf("Search = %v, want %v", hitIDs(hits), want)
			}
		})
	}
}
