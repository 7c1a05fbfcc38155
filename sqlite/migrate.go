package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/mnemo-dev/mnemo/internal/migrations"
)

// migrationFS holds the schema, one file per version: NNNN_name.sql. A file
// is never edited once released; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// ftsMigration is the migration that defines the current full-text index.
// RebuildIndex reruns it; a migration that redefines the index replaces it.
const ftsMigration = "migrations/0002_fts.sql"

// listMigrations returns the embedded migrations in version order.
func listMigrations() ([]migrations.Migration, error) {
	ms, err := migrations.List(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return ms, nil
}

// migrate brings the schema to the latest version, one transaction per
// migration, so that a failure leaves the file at the last good version.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.writer.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("sqlite: create schema_migrations: %w", err)
	}
	ms, err := listMigrations()
	if err != nil {
		return err
	}
	current, err := schemaVersion(ctx, db.writer)
	if err != nil {
		return err
	}
	if current > len(ms) {
		return fmt.Errorf("sqlite: %s has schema version %d, newer than this build knows (%d): upgrade mnemo", db.path, current, len(ms))
	}
	// One line for the whole run, however many versions it took: a new
	// store is created by all of them at once.
	applied := 0
	defer func() {
		if applied > 0 {
			db.logger.Info("migrated database", "path", db.path, "from", current, "to", current+applied, "migrations", applied)
		}
	}()
	for _, m := range ms[current:] {
		ok, err := db.apply(ctx, m)
		if err != nil {
			return err
		}
		if ok {
			applied++
		}
	}
	return nil
}

// apply runs m in a transaction of its own, unless another process has
// applied it meanwhile; applied says whether this one did.
func (db *DB) apply(ctx context.Context, m migrations.Migration) (applied bool, err error) {
	body, err := migrationFS.ReadFile(m.Name)
	if err != nil {
		return false, err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	defer tx.Rollback()
	// Another process may have applied it since the version was read; the
	// write lock this transaction holds makes the check final.
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&done); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	} else if done > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
		m.Version, db.now().UnixNano()); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	return true, nil
}

// SchemaVersion returns the version of the last migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	return schemaVersion(ctx, db.reader)
}

func schemaVersion(ctx context.Context, q *sql.DB) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: schema version: %w", err)
	}
	return v, nil
}

// RebuildIndex drops the full-text index and builds it again from the index
// text kept in the memories table. It repairs a lost or corrupt index; until
// it runs, searches fall back to substring matching.
func (db *DB) RebuildIndex(ctx context.Context) error {
	body, err := migrationFS.ReadFile(ftsMigration)
	if err != nil {
		return err
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS memories_fts`); err != nil {
		return fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	if err := fillFTSStats(ctx, tx, true); err != nil {
		return fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	if db.lex != nil {
		db.lex.reset()
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ftsExists reports whether the full-text table exists. Writes skip index
// maintenance while it does not: the rebuild that recreates it indexes every
// row, so nothing is lost.
func (db *DB) ftsExists(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memories_fts'`).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("sqlite: %w", err)
	}
	return n > 0, nil
}
