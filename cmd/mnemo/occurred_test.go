package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestOccurredFlags: remember takes --occurred, --valid-from/--valid-to
// and --entity (REC-24, REC-27, REC-28); get shows them; recall and list
// restrict by --occurred-after/--occurred-before.
func TestOccurredFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cli := runner(t, dir)
	trip := strings.TrimSpace(cli("remember", "--occurred", "2023-05-03T09:00:00Z", "--entity", "Ana Silva", "--entity", "my sister", "Flew to Kyoto for the conference"))
	lease := strings.TrimSpace(cli("remember", "--valid-from", "2023-05-10T00:00:00Z", "--valid-to", "2023-05-20T00:00:00Z", "Rented a flat in Porto"))
	get := func(id string) mnemo.Memory {
		t.Helper()
		var m mnemo.Memory
		if err := json.Unmarshal([]byte(cli("get", id, "--json")), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	day := func(d int) time.Time { return time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC) }
	if m := get(trip); m.Occurred == nil || !m.Occurred.Start.Equal(day(3).Add(9*time.Hour)) || m.Occurred.Source != mnemo.OccurredWriter ||
		!slices.Equal(m.Entities, []string{"Ana Silva", "my sister", "Kyoto"}) {
		t.Fatalf("get --occurred --entity: %+v", m)
	}
	if m := get(lease); m.Occurred == nil || !m.Occurred.Start.Equal(day(10)) || !m.Occurred.End.Equal(day(20)) || m.ValidTo == nil || !m.ValidTo.Equal(day(20)) {
		t.Fatalf("get --valid-from --valid-to: %+v", m)
	}
	if out := cli("get", trip); !strings.Contains(out, "occurred:   2023-05-03T09:00:00Z .. 2023-05-03T09:00:01Z (writer)") {
		t.Fatalf("get shows no occurred: %s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
		not  string
	}{
		{[]string{"recall", "conference flat", "--occurred-after", "2023-05-01T00:00:00Z", "--occurred-before", "2023-05-05T00:00:00Z"}, "Kyoto", "Porto"},
		{[]string{"recall", "conference flat", "--occurred-after", "2023-05-09T00:00:00Z"}, "Porto", "Kyoto"},
		{[]string{"list", "--occurred-before", "2023-05-05T00:00:00Z"}, "Kyoto", "Porto"},
		{[]string{"recall", "flat", "--as-of", "2023-05-15T00:00:00Z"}, "Porto", ""},
		{[]string{"recall", "flat", "--as-of", "2023-05-25T00:00:00Z"}, "", "Porto"}, // its valid_to passed
	} {
		if out := cli(tt.args...); !strings.Contains(out, tt.want) || tt.not != "" && strings.Contains(out, tt.not) {
			t.Errorf("%v: %s", tt.args, out)
		}
	}
	if code, _, errs := run(t, dir, "", "remember", "--occurred", "2023-05-03T09:00:00Z", "--valid-from", "2023-05-03T09:00:00Z", "x"); code == 0 || !strings.Contains(errs, "occurred_at") {
		t.Fatalf("both --occurred and --valid-from: %d %s", code, errs)
	}

	// Times as people type them (TIME-2): a date is that day, a recurrence
	// is shown as its rule (REC-30); what is no time, or lies outside the
	// supported range (TIME-1), is a usage error naming the flag.
	tulips := strings.TrimSpace(cli("remember", "--occurred", "2026-11-20", "Planted the tulips"))
	if out := cli("get", tulips); !strings.Contains(out, "occurred:   2026-11-20T00:00:00Z .. 2026-11-21T00:00:00Z (writer: 2026-11-20)") {
		t.Errorf("--occurred 2026-11-20: %s", out)
	}
	choir := strings.TrimSpace(cli("remember", "--occurred", "every Sunday morning", "Choir practice at the church"))
	if out := cli("get", choir); !strings.Contains(out, "occurred:   FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11 from ") || !strings.Contains(out, "(writer: every Sunday morning)") {
		t.Errorf("--occurred every Sunday morning: %s", out)
	}
	for _, tt := range []struct{ args []string }{
		{[]string{"remember", "--occurred", "1000-06-15T00:00:00Z", "Old news about a battle"}},
		{[]string{"remember", "--valid-to", "3000-01-01", "A lease far away"}},
		{[]string{"remember", "--occurred", "sometime-ish", "A vague thing happened"}},
		{[]string{"list", "--occurred-after", "0000-01-01T00:00:00Z"}},
	} {
		code, _, errs := run(t, dir, "", tt.args...)
		if code != 2 || !strings.Contains(errs, "--"+strings.TrimPrefix(tt.args[1], "--")) || strings.Contains(errs, "parsing time") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming %s", tt.args, code, errs, tt.args[1])
		}
	}
}
