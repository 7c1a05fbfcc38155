//go:build unix

package pgtest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// lockFile takes an exclusive flock on path, polling, and writes who holds
// it into the file. It gives up when one holder has kept it for longer than
// hold of quiet-machine time (internal/testwait). The lock goes with the process, so a test binary that dies releases
// it.
func lockFile(path, holder string, hold time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	var last string // the holder last seen
	held := testwait.New(hold)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		who, _ := os.ReadFile(path)
		if now := strings.TrimSpace(string(who)); now != last {
			last, held = now, testwait.New(hold)
		}
		if held.Over() {
			f.Close()
			return nil, fmt.Errorf("another test binary (%s) has held the session for more than %v (lock %s)", last, hold, path)
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

// tryLockFile takes an exclusive flock on path if no one holds it, and
// returns the open file that holds it (closing it releases the lock), or
// nil.
func tryLockFile(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil
	}
	return f
}
