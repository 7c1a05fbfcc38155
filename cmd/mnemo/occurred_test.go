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
}
