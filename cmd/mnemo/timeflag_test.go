package main

import (
	"strings"
	"testing"
	"time"
)

func TestTimeFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, v string
		want    *time.Time
		err     string
	}{
		{"before", "", nil, ""},
		{"from", "2026-01-02T03:04:05Z", ptr(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), ""},
		{"ts", "2026-01-02T03:04:05.000000007+01:00", ptr(time.Date(2026, 1, 2, 2, 4, 5, 7, time.UTC)), ""},
		{"to", "2026-01-02", ptr(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)), ""},
		{"at", "2261-12-31T23:59:59.999999999Z", ptr(time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC)), ""},
		{"now", "banana", nil, `--now "banana" is not a time: give an RFC 3339 time ("2026-11-20T15:04:05Z"), a date ("2026-11-20", that day) or words ("last Tuesday")`},
		{"from", "2026-13-01", nil, `--from "2026-13-01" is not a date: no such day; give`},
		{"before", "1000-06-15T00:00:00Z", nil, "--before 1000-06-15T00:00:00Z is outside the supported range, 1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z (UTC)"},
		{"before", "9999-12-31", nil, "--before 9999-12-31T00:00:00Z is outside the supported range"},
		{"until", "every Sunday", nil, `--until "every Sunday" names a recurring time`},
	} {
		t.Run(tt.name+"="+tt.v, func(t *testing.T) {
			got, err := timeFlag(tt.name, tt.v)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("timeFlag = %v, %v; want error %q", got, err, tt.err)
				}
				return
			}
			if err != nil || (got == nil) != (tt.want == nil) || (got != nil && !got.Equal(*tt.want)) {
				t.Fatalf("timeFlag = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func ptr(t time.Time) *time.Time { return &t }
