package temporal

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// A Span is what a client's time value names (TIME-2): an instant
// (RFC 3339), a day ("2026-11-20") or the window of words ("last
// Tuesday", resolved against a reference time).
type Span struct {
	Window
	// Expression is the text when it was not an RFC 3339 instant.
	Expression string
	// Instant is set for an RFC 3339 time: End is then Start.
	Instant bool
	// Recurrence is set when the words name a recurring time ("every
	// Sunday"): Window is then its first occurrence (REC-30).
	Recurrence *mnemo.Recurrence
}

// ParseTime reads the value a client gave a time field (TIME-2): an RFC
// 3339 time, a plain date (that day, UTC) or words the temporal package
// resolves against ref ("last Tuesday", "3 days ago", "2022年1月"). An
// error is mnemo.EINVALID and names the field, what was sent and an example; a
// time outside the supported range is refused the same way (TIME-1).
// Recurring words ("every Sunday") are read, with their Recurrence set:
// the caller decides whether its field can hold one.
func ParseTime(field, v string, ref time.Time) (Span, error) {
	s := strings.TrimSpace(v)
	if s == "" {
		return Span{}, mnemo.Errorf(mnemo.EINVALID, "%s is empty: give %s", field, mnemo.TimeExample)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if !mnemo.InTimeRange(t) {
			return Span{}, mnemo.TimeRangeError(field, t)
		}
		t = t.UTC()
		return Span{Window: Window{Start: t, End: t}, Instant: true}, nil
	} else if looksNumeric(s) {
		// A date-like value that is not one ("2026-13-01", "2026-11-20 25:00"):
		// say why, in words, not in Go's layout.
		if d, ok, derr := plainDate(s); ok {
			if derr != nil {
				return Span{}, mnemo.Errorf(mnemo.EINVALID, "%s %q is not a date: %s; give %s", field, clip(s), derr, mnemo.TimeExample)
			}
			if !mnemo.InTimeRange(d) {
				return Span{}, mnemo.TimeRangeError(field, d)
			}
			return Span{Window: Window{Start: d, End: clampEnd(d.AddDate(0, 0, 1))}, Expression: s}, nil
		}
		if y, ok := yearOf(s); ok && (y < mnemo.EarliestTime.Year() || y >= mnemo.LatestTime.Year()) {
			return Span{}, mnemo.Errorf(mnemo.EINVALID, "%s %q is outside the supported range, %s (UTC)", field, clip(s), mnemo.TimeRange)
		}
	}
	if e, ok := ParseRecurrence(s, ref.UTC()); ok {
		if !mnemo.InTimeRange(e.First.Start) {
			return Span{}, mnemo.Errorf(mnemo.EINVALID, "%s %q starts outside the supported range, %s (UTC)", field, clip(s), mnemo.TimeRange)
		}
		w := e.First
		w.End = clampEnd(w.End)
		return Span{Window: w, Expression: s, Recurrence: e.Recurrence.Data()}, nil
	}
	if w, ok := Whole(s, ref.UTC()); ok {
		if !mnemo.InTimeRange(w.Start) {
			return Span{}, mnemo.Errorf(mnemo.EINVALID, "%s %q (%s) is outside the supported range, %s (UTC)", field, clip(s), formatAny(w.Start), mnemo.TimeRange)
		}
		w.End = clampEnd(w.End)
		return Span{Window: w, Expression: s}, nil
	}
	return Span{}, mnemo.Errorf(mnemo.EINVALID, "%s %q is not a time: give %s", field, clip(s), mnemo.TimeExample)
}

// ParseInstant is ParseTime for a field that holds one instant: the start
// of what v names (a date's midnight, "last Tuesday"'s), never a
// recurrence.
func ParseInstant(field, v string, ref time.Time) (time.Time, error) {
	sp, err := ParseTime(field, v, ref)
	if err != nil {
		return time.Time{}, err
	}
	if sp.Recurrence != nil {
		return time.Time{}, mnemo.Errorf(mnemo.EINVALID, "%s %q names a recurring time; this field takes one time: give %s", field, clip(v), mnemo.TimeExample)
	}
	return sp.Start, nil
}

// plainDate reads YYYY-MM-DD. ok says s has that shape; err then says why
// it is not a date.
func plainDate(s string) (time.Time, bool, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false, nil
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return time.Time{}, false, nil
		}
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, true, fmt.Errorf("no such day")
	}
	return t, true, nil
}

// looksNumeric reports whether s starts with a digit: a date or a time
// written in numbers, not words.
func looksNumeric(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// yearOf returns the leading four-digit year of s, if it has one.
func yearOf(s string) (int, bool) {
	if len(s) < 4 {
		return 0, false
	}
	y := 0
	for _, c := range s[:4] {
		if c < '0' || c > '9' {
			return 0, false
		}
		y = y*10 + int(c-'0')
	}
	return y, len(s) == 4 || s[4] < '0' || s[4] > '9'
}

// WhenSpan reads w against ref, for the field named field.
func WhenSpan(w *mnemo.When, field string, ref time.Time) (Span, error) {
	if w.Text == "" {
		if !mnemo.InTimeRange(w.At) {
			return Span{}, mnemo.TimeRangeError(field, w.At)
		}
		t := w.At.UTC()
		return Span{Window: Window{Start: t, End: t}, Instant: true}, nil
	}
	return ParseTime(field, w.Text, ref)
}

// clampEnd keeps a window's end, derived from a start in range (a second
// after it, a day), within the range's end.
func clampEnd(t time.Time) time.Time {
	if t.After(mnemo.LatestTime) {
		return mnemo.LatestTime
	}
	return t
}

// clip shortens what a client sent for an error message.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 64 {
		return s
	}
	return string([]rune(s)[:64])
}

// formatAny writes t as RFC 3339 where it can, and as Go prints it where
// the year has more than four digits (RFC 3339 cannot say it).
func formatAny(t time.Time) string {
	if y := t.Year(); y < 0 || y > 9999 {
		return t.UTC().String()
	}
	return t.UTC().Format(time.RFC3339Nano)
}
