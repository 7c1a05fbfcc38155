package main

import (
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
		{"to", "2026-01-02", nil, "--to must be an RFC 3339 time"},
		{"now", "yesterday", nil, "--now must be an RFC 3339 time"},
	} {
		t.Run(tt.name+"="+tt.v, func(t *testing.T) {
			got, err := timeFlag(tt.name, tt.v)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
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
