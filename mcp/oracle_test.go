package mcp_test

import (
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestMaskedOracles asks the MCP channel, which reads masked (SEC-3), the
// questions whose answers could tell it what a restricted memory says
// (SEC-14), over both transports: remember with the same, nearly the same
// and the contrary text is a plain add, and recall bounded by when things
// happened, or asking about a time, finds no restricted memory; the owner,
// calling the service with no clearance, is told of the duplicate and
// finds it by its date.
func TestMaskedOracles(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			svc := newService(t)
			ctx := t.Context()
			const secretText = "Lunch with the auditor on 14 March 1987, the vault password is Zebra42Tango"
			sec, err := svc.Remember(ctx, alice, mnemo.Draft{Content: new(secretText), Type: mnemo.TypeEvent})
			if err != nil || sec.SecurityLevel != mnemo.SecurityRestricted || sec.Occurred == nil {
				t.Fatalf("the plant: %+v, %v", sec, err)
			}
			if w, err := svc.Write(ctx, alice, []mnemo.Draft{{Content: new(secretText), Type: mnemo.TypeEvent}}); err != nil || w[0].Guard.Action != memory.GuardDuplicate {
				t.Fatalf("the owner's duplicate: %+v, %v", w, err)
			}
			cs := tr.connect(t, svc)

			for _, text := range []string{
				secretText,
				"Lunch with the auditor on 14 March 1987, the vault password is Zebra42Tango today",
				"Lunch with the auditor on 14 March 1987, the vault password is not Zebra42Tango",
			} {
				var out struct {
					ID    string               `json:"id"`
					Guard memory.GuardDecision `json:"guard"`
				}
				ok(t, cs, "remember", map[string]any{"content": text, "type": "event"}, &out)
				if out.Guard.Action != memory.GuardAdd || out.ID == sec.ID || slices.Contains(out.Guard.ConflictsWith, sec.ID) {
					t.Errorf("remember %q: %+v, want a plain add", text, out.Guard)
				}
			}
			if m, err := svc.Get(ctx, alice, sec.ID); err != nil || m.Archived {
				t.Errorf("the restricted memory after the channel's writes: %+v, %v", m, err)
			}

			for _, args := range []map[string]any{
				{"query": "what happened on 14 March 1987", "min_match": "none"},
				{"query": "lunch", "occurred_after": "1987-03-01", "occurred_before": "1987-04-01", "min_match": "none"},
			} {
				var out struct {
					Memories []struct {
						ID            string `json:"id"`
						SecurityLevel string `json:"security_level"`
					} `json:"memories"`
				}
				ok(t, cs, "recall", args, &out)
				for _, m := range out.Memories {
					if m.SecurityLevel == mnemo.SecurityRestricted || m.ID == sec.ID {
						t.Errorf("recall %v: %s (%s)", args, m.ID, m.SecurityLevel)
					}
				}
			}
		})
	}
}
