// Package backup writes and restores backups of a store's files (OPS-11 …
// OPS-15): a directory of the files a store copied of itself, and a
// manifest that names each with its size and SHA-256. It knows no store:
// a store copies itself into a directory (a Snapshotter), and a restore
// is given a check of what the store needs beyond its checksums (the
// SQLite store: PRAGMA integrity_check).
//
// A backup is written to a temporary directory beside its destination and
// renamed into place once complete, so a backup directory that exists is
// whole. A restore copies into a temporary directory beside its target,
// checking each file's checksum as it copies, runs the store's check, and
// only then renames the directory into place: a backup that is corrupted,
// truncated or incomplete is refused, and the target is left as it was.
package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// Format is the version of the backup layout and its manifest.
const Format = 1

// ManifestName is the manifest's file in a backup directory.
const ManifestName = "manifest.json"

// A Snapshotter is a store that can write a consistent copy of its files
// into an empty directory while it serves: the files a data directory
// needs to open the store as it was at one moment.
type Snapshotter interface {
	Snapshot(ctx context.Context, dir string) error
}

// Manifest describes a backup.
type Manifest struct {
	Format    int       `json:"format"`
	Store     string    `json:"store"` // the store's kind: sqlite, files
	CreatedAt time.Time `json:"created_at"`
	Version   string    `json:"mnemo_version"`
	Files     []File    `json:"files"`
}

// File is one file of a backup, by its slash-separated path relative to
// the backup directory.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// InvalidError is a backup that cannot be restored: a bad or missing
// manifest, or a file missing, extra, truncated or altered.
type InvalidError struct {
	Path string // the backup, or the file in it at fault
	Msg  string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("backup %s: %s", e.Path, e.Msg) }

// ErrNotEmpty is returned when a backup's destination or a restore's
// target already holds something.
var ErrNotEmpty = errors.New("is not empty")

// Create writes a backup of a store of kind store to dest, which must not
// exist or be an empty directory: snap copies the store's files into a
// temporary directory beside dest, the manifest is written, and the
// directory is renamed to dest.
func Create(ctx context.Context, dest, store, version string, now time.Time, snap func(ctx context.Context, dir string) error) (Manifest, error) {
	if err := mustBeEmpty(dest); err != nil {
		return Manifest{}, err
	}
	dest, err := filepath.Abs(dest)
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	parent, base := filepath.Split(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".partial-")
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := snap(ctx, tmp); err != nil {
		return Manifest{}, err
	}
	m := Manifest{Format: Format, Store: store, CreatedAt: now.UTC(), Version: version}
	err = filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("backup: %s is not a regular file", path)
		}
		rel, err := filepath.Rel(tmp, path)
		if err != nil {
			return err
		}
		f, err := hashFile(path)
		if err != nil {
			return err
		}
		f.Path = filepath.ToSlash(rel)
		m.Files = append(m.Files, f)
		return nil
	})
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Manifest{}, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	if err := writeSynced(filepath.Join(tmp, ManifestName), append(b, '\n')); err != nil {
		return Manifest{}, err
	}
	if err := syncDirs(tmp); err != nil {
		return Manifest{}, err
	}
	if err := replaceEmpty(tmp, dest); err != nil {
		return Manifest{}, err
	}
	done = true
	return m, nil
}

// ReadManifest reads and checks the manifest of the backup in dir.
func ReadManifest(dir string) (Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, &InvalidError{dir, "no " + ManifestName + ": not a mnemo backup, or an incomplete one"}
	} else if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		return Manifest{}, &InvalidError{filepath.Join(dir, ManifestName), err.Error()}
	}
	return m, nil
}

// ParseManifest decodes a manifest strictly and checks it: a known format
// and store, and files with safe, distinct relative paths, sizes and
// SHA-256 sums.
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("bad manifest: %w", err)
	}
	if d.More() {
		return Manifest{}, errors.New("bad manifest: more than one JSON value")
	}
	switch {
	case m.Format != Format:
		return Manifest{}, fmt.Errorf("format %d, this mnemo reads format %d", m.Format, Format)
	case m.Store != "sqlite" && m.Store != "files":
		return Manifest{}, fmt.Errorf("store %q, want sqlite or files", m.Store)
	case m.CreatedAt.IsZero():
		return Manifest{}, errors.New("no created_at")
	case m.CreatedAt.UTC().Year() < 1 || m.CreatedAt.UTC().Year() > 9999:
		return Manifest{}, errors.New("created_at is out of range")
	case len(m.Files) == 0:
		return Manifest{}, errors.New("no files")
	}
	seen := make(map[string]bool, len(m.Files))
	for _, f := range m.Files {
		if !fs.ValidPath(f.Path) || f.Path == "." || f.Path == ManifestName {
			return Manifest{}, fmt.Errorf("file path %q is not a relative path inside the backup", f.Path)
		}
		if seen[f.Path] {
			return Manifest{}, fmt.Errorf("file %q is listed twice", f.Path)
		}
		seen[f.Path] = true
		if f.Size < 0 {
			return Manifest{}, fmt.Errorf("file %q has a negative size", f.Path)
		}
		if s, err := hex.DecodeString(f.SHA256); err != nil || len(s) != sha256.Size {
			return Manifest{}, fmt.Errorf("file %q: sha256 must be 64 hex digits", f.Path)
		}
	}
	return m, nil
}

