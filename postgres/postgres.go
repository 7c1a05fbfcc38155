// Package postgres is mnemo's Store on PostgreSQL, with pgvector for
// semantic recall when the server has it.
//
// Every table name is unqualified, so that a search_path (in the DSN, or
// Options.Schema) places the whole store in one schema. The schema is in
// migrations/, applied at Open (or by Migrate) one transaction per version.
//
// The full-text index is a tsvector of the analysed text the Service hands
// over (Record.Index), with the simple configuration: the text is already
// segmented (Chinese into bigrams) by package analysis, so PostgreSQL never
// sees raw Chinese, which its parser would keep as one token per run of
// characters.
//
// Vectors live in a vector(dim) column with an HNSW index when the vector
// extension is installed. Without it the store still works: memories are
// stored without vectors, and every vector method answers ErrNoVectorIndex
// (code unavailable), so that recall degrades to full text (PG-2).
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/eventseg"
)

// Options configures a DB.
type Options struct {
	// Now is the clock, for expiry and history times; nil means time.Now.
	Now func() time.Time
	// Logger receives warnings such as a missing vector extension; nil
	// discards them.
	Logger *slog.Logger
	// MaxConns is the size of the connection pool; 0 means pgxpool's
	// default (the larger of 4 and the number of CPUs), or pool_max_conns
	// in the DSN.
	MaxConns int32
	// Schema, when set, is created if missing and made the search_path of
	// every connection (with public after it, where extensions usually
	// live). Empty means the DSN's search_path, or the server's.
	Schema string
	// NoMigrate leaves the schema as it is at Open; the store then refuses
	// to work on a schema older or newer than it knows. Run Migrate (the
	// `mnemo migrate` command) to upgrade.
	NoMigrate bool
	// RowLevelSecurity creates row-level security policies that restrict
	// every table to the tenant of the transaction's mnemo.tenant setting,
	// which the store sets in each transaction. Once enabled on a schema,
	// the store keeps setting the tenant even if later opened without it.
	RowLevelSecurity bool
	// EfSearch is pgvector's hnsw.ef_search for vector searches: how many
	// candidates the HNSW walk keeps; more finds more of the true nearest
	// and takes longer. 0 means 100. It is raised to the query's limit.
	EfSearch int
	// HNSWM and HNSWEfConstruction are the build parameters of the HNSW
	// index SetVectorSpace creates: pgvector's m (links per node, 2 to
	// 100) and ef_construction (candidates kept while inserting, 4 to
	// 1000, at least 2m); 0 means pgvector's defaults, 16 and 64. They
	// apply when the index is created: an existing index keeps its own
	// until it is rebuilt (see docs/POSTGRES.md).
	HNSWM              int
	HNSWEfConstruction int
	// Pooler says what stands between the store and PostgreSQL: "" (the
	// server, or a pooler in session mode) or "transaction" (PgBouncer,
	// or another pooler, in transaction mode, which may hand each
	// transaction to another server connection). With "transaction" the
	// store keeps no state in a session: no prepared statements (pgx's
	// statement cache off: QueryExecModeExec, one round trip, unless the
	// DSN chose the simple protocol), and Schema is set in each
	// transaction (set_config(..., true)), never by SET or the startup
	// message, which poolers reject or do not carry over.
	Pooler string
	// ExactSearchBelow is the number of filtered memories under which a
	// vector search scores each of them exactly instead of walking the
	// HNSW index; 0 means 5000, a negative number always walks the index.
	ExactSearchBelow int
	// Partitions, when positive, splits the tables that grow with use
	// (memories, history, ledger, term statistics, events, event vectors,
	// relations) by hash of tenant_id into that many partitions when the
	// store is created (an empty schema; PG-6, partition.go). A store with
	// rows keeps its layout, and Open refuses it (ECONFLICT) when the
	// number differs; 0 takes the store as it is.
	Partitions int
	// ReadDSNs are streaming replicas of the database (PG-11): recall,
	// list and search read from one of them, in turn, and everything else
	// goes to the primary. A replica more than MaxReplicaLag behind the
	// primary, unreachable, or not a standby is skipped (reads go to the
	// primary) and searches say so in their degraded flag. After this
	// process writes to a tenant, that tenant's reads go to the primary
	// for ReadYourWrites, so that an agent reads its own writes.
	ReadDSNs []string
	// ReadYourWrites is that window: 0 means DefaultReadYourWrites, a
	// negative value none.
	ReadYourWrites time.Duration
	// MaxReplicaLag is how far behind the primary a replica may be and
	// still be read; 0 means DefaultMaxReplicaLag.
	MaxReplicaLag time.Duration
	// WriteAttempts is how many times a batch that lost a race with a
	// concurrent write (see Write) is tried before it fails with
	// ECONFLICT; 0 means 8.
	WriteAttempts int
}

