package mnemo

import (
	"encoding/json"
	"strings"
	"time"
)

// The one range of every time mnemo stores or filters by, on every store
// (TIME-1): [EarliestTime, LatestTime), UTC. The SQL stores keep a time as
// unix nanoseconds in 64 bits, which hold 1677-09-21 to 2262-04-11; the
// range is the whole years inside that, and the files and memory stores
// keep to it too, so that a memory moves between stores unchanged. A time
// outside it is refused (EINVALID, naming the field and the range), never
// stored as another date.
var (
	EarliestTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	LatestTime   = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// TimeRange names the range in messages.
const TimeRange = "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z"

// TimeExample is the example a message about a time field gives.
const TimeExample = `an RFC 3339 time ("2026-11-20T15:04:05Z"), a date ("2026-11-20", that day) or words ("last Tuesday")`

// InTimeRange reports whether t lies in [EarliestTime, LatestTime).
func InTimeRange(t time.Time) bool { return !t.Before(EarliestTime) && t.Before(LatestTime) }

// CheckTime reports EINVALID, naming field, for a time outside the
// supported range (TIME-1). The zero time passes: it means "not given".
func CheckTime(field string, t time.Time) error {
	if t.IsZero() || InTimeRange(t) {
		return nil
	}
	return outOfRange(field, t)
}

// CheckTimePtr is CheckTime for an optional time.
func CheckTimePtr(field string, t *time.Time) error {
	if t == nil {
		return nil
	}
	return CheckTime(field, *t)
}

// TimeRangeError is the EINVALID error of t, given for field, outside the
// supported range (TIME-1).
func TimeRangeError(field string, t time.Time) error { return outOfRange(field, t) }

func outOfRange(field string, t time.Time) error {
	return Errorf(EINVALID, "%s %s is outside the supported range, %s (UTC)", field, formatAny(t), TimeRange)
}

// formatAny writes t as RFC 3339 where it can, and as Go prints it where
// the year has more than four digits (RFC 3339 cannot say it).
func formatAny(t time.Time) string {
	if y := t.Year(); y < 0 || y > 9999 {
		return t.UTC().String()
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// clampEnd keeps a window's end, derived from a start in range (a second
// after it, a day), within the range's end.
func clampEnd(t time.Time) time.Time {
	if t.After(LatestTime) {
		return LatestTime
	}
	return t
}

func clip(s string) string { return truncateRunes(s, 64) }

// TimeFieldError is the EINVALID error of a JSON value that cannot be a
// time (a number, an object): it names the field and gives an example.
func TimeFieldError(field string, raw json.RawMessage) error {
	return Errorf(EINVALID, "%s must be a time, a JSON string, not %s: give %s", field, clip(string(raw)), TimeExample)
}

// CheckMemoryTimes reports EINVALID, naming the field, for a time of m
// outside the supported range (TIME-1): what every store checks before it
// keeps a memory, so that none is stored as another date.
func CheckMemoryTimes(m *Memory) error {
	for _, f := range []struct {
		name string
		t    time.Time
	}{{"created_at", m.CreatedAt}, {"updated_at", m.UpdatedAt}, {"accessed_at", m.AccessedAt}} {
		if err := CheckTime(f.name, f.t); err != nil {
			return err
		}
	}
	if err := CheckTimePtr("expires_at", m.ExpiresAt); err != nil {
		return err
	}
	if err := CheckTimePtr("valid_to", m.ValidTo); err != nil {
		return err
	}
	if o := m.Occurred; o != nil {
		if err := CheckTime("occurred.start", o.Start); err != nil {
			return err
		}
		if !o.End.IsZero() && (o.End.Before(EarliestTime) || o.End.After(LatestTime)) {
			return outOfRange("occurred.end", o.End)
		}
	}
	return nil
}

// When is the time a writer gives for what a memory tells (occurred_at,
// TIME-2): an instant, or text — RFC 3339, a day ("2026-11-20"), words
// ("last Tuesday") or a recurrence ("every Sunday morning", REC-30) —
// read against the memory's creation time when it is built, as a time in
// its content would be.
type When struct {
	// At is an instant a Go caller gives; Text, when set, is read instead.
	At   time.Time
	Text string
}

// At returns the When of the instant t.
func At(t time.Time) *When { return &When{At: t} }

// UnmarshalJSON takes a JSON string; it is read when the memory is built.
func (w *When) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return TimeFieldError("occurred_at", b)
	}
	if strings.TrimSpace(s) == "" {
		return Errorf(EINVALID, "occurred_at is empty: give %s", TimeExample)
	}
	*w = When{Text: s}
	return nil
}

// MarshalJSON writes the text as given, or the instant in RFC 3339.
func (w When) MarshalJSON() ([]byte, error) {
	if w.Text != "" || w.At.IsZero() {
		return json.Marshal(w.Text)
	}
	return json.Marshal(w.At.UTC().Format(time.RFC3339Nano))
}
