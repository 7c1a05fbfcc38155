package memory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestUpdateKeepsWhenAndWho checks that a correction (PATCH) keeps what
// the writer said of when and who (REC-24, REC-27, REC-28): the writer's
// occurred window, valid_to and aliases stay, names of the old text go
// with it, and a time the text names is read against the memory's
// creation, not the correction's; keyed or not.
func TestUpdateKeepsWhenAndWho(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	trip := c.Now().Add(-30 * 24 * time.Hour)
	until := c.Now().Add(90 * 24 * time.Hour)
	for _, tt := range []struct {
		name         string
		draft        mnemo.Draft
		patch        string
		wantEntities []string
		wantOccurred mnemo.Occurred
		wantValidTo  *time.Time
	}{
		{
			name:         "writer's instant and aliases, keyed",
			draft:        mnemo.Draft{Key: "/trip", Content: str("Leo flew to Lisbon"), OccurredAt: mnemo.At(trip), Entities: []string{"my brother", "Leonardo"}},
			patch:        "Ben flew to Lisbon",
			wantEntities: []string{"my brother", "Leonardo", "Lisbon"},
			wantOccurred: mnemo.Occurred{Start: trip, End: trip.Add(time.Second), Source: mnemo.OccurredWriter},
		},
		{
			name:         "writer's span and valid_to, keyless",
			draft:        mnemo.Draft{Content: str("Mia rents the flat in Porto"), ValidFrom: &trip, ValidTo: &until, Entities: []string{"landlady"}},
			patch:        "Mia rents the flat in Braga",
			wantEntities: []string{"landlady", "Braga"},
			wantOccurred: mnemo.Occurred{Start: trip, End: until, Source: mnemo.OccurredWriter},
			wantValidTo:  &until,
		},
		{
			name:         "a time in the text, read against the creation",
			draft:        mnemo.Draft{Key: "/talk", Content: str("We met Ana yesterday")},
			patch:        "We met Ana and Leo yesterday",
			wantEntities: []string{"Ana", "Leo"},
			wantOccurred: mnemo.Occurred{Expression: "yesterday", Source: mnemo.OccurredText}, // the day before its creation
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := svc.Remember(ctx, alice, tt.draft)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantOccurred.Start.IsZero() {
				tt.wantOccurred.Start = dayStart(m.CreatedAt).Add(-24 * time.Hour)
				tt.wantOccurred.End = dayStart(m.CreatedAt)
			}
			c.Advance(48 * time.Hour)
			res, err := svc.Update(ctx, alice, m.ID, memory.Patch{Content: &tt.patch}, "test")
			if err != nil {
				t.Fatal(err)
			}
			got, err := svc.Get(ctx, alice, res.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != tt.patch {
				t.Fatalf("content %q, want %q", got.Content, tt.patch)
			}
			if !slices.Equal(got.Entities, tt.wantEntities) {
				t.Errorf("entities %q, want %q", got.Entities, tt.wantEntities)
			}
			if o := got.OccurredOf(); !o.Start.Equal(tt.wantOccurred.Start) || !o.End.Equal(tt.wantOccurred.End) || o.Source != tt.wantOccurred.Source || o.Expression != tt.wantOccurred.Expression {
				t.Errorf("occurred %+v, want %+v", o, tt.wantOccurred)
			}
			if (got.ValidTo == nil) != (tt.wantValidTo == nil) || got.ValidTo != nil && !got.ValidTo.Equal(*tt.wantValidTo) {
				t.Errorf("valid_to %v, want %v", got.ValidTo, tt.wantValidTo)
			}
			if !got.UpdatedAt.After(m.UpdatedAt) {
				t.Errorf("updated_at %v, not after the write's %v", got.UpdatedAt, m.UpdatedAt)
			}
		})
	}
}

func dayStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}
