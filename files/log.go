package files

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Envelope is one write as the log keeps it (FS-8): the key, the
// time, whether it holds content (false: a tombstone), where it came from,
// and the content as given.
type Envelope struct {
	Key     string          `json:"key"`
	TS      time.Time       `json:"ts"`
	Valid   bool            `json:"valid"`
	Source  json.RawMessage `json:"source,omitempty"`
	Content json.RawMessage `json:"content"`
	// Mnemo is what a Store keeps beside the envelope's fields (see Store);
	// absent from lines other writers append.
	Mnemo json.RawMessage `json:"mnemo,omitempty"`
}

// LogOptions configure a Log.
type LogOptions struct {
	// NoSync skips the fsync after each append: faster, and a power loss
	// may lose the last appends (never tear one). The default syncs: an
	// append that returned is on disk.
	NoSync bool
}

// Log is memory_root/log.jsonl: every write appended as one line. Appends
// from any number of goroutines and processes never interleave or tear a
// line: each takes an exclusive lock on memory_root/.lock that holds
// across processes (flock), repairs a torn tail a crashed writer left, and
// writes its lines in one write. It is safe for concurrent use.
type Log struct {
	path   string
	lock   *os.File
	f      *os.File
	noSync bool
	mu     sync.Mutex // within the process; flock serialises processes
}

// LogName and LockName are the files of a memory root.
const (
	LogName  = "log.jsonl"
	LockName = ".lock"
)

// OpenLog opens (creating) the log of the memory root dir and repairs a
// torn last line.
func OpenLog(dir string, opts LogOptions) (*Log, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, LockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	path := filepath.Join(dir, LogName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("files: %w", err)
	}
	l := &Log{path: path, lock: lock, f: f, noSync: opts.NoSync}
	if err := l.locked(lockEx, l.repair); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// locked runs fn holding the process mutex and the cross-process lock.
func (l *Log) locked(how int, fn func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := flock(l.lock, how); err != nil {
		return fmt.Errorf("files: lock: %w", err)
	}
	defer flock(l.lock, lockUn)
	return fn()
}

// repair cuts a last line without its newline: a write that a crash
// interrupted, never acknowledged. It holds the lock.
func (l *Log) repair() error {
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := l.f.ReadAt(last[:], size-1); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if last[0] == '\n' {
		return nil
	}
	// Find the last newline, reading back in chunks.
	const chunk = 64 << 10
	end := size
	for end > 0 {
		start := max(0, end-chunk)
		buf := make([]byte, end-start)
		if _, err := l.f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("files: %w", err)
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return l.truncate(start + int64(i) + 1)
		}
		end = start
	}
	return l.truncate(0)
}

func (l *Log) truncate(n int64) error {
	if err := l.f.Truncate(n); err != nil {
		return fmt.Errorf("files: repair torn line: %w", err)
	}
	if l.noSync {
		return nil
	}
	return l.f.Sync()
}

// Append writes envs as lines, atomically as a whole: a crash leaves all
// of them or none (a torn tail is cut by the next open or append). It
// returns once they are on disk (unless NoSync).
func (l *Log) Append(envs ...Envelope) error {
	var buf bytes.Buffer
	for _, e := range envs {
		line, err := json.Marshal(e) // never holds a raw newline
		if err != nil {
			return fmt.Errorf("files: encode: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return l.locked(lockEx, func() error {
		if err := l.refresh(); err != nil {
			return err
		}
		if err := l.repair(); err != nil {
			return err
		}
		if _, err := l.f.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("files: append: %w", err)
		}
		if !l.noSync {
			if err := l.f.Sync(); err != nil {
				return fmt.Errorf("files: sync: %w", err)
			}
		}
		return nil
	})
}

// appendLocked writes buf, whole lines, at the end of the current log and
// returns the log's size after it. The caller holds the lock.
func (l *Log) appendLocked(buf []byte, sync bool) (int64, error) {
	if err := l.refresh(); err != nil {
		return 0, err
	}
	if err := l.repair(); err != nil {
		return 0, err
	}
	if _, err := l.f.Write(buf); err != nil {
		return 0, fmt.Errorf("files: append: %w", err)
	}
	if sync && !l.noSync {
		if err := l.f.Sync(); err != nil {
			return 0, fmt.Errorf("files: sync: %w", err)
		}
	}
	st, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("files: %w", err)
	}
	return st.Size(), nil
}

// maxLine bounds one log line: an envelope of the largest content and
// source with room to spare.
const maxLine = 4 << 20

// Replay calls fn with every envelope in the log, in order. A last line
// without its newline (an append in progress elsewhere, or torn) is not
// read; a line that is not an envelope is an error naming its number.
func (l *Log) Replay(fn func(Envelope) error) error {
	return l.locked(lockSh, func() error { return l.replayLocked(fn) })
}

// reopen opens a new log file after the old one was moved away. It holds
// the lock.
func (l *Log) reopen() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	l.f.Close()
	l.f = f
	return nil
}

// refresh reopens the log when another process's compaction moved it
// away: appends must go to the current log, never to the archived one. It
// holds the lock.
func (l *Log) refresh() error {
	cur, err := os.Stat(l.path)
	if err == nil {
		mine, err := l.f.Stat()
		if err == nil && os.SameFile(cur, mine) {
			return nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("files: %w", err)
	}
	return l.reopen()
}

// replayLocked is Replay for a caller that holds the lock.
func (l *Log) replayLocked(fn func(Envelope) error) error {
	{
		f, err := os.Open(l.path)
		if err != nil {
			return fmt.Errorf("files: %w", err)
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 1<<16)
		for n := 1; ; n++ {
			line, err := r.ReadBytes('\n')
			if errors.Is(err, io.EOF) {
				return nil // a partial last line is not an acknowledged write
			} else if err != nil {
				return fmt.Errorf("files: read %s: %w", LogName, err)
			}
			if len(line) > maxLine {
				return fmt.Errorf("files: %s line %d is over %d bytes", LogName, n, maxLine)
			}
			var e Envelope
			if err := json.Unmarshal(line, &e); err != nil || e.Key == "" {
				return fmt.Errorf("files: %s line %d is not an envelope: %v", LogName, n, err)
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
}

// Close closes the log.
func (l *Log) Close() error {
	err := l.f.Close()
	if e := l.lock.Close(); err == nil {
		err = e
	}
	return err
}
