package filter

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/temporal"
)

// TestMatchOccurred: a filter's occurred bounds match a memory whose
// window overlaps them (REC-25), and a recurring memory only on one of its
// occurrences (REC-30).
func TestMatchOccurred(t *testing.T) {
	created := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC) // a Wednesday
	once := mnemo.Memory{ID: "once", CreatedAt: created, Occurred: temporal.TextOccurred("the dentist on 2023-05-09", created)}
	weekly := mnemo.Memory{ID: "weekly", CreatedAt: created, Occurred: temporal.TextOccurred("hiking every Sunday morning", created)}
	if weekly.Occurred.Recurrence == nil {
		t.Fatalf("no recurrence read: %+v", weekly.Occurred)
	}
	day := func(d int) (*time.Time, *time.Time) {
		a, b := time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC), time.Date(2023, 5, d+1, 0, 0, 0, 0, time.UTC)
		return &a, &b
	}
	for _, c := range []struct {
		name string
		m    mnemo.Memory
		day  int
		want bool
	}{
		{"its day", once, 9, true},
		{"another day", once, 11, false},
		{"a Sunday", weekly, 14, true},
		{"a Monday", weekly, 15, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f mnemo.Filter
			f.OccurredAfter, f.OccurredBefore = day(c.day)
			if got := Match(&f, &c.m, created); got != c.want {
				t.Fatalf("Match(%s on May %d) = %v, want %v (occurred %+v)", c.m.ID, c.day, got, c.want, c.m.Occurred)
			}
		})
	}
}
