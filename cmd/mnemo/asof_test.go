package main

import (
	"strings"
	"testing"
	"time"
)

// TestAsOfFlag asks recall and list for what held at a past time (REC-27).
func TestAsOfFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mnemo := runner(t, dir)
	mnemo("remember", "--key", "/user/city", "Ana lives in Lisbon")
	time.Sleep(20 * time.Millisecond)
	between := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(20 * time.Millisecond)
	mnemo("remember", "--key", "/user/city", "Ana lives in Porto")
	if out := mnemo("recall", "where does Ana live", "--as-of", between); !strings.Contains(out, "Lisbon") || strings.Contains(out, "Porto") {
		t.Fatalf("recall --as-of: %s", out)
	}
	if out := mnemo("list", "--as-of", between); !strings.Contains(out, "Lisbon") || strings.Contains(out, "Porto") {
		t.Fatalf("list --as-of: %s", out)
	}
	if out := mnemo("recall", "where does Ana live"); !strings.Contains(out, "Porto") {
		t.Fatalf("recall now: %s", out)
	}
	if code, _, errs := run(t, dir, "", "list", "--as-of", "9999-12-31T00:00:00Z"); code != 2 || !strings.Contains(errs, "as-of") {
		t.Fatalf("a bad --as-of: %d %s", code, errs)
	}
}
