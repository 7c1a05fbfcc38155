package temporal

import (
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Build is d.Build with when what the memory tells happened read as well
// (REC-24): from occurred_at (an instant, a day, words or a recurrence,
// TIME-2), else from the first time expression of its content, else its
// creation's second. The services build every memory they write with it.
func Build(d *mnemo.Draft, scope mnemo.Scope, lim mnemo.Limits, now time.Time) (mnemo.Memory, error) {
	m, err := d.Build(scope, lim, now)
	if err != nil || d.Tombstone() || m.Occurred != nil {
		return m, err
	}
	if d.OccurredAt != nil {
		sp, err := WhenSpan(d.OccurredAt, "occurred_at", m.CreatedAt)
		if err != nil {
			return m, err
		}
		o := &mnemo.Occurred{Start: sp.Start, End: sp.End, Expression: sp.Expression, Source: mnemo.OccurredWriter, Recurrence: sp.Recurrence}
		switch {
		case sp.Instant:
			o.End = clampEnd(sp.Start.Add(time.Second))
		case sp.Recurrence != nil: // it goes on (REC-30)
			o.End = mnemo.LatestTime
		}
		m.Occurred = o
	} else {
		m.Occurred = TextOccurred(m.Content, m.CreatedAt)
	}
	// Every time it keeps within the range every store keeps (TIME-1).
	if err := mnemo.CheckMemoryTimes(&m); err != nil {
		return m, err
	}
	return m, nil
}

// TextOccurred is when what text tells happened, read against created
// (REC-24): its first time expression, a recurring one (REC-30) held as
// such, else created's second. An expression whose time lies outside the
// supported range is not one mnemo can keep (TIME-1): it is passed over.
func TextOccurred(content string, created time.Time) *mnemo.Occurred {
	var first *Expr
	for _, e := range Extract(content, created) {
		if mnemo.InTimeRange(e.Start) {
			first = &e
			break
		}
	}
	if r, ok := ExtractRecurrence(content, created); ok && mnemo.InTimeRange(r.First.Start) &&
		(first == nil || r.Pos <= first.Pos || r.Pos < first.EndPos) {
		return &mnemo.Occurred{Start: r.First.Start.UTC(), End: mnemo.LatestTime, Expression: r.Text, Source: mnemo.OccurredText, Recurrence: r.Recurrence.Data()}
	}
	if first != nil {
		return &mnemo.Occurred{Start: first.Start.UTC(), End: clampEnd(first.End.UTC()), Expression: first.Text, Source: mnemo.OccurredText}
	}
	return mnemo.CreatedOccurred(created)
}

// OccurredOverlaps reports whether what o tells happened within w: o's
// window overlaps it, or, when o recurs, one of its occurrences does
// (REC-30).
func OccurredOverlaps(o mnemo.Occurred, w Window) bool {
	if !(Window{Start: o.Start, End: o.End}).Overlaps(w) {
		return false
	}
	return o.Recurrence == nil || Recurrence(*o.Recurrence).Overlaps(w)
}

// OccurredNearest is the window of o that bears on w: o's window, or, when
// o recurs, its first occurrence that ends after w starts.
func OccurredNearest(o mnemo.Occurred, w Window) Window {
	if o.Recurrence != nil {
		if occ, ok := Recurrence(*o.Recurrence).Next(w.Start); ok {
			return occ
		}
	}
	return Window{Start: o.Start, End: o.End}
}

// FilterWindow is the window f's occurred bounds name, the supported range
// where a bound is not given.
func FilterWindow(f *mnemo.Filter) Window {
	w := Window{Start: mnemo.EarliestTime, End: mnemo.LatestTime}
	if f.OccurredAfter != nil {
		w.Start = *f.OccurredAfter
	}
	if f.OccurredBefore != nil {
		w.End = *f.OccurredBefore
	}
	return w
}
