//go:build windows

package files

import (
	"os"

	"golang.org/x/sys/windows"
)

// The cross-process locks on the lock file: LockFileEx on its first byte,
// released by the system when the process dies, as flock(2) is on Unix.
const (
	lockEx = iota + 1
	lockSh
	lockUn
)

func flock(f *os.File, how int) error {
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	switch how {
	case lockUn:
		return windows.UnlockFileEx(h, 0, 1, 0, ol)
	case lockEx:
		return windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
	default:
		return windows.LockFileEx(h, 0, 0, 1, 0, ol)
	}
}
