package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestVersion checks that `mnemo --version` and `mnemo version` print the
// same line, and that a release build's linker values (-ldflags -X
// main.buildVersion=…) take the place of Go's build information.
func TestVersion(t *testing.T) {
	sh := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("mnemo %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	flag, cmd := sh("--version"), sh("version")
	if flag != cmd || !strings.HasPrefix(cmd, "mnemo ") {
		t.Fatalf("mnemo --version printed %q, mnemo version %q: want the same line", flag, cmd)
	}

	defer func(v, c, d string) { buildVersion, buildCommit, buildDate = v, c, d }(buildVersion, buildCommit, buildDate)
	buildVersion, buildCommit, buildDate = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-11-20T10:00:00Z"
	want := "mnemo v1.2.3 (commit 0123456789ab, 2026-11-20T10:00:00Z, "
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if got := sh(args...); !strings.HasPrefix(got, want) {
			t.Errorf("mnemo %v with linker values = %q, want %q…", args, got, want)
		}
	}
	var b buildInfo
	if err := json.Unmarshal([]byte(sh("version", "--json")), &b); err != nil || b.Version != "v1.2.3" || b.Commit != buildCommit || b.Date != buildDate {
		t.Errorf("version --json = %+v, %v", b, err)
	}
}
