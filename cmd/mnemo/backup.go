package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo/backup"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// The CLI opens the store itself to back it up, as every command does
// beside a running server: SQLite's readers run beside another process's
// writer, and the files store's lock is every process's. So `mnemo
// backup` needs no server, no API key and no endpoint, and works the same
// whether one runs or not (OPS-11).

// postgresBackup is why the postgres store has no `mnemo backup`.
const postgresBackup = "the postgres store is backed up with PostgreSQL's own tools: " +
	"pg_dump for a logical copy, pg_basebackup with WAL archiving for point-in-time recovery (docs/DEPLOY.md, Backups)"

// backupKind checks that the configured store is one mnemo backs up, and
// returns its kind.
func (a *app) backupKind() (string, error) {
	switch a.cfg.Store.Backend {
	case BackendPostgres:
		return "", usageError{postgresBackup}
	case BackendMemory:
		return "", usagef("the memory store keeps nothing to back up")
	}
	if a.cfg.Mock && a.cfg.dataDefault {
		return "", usagef("mock mode keeps nothing to back up unless --data is given")
	}
	return a.cfg.Store.Backend, nil
}

// storeFile is the file that marks a store of kind in the configured
// place.
func (a *app) storeFile(kind string) string {
	if kind == BackendFiles {
		return filepath.Join(a.cfg.filesRoot(), files.LogName)
	}
	return filepath.Join(a.cfg.Data, "mnemo.db")
}

// storeTarget is where a store of kind lives: the data directory, or the
// files store's root.
func (a *app) storeTarget(kind string) string {
	if kind == BackendFiles {
		return a.cfg.filesRoot()
	}
	return a.cfg.Data
}

func (a *app) backupCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "backup <dest>",
		Short: "Write a consistent backup of the store to a new directory, while writers run",
		Long: `Write a consistent backup of the store to dest, a directory that must not
exist or be empty. It works while mnemo serve and other commands write.
The backup holds the store's files and manifest.json, with the SHA-256 of
each; mnemo restore checks them all. The postgres store is backed up with
PostgreSQL's tools (pg_dump, pg_basebackup).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			kind, err := a.backupKind()
			if err != nil {
				return err
			}
			if _, err := os.Stat(a.storeFile(kind)); errors.Is(err, fs.ErrNotExist) {
				return usagef("no %s store in %s to back up: --data or $MNEMO_DATA chooses the data directory", kind, a.storeTarget(kind))
			}
			be, err := a.openStore(ctx, a.logger(), a.registry)
			if err != nil {
				return err
			}
			defer be.store.Close()
			start := time.Now()
			m, err := writeBackup(ctx, be, args[0])
			if err != nil {
				return err
			}
			if a.asJSON {
				return a.printJSON(m)
			}
			fmt.Fprintf(a.stdout, "backed up the %s store to %s: %s, %s in %v\n", m.Store, args[0],
				textutil.Count(len(m.Files), "file", "files"), byteSize(manifestBytes(m)), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
}

// writeBackup backs up the open store be to dest.
func writeBackup(ctx context.Context, be *backend, dest string) (backup.Manifest, error) {
	snap, ok := be.store.(backup.Snapshotter)
	if !ok {
		return backup.Manifest{}, usagef("the %s store cannot be backed up by mnemo", be.name)
	}
	m, err := backup.Create(ctx, dest, be.name, version(), time.Now(), snap.Snapshot)
	if errors.Is(err, backup.ErrNotEmpty) {
		return m, usagef("%v: a backup goes to a new directory", err)
	}
	return m, err
}

// restoreBackup restores the backup in src into the configured store's
// place, which must be empty (OPS-13).
func (a *app) restoreBackup(ctx context.Context, src string) error {
	kind, err := a.backupKind()
	if err != nil {
		return err
	}
	m, err := backup.ReadManifest(src)
	if err != nil {
		return usageError{err.Error()}
	}
	if m.Store != kind {
		return usagef("%s is a backup of the %s store, and the configured store is %s: restore it with --store %s", src, m.Store, kind, m.Store)
	}
	target := a.storeTarget(kind)
	var check func(context.Context, string, backup.Manifest) error
	if kind == BackendSQLite {
		check = func(ctx context.Context, dir string, _ backup.Manifest) error {
			return sqlite.Check(ctx, filepath.Join(dir, "mnemo.db"))
		}
	}
	m, err = backup.Restore(ctx, src, target, check)
	var ie *backup.InvalidError
	switch {
	case errors.Is(err, backup.ErrNotEmpty):
		return usagef("%v: restore into an empty data directory (--data or $MNEMO_DATA)", err)
	case errors.As(err, &ie):
		return usagef("%v: nothing was restored", err)
	case err != nil:
		return err
	}
	if a.asJSON {
		return a.printJSON(m)
	}
	fmt.Fprintf(a.stdout, "restored the %s store backed up at %s into %s (%s, every checksum verified)\n",
		m.Store, m.CreatedAt.Format(time.RFC3339), target, textutil.Count(len(m.Files), "file", "files"))
	return nil
}

// isLedgerSeq reports whether arg of `mnemo restore` is a ledger entry's
// number rather than a backup's directory (written ./N if it is one).
func isLedgerSeq(arg string) bool {
	return arg != "" && strings.Trim(arg, "0123456789") == ""
}

// backupPrefix starts the name of every scheduled backup; the rest is its
// time, so that names sort by age.
const backupPrefix = "mnemo-"

const backupStamp = "20060102T150405.000Z"

// scheduledBackup writes a backup of be into dir and, once it is whole,
// removes all but the newest keep scheduled backups there (OPS-14).
func scheduledBackup(ctx context.Context, be *backend, dir string, keep int, log *slog.Logger) {
	start := time.Now()
	dest := filepath.Join(dir, backupPrefix+start.UTC().Format(backupStamp))
	m, err := writeBackup(ctx, be, dest)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("scheduled backup failed; older backups are kept", "dir", dir, "err", err)
		}
		return
	}
	log.Info("scheduled backup", "at", dest, "files", len(m.Files), "bytes", manifestBytes(m), "took", time.Since(start).Round(time.Millisecond))
	removed, err := pruneBackups(dir, keep)
	if err != nil {
		log.Warn("pruning old backups failed", "dir", dir, "err", err)
	}
	for _, r := range removed {
		log.Info("removed old backup", "at", r)
	}
}

// pruneBackups removes all but the newest keep whole scheduled backups in
// dir (those with a manifest), and returns the paths it removed. Other
// entries of dir are not its.
func pruneBackups(dir string, keep int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		stamp, ok := strings.CutPrefix(e.Name(), backupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		if _, err := time.Parse(backupStamp, stamp); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), backup.ManifestName)); err != nil {
			continue
		}
		names = append(names, e.Name())
	}
	slices.Sort(names)
	var removed []string
	var errs []error
	for _, name := range names[:max(0, len(names)-keep)] {
		p := filepath.Join(dir, name)
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

func manifestBytes(m backup.Manifest) int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// byteSize is n bytes for a person: 1.5 MB.
func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	d, e := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		d *= unit
		e++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(d), "kMGTPE"[e])
}
