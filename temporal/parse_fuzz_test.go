package temporal

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// FuzzParseTime reads any value a client may type into a time field,
// against any reference time, with the range's edges in the seeds (TIME-1,
// TIME-2): never a panic; an error is mnemo.EINVALID and names the field; a time
// read lies within the range, an RFC 3339 one exactly as sent.
func FuzzParseTime(f *testing.F) {
	ref := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).UnixNano()
	for _, s := range []string{
		"1678-01-01T00:00:00Z", "1677-12-31T23:59:59.999999999Z", "1677-12-31T23:00:00-01:00",
		"2261-12-31T23:59:59.999999999Z", "2262-01-01T00:00:00Z", "2261-12-31T23:59:59-00:01",
		"9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "1000-06-15T00:00:00Z", "2500-01-01T00:00:00Z",
		"1678-01-01", "1677-12-31", "2261-12-31", "2262-01-01", "2026-02-30", "2026-11-20",
		"last Tuesday", "3 days ago", "every Sunday morning", "每两周", "上周二", "in 1677", "the 2260s",
		"", " ", "banana", "2026-11-20T25:00:00Z", "20261120",
	} {
		f.Add(s, ref)
		f.Add(s, mnemo.EarliestTime.UnixNano())
		f.Add(s, mnemo.LatestTime.Add(-time.Nanosecond).UnixNano())
	}
	f.Fuzz(func(t *testing.T, v string, refNanos int64) {
		sp, err := ParseTime("when", v, time.Unix(0, refNanos).UTC())
		if err != nil {
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.HasPrefix(mnemo.ErrorMessage(err), "when ") {
				t.Fatalf("ParseTime(%q) = %v: want mnemo.EINVALID naming the field", v, err)
			}
			return
		}
		if !mnemo.InTimeRange(sp.Start) || sp.End.Before(sp.Start) || sp.End.After(mnemo.LatestTime) {
			t.Fatalf("ParseTime(%q) = %v .. %v: outside the range", v, sp.Start, sp.End)
		}
		if at, perr := time.Parse(time.RFC3339Nano, strings.TrimSpace(v)); perr == nil && (!sp.Instant || !sp.Start.Equal(at)) {
			t.Fatalf("ParseTime(%q) = %v, want the instant %v exactly", v, sp.Start, at)
		}
		if _, err := sp.Start.MarshalJSON(); err != nil {
			t.Fatalf("ParseTime(%q) = %v cannot be written: %v", v, sp.Start, err)
		}
	})
}
