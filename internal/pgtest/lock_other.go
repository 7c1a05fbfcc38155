//go:build !unix

package pgtest

import (
	"os"
	"time"
)

// lockFile is a no-op where there is no flock: there, tests in one binary
// still take turns, but test binaries sharing one PGlite do not.
func lockFile(path, holder string, hold time.Duration) (unlock func(), err error) {
	return func() {}, nil
}

// tryLockFile claims nothing where there is no flock: test binaries share
// the servers, chosen by process id.
func tryLockFile(path string) *os.File { return nil }
