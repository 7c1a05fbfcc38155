//go:build unix

package pgtest

import (
	"os"
	"testing"
)

// TestClaimServer: each claim takes a server no one holds; with all held,
// the process shares one; a released claim is free again.
func TestClaimServer(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a := "postgres://u@127.0.0.1:1/db"
	b := "postgres://u@127.0.0.1:2/db"
	dsns := []string{a, b}

	first, fa := claimServer(dsns)
	second, fb := claimServer(dsns)
	if first != a || fa == nil || second != b || fb == nil {
		t.Fatalf("two claims: %q (%v), %q (%v); want %q then %q, both held", first, fa != nil, second, fb != nil, a, b)
	}
	if shared, f := claimServer(dsns); f != nil || shared != dsns[os.Getpid()%2] {
		t.Errorf("a claim with both held = %q (held %v), want the shared %q", shared, f != nil, dsns[os.Getpid()%2])
	}
	fa.Close()
	if again, f := claimServer(dsns); again != a || f == nil {
		t.Errorf("after releasing %q, a claim = %q (held %v)", a, again, f != nil)
	} else {
		f.Close()
	}
	fb.Close()
}
