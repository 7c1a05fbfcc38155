package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tenantroute"
)

// backend is an open store and what the CLI says of it.
type backend struct {
	store mnemo.Store
	name  string       // the backend: sqlite, files, postgres, memory
	where string       // a path, or a database's host and name, for logs
	size  func() int64 // bytes on disk; nil when not known
}

// openStore opens the configured backend. PostgreSQL is opened behind the
// failover spool, so that writes are kept while it is unreachable; its
// metrics go to reg.
func (a *app) openStore(ctx context.Context, log *slog.Logger, reg prometheus.Registerer) (*backend, error) {
	c := &a.cfg
	backendName := c.Store.Backend
	data := c.Data
	if c.Mock && c.dataDefault && backendName == BackendSQLite {
		// Mock mode: nothing kept unless a data directory was given
		// ("mock_mode with persist").
		backendName = BackendMemory
	}
	switch backendName {
	case BackendMemory:
		return &backend{store: inmem.New(inmem.Options{}), name: BackendMemory, where: "memory"}, nil
	case BackendFiles:
		root := c.filesRoot()
		if err := writable(root); err != nil {
			return nil, err
		}
		defer a.sayIfNew(log, BackendFiles, root, filepath.Join(root, files.LogName))()
		fc := c.Store.Files
		history := files.KeepLog
		if fc.History == "rotate" {
			history = files.RotateLog
		}
		st, err := files.OpenStore(ctx, root, files.StoreOptions{
			Logger: log, Home: a.scope(), History: history, CompactEvery: fc.CompactEvery, NoSync: fc.NoSync,
		})
		if err != nil {
			return nil, err
		}
		return &backend{store: st, name: BackendFiles, where: root, size: dirBytes(root)}, nil
	case BackendPostgres:
		p := c.Store.Postgres
		dsn := string(p.DSN)
		open := func(ctx context.Context) (failover.Primary, error) {
			if p.routed() {
				return a.openTenantRoute(ctx, log)
			}
			db, err := postgres.Open(ctx, dsn, a.postgresOptions(log))
			if err != nil {
				return nil, err
			}
			return db, nil
		}
		st, err := failover.New(ctx, open, c.spoolDir(), failover.Options{
			Logger: log, Registerer: reg, FailoverAfter: p.FailoverAfter, ProbeEvery: p.ProbeEvery,
		})
		if err != nil {
			return nil, err
		}
		return &backend{store: st, name: BackendPostgres, where: dsnWhere(dsn)}, nil
	default:
		if err := writable(data); err != nil {
			return nil, err
		}
		path := filepath.Join(data, "mnemo.db")
		said := a.sayIfNew(log, BackendSQLite, data, path)
		// A server loads the saved vector indexes as it starts, for its
		// first recall; a one-shot command loads one only if it searches.
		db, err := sqlite.Open(ctx, path, sqlite.Options{Logger: log, Synchronous: c.SQLite.Synchronous, PreloadVectors: a.serving})
		if err != nil {
			return nil, err
		}
		said()
		return &backend{store: db, name: BackendSQLite, where: path, size: storeBytes(path)}, nil
	}
}

// sayIfNew returns a function to call once the store is open: when file,
// the mark of a store, did not exist before, it says that a new store was
// made in dir, and how to choose another (API-16). Without it a command
// run with another data directory than the server's would write to a
// store of its own without a word. A server logs it; a command that
// succeeds tells its stderr, where it does not mix with what it prints
// (a failed one says only why it failed).
func (a *app) sayIfNew(log *slog.Logger, backend, dir, file string) func() {
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		return func() {}
	}
	return func() {
		if _, err := os.Stat(file); err != nil {
			return // not made after all (a backend that writes lazily)
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if a.serving {
			log.Info("created a new store", "store", backend, "at", dir)
			return
		}
		how := "--data or $MNEMO_DATA chooses another"
		if backend == BackendFiles {
			how = "$MNEMO_FILES_ROOT chooses another"
		}
		a.notes = append(a.notes, fmt.Sprintf("created a new store in %s (%s)", dir, how))
	}
}

