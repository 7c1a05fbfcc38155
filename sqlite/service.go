package sqlite

import (
	"context"
	"path/filepath"

	"github.com/mnemo-dev/mnemo"
)

// OpenService opens (or creates) the embedded store in the data directory
// dir and returns a Service over it: the one call a Go program needs to
// embed mnemo. Close the service to close the store. With opts.Embedder
// set (embed/builtin.New() for the built-in one), recall is hybrid; a store
// embedded with another model is EMISMATCH.
func OpenService(ctx context.Context, dir string, opts mnemo.Options) (*mnemo.Service, error) {
	db, err := Open(ctx, filepath.Join(dir, "mnemo.db"), Options{Now: opts.Now, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	svc := mnemo.New(db, opts)
	if err := svc.Init(ctx); err != nil {
		svc.Close()
		return nil, err
	}
	return svc, nil
}
