package mnemo

import (
	"testing"
	"time"
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
		want       Occurred
		err        bool
	}{
		{"text", "I went to the support group yesterday", nil, nil, nil,
			Occurred{Start: day(7), End: day(8), Expression: "yesterday", Source: OccurredText}, false},
		{"created", "I like tea", nil, nil, nil, Occurred{Start: created, End: created.Add(time.Second), Source: OccurredCreated}, false},
		{"occurred_at", "I went there yesterday", &at, nil, nil, Occurred{Start: at, End: at.Add(time.Second), Source: OccurredWriter}, false},
		{"valid span", "on holiday", nil, &at, func() *time.Time { v := day(5); return &v }(),
			Occurred{Start: at, End: day(5), Source: OccurredWriter}, false},
		{"valid from alone: until written", "on holiday", nil, &at, nil, Occurred{Start: at, End: created, Source: OccurredWriter}, false},
		{"both", "x", &at, &at, nil, Occurred{}, true},
		{"empty span", "x", nil, func() *time.Time { v := day(5); return &v }(), &at, Occurred{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			content := c.content
			d := Draft{Content: &content, CreatedAt: &created, OccurredAt: whenOf(c.occurredAt), ValidFrom: c.from, ValidTo: c.to}
			m, err := d.Build(Scope{TenantID: "t", AgentID: "a"}, DefaultLimits(), created)
			if c.err {
				if ErrorCode(err) != EINVALID {
					t.Fatalf("err = %v, want invalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o := m.Occurred; o == nil || !o.Start.Equal(c.want.Start) || !o.End.Equal(c.want.End) || o.Expression != c.want.Expression || o.Source != c.want.Source {
				t.Errorf("Occurred = %+v, want %+v", o, c.want)
			}
		})
	}
}

func whenOf(t *time.Time) *When {
	if t == nil {
		return nil
	}
	return At(*t)
}
