// Package embedded opens mnemo inside a Go program, over the embedded
// SQLite store in a data directory: the one call a program needs. It is
// apart from package service so that the facade, and the ways in that
// use it, depend on no store (a server wires its store from the
// configuration in cmd/mnemo).
package embedded

import (
	"context"
	"path/filepath"

	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// Open opens (or creates) the embedded store in the data directory dir and
// returns a service.Mnemo over it. Close it to close the store. With
// o.Embedder set (embed/builtin.New() for the built-in one), recall is
// hybrid; a store embedded with another model is EMISMATCH.
func Open(ctx context.Context, dir string, o service.Options) (*service.Mnemo, error) {
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{Now: o.Now, Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	m := service.New(db, o)
	if err := m.Init(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}
