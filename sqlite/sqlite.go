// Package sqlite is mnemo's embedded Store: one SQLite file in WAL mode, with
// an FTS5 index for lexical search.
//
// A DB holds two connection pools on the same file. Writes go through a
// single connection, because SQLite has one writer and a second writer in
// the same process would only wait on the first (or fail with SQLITE_BUSY).
// Reads use a small pool of query-only connections, which WAL lets run
// beside the writer: on one shared connection, a remember waited behind
// every search in flight (BenchmarkWriteWhileSearching).
//
// The schema is in migrations/. Each scope (tenant and agent) owns a range
// of row numbers, so that the full-text index, keyed by row number, is
// narrowed to a scope by a rowid range; the index text is kept with each
// memory, so that the full-text index can always be rebuilt (RebuildIndex).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/eventseg"
	sqlitedriver "modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// readConns is the size of the read pool. Searches are CPU-bound in SQLite,
// so more connections than cores buy little.
const readConns = 4

// Options configures a DB.
type Options struct {
	// Now is the clock, for expiry and history times; nil means time.Now.
	Now func() time.Time
	// Synchronous is "FULL" (the default: nothing acknowledged is ever lost,
	// even on power loss) or "NORMAL" (faster; a power loss may lose the
	// last transactions, never corrupt the file).
	Synchronous string
	// Logger receives warnings such as a degraded full-text index; nil
	// discards them.
	Logger *slog.Logger
	// SearchEffort is the ANN index's efSearch: how many candidates a vector
	// search visits; more finds more of the true nearest and takes longer.
	// 0 means by the index's size: 512 up to 200k vectors, growing to 1024
	// from 800k (searchEffort; docs/BENCHMARKS.md, "ANN recall").
	SearchEffort int
	// PreloadVectors loads the saved ANN indexes in the background as the
	// store opens, so that a server's first recall finds them loaded, or
	// waits only for the rest of a load already under way (PERF-13).
	// Commands that may never search leave it off: Close waits for the
	// load.
	PreloadVectors bool
}

// DB is a mnemo.Store on a SQLite file. It is safe for concurrent use.
type DB struct {
	path   string
	now    func() time.Time
	logger *slog.Logger

	writer      *sql.DB     // one connection
	synchronous string      // the writer's durability for acknowledged writes
	reader      *sql.DB     // query-only pool
	readStmts   *stmtCache  // the hot queries of reader, prepared
	writeStmts  *writeStmts // Write's statements on writer, prepared
	group       *writeGroup // the Writes waiting for writer, committed together

	// scopes caches scope numbers: mnemo.Scope → int64. See scopeSpan.
	scopes sync.Map

	// warnOnce logs the degraded-search warning once per DB, not per query.
	warnOnce sync.Once

	// vectors are the ANN indexes of the scopes, loaded on first search.
	vectors *annIndexes
	// ftsMerge merges the full-text index in the background (ftsmerge.go).
	ftsMerge *ftsMerger
	// lex ranks full-text matches in memory once built (lexindex.go).
	lex *lexIndex
	// tokenizer splits query terms lexTokens cannot be sure of (rankFTS).
	tokenizer ftsTokenizer
	// rows keeps the rows searches read, checked on each read (rowcache.go).
	rows *rowCache
	// vectorExamined counts the neighbours vector searches checked against
	// their filter and the vectors they scored exactly: tests hold it to a
	// bound that does not grow with the store.
	vectorExamined atomic.Int64
	// rowsRead counts the memories searches read by seq: tests hold a
	// search to reading no more rows than it returns when its filter
	// drops none.
	rowsRead atomic.Int64
	// ftsFiltered counts the searches that ranked every match from the
	// full-text index's own records to filter them (rankFTS), which the
	// in-memory index answers once built.
	ftsFiltered atomic.Int64

	// eventStmts are the statements of an event append (events.go).
	eventMu    sync.Mutex
	eventStmts *appendStatements
	// segments decodes cold event parts, keeping its buffers.
	segments eventseg.Decoder

	// failAt, set by tests of this package only, fails an append after
	// one of its layers ("event", "relations", "vectors") is written:
	// the transaction must leave nothing behind.
	failAt func(layer string) error
}

var _ mnemo.Store = (*DB)(nil)

