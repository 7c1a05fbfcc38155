package storetest

import (
	"context"
	"fmt"
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

// testDeletedAfter checks Store.DeletedAfter (REC-27): the history of
// the keys with a tombstone written after a time (the history's own time,
// when the store applied it), revived since or not, in the order of their
// first such tombstone, cut at the limit; a key forgotten since keeps no
// memory to answer with.
func testDeletedAfter(t *testing.T, s mnemo.Store) {
	df := s
	day := func(d int) time.Time { return t0.Add(time.Duration(d) * 24 * time.Hour) }
	mkIn := func(sc mnemo.Scope, n int, key string, d int) mnemo.Record {
		m := newMemory(sc, n, key, fmt.Sprintf("%s on day %d", key, d))
		m.CreatedAt, m.UpdatedAt = day(d), day(d)
		return put(m)
	}
	mk := func(n int, key string, d int) mnemo.Record { return mkIn(scopeAX, n, key, d) }
	// cut is a time between two writes by the store's clock.
	cut := func() time.Time {
		time.Sleep(5 * time.Millisecond)
		c := time.Now()
		time.Sleep(5 * time.Millisecond)
		return c
	}
	start := cut()
	write(t, s, scopeAX, mk(1, "/a", 1), mk(2, "/b", 1), mk(3, "/c", 1), mk(4, "/d", 1), mk(5, "/e", 1))
	write(t, s, scopeAX, mk(6, "/a", 3), tombstone(scopeAX, 7, "/b", day(2)))
	mid := cut()
	write(t, s, scopeAX, tombstone(scopeAX, 8, "/a", day(5)), tombstone(scopeAX, 9, "/c", day(6)), tombstone(scopeAX, 10, "/d", day(8)))
	write(t, s, scopeAX, mk(11, "/c", 7)) // revived
	if _, err := s.Forget(t.Context(), scopeAX, nil, []string{"/d"}); err != nil {
		t.Fatal(err)
	}
	write(t, s, scopeAY, mkIn(scopeAY, 12, "/a", 1), tombstone(scopeAY, 13, "/a", day(5)))
	end := cut()

	for _, tt := range []struct {
		name  string
		after time.Time
		limit int
		keys  []string
	}{
		{"all since mid", mid, 10, []string{"/a", "/c", "/d"}},
		{"the first one since mid", mid, 1, []string{"/a"}},
		{"two", mid, 2, []string{"/a", "/c"}},
		{"all since the start", start, 10, []string{"/a", "/b", "/c", "/d"}},
		{"none after the last", end, 10, nil},
		{"no limit, none", start, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			revs, err := df.DeletedAfter(t.Context(), scopeAX, tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			last := map[string]int64{}
			for _, r := range revs {
				if n := len(keys); n == 0 || keys[n-1] != r.Key {
					keys = append(keys, r.Key)
				}
				if r.Seq <= last[r.Key] {
					t.Errorf("revisions of %s out of order: %d after %d", r.Key, r.Seq, last[r.Key])
				}
				last[r.Key] = r.Seq
				if r.Key == "/d" && r.Memory != nil && r.Memory.Content != "" {
					t.Errorf("forgotten /d still answers %q", r.Memory.Content)
				}
			}
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("keys = %q, want %q", keys, tt.keys)
			}
			if tt.after.Equal(mid) && tt.limit == 10 {
				var a []string
				for _, r := range revs {
					if r.Key == "/a" && r.Op == mnemo.OpPut && r.Memory != nil {
						a = append(a, r.Memory.Content)
					}
				}
				if want := []string{"/a on day 1", "/a on day 3"}; !slices.Equal(a, want) {
					t.Errorf("/a puts = %q, want %q", a, want)
				}
			}
		})
	}
}
