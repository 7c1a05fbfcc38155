package mcp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestTimeAndWho drives REC-24 … REC-28 through a real MCP client, by
// every way in: remember takes occurred_at, valid_from/valid_to and entity
// aliases; recall returns each memory's occurred, restricts by
// occurred_after/occurred_before, answers as_of a past time (a key's
// earlier value, a key deleted since) and prefers what an alias names.
func TestTimeAndWho(t *testing.T) {
	type memoryOut struct {
		ID       string          `json:"id"`
		Content  string          `json:"content"`
		Occurred *mnemo.Occurred `json:"occurred"`
		ValidTo  *time.Time      `json:"valid_to"`
		Entities []string        `json:"entities"`
	}
	type recallOut struct {
		Count    int         `json:"count"`
		Memories []memoryOut `json:"memories"`
	}
	day := func(d int) time.Time { return time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC) }
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			svc := newService(t)
			cs := tr.connect(t, svc)
			remember := func(args map[string]any) memoryOut {
				t.Helper()
				var out struct {
					Memory memoryOut `json:"memory"`
				}
				ok(t, cs, "remember", args, &out)
				return out.Memory
			}
			trip := remember(map[string]any{"content": "Flew to Lisbon for the conference", "occurred_at": day(3), "entities": []string{"Ana Silva", "my sister"}})
			if o := trip.Occurred; o == nil || !o.Start.Equal(day(3)) || o.Source != mnemo.OccurredWriter || !slices.Equal(trip.Entities, []string{"Ana Silva", "my sister", "Lisbon"}) {
				t.Fatalf("remember occurred_at, entities: %+v", trip)
			}
			lease := remember(map[string]any{"content": "Rented a flat in Porto", "valid_from": day(10), "valid_to": day(20)})
			if o := lease.Occurred; o == nil || !o.Start.Equal(day(10)) || !o.End.Equal(day(20)) || lease.ValidTo == nil || !lease.ValidTo.Equal(day(20)) {
				t.Fatalf("remember valid_from/valid_to: %+v", lease)
			}
			yesterday := remember(map[string]any{"content": "Visited the conference museum yesterday"})
			if o := yesterday.Occurred; o == nil || o.Source != mnemo.OccurredText || o.Expression != "yesterday" {
				t.Fatalf("remember, a time in the text: %+v", yesterday)
			}
			fails(t, cs, "remember", map[string]any{"content": "x", "occurred_at": day(1), "valid_from": day(1)}, mnemo.EINVALID)

			recall := func(args map[string]any) []string {
				t.Helper()
				var out recallOut
				ok(t, cs, "recall", args, &out)
				var got []string
				for _, m := range out.Memories {
					if m.Occurred == nil {
						t.Fatalf("recall %v: %s has no occurred", args, m.ID)
					}
					got = append(got, m.Content)
				}
				return got
			}
			for _, tt := range []struct {
				name string
				args map[string]any
				want []string
			}{
				{"occurred_after and before", map[string]any{"query": "conference flat", "occurred_after": day(1), "occurred_before": day(5)}, []string{"Flew to Lisbon for the conference"}},
				{"occurred_after alone", map[string]any{"query": "conference flat", "occurred_after": day(9), "occurred_before": day(25)}, []string{"Rented a flat in Porto"}},
				{"as of before the lease", map[string]any{"query": "flat Porto", "as_of": day(9)}, nil},
				{"as of during the lease", map[string]any{"query": "flat Porto", "as_of": day(15)}, []string{"Rented a flat in Porto"}},
				{"as of after the lease", map[string]any{"query": "flat Porto", "as_of": day(21)}, nil},
				{"an alias", map[string]any{"query": "my sister", "limit": 1}, []string{"Flew to Lisbon for the conference"}},
			} {
				if got := recall(tt.args); !slices.Equal(got, tt.want) {
					t.Errorf("%s: recall = %q, want %q", tt.name, got, tt.want)
				}
			}

			// A key rewritten, then deleted: as of a time before, its value then.
			remember(map[string]any{"content": "The office is in Berlin", "key": "/team/office"})
			time.Sleep(20 * time.Millisecond)
			before := time.Now().UTC()
			time.Sleep(20 * time.Millisecond)
			remember(map[string]any{"content": "The office is in Munich", "key": "/team/office"})
			if _, err := svc.Remember(t.Context(), alice, mnemo.Draft{Key: "/team/office"}); err != nil { // tombstone
				t.Fatal(err)
			}
			if got := recall(map[string]any{"query": "office"}); len(got) != 0 {
				t.Errorf("recall now: %q, want nothing", got)
			}
			if got := recall(map[string]any{"query": "office", "as_of": before}); !slices.Equal(got, []string{"The office is in Berlin"}) {
				t.Errorf("recall as of before: %q, want Berlin", got)
			}
		})
	}
}

// TestTypedTimes drives the times people type through a real MCP client
// (TIME-1, TIME-2, REC-30): a plain date is that day, words and a
// recurrence are read, and what is no time or lies outside the supported
// range is a tool error that names the argument — never a Go layout error
// nor a date other than the one sent.
func TestTypedTimes(t *testing.T) {
	type occurredOut struct {
		Start      time.Time `json:"start"`
		End        time.Time `json:"end"`
		Recurrence *struct {
			Rule string `json:"rule"`
		} `json:"recurrence"`
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, newService(t))
			var out struct {
				Memory struct {
					Occurred occurredOut `json:"occurred"`
				} `json:"memory"`
			}
			ok(t, cs, "remember", map[string]any{"content": "Planted the tulips", "occurred_at": "2026-11-20"}, &out)
			if o := out.Memory.Occurred; !o.Start.Equal(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)) || !o.End.Equal(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("a plain date: %+v, want the day", o)
			}
			ok(t, cs, "remember", map[string]any{"content": "Choir practice", "occurred_at": "every Sunday morning"}, &out)
			if o := out.Memory.Occurred; o.Recurrence == nil || o.Recurrence.Rule != "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11" {
				t.Errorf("a recurrence: %+v", o)
			}
			ok(t, cs, "recall", map[string]any{"query": "tulips", "occurred_after": "2026-11-01", "occurred_before": "2026-12-01"}, nil)
			for _, tt := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"remember", map[string]any{"content": "x y z", "occurred_at": "1000-06-15T00:00:00Z"}, "occurred_at 1000-06-15T00:00:00Z is outside the supported range, 1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z"},
				{"remember", map[string]any{"content": "x y z", "valid_to": "9999-12-31T00:00:00Z"}, "valid_to 9999-12-31T00:00:00Z is outside the supported range"},
				{"remember", map[string]any{"content": "x y z", "expires_at": "whenever"}, `expires_at "whenever" is not a time`},
				{"recall", map[string]any{"query": "tulips", "as_of": "0000-01-01T00:00:00Z"}, "as_of 0000-01-01T00:00:00Z is outside the supported range"},
				{"recall", map[string]any{"query": "tulips", "occurred_before": "2026-02-30"}, `occurred_before "2026-02-30" is not a date`},
			} {
				if msg := fails(t, cs, tt.tool, tt.args, mnemo.EINVALID); !strings.Contains(msg, tt.want) || strings.Contains(msg, "parsing time") {
					t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, msg, tt.want)
				}
			}
		})
	}
}
