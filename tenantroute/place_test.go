package tenantroute_test

import (
	"fmt"
	"testing"

	"github.com/mnemo-dev/mnemo/tenantroute"
)

// Rendezvous hashing (PG-12): stable, spread, and a database added or
// removed moves only the tenants it wins or held.
func TestPlace(t *testing.T) {
	const n = 3000
	tenants := make([]string, n)
	for i := range tenants {
		tenants[i] = fmt.Sprintf("tenant-%d", i)
	}
	three := []string{"eu", "us", "ap"}
	four := append(three[:3:3], "sa")
	two := []string{"eu", "ap"} // us removed
	counts := make([]int, len(three))
	for _, tn := range tenants {
		at := tenantroute.Place(tn, three)
		if again := tenantroute.Place(tn, three); again != at {
			t.Fatalf("%s: %d then %d", tn, at, again)
		}
		counts[at]++
		switch got := tenantroute.Place(tn, four); {
		case got == 3: // moved to the new database: allowed
		case got != at:
			t.Fatalf("%s moved from %s to %s when sa was added", tn, three[at], four[got])
		}
		if three[at] != "us" && two[tenantroute.Place(tn, two)] != three[at] {
			t.Fatalf("%s moved off %s when us was removed", tn, three[at])
		}
	}
	for i, c := range counts {
		// Each database holds a third, give or take a tenth of it.
		if c < n/3*9/10 || c > n/3*11/10 {
			t.Errorf("%s holds %d of %d tenants", three[i], c, n)
		}
	}
	if got := tenantroute.Place("x", nil); got != -1 {
		t.Errorf("no names: %d, want -1", got)
	}
}