// Open opens the database at path, creating it and its parent directory if
// needed, and migrates its schema to the latest version.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	synchronous := strings.ToUpper(opts.Synchronous)
	switch synchronous {
	case "":
		synchronous = "FULL"
	case "FULL", "NORMAL":
	default:
		return nil, fmt.Errorf("sqlite: synchronous must be FULL or NORMAL, not %q", opts.Synchronous)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}

	db := &DB{
		path:        abs,
		now:         opts.Now,
		logger:      opts.Logger,
		synchronous: synchronous,
		group:       newWriteGroup(),
	}
	if db.now == nil {
		db.now = time.Now
	}
	if db.logger == nil {
		db.logger = slog.New(slog.DiscardHandler)
	}
	db.vectors = newANNIndexes(abs, opts.SearchEffort, db.logger)
	db.lex = newLexIndex(db)
	db.rows = newRowCache(rowCacheBytes)

	// The writer sets journal_mode, which is persistent, so it opens first.
	// BEGIN IMMEDIATE takes the write lock up front: a deferred transaction
	// that reads and then writes can fail with SQLITE_BUSY when another
	// process committed in between, without waiting on busy_timeout.
	// secure_delete zeroes what a write frees, so that a memory forgotten
	// for good (API-12) leaves no bytes in the file's free space; the
	// full-text index's segments, which keep a deleted row's terms, are
	// rewritten by the merge a forgetting makes due (ftsMerger.forgot).
	db.writer, err = sql.Open("sqlite", dsn(abs,
		"_txlock=immediate",
		"_pragma=busy_timeout(5000)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous("+synchronous+")",
		"_pragma=foreign_keys(1)",
		"_pragma=secure_delete(ON)",
	))
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	db.writer.SetMaxOpenConns(1)
	db.writer.SetMaxIdleConns(1)
	db.writer.SetConnMaxLifetime(0)
	db.writer.SetConnMaxIdleTime(0)

	if err := retryBusy(ctx, func() error { return db.migrate(ctx) }); err != nil {
		db.writer.Close()
		return nil, err
	}
	if err := retryBusy(ctx, func() error { return db.fillFTSStats(ctx) }); err != nil {
		db.writer.Close()
		return nil, err
	}

	db.reader, err = sql.Open("sqlite", dsn(abs,
		"_pragma=busy_timeout(5000)",
		"_pragma=query_only(1)",
	))
	if err != nil {
		db.writer.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	db.reader.SetMaxOpenConns(readConns)
	db.reader.SetMaxIdleConns(readConns)
	db.reader.SetConnMaxLifetime(0)
	db.reader.SetConnMaxIdleTime(0)
	db.readStmts = newStmtCache(db.reader)
	db.writeStmts = newWriteStmts(db.writer)

	// The indexer looks for vectors stored from now on; a scope whose
	// index file is behind the table is caught up once it is searched.
	_, rev, err := vectorSpace(ctx, db.reader)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	db.vectors.seen = rev
	if err := db.trustEmpty(ctx); err != nil {
		db.Close()
		return nil, err
	}

	// A lost full-text index is rebuilt from the memories table, which
	// always holds the index text.
	if ok, err := db.ftsExists(ctx, db.writer); err != nil {
		db.Close()
		return nil, err
	} else if !ok {
		db.logger.Warn("full-text index missing, rebuilding", "path", abs)
		if err := db.RebuildIndex(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	db.ftsMerge = newFTSMerger(db)
	if opts.PreloadVectors {
		// The in-memory full-text index is built after the vector
		// indexes are loaded: the full-text index ranks until it is, while a search
		// needs the vectors, and on two cores the build slows the load
		// beside it (PERF-13).
		db.vectors.preload(db, db.lex.start)
	} else {
		db.lex.start()
	}
	return db, nil
}

// dsn returns a file: URI for path with the given query parameters. The URI
// form keeps a '?' or '#' in the path from being read as parameters.
func dsn(path string, params ...string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), OmitHost: true}
	return u.String() + "?" + strings.Join(params, "&")
}

// Close writes the ANN indexes with unsaved changes and closes the database.
func (db *DB) Close() error {
	if db.ftsMerge != nil {
		db.ftsMerge.close()
	}
	db.lex.close()
	db.tokenizer.close()
	err := db.vectors.close()
	if err != nil {
		db.logger.Warn("saving vector indexes failed; they will be caught up on open", "err", err)
		err = nil // the database holds every vector: nothing is lost
	}
	db.eventStmts.close()
	db.readStmts.close()
	db.writeStmts.close()
	if db.reader != nil {
		err = db.reader.Close()
	}
	if e := db.writer.Close(); err == nil {
		err = e
	}
	return err
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// warnDegraded logs, once per DB, that searches fall back to substring
// matching; every degraded answer says so itself.
func (db *DB) warnDegraded(err error) {
	db.warnOnce.Do(func() {
		db.logger.Warn("full-text search unavailable, falling back to substring matching", "path", db.path, "err", err)
	})
}

// retryBusy runs fn again while it fails with SQLITE_BUSY, for up to ten
// seconds. Processes opening a new file at once race to switch it to WAL,
// and SQLite reports that race as busy without calling the busy handler.
func retryBusy(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := fn()
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

func isBusy(err error) bool {
	var e *sqlitedriver.Error
	return errors.As(err, &e) && (e.Code()&0xff == sqlite3.SQLITE_BUSY || e.Code()&0xff == sqlite3.SQLITE_LOCKED)
}
