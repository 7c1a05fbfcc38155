package main

import (
	"strings"
	"testing"
)

// TestMaskProfile checks the CLI's mask profile (SEC-8): with --mask,
// MNEMO_MASK or mask: true in the config, no command prints what a
// confidential or restricted memory says — content, its entities, when it
// happened, a key's revision before it was reclassified — an export is
// refused with one line, and without it every command prints them whole.
func TestMaskProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must := runner(t, dir)
	must("remember", "--key", "/ops/vault", "--security", "internal", "The vault combination is Vaultmark7Q")
	must("remember", "--key", "/ops/vault", "--security", "restricted", "The vault combination is Vaultmark7Q")
	must("remember", "--key", "/people/ana", "--type", "identity", "--pinned", "Ana Quillfeather's password is Zebra42Tango")
	must("remember", "--type", "event", "Lunch with the auditor on 14 March 1987, mail qx.auditor@example.com about the vault")
	markers := []string{"Vaultmark7Q", "Zebra42Tango", "Quillfeather", "qx.auditor@example.com", "March 1987", "1987-03-14"}
	reads := [][]string{
		{"recall", "vault password auditor combination", "--json"},
		{"recall", "vault password auditor combination", "--explain"},
		{"surface", "vault password auditor"},
		{"list"}, {"list", "--json"},
		{"get", "--key", "/people/ana", "--json"},
		{"history", "/ops/vault"}, {"history", "/ops/vault", "--json"},
		{"recall-path", "/", "--json"},
		{"boot"}, {"boot", "--json"},
		{"read", "--json"},
		{"snapshot", "cron", "--focus", "vault password", "--json"},
		{"reflect", "--dry-run", "--now", "in 2 years", "--json"},
	}
	seen := map[string]bool{}
	for _, args := range reads {
		for _, m := range markers {
			if strings.Contains(must(args...), m) {
				seen[m] = true
			}
		}
	}
	for _, m := range markers {
		if !seen[m] {
			t.Errorf("no command prints %q without the mask profile", m)
		}
	}
	cfg := writeConfig(t, "mask: true\n")
	for _, profile := range []struct {
		name  string
		env   string
		flags []string
	}{{"--mask", "", []string{"--mask"}}, {"MNEMO_MASK", "1", nil}, {"config", "", []string{"--config", cfg}}} {
		t.Run(profile.name, func(t *testing.T) {
			setenv(t, "MNEMO_MASK", profile.env)
			for _, args := range reads {
				code, out, errs := run(t, dir, "", append(profile.flags, args...)...)
				if code != 0 {
					t.Errorf("%v: %d %s", args, code, errs)
				}
				for _, m := range markers {
					if strings.Contains(out+errs, m) {
						t.Errorf("%v prints %q: %s", args, m, out)
					}
				}
			}
			if code, _, errs := run(t, dir, "", append(profile.flags, "export")...); code == 0 || !strings.Contains(errs, "mask") || strings.Count(errs, "\n") != 1 {
				t.Errorf("export: %d %q, want a one-line refusal", code, errs)
			}
			if code, out, errs := run(t, dir, "", append(profile.flags, "list")...); code != 0 || strings.Contains(out, "[RESTRICTED] [RESTRICTED]") || !strings.Contains(out, "[RESTRICTED] ******") {
				t.Errorf("list: %d %s %s, want one marker a masked memory", code, out, errs)
			}
		})
	}
}