// Restore restores the backup in src to target, which must not exist or
// be an empty directory (else ErrNotEmpty). Every file is copied to a
// temporary directory beside target and checked against the manifest as
// it is copied; then check, if not nil, inspects the copy (the store's
// own check); only then is the copy renamed to target. Any fault leaves
// target as it was and is an *InvalidError when it is the backup's.
func Restore(ctx context.Context, src, target string, check func(ctx context.Context, dir string, m Manifest) error) (Manifest, error) {
	if err := mustBeEmpty(target); err != nil {
		return Manifest{}, err
	}
	m, err := ReadManifest(src)
	if err != nil {
		return Manifest{}, err
	}
	if err := sameFiles(src, m); err != nil {
		return Manifest{}, err
	}
	target, err = filepath.Abs(target)
	if err != nil {
		return Manifest{}, fmt.Errorf("restore: %w", err)
	}
	parent, base := filepath.Split(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("restore: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".restoring-")
	if err != nil {
		return Manifest{}, fmt.Errorf("restore: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		if err := copyChecked(filepath.Join(src, filepath.FromSlash(f.Path)), filepath.Join(tmp, filepath.FromSlash(f.Path)), f); err != nil {
			return Manifest{}, err
		}
	}
	if check != nil {
		if err := check(ctx, tmp, m); err != nil {
			if ctx.Err() != nil {
				return Manifest{}, err
			}
			return Manifest{}, &InvalidError{src, err.Error()}
		}
	}
	if err := syncDirs(tmp); err != nil {
		return Manifest{}, err
	}
	if err := replaceEmpty(tmp, target); err != nil {
		return Manifest{}, err
	}
	done = true
	return m, nil
}

// Verify checks every file of the backup in src against its manifest,
// without restoring it.
func Verify(ctx context.Context, src string) (Manifest, error) {
	m, err := ReadManifest(src)
	if err != nil {
		return Manifest{}, err
	}
	if err := sameFiles(src, m); err != nil {
		return Manifest{}, err
	}
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		if err := copyChecked(filepath.Join(src, filepath.FromSlash(f.Path)), "", f); err != nil {
			return Manifest{}, err
		}
	}
	return m, nil
}

// sameFiles checks that src holds the manifest's files and no others: a
// file the manifest does not list is a sign of a backup written over or
// a manifest from another one.
func sameFiles(src string, m Manifest) error {
	want := make(map[string]bool, len(m.Files))
	for _, f := range m.Files {
		want[f.Path] = true
	}
	var extra []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ManifestName {
			return nil
		}
		if !want[rel] {
			extra = append(extra, rel)
		}
		delete(want, rel)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for p := range want {
			missing = append(missing, p)
		}
		slices.Sort(missing)
		msg := "missing"
		if len(missing) > 1 {
			msg += fmt.Sprintf(", and %d more of the manifest's files", len(missing)-1)
		}
		return &InvalidError{filepath.Join(src, filepath.FromSlash(missing[0])), msg}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return &InvalidError{filepath.Join(src, filepath.FromSlash(extra[0])), "is not in the manifest"}
	}
	return nil
}

// copyChecked copies from to to (creating its directory), or only reads
// it when to is "", and checks its size and SHA-256 against f.
func copyChecked(from, to string, f File) error {
	in, err := os.Open(from)
	if errors.Is(err, fs.ErrNotExist) {
		return &InvalidError{from, "missing"}
	} else if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer in.Close()
	h := sha256.New()
	w := io.Writer(h)
	var out *os.File
	if to != "" {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		out, err = os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		defer out.Close()
		w = io.MultiWriter(h, out)
	}
	// One byte past the size tells a longer file from a whole one.
	n, err := io.Copy(w, io.LimitReader(in, f.Size+1))
	if err != nil {
		return fmt.Errorf("restore: %s: %w", from, err)
	}
	switch {
	case n < f.Size:
		return &InvalidError{from, fmt.Sprintf("truncated: %d bytes of %d", n, f.Size)}
	case n > f.Size:
		return &InvalidError{from, fmt.Sprintf("longer than the %d bytes the manifest says", f.Size)}
	case hex.EncodeToString(h.Sum(nil)) != f.SHA256:
		return &InvalidError{from, "checksum mismatch: the file was altered or damaged"}
	}
	if out != nil {
		if err := out.Sync(); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if err := out.Close(); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	return nil
}

// hashFile returns the size and SHA-256 of the file at path, after
// syncing it: a backup renamed into place is on disk.
func hashFile(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, err
	}
	if err := f.Sync(); err != nil {
		return File{}, err
	}
	return File{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("backup: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("backup: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// syncDirs syncs every directory under root, so that the names of the
// files in them survive a crash after the rename.
func syncDirs(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return syncDir(path)
	})
}

func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// mustBeEmpty reports ErrNotEmpty unless dir is missing or an empty
// directory.
func mustBeEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s %w: it is a file", dir, ErrNotEmpty)
		}
		return fmt.Errorf("%s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s %w (%d entries)", dir, ErrNotEmpty, len(entries))
	}
	return nil
}

// replaceEmpty renames the directory from to to, which is missing or an
// empty directory (removed first, so that the rename works on every
// platform).
func replaceEmpty(from, to string) error {
	if err := mustBeEmpty(to); err != nil {
		return err
	}
	if err := os.Remove(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return syncDir(filepath.Dir(filepath.Clean(to)))
}