// postgresOptions are the configured PostgreSQL settings.
func (a *app) postgresOptions(log *slog.Logger) postgres.Options {
	p := a.cfg.Store.Postgres
	return postgres.Options{
		Logger: log, MaxConns: int32(p.PoolSize), EfSearch: cmp.Or(p.HNSW.EfSearch, p.EfSearch),
		HNSWM: p.HNSW.M, HNSWEfConstruction: p.HNSW.EfConstruction,
		RowLevelSecurity: p.RLS, Schema: p.Schema, Pooler: p.Pooler, Partitions: p.Partitions,
		ReadDSNs: p.ReadDSN.strings(), ReadYourWrites: p.ReadYourWrites, MaxReplicaLag: p.ReplicaMaxLag,
	}
}

// routed reports whether tenants are spread over several databases (PG-12).
func (p *PostgresConfig) routed() bool {
	return len(p.Databases) > 0 || len(p.Tenants) > 0 || len(p.Hash) > 0
}

// openTenantRoute opens store.postgres.dsn and every database of
// store.postgres.databases, and routes each tenant to its own (PG-12).
// Read replicas serve the default database only.
func (a *app) openTenantRoute(ctx context.Context, log *slog.Logger) (_ *tenantroute.Store, err error) {
	p := a.cfg.Store.Postgres
	def, err := postgres.Open(ctx, string(p.DSN), a.postgresOptions(log))
	if err != nil {
		return nil, err
	}
	dbs := map[string]*postgres.DB{DefaultDatabase: def}
	defer func() {
		if err != nil {
			for _, db := range dbs {
				db.Close()
			}
		}
	}()
	opts := a.postgresOptions(log)
	opts.ReadDSNs = nil
	for _, name := range slices.Sorted(maps.Keys(p.Databases)) {
		db, err := postgres.Open(ctx, string(p.Databases[name]), opts)
		if err != nil {
			return nil, fmt.Errorf("store.postgres.databases.%s: %w", name, err)
		}
		dbs[name] = db
	}
	routes := make(map[string]*postgres.DB, len(p.Tenants))
	for tenant, name := range p.Tenants {
		routes[tenant] = dbs[name]
	}
	s := tenantroute.New(def, routes)
	if len(p.Hash) > 0 {
		ring := make([]*postgres.DB, len(p.Hash))
		for i, name := range p.Hash {
			ring[i] = dbs[name]
		}
		s.Hash(p.Hash, ring)
	}
	// A database no tenant is routed to yet is still opened: it is kept
	// migrated, ready for the tenants moved to it.
	for _, db := range dbs {
		s.Add(db)
	}
	return s, nil
}

// dsnWhere is a DSN's host and database, never its password.
func dsnWhere(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Host != "" {
		return u.Host + u.Path
	}
	var host, db string
	for _, f := range strings.Fields(dsn) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "host":
			host = v
		case "dbname":
			db = v
		}
	}
	return host + "/" + db
}

// dirBytes reports the size of the files under root.
func dirBytes(root string) func() int64 {
	return func() int64 {
		var n int64
		filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
		return n
	}
}

// degradedCounter counts the service's degradations by cause.
func degradedCounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mnemo_degraded_total",
		Help: "Answers and writes that fell back, by the part that failed: fulltext, embedder, vector_index, store, replica.",
	}, []string{"cause"})
	for _, cause := range []string{mnemo.DegradedFullText, mnemo.DegradedEmbedder, mnemo.DegradedVectorIndex, mnemo.DegradedStore, mnemo.DegradedReplica} {
		c.WithLabelValues(cause)
	}
	return c
}

// writable checks that mnemo may create files in dir, when it exists: the
// store's own error for one it may not is SQLite's "unable to open database
// file (14)", which names neither the directory nor the cause.
func writable(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil // the store creates it, or says why it cannot
	}
	f, err := os.CreateTemp(dir, ".mnemo-write-check-*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return usagef("cannot write to the data directory %s: permission denied (give this user write access, or choose another with --data)", dir)
		}
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
