package files

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// StateName is the compaction's output: the latest version of every key,
// one envelope a line (FS-11).
const StateName = "state.jsonl"

// History says what compaction does with the log (FS-14).
type History int

const (
	// KeepLog keeps log.jsonl whole: the state is a snapshot beside it
	// (FS-14's preferred choice).
	KeepLog History = iota
	// RotateLog moves log.jsonl into archive/log_YYYYMMDD.jsonl and starts
	// an empty one: the state and the new log are the memory (FS-14's rotation).
	RotateLog
)

// CompactResult says what a compaction did.
type CompactResult struct {
	Read     int    `json:"read"`     // envelopes read, state and log
	Keys     int    `json:"keys"`     // keys in the new state, tombstones included
	Live     int    `json:"live"`     // keys with content: files in the index
	Archived string `json:"archived"` // the rotated log, for RotateLog
}

// ReadAll returns every envelope of memory_root in order: the state, then
// the log.
func ReadAll(root string, l *Log) ([]Envelope, error) {
	envs, err := readState(root)
	if err != nil {
		return nil, err
	}
	err = l.Replay(func(e Envelope) error { envs = append(envs, e); return nil })
	return envs, err
}

func readState(root string) ([]Envelope, error) {
	f, err := os.Open(filepath.Join(root, StateName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	defer f.Close()
	var out []Envelope
	r := bufio.NewReaderSize(f, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				return nil, fmt.Errorf("files: %s ends in a torn line", StateName)
			}
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("files: %w", err)
		}
		var e Envelope
		if err := json.Unmarshal(line, &e); err != nil || e.Key == "" {
			return nil, fmt.Errorf("files: %s line %d is not an envelope: %v", StateName, n, err)
		}
		out = append(out, e)
	}
}

// Compact writes the latest version of every key to state.jsonl (a new
// file renamed over the old: a crash leaves one or the other), rebuilds
// the index from it (repairing any drift between index and log), and with
// RotateLog moves the log into archive/. Every step can be interrupted:
// the next Compact, or an open, finds a consistent root, and nothing
// acknowledged is lost — the state holds what the log held before the log
// is moved. It holds the log's lock throughout, so appends wait.
func Compact(root string, l *Log, h History, now time.Time) (CompactResult, error) {
	var res CompactResult
	err := l.locked(lockEx, func() error {
		envs, err := readState(root)
		if err != nil {
			return err
		}
		if err := l.replayLocked(func(e Envelope) error { envs = append(envs, e); return nil }); err != nil {
			return err
		}
		res.Read = len(envs)
		latest := Latest(envs)
		keys := make([]string, 0, len(latest))
		for k := range latest {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		// 1. The new state, durably, then in place.
		tmp := filepath.Join(root, StateName+".tmp")
		f, err := os.Create(tmp)
		if err != nil {
			return fmt.Errorf("files: %w", err)
		}
		w := bufio.NewWriter(f)
		for _, k := range keys {
			line, err := json.Marshal(latest[k])
			if err != nil {
				f.Close()
				return fmt.Errorf("files: %w", err)
			}
			w.Write(line)
			w.WriteByte('\n')
			if latest[k].Valid {
				res.Live++
			}
		}
		res.Keys = len(keys)
		if err := w.Flush(); err != nil {
			f.Close()
			return fmt.Errorf("files: %w", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("files: %w", err)
		}
		f.Close()
		if err := os.Rename(tmp, filepath.Join(root, StateName)); err != nil {
			return fmt.Errorf("files: %w", err)
		}
		// 2. The index, afresh from the state.
		if err := rebuildFrom(root, latest); err != nil {
			return err
		}
		// 3. The log, moved away: the state now holds all of it.
		if h == RotateLog {
			dir := filepath.Join(root, "archive")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("files: %w", err)
			}
			name := filepath.Join(dir, "log_"+now.UTC().Format("20060102")+".jsonl")
			for i := 2; ; i++ { // a second compaction the same day
				if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
					break
				}
				name = filepath.Join(dir, fmt.Sprintf("log_%s_%d.jsonl", now.UTC().Format("20060102"), i))
			}
			if err := os.Rename(l.path, name); err != nil {
				return fmt.Errorf("files: %w", err)
			}
			res.Archived = strings.TrimPrefix(name, root+string(filepath.Separator))
			if err := l.reopen(); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// rebuildFrom writes the index of latest into index.next and swaps it in.
func rebuildFrom(root string, latest map[string]Envelope) error {
	files := make(map[string]Envelope, len(latest))
	for _, e := range latest {
		if e.Valid {
			rel, err := KeyPath(e.Key)
			if err != nil {
				return err
			}
			files[rel] = e
		}
	}
	return rebuildFiles(root, files)
}

// rebuildFiles writes files (envelopes by path relative to index/) into
// index.next and swaps it in.
func rebuildFiles(root string, files map[string]Envelope) error {
	next := filepath.Join(root, IndexName+".next")
	old := filepath.Join(root, IndexName+".old")
	for _, p := range []string{next, old} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("files: %w", err)
		}
	}
	if err := os.MkdirAll(next, 0o755); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	for rel, e := range files {
		if err := writeIndexAt(next, rel, e); err != nil {
			return err
		}
	}
	cur := filepath.Join(root, IndexName)
	if err := os.Rename(cur, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("files: %w", err)
	}
	if err := os.Rename(next, cur); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return os.RemoveAll(old)
}
