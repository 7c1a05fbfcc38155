package mcp_test

import (
	"slices"
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
