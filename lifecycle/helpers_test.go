package lifecycle_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo/internal/testkit"
)

// The shared test helpers, by their short names.
var (
	newClock   = testkit.NewClock
	str        = testkit.Str
	tptr       = testkit.Tptr
	draft      = testkit.Draft
	alice      = testkit.Alice
	bob        = testkit.Bob
	newService = testkit.NewService
	wantCode   = testkit.WantCode
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run %s -update to accept):\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}
