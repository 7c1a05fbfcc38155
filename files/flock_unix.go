//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// The cross-process locks on the lock file: flock(2), released by the
// kernel when the process dies.
const (
	lockEx = syscall.LOCK_EX
	lockSh = syscall.LOCK_SH
	lockUn = syscall.LOCK_UN
)

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