// DB is a mnemo.Store on PostgreSQL. It is safe for concurrent use.
type DB struct {
	pool   *pgxpool.Pool
	now    func() time.Time
	logger *slog.Logger
	rls    bool
	ef     int
	exact  int
	// local is the search_path set in each transaction (behind a
	// transaction-mode pooler), or empty.
	local string
	// hnswM and hnswEf are the HNSW index's m and ef_construction; 0 is
	// pgvector's default.
	hnswM, hnswEf int
	tries         int

	// vectors is nil when the vector extension is available, else why not.
	vectors error
	// large holds the scopes (mnemo.Scope → true) whose vectors were
	// found too many for an exact search: their unfiltered searches walk
	// the index without counting first. Entries are dropped when the scope
	// is cleared.
	large sync.Map
	// small holds the scopes (mnemo.Scope → time.Time) found with too few
	// memories for any word to be common, and when: their searches skip
	// the common-terms check for a minute (a scope that grows past the
	// threshold meanwhile has it up to a minute late).
	small sync.Map
	// iterative says pgvector can keep scanning its HNSW index until
	// enough rows pass a filter (pgvector 0.8).
	iterative bool

	// evType is the type of event_vectors.vec (halfvec, or vector before
	// pgvector 0.7), when vectors are available.
	evType string
	// seg decodes cold event segments.
	seg eventseg.Decoder
	// replicas, when read DSNs are set, route reads to them (PG-11).
	replicas *replicas
}

var (
	_ mnemo.Store          = (*DB)(nil)
	_ mnemo.VectorStore    = (*DB)(nil)
	_ mnemo.LifecycleStore = (*DB)(nil)
	_ mnemo.StateStore     = (*DB)(nil)
)

// ErrNoVectorIndex is what every vector method answers when the server has
// no vector extension: the store keeps memories without vectors, and recall
// must use full text alone. Its code is mnemo.EUNAVAILABLE; test for it
// with errors.Is.
var ErrNoVectorIndex = &mnemo.Error{
	Code:    mnemo.EUNAVAILABLE,
	Message: "no vector index: the PostgreSQL server has no pgvector extension (CREATE EXTENSION vector failed); memories are stored without vectors and recall uses full text",
}

// errUnavailable marks an error reaching the database. A failover layer
// tests mnemo.ErrorCode(err) == mnemo.EUNAVAILABLE.
var errUnavailable = &mnemo.Error{Code: mnemo.EUNAVAILABLE, Message: "the PostgreSQL database is unreachable"}

// checkHNSW checks the HNSW index's build parameters against pgvector's
// bounds (0 is its default: m 16, ef_construction 64).
func checkHNSW(m, efConstruction int) error {
	switch {
	case m != 0 && (m < 2 || m > 100):
		return mnemo.Errorf(mnemo.EINVALID, "postgres: HNSW m must be from 2 to 100, got %d", m)
	case efConstruction != 0 && (efConstruction < 4 || efConstruction > 1000):
		return mnemo.Errorf(mnemo.EINVALID, "postgres: HNSW ef_construction must be from 4 to 1000, got %d", efConstruction)
	case efConstruction != 0 && efConstruction < 2*cmp.Or(m, 16):
		return mnemo.Errorf(mnemo.EINVALID, "postgres: HNSW ef_construction (%d) must be at least twice m (%d)", efConstruction, cmp.Or(m, 16))
	}
	return nil
}

