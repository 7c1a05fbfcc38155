package security_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/security"
)

// TestTimeFilter: a filter on when things happened keeps, for a caller
// that reads masked, only the levels it reads whole, and a level no memory
// has when it reads none of those asked; other filters, and a caller that
// reads everything, are left as they are (SEC-14).
func TestTimeFilter(t *testing.T) {
	t.Parallel()
	at := time.Date(1987, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		clear security.Clearance
		f     mnemo.Filter
		want  []string
	}{
		{"whole reads all", security.Clearance{}, mnemo.Filter{OccurredAfter: &at}, nil},
		{"masked, no time", security.Masked, mnemo.Filter{SecurityLevels: []string{"restricted"}}, []string{"restricted"}},
		{"masked, occurred after", security.Masked, mnemo.Filter{OccurredAfter: &at}, []string{"public", "internal"}},
		{"masked, occurred before", security.Masked, mnemo.Filter{OccurredBefore: &at}, []string{"public", "internal"}},
		{"masked, dated", security.Masked, mnemo.Filter{Dated: true}, []string{"public", "internal"}},
		{"masked, some asked", security.Masked, mnemo.Filter{OccurredAfter: &at, SecurityLevels: []string{"public", "restricted"}}, []string{"public"}},
		{"masked, none readable", security.Masked, mnemo.Filter{OccurredAfter: &at, SecurityLevels: []string{"confidential", "restricted"}}, []string{"-"}},
		{"public only", security.Clearance{Level: mnemo.SecurityPublic}, mnemo.Filter{Dated: true}, []string{"public"}},
	} {
		if got := c.clear.TimeFilter(c.f).SecurityLevels; !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
