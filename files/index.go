package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// IndexName is the directory of one file per live key.
const IndexName = "index"

// indexFile is what a key's file holds: its latest envelope, indented, so
// that cat and jq read it and a cut path still names its key.
func indexFile(e Envelope) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return append(indent(make([]byte, 0, 2*len(b)), b, indentLevels), '\n'), nil
}

// indentLevels is how many levels of an index file are indented; deeper
// values stay compact. Indenting every level writes a line and its
// indentation per element, so the file of deeply nested content would
// grow with the square of its depth, and writing it holds up every other
// writer (FS-16, API-21); bounded, it stays within a few times the
// compact size.
const indentLevels = 8

// indent appends to dst the compact, valid JSON src indented by two spaces
// a level as json.Indent does, down to maxLevel levels; deeper arrays and
// objects are copied compact.
func indent(dst, src []byte, maxLevel int) []byte {
	level := 0
	newline := func(n int) {
		dst = append(dst, '\n')
		for range n {
			dst = append(dst, ' ', ' ')
		}
	}
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		dst = append(dst, c)
		if inString {
			switch c {
			case '\\':
				i++
				dst = append(dst, src[i])
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				i++
				dst = append(dst, src[i]) // [] and {}, as json.Indent writes them
				continue
			}
			level++
			if level <= maxLevel {
				newline(level)
			}
		case '}', ']':
			if level <= maxLevel {
				// The bracket goes on a line of its own.
				dst = dst[:len(dst)-1]
				newline(level - 1)
				dst = append(dst, c)
			}
			level--
		case ',':
			if level <= maxLevel {
				newline(level)
			}
		case ':':
			if level <= maxLevel {
				dst = append(dst, ' ')
			}
		}
	}
	return dst
}

// ErrSymlink is returned when a directory on a key's path in the index is
// a symbolic link: writing through it could leave the memory root.
var ErrSymlink = errors.New("files: a symbolic link in the index")

// PutIndex makes memory_root/index agree with e: the key's file holds e
// (written to a temporary file and renamed over, so a reader sees the old
// file or the new, never half), or is removed for a tombstone, with the
// directories it leaves empty. It never follows a symbolic link.
func PutIndex(root string, e Envelope) error { return writeIndex(filepath.Join(root, IndexName), e) }

// writeIndex is PutIndex into the index directory base.
func writeIndex(base string, e Envelope) error {
	rel, err := KeyPath(e.Key)
	if err != nil {
		return err
	}
	return writeIndexAt(base, rel, e)
}

// writeIndexAt is writeIndex at the path rel, made by KeyPath or alike.
func writeIndexAt(base, rel string, e Envelope) error {
	parts := strings.Split(rel, "/")
	if !e.Valid {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := checkDirs(base, parts[:len(parts)-1]); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // nothing to remove
			}
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("files: %w", err)
		}
		// Drop the directories the removal emptied (Remove fails on a
		// directory that is not empty, which ends the climb).
		for i := len(parts) - 1; i > 0; i-- {
			if os.Remove(filepath.Join(base, filepath.Join(parts[:i]...))) != nil {
				break
			}
		}
		return nil
	}
	if err := makeDirs(base, parts[:len(parts)-1]); err != nil {
		return err
	}
	data, err := indexFile(e)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	dir := filepath.Join(base, filepath.Join(parts[:len(parts)-1]...))
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("files: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	// rename replaces a symbolic link at the file's name itself, never its
	// target.
	if err := os.Rename(tmp.Name(), filepath.Join(base, filepath.FromSlash(rel))); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// makeDirs creates base/dirs..., refusing a symbolic link or a file on the
// way.
func makeDirs(base string, dirs []string) error {
	if err := os.MkdirAll(base, 0o755); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := checkDir(base); err != nil {
		return err
	}
	p := base
	for _, d := range dirs {
		p = filepath.Join(p, d)
		err := os.Mkdir(p, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("files: %w", err)
		}
		if err := checkDir(p); err != nil {
			return err
		}
	}
	return nil
}

// checkDirs checks that base/dirs... are all directories, not links.
func checkDirs(base string, dirs []string) error {
	p := base
	if err := checkDir(p); err != nil {
		return err
	}
	for _, d := range dirs {
		p = filepath.Join(p, d)
		if err := checkDir(p); err != nil {
			return err
		}
	}
	return nil
}

func checkDir(p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s", ErrSymlink, p)
	}
	if !st.IsDir() {
		return fmt.Errorf("files: %s is not a directory", p)
	}
	return nil
}

// Latest folds envelopes, in log order, into the latest of each key: last
// write wins by ts, then by order (FS-2, CTX-20). Tombstones are kept, as
// invalid envelopes.
func Latest(envs []Envelope) map[string]Envelope {
	out := make(map[string]Envelope, len(envs))
	for _, e := range envs {
		if cur, ok := out[e.Key]; ok && e.TS.Before(cur.TS) {
			continue
		}
		out[e.Key] = e
	}
	return out
}

// RebuildIndex writes the index of memory_root afresh from its state and
// log: into a new directory, swapped in by renames, so that a crash in the
// middle leaves the old index or the new (and a leftover directory the next
// rebuild removes). It returns how many live keys the index holds.
func RebuildIndex(root string, l *Log) (int, error) {
	envs, err := ReadAll(root, l)
	if err != nil {
		return 0, err
	}
	latest := Latest(envs)
	n := 0
	for _, e := range latest {
		if e.Valid {
			n++
		}
	}
	return n, rebuildFrom(root, latest)
}
