package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sqlitedriver "modernc.org/sqlite"
)

// Snapshot writes a consistent copy of the store into dir, as a data
// directory holds it: the database file under its own name and the ANN
// index files in its -vectors directory (OPS-12). Writers go on meanwhile.
//
// The index files are copied first, then the database, by SQLite's online
// backup API in one step: one read transaction, which WAL lets run beside
// the writer, so the copy is the database as of one commit. Each index
// file is replaced by rename when saved, so each copy is one whole save;
// and every vector it holds was committed before the database copy began.
// The copy is then the state a crash leaves: index files behind the table,
// which the store catches up on open from the vectors stored since (see
// ann.go). Copying them saves the restored store rebuilding every index,
// minutes at a million memories.
func (db *DB) Snapshot(ctx context.Context, dir string) error {
	base := filepath.Base(db.path)
	if err := db.snapshotVectors(ctx, filepath.Join(dir, base+"-vectors")); err != nil {
		return err
	}
	dst := filepath.Join(dir, base)
	conn, err := db.reader.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(c any) error {
		bc, ok := c.(interface {
			NewBackup(string) (*sqlitedriver.Backup, error)
		})
		if !ok {
			return errors.New("the driver has no backup API")
		}
		b, err := bc.NewBackup(dsn(dst))
		if err != nil {
			return err
		}
		for more := true; more; {
			if more, err = b.Step(-1); err != nil {
				b.Finish()
				return err
			}
		}
		return b.Finish()
	})
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// snapshotVectors copies the saved ANN index files into dir.
func (db *DB) snapshotVectors(ctx context.Context, dir string) error {
	src := db.vectors.dir
	if src == "" {
		return nil
	}
	entries, err := os.ReadDir(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no index saved yet
	} else if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	for _, e := range entries {
		// Temporary files of a save under way (".ann-*") are not indexes.
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".ann") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("sqlite: backup: %w", err)
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // dropped since it was listed
			}
			return fmt.Errorf("sqlite: backup: %w", err)
		}
	}
	return nil
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

// Check reports whether the database file at path is a whole mnemo
// store: SQLite's integrity_check finds nothing wrong, and its schema has
// the memories table. A restore runs it before anything is put in place
// (OPS-13).
func Check(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(path, "_pragma=busy_timeout(5000)", "_pragma=query_only(1)"))
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("%s: integrity check: %w", filepath.Base(path), err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return fmt.Errorf("%s: integrity check: %w", filepath.Base(path), err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("%s: integrity check: %w", filepath.Base(path), err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: integrity check failed: %s", filepath.Base(path), strings.Join(problems, "; "))
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memories'`).Scan(&n); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if n != 1 {
		return fmt.Errorf("%s is not a mnemo store: it has no memories table", filepath.Base(path))
	}
	return nil
}
