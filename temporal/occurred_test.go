package temporal

import (
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestDraftOccurred: the writer's time, else the text's, else the
// creation's (REC-24).
func TestDraftOccurred(t *testing.T) {
	created := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	day := func(d int) time.Time { return time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC) }
	at := day(1)
	for _, c := range []struct {
		name       string
		content    string
		occurredAt *time.Time
		from, to   *time.Time
		want       mnemo.Occurred
		err        bool
	}{
		{"text", "I went to the support group yesterday", nil, nil, nil,
			mnemo.Occurred{Start: day(7), End: day(8), Expression: "yesterday", Source: mnemo.OccurredText}, false},
		{"created", "I like tea", nil, nil, nil, mnemo.Occurred{Start: created, End: created.Add(time.Second), Source: mnemo.OccurredCreated}, false},
		{"occurred_at", "I went there yesterday", &at, nil, nil, mnemo.Occurred{Start: at, End: at.Add(time.Second), Source: mnemo.OccurredWriter}, false},
		{"valid span", "on holiday", nil, &at, func() *time.Time { v := day(5); return &v }(),
			mnemo.Occurred{Start: at, End: day(5), Source: mnemo.OccurredWriter}, false},
		{"valid from alone: until written", "on holiday", nil, &at, nil, mnemo.Occurred{Start: at, End: created, Source: mnemo.OccurredWriter}, false},
		{"both", "x", &at, &at, nil, mnemo.Occurred{}, true},
		{"empty span", "x", nil, func() *time.Time { v := day(5); return &v }(), &at, mnemo.Occurred{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			content := c.content
			d := mnemo.Draft{Content: &content, CreatedAt: &created, OccurredAt: whenOf(c.occurredAt), ValidFrom: c.from, ValidTo: c.to}
			m, err := Build(&d, mnemo.Scope{TenantID: "t", AgentID: "a"}, mnemo.DefaultLimits(), created)
			if c.err {
				if mnemo.ErrorCode(err) != mnemo.EINVALID {
					t.Fatalf("err = %v, want invalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o := m.Occurred; o == nil || !o.Start.Equal(c.want.Start) || !o.End.Equal(c.want.End) || o.Expression != c.want.Expression || o.Source != c.want.Source {
				t.Errorf("mnemo.Occurred = %+v, want %+v", o, c.want)
			}
		})
	}
}

func whenOf(t *time.Time) *mnemo.When {
	if t == nil {
		return nil
	}
	return mnemo.At(*t)
}

// TestDraftRecurring: a recurring time in a memory's text or its writer's
// occurred_at is kept as a recurrence, not as one occurrence (REC-30); a
// single time before it in the text still wins, and a time outside the
// supported range in the text is passed over, never kept as another date
// (TIME-1).
func TestDraftRecurring(t *testing.T) {
	created := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC) // a Wednesday
	at := func(m, d, h int) time.Time { return time.Date(2023, time.Month(m), d, h, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		name, content string
		occurredAt    string
		start         time.Time
		rule, expr    string // rule "" for no recurrence
		source        string
	}{
		{"every Sunday morning", "I go hiking every Sunday morning", "", at(5, 7, 6), "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11", "every Sunday morning", mnemo.OccurredText},
		{"the first Monday of each month", "Book club meets the first Monday of each month", "", at(5, 1, 0), "FREQ=MONTHLY;BYDAY=1MO", "the first Monday of each month", mnemo.OccurredText},
		{"on Sundays", "We call mum on Sundays", "", at(5, 7, 0), "FREQ=WEEKLY;BYDAY=SU", "on Sundays", mnemo.OccurredText},
		{"each month", "Rent is paid each month", "", at(5, 1, 0), "FREQ=MONTHLY", "each month", mnemo.OccurredText},
		{"every two weeks", "The cleaner comes every two weeks", "", at(5, 8, 0), "FREQ=WEEKLY;INTERVAL=2", "every two weeks", mnemo.OccurredText},
		{"Chinese", "我每周日上午去爬山", "", at(5, 7, 6), "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11", "每周日上午", mnemo.OccurredText},
		{"the writer's", "Choir practice", "every Sunday morning", at(5, 7, 6), "FREQ=WEEKLY;BYDAY=SU;BYHOUR=6,7,8,9,10,11", "every Sunday morning", mnemo.OccurredWriter},
		{"a single time first", "Yesterday I started going to yoga every Monday", "", at(5, 9, 0), "", "Yesterday", mnemo.OccurredText},
		{"every May", "We visit the fort every May", "", at(5, 1, 0), "FREQ=YEARLY;BYMONTH=5", "every May", mnemo.OccurredText},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := mnemo.Draft{Content: &c.content, CreatedAt: &created}
			if c.occurredAt != "" {
				d.OccurredAt = &mnemo.When{Text: c.occurredAt}
			}
			m, err := Build(&d, mnemo.Scope{TenantID: "t", AgentID: "a"}, mnemo.DefaultLimits(), created)
			if err != nil {
				t.Fatal(err)
			}
			o := m.Occurred
			if o == nil || !o.Start.Equal(c.start) || o.Expression != c.expr || o.Source != c.source {
				t.Fatalf("mnemo.Occurred = %+v, want start %v, %q, %s", o, c.start, c.expr, c.source)
			}
			if c.rule == "" {
				if o.Recurrence != nil {
					t.Fatalf("a recurrence %s, want none", o.Recurrence.Rule)
				}
				return
			}
			if o.Recurrence == nil || o.Recurrence.Rule != c.rule || !o.End.Equal(mnemo.LatestTime) {
				t.Fatalf("mnemo.Occurred = %+v (recurrence %+v), want the rule %s to the range's end", o, o.Recurrence, c.rule)
			}
		})
	}
}

// TestDraftTextOutOfRange: a time the text names that lies past the
// supported range is passed over (TIME-1): the memory is dated by its
// creation, never by another date.
func TestDraftTextOutOfRange(t *testing.T) {
	created := time.Date(2261, 12, 31, 12, 0, 0, 0, time.UTC)
	content := "We will move to the coast next year"
	d := mnemo.Draft{Content: &content, CreatedAt: &created}
	m, err := Build(&d, mnemo.Scope{TenantID: "t", AgentID: "a"}, mnemo.DefaultLimits(), created)
	if err != nil {
		t.Fatal(err)
	}
	if o := m.Occurred; o == nil || o.Source != mnemo.OccurredCreated || !o.Start.Equal(created) || o.End.After(mnemo.LatestTime) {
		t.Fatalf("mnemo.Occurred = %+v, want the creation's", o)
	}
}
