package files

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mnemo-dev/mnemo"
)

// Snapshot writes a consistent copy of the memory root into dir (OPS-12):
// every file but the lock, copied holding the lock that every writing
// process takes, so that no write, index file or compaction of any
// process lands in the middle of the copy. Writers wait for the copy,
// which reads the root once.
func (s *Store) Snapshot(ctx context.Context, dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	return s.log.locked(lockEx, func() error {
		return filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("files: backup: %w", err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rel, err := filepath.Rel(s.root, path)
			if err != nil {
				return fmt.Errorf("files: backup: %w", err)
			}
			to := filepath.Join(dir, rel)
			switch {
			case d.IsDir():
				return os.MkdirAll(to, 0o755)
			case rel == LockName || !d.Type().IsRegular():
				return nil
			}
			if err := copyFile(path, to); err != nil {
				return fmt.Errorf("files: backup: %w", err)
			}
			return nil
		})
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