// Open connects to the database of dsn (a postgres:// URL or key=value
// string; pgxpool's pool_* settings apply), migrates its schema unless
// opts.NoMigrate, and finds out whether vectors are available.
//
// The store works with pgx's simple protocol
// (default_query_exec_mode=simple_protocol in the DSN) as well as the
// extended one, and never uses COPY.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "postgres: bad DSN: %v", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if err := checkHNSW(opts.HNSWM, opts.HNSWEfConstruction); err != nil {
		return nil, err
	}
	if err := checkPartitions(opts.Partitions); err != nil {
		return nil, err
	}
	local, err := setPooler(cfg, opts.Pooler, opts.Schema)
	if err != nil {
		return nil, err
	}
	db := &DB{
		local:  local,
		now:    opts.Now,
		logger: opts.Logger,
		ef:     opts.EfSearch,
		hnswM:  opts.HNSWM,
		hnswEf: opts.HNSWEfConstruction,
		exact:  opts.ExactSearchBelow,
		tries:  opts.WriteAttempts,
	}
	if db.now == nil {
		db.now = time.Now
	}
	if db.logger == nil {
		db.logger = slog.New(slog.DiscardHandler)
	}
	if db.ef <= 0 {
		db.ef = 100
	}
	if db.exact == 0 {
		db.exact = 5000
	}
	if db.tries <= 0 {
		db.tries = 8
	}
	if opts.Schema != "" {
		if err := createSchema(ctx, cfg.ConnConfig, opts.Schema); err != nil {
			return nil, err
		}
	}
	if db.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, db.fail("open", err)
	}
	if err := db.open(ctx, opts); err != nil {
		db.pool.Close()
		return nil, err
	}
	if err := db.openReplicas(ctx, opts.ReadDSNs, opts); err != nil {
		db.pool.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) open(ctx context.Context, opts Options) error {
	if err := db.pool.Ping(ctx); err != nil {
		return db.fail("open", err)
	}
	if !opts.NoMigrate {
		if err := db.migrate(ctx); err != nil {
			return err
		}
		if err := db.partition(ctx, opts.Partitions); err != nil {
			return err
		}
	}
	v, err := db.schemaVersion(ctx)
	if err != nil {
		return db.fail("open", err)
	}
	if known := len(mustMigrations()); v != known {
		// A conflict, not an outage (which would send writes to the spool).
		return mnemo.Errorf(mnemo.ECONFLICT, "postgres: the schema is at version %d, this build needs %d: run `mnemo migrate`", v, known)
	}
	if err := db.read(ctx, allTenants, func(q querier) error { return checkLayout(ctx, q, opts.Partitions) }); err != nil {
		return db.fail("open", err)
	}
	if opts.RowLevelSecurity {
		if err := db.enableRLS(ctx); err != nil {
			return db.fail("row-level security", err)
		}
	}
	if err := db.read(ctx, allTenants, func(q querier) (err error) {
		db.rls, err = rlsEnabled(ctx, q)
		return err
	}); err != nil {
		return db.fail("open", err)
	}
	db.vectors, db.iterative = db.probeVectors(ctx)
	if db.vectors == nil {
		if err := db.ensureEventVectors(ctx); err != nil {
			return db.fail("event vectors", err)
		}
	}
	if db.vectors != nil {
		// Info, not a warning: the Service warns once a process when it
		// meets the missing index, and a CLI call should say it once.
		db.logger.Info("vector search unavailable: memories are stored without vectors and recall uses full text", "reason", db.vectors)
	}
	return nil
}

