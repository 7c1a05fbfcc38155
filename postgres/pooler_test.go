package postgres_test

import (
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/storetest"
)

// TestStorePgBouncer runs the conformance suite through PgBouncer in
// transaction mode in front of PostgreSQL 15 (PG-7): each transaction may
// run on another server connection, so nothing may rest on session state
// (prepared statements, SET, session advisory locks). Every test has its
// schema set per transaction, and a pool of several connections.
func TestStorePgBouncer(t *testing.T) {
	dsn := pgtest.PgBouncer(t)
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		return open(t, dsn, postgres.Options{MaxConns: 4, Pooler: postgres.PoolerTransaction})
	})
}

// Without the pooler option, a schema goes in the startup message, which
// PgBouncer refuses: Open says so rather than work in the wrong schema.
// A bad pooler value is invalid input.
func TestPoolerOption(t *testing.T) {
	dsn := pgtest.PgBouncer(t)
	if _, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: newSchema(t, dsn)}); err == nil {
		t.Error("Open with a schema through PgBouncer, without Pooler: no error")
	}
	if _, err := postgres.Open(context.Background(), dsn, postgres.Options{Pooler: "statement"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("Open with Pooler statement: %v, want invalid_input", err)
	}
}
