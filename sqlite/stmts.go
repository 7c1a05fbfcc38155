package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// stmtCache keeps the prepared statements of the hot read queries (search,
// get by id and key), prepared once per pooled connection by database/sql
// instead of once per call: parsing the SQL was a fifth of a bulk write's
// Write Guard lookups and of a lexical search under the pure-Go driver
// (PERF-1, PERF-2; docs/BENCHMARKS.md, "Bulk writes").
//
// Queries are keyed by their text; past maxCached distinct texts (filters
// make the text vary) a query runs unprepared, as before.
type stmtCache struct {
	pool *sql.DB
	mu   sync.Mutex
	m    map[string]*sql.Stmt
}

const maxCached = 256

func newStmtCache(pool *sql.DB) *stmtCache {
	return &stmtCache{pool: pool, m: map[string]*sql.Stmt{}}
}

// stmt returns the prepared statement of q, or nil when it is not cached
// and cannot be (the cache is full, or preparing failed: the caller runs q
// unprepared and sees its error there).
func (c *stmtCache) stmt(ctx context.Context, q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st
	}
	if c.m == nil || len(c.m) >= maxCached {
		return nil
	}
	st, err := c.pool.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.pool.QueryContext(ctx, q, args...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := c.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.pool.QueryRowContext(ctx, q, args...)
}

// close closes the statements; later queries run unprepared.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// writeStmts keeps the prepared statements of Write's transaction on the
// writer's one connection, so that a write of one record prepares none of
// them: preparing them anew in every transaction was a third of a one-turn
// POST /v1/messages's store work (PERF-8). A transaction uses them through
// Tx.StmtContext, which reuses a statement prepared on its connection.
//
// A statement is prepared on the pool, which takes the connection, so never
// while a transaction holds it: the writer's transaction prepares what is
// not cached yet itself and hands its text to add once it has ended.
type writeStmts struct {
	pool *sql.DB
	mu   sync.Mutex
	m    map[string]*sql.Stmt
	// missed counts the statements transactions prepared themselves.
	missed atomic.Int64
}

func newWriteStmts(pool *sql.DB) *writeStmts {
	return &writeStmts{pool: pool, m: map[string]*sql.Stmt{}}
}

// get returns the prepared statement of q, or nil.
func (c *writeStmts) get(q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// add prepares the queries not cached yet, up to maxCached; one that fails
// to prepare stays unprepared (its transaction saw the error).
func (c *writeStmts) add(ctx context.Context, qs []string) {
	if c == nil {
		return
	}
	c.missed.Add(int64(len(qs)))
	for _, q := range qs {
		c.mu.Lock()
		_, ok := c.m[q]
		full := c.m == nil || len(c.m) >= maxCached
		c.mu.Unlock()
		if ok || full {
			continue
		}
		st, err := c.pool.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, ok := c.m[q]; ok || c.m == nil {
			st.Close()
		} else {
			c.m[q] = st
		}
		c.mu.Unlock()
	}
}

// close closes the statements; later transactions prepare their own.
func (c *writeStmts) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