// createSchema creates schema on a connection of its own, before the pool
// sets it as every connection's search_path.
func createSchema(ctx context.Context, cc *pgx.ConnConfig, schema string) error {
	cc = cc.Copy()
	delete(cc.RuntimeParams, "search_path")
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return unavailable("open", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
		return fmt.Errorf("postgres: create schema %s: %w", schema, err)
	}
	return nil
}

// PoolerTransaction is Options.Pooler for a pooler in transaction mode.
const PoolerTransaction = "transaction"

// setPooler configures cfg for what stands before the server (PG-7: a
// pooler must not lose a write to session state it does not carry), and
// returns the search_path to set in each transaction, if any.
func setPooler(cfg *pgxpool.Config, pooler, schema string) (local string, err error) {
	switch pooler {
	case "":
		setSchema(cfg, schema)
		return "", nil
	case PoolerTransaction:
	default:
		return "", mnemo.Errorf(mnemo.EINVALID, "postgres: pooler must be empty or %q, got %q", PoolerTransaction, pooler)
	}
	cc := cfg.ConnConfig
	switch cc.DefaultQueryExecMode {
	case pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec:
		// Named prepared statements live in one server session, and
		// DescribeExec's two round trips may land on two of them.
		cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	cc.StatementCacheCapacity, cc.DescriptionCacheCapacity = 0, 0
	if schema == "" {
		return "", nil
	}
	return pgx.Identifier{schema}.Sanitize() + ", public", nil
}

// begin starts a transaction with the store's transaction-local settings
// (the search_path behind a transaction-mode pooler).
func (db *DB) begin(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	pool := db.pool
	if opts.AccessMode == pgx.ReadOnly {
		pool = db.poolFor(ctx) // a replica, for a read routed there
	}
	tx, err := pool.BeginTx(ctx, opts)
	if err != nil || db.local == "" {
		return tx, err
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('search_path', $1::text, true)`, db.local); err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return tx, nil
}

// setSchema makes schema, when set, the search_path of every connection of
// cfg: in the startup message, and again by SET once connected, for servers
// that ignore startup parameters (PGlite).
func setSchema(cfg *pgxpool.Config, schema string) {
	if schema == "" {
		return
	}
	path := pgx.Identifier{schema}.Sanitize() + ", public"
	cfg.ConnConfig.RuntimeParams["search_path"] = path
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `SET search_path TO `+path)
		return err
	}
}

// Close closes the pool, and the replicas'.
func (db *DB) Close() error {
	db.replicas.close()
	db.pool.Close()
	return nil
}

// Pool returns the connection pool, for tools and tests that need SQL the
// store does not offer.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// VectorIndex returns nil when the server can index vectors, or why not
// (ErrNoVectorIndex, wrapped with the reason).
func (db *DB) VectorIndex() error { return db.vectors }

// probeVectors finds out whether the vector type can be used, creating the
// extension if it is missing and the server has it, and whether its HNSW
// index can scan iteratively.
func (db *DB) probeVectors(ctx context.Context) (error, bool) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoVectorIndex, err), false
	}
	defer conn.Release()
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT to_regtype('vector') IS NOT NULL`).Scan(&ok); err != nil {
		return fmt.Errorf("%w (%v)", ErrNoVectorIndex, err), false
	}
	if !ok {
		if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
			return fmt.Errorf("%w (%v)", ErrNoVectorIndex, err), false
		}
		if err := conn.QueryRow(ctx, `SELECT to_regtype('vector') IS NOT NULL`).Scan(&ok); err != nil {
			return fmt.Errorf("%w (%v)", ErrNoVectorIndex, err), false
		} else if !ok {
			return fmt.Errorf("%w (the extension is installed in a schema that is not on the search_path)", ErrNoVectorIndex), false
		}
	}
	// Using the type loads the library, which defines its settings.
	var iterative bool
	err = conn.QueryRow(ctx, `SELECT '[1]'::vector IS NOT NULL AND EXISTS (SELECT 1 FROM pg_settings WHERE name = 'hnsw.iterative_scan')`).Scan(&iterative)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoVectorIndex, err), false
	}
	return nil, iterative
}

