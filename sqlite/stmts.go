package sqlite

import (
	"context"
	"database/sql"
	"sync"
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
