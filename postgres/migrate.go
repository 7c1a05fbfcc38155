package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/migrations"
)

// migrationFS holds the schema, one file per version: NNNN_name.sql. A file
// is never edited once released; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// listMigrations returns the embedded migrations in version order.
func listMigrations() ([]migrations.Migration, error) {
	ms, err := migrations.List(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return ms, nil
}

func mustMigrations() []migrations.Migration {
	ms, err := listMigrations()
	if err != nil {
		panic(err) // the embedded files are checked by the tests
	}
	return ms
}

// Migrate connects to dsn and brings its schema (the first schema of its
// search_path, or opts.Schema) to the latest version, for the `mnemo
// migrate` command. It returns the versions before and after.
func Migrate(ctx context.Context, dsn string, opts Options) (from, to int, err error) {
	if err := checkPartitions(opts.Partitions); err != nil {
		return 0, 0, err
	}
	opts.NoMigrate = true
	db, err := openPool(ctx, dsn, opts)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	if from, to, err = db.Migrate(ctx); err != nil {
		return from, to, err
	}
	return from, to, db.partition(ctx, opts.Partitions)
}

// openPool opens a DB without checking its schema.
func openPool(ctx context.Context, dsn string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "postgres: bad DSN: %v", err)
	}
	cfg.MaxConns = 2
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	local, err := setPooler(cfg, opts.Pooler, opts.Schema)
	if err != nil {
		return nil, err
	}
	if opts.Schema != "" {
		if err := createSchema(ctx, cfg.ConnConfig, opts.Schema); err != nil {
			return nil, err
		}
	}
	db := &DB{now: time.Now, logger: opts.Logger, local: local}
	if db.logger == nil {
		db.logger = slog.New(slog.DiscardHandler)
	}
	if db.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, db.fail("open", err)
	}
	return db, nil
}

// Migrate brings the schema to the latest version and returns the versions
// before and after. A schema newer than this build knows is refused.
func (db *DB) Migrate(ctx context.Context) (from, to int, err error) {
	from, err = db.schemaVersion(ctx)
	if err != nil && !errors.Is(err, errNoSchema) {
		return 0, 0, db.fail("migrate", err)
	}
	if err := db.migrate(ctx); err != nil {
		return from, from, err
	}
	to, err = db.schemaVersion(ctx)
	return from, to, db.fail("migrate", err)
}

// SchemaVersion returns the version of the last migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	v, err := db.schemaVersion(ctx)
	return v, db.fail("schema version", err)
}

// schemaVersion reads the version in a transaction of its own when the
// search_path is set per transaction.
func (db *DB) schemaVersion(ctx context.Context) (v int, err error) {
	err = db.read(ctx, allTenants, func(q querier) (err error) {
		v, err = schemaVersion(ctx, q)
		return err
	})
	return v, err
}

var errNoSchema = errors.New("postgres: no schema_migrations table")

func schemaVersion(ctx context.Context, q querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass(quote_ident(current_schema()) || '.schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// migrateLock serialises migrations of one schema across processes; it is
// held by each migration's transaction.
const migrateLock = `SELECT pg_advisory_xact_lock(hashtext('mnemo.migrate:' || current_schema()))`

// migrate applies the migrations the schema lacks, each in a transaction
// of its own, so that a failure leaves the schema at the last good version.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := listMigrations()
	if err != nil {
		return err
	}
	// One line for the whole run, however many versions it took: a new
	// schema is created by all of them at once.
	var schema string
	from, to := -1, 0
	defer func() {
		if from >= 0 {
			db.logger.Info("migrated database", "schema", schema, "from", from, "to", to, "migrations", to-from)
		}
	}()
	for {
		v, done, err := db.migrateOne(ctx, ms, &schema)
		if err != nil || done {
			return err
		}
		if from < 0 {
			from = v - 1
		}
		to = v
	}
}

// migrateOne applies the next migration and returns its version, or
// reports that there is none. It sets *schemaName to the schema migrated.
func (db *DB) migrateOne(ctx context.Context, ms []migrations.Migration, schemaName *string) (version int, done bool, err error) {
	tx, err := db.begin(ctx, pgx.TxOptions{})
	if err != nil {
		return 0, false, unavailable("migrate", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var schema *string
	if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return 0, false, fmtMigrate(err)
	}
	if schema == nil {
		return 0, false, mnemo.Errorf(mnemo.EINVALID, "postgres: no schema of the search_path exists: create it, or set Options.Schema")
	}
	if _, err := tx.Exec(ctx, migrateLock); err != nil {
		return 0, false, fmtMigrate(err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return 0, false, fmtMigrate(err)
	}
	current, err := schemaVersion(ctx, tx)
	if err != nil {
		return 0, false, fmtMigrate(err)
	}
	if current > len(ms) {
		// A conflict, not an outage: the failover layer must fail, not
		// spool, on a schema it cannot use.
		return 0, false, mnemo.Errorf(mnemo.ECONFLICT,
			"postgres: schema %s is at version %d, newer than this build knows (%d): upgrade mnemo", *schema, current, len(ms))
	}
	if current == len(ms) {
		return 0, true, tx.Commit(ctx)
	}
	m := ms[current]
	body, err := migrationFS.ReadFile(m.Name)
	if err != nil {
		return 0, false, err
	}
	if _, err := tx.Exec(ctx, string(body)); err != nil {
		return 0, false, fmt.Errorf("postgres: migration %s: %w", m.Name, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.Version); err != nil {
		return 0, false, fmt.Errorf("postgres: migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, false, fmt.Errorf("postgres: migration %s: %w", m.Name, err)
	}
	*schemaName = *schema
	return m.Version, false, nil
}

func fmtMigrate(err error) error {
	if isConnError(err) {
		return unavailable("migrate", err)
	}
	return fmt.Errorf("postgres: migrate: %w", err)
}

// rlsPolicy restricts a table to the transaction's tenant. Statements that
// work across tenants set it to allTenants.
const rlsPolicy = `tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*'`

// rlsTables are the tables with a tenant_id.
var rlsTables = []string{"memory_entries", "history", "scopes", "ledger", "state", "scope_stats", "term_stats",
	"events", "event_segments", "relations", "event_vectors", "summaries", "capabilities"}

// enableRLS creates the row-level security policies, idempotently.
func (db *DB) enableRLS(ctx context.Context) error {
	tx, err := db.begin(ctx, pgx.TxOptions{})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, migrateLock); err != nil {
		return err
	}
	for _, t := range rlsTables {
		for _, s := range []string{
			`ALTER TABLE ` + t + ` ENABLE ROW LEVEL SECURITY`,
			// The owner is held to the policy too: mnemo usually runs as
			// the owner of its tables.
			`ALTER TABLE ` + t + ` FORCE ROW LEVEL SECURITY`,
			`DROP POLICY IF EXISTS mnemo_tenant ON ` + t,
			`CREATE POLICY mnemo_tenant ON ` + t + ` USING (` + rlsPolicy + `) WITH CHECK (` + rlsPolicy + `)`,
		} {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
	}
	return tx.Commit(ctx)
}

// rlsEnabled reports whether memory_entries has row-level security on.
func rlsEnabled(ctx context.Context, q querier) (bool, error) {
	var on bool
	err := q.QueryRow(ctx, `SELECT relrowsecurity FROM pg_class WHERE oid = to_regclass(quote_ident(current_schema()) || '.memory_entries')`).Scan(&on)
	return on, err
}
