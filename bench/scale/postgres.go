package scale

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// The PostgreSQL side of the benchmark (PG-1, PG-6): the generated SQLite
// store is copied, vectors and ids kept, into a temporary schema of
// cfg.Postgres (dropped after) as migrate-store does, the full-text and
// HNSW indexes built after the load; then the same recalls are timed on
// it, and its vector search is compared with the exact top 10 computed
// from the SQLite file (the same vectors under the same ids).

// openPostgres copies the store at path into a fresh schema and returns
// the service on it and a function that closes it and drops the schema.
func openPostgres(ctx context.Context, cfg Config, path string, emb mnemo.Embedder, rep *Report) (*service.Mnemo, *postgres.DB, func(), error) {
	var b [6]byte
	rand.Read(b[:])
	schema := "mnemo_scale_" + hex.EncodeToString(b[:])
	// One connection: PGlite serves one session.
	pg, err := postgres.Open(ctx, cfg.Postgres, postgres.Options{Schema: schema, MaxConns: 1, EfSearch: cfg.SearchEffort})
	if err != nil {
		return nil, nil, nil, err
	}
	drop := func() {
		ctx := context.WithoutCancel(ctx)
		if conn, err := pgx.Connect(ctx, cfg.Postgres); err == nil {
			if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil && cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "dropping schema %s: %v\n", schema, err)
			}
			conn.Close(ctx)
		}
	}
	fail := func(err error) (*service.Mnemo, *postgres.DB, func(), error) {
		pg.Close()
		drop()
		return nil, nil, nil, err
	}
	src, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return fail(err)
	}
	defer src.Close()
	space, err := src.VectorSpace(ctx)
	if err != nil {
		return fail(err)
	}
	if err := pg.SetVectorSpace(ctx, space, false); err != nil {
		return fail(err)
	}
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "copying %d memories into PostgreSQL schema %s\n", cfg.N, schema)
	}
	start := time.Now()
	finish, err := pg.BulkLoad(ctx)
	if err != nil {
		return fail(err)
	}
	from := service.New(src, service.Options{})
	into := service.New(pg, service.Options{Guard: memory.GuardOptions{Off: true}})
	pr, pw := io.Pipe()
	go func() {
		_, err := from.Export(ctx, Scope, pw, nil)
		pw.CloseWithError(err)
	}()
	_, err = into.Import(ctx, pr, memory.ImportOptions{Progress: func(k int) {
		if cfg.Progress != nil {
			cfg.Progress("copy", k, cfg.N)
		}
	}})
	pr.Close()
	rep.PostgresLoad = time.Since(start)
	t0 := time.Now()
	if ferr := finish(ctx); err == nil {
		err = ferr
	}
	rep.PostgresIndex = time.Since(t0)
	if err != nil {
		return fail(err)
	}
	svc := service.New(pg, service.Options{Embedder: emb, Guard: memory.GuardOptions{Off: true}})
	if err := svc.Init(ctx); err != nil {
		svc.Close()
		drop()
		return nil, nil, nil, err
	}
	return svc, pg, func() { svc.Close(); drop() }, nil
}