// querier is what a pool and a transaction have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// allTenants is the mnemo.tenant of the statements that work across
// tenants (the embedding queue, idle state, the list of scopes, the vector
// space); the policies let them through.
const allTenants = "*"

// read runs fn on the pool, or, with row-level security or a search_path
// set per transaction, in a read-only transaction of tenant.
func (db *DB) read(ctx context.Context, tenant string, fn func(q querier) error) error {
	if !db.rls && db.local == "" {
		return fn(db.poolFor(ctx))
	}
	return db.tx(ctx, tenant, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error { return fn(tx) })
}

// tx runs fn in a transaction of tenant and commits it.
func (db *DB) tx(ctx context.Context, tenant string, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	tx, err := db.begin(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if db.rls {
		if _, err := tx.Exec(ctx, `SELECT set_config('mnemo.tenant', $1, true)`, tenant); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	err = tx.Commit(ctx)
	if opts.AccessMode != pgx.ReadOnly {
		db.wrote(ctx, tenant) // even after a failed commit, which may have landed
	}
	return err
}

// errRetry says a transaction lost a race with a concurrent write: its
// reads are stale, and it is to be run again.
var errRetry = errors.New("postgres: concurrent write")

// retryable reports whether err is a lost race: a stale read caught by a
// revision check, a key inserted meanwhile, a deadlock or a serialization
// failure.
func retryable(err error) bool {
	if errors.Is(err, errRetry) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001", "40P01": // serialization_failure, deadlock_detected
			return true
		case "23505": // unique_violation
			return isIndex(pe.ConstraintName, "memory_entries_key")
		}
	}
	return false
}

// writeTx runs fn in a transaction of tenant, again with a short random
// pause while it loses races, up to db.tries times; then ECONFLICT.
func (db *DB) writeTx(ctx context.Context, op, tenant string, fn func(tx pgx.Tx) error) error {
	var err error
	for attempt := range db.tries {
		if attempt > 0 {
			pause := time.Duration(1+attempt*attempt) * time.Millisecond
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(pause):
			}
		}
		err = db.tx(ctx, tenant, pgx.TxOptions{}, fn)
		if !retryable(err) {
			return db.fail(op, err)
		}
	}
	return mnemo.Errorf(mnemo.ECONFLICT, "%s: concurrent writes to the same memories won %d times in a row; try again", op, db.tries)
}

// fail turns err into the error a caller sees: domain errors and context
// errors as they are, a database out of reach as EUNAVAILABLE, a value the
// database refuses as EINVALID, anything else wrapped.
func (db *DB) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var me *mnemo.Error
	if errors.As(err, &me) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "22021" || pe.Code == "22P05" || pe.Code == "54000":
			// character_not_in_repertoire (a NUL in text),
			// untranslatable_character, program_limit_exceeded (a
			// tsvector too long)
			return mnemo.Errorf(mnemo.EINVALID, "%s: the database refuses a value: %s", op, pe.Message)
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", pe.Code == "53300":
			return unavailable(op, err)
		}
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if isConnError(err) {
		return unavailable(op, err)
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

func unavailable(op string, err error) error {
	return fmt.Errorf("postgres: %s: %w: %w", op, errUnavailable, err)
}

// isConnError reports whether err comes from the connection rather than
// from a statement: the server cannot be reached or went away.
func isConnError(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.As(err, &oe) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err) ||
		strings.Contains(err.Error(), "closed pool")
}

func checkScope(s mnemo.Scope) error {
	if s.TenantID == "" || s.AgentID == "" {
		return mnemo.Errorf(mnemo.EINVALID, "tenant_id and agent_id are required")
	}
	return nil
}
