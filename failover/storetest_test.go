package failover_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/storetest"
)

// The conformance suite through the failover while PostgreSQL 15 answers:
// everything passes through unchanged, degraded vector contract included.
func TestStoreConformanceUp(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		dsn := pgtest.Native(t)
		fs, err := failover.New(context.Background(), func(ctx context.Context) (failover.Primary, error) {
			db, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 2})
			if err != nil {
				return nil, err
			}
			return db, nil
		}, filepath.Join(t.TempDir(), "spool"), failover.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	})
}
