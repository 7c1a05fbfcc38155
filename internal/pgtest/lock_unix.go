//go:build unix

package pgtest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on path, polling until deadline, and
// writes who holds it into the file for the next waiter's error message.
// The lock goes with the process, so a test binary that dies releases it.
func lockFile(path, holder string, deadline time.Time) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			who, _ := os.ReadFile(path)
			f.Close()
			return nil, fmt.Errorf("another test binary (%s) held the session past the deadline (lock %s)", strings.TrimSpace(string(who)), path)
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d, %s\n", os.Getpid(), holder)), 0)
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
