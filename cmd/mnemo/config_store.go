package main

import (
	"cmp"
	"fmt"
	"go.yaml.in/yaml/v3"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/postgres"
)

// The store sections: store (the backend, files and postgres) and sqlite.

// Store backends.
const (
	BackendSQLite   = "sqlite"
	BackendFiles    = "files"
	BackendPostgres = "postgres"
	BackendMemory   = "memory"
)

// StoreConfig chooses the backend and configures it.
type StoreConfig struct {
	// Backend is sqlite (the default: <data>/mnemo.db), files (the memory
	// root of FS-11), postgres, or memory (nothing kept: mock mode's store).
	Backend  string         `yaml:"backend"`
	Files    FilesConfig    `yaml:"files"`
	Postgres PostgresConfig `yaml:"postgres"`
}

// FilesConfig is store.files: the files backend.
type FilesConfig struct {
	Root string `yaml:"root"` // the memory root; default <data>/files
	// History is what compaction does with log.jsonl (FS-14): keep
	// (option A, the default) or rotate into archive/ (option B).
	History string `yaml:"history"`
	// CompactEvery is the log size in lines that triggers compaction
	// (FS-15): 0 means 100,000, -1 on demand only.
	CompactEvery int `yaml:"compact_every"`
	// NoSync skips the fsync after each append: faster, and an
	// acknowledged write can be lost to a power cut (not to a crash).
	NoSync bool `yaml:"no_sync"`
}

// PostgresConfig is store.postgres: the PostgreSQL backend.
type PostgresConfig struct {
	// DSN is a postgres:// URL or a key=value string, usually
	// "${MNEMO_POSTGRES_DSN}": it may hold a password.
	DSN      Secret `yaml:"dsn"`
	PoolSize int    `yaml:"pool_size"` // connections; 0: pgxpool's default
	EfSearch int    `yaml:"ef_search"` // the older spelling of hnsw.ef_search
	// HNSW is the pgvector index's build and search parameters.
	HNSW   HNSWConfig `yaml:"hnsw"`
	RLS    bool       `yaml:"rls"`    // row-level security by tenant
	Schema string     `yaml:"schema"` // a schema of its own; empty: the DSN's search_path
	// Pooler is what stands between mnemo and the server: empty (the
	// server itself, or a pooler in session mode) or "transaction"
	// (PgBouncer's pool_mode transaction): no prepared statements, the
	// schema set in each transaction.
	Pooler string `yaml:"pooler"`
	// Partitions splits the growing tables by hash of tenant_id into that
	// many partitions when the store is created (PG-6); 0: not
	// partitioned. A store keeps the number it was created with: another
	// number is a copy (migrate-store into a new schema).
	Partitions int `yaml:"partitions"`
	// SpoolDir keeps acknowledged writes while the database is
	// unreachable, replayed when it is back; default <data>/spool.
	SpoolDir string `yaml:"spool_dir"`
	// FailoverAfter bounds one attempt of a request's call on the
	// database: past it the write goes to the spool (0: 2s).
	FailoverAfter time.Duration `yaml:"failover_after"`
	// ProbeEvery is how often an unreachable database is tried
	// again (0: 1s).
	ProbeEvery time.Duration `yaml:"probe_every"`
	// ReadDSN is one streaming replica's DSN, or a list of them (PG-11):
	// recall, list and search read from them; all else goes to dsn.
	ReadDSN DSNList `yaml:"read_dsn"`
	// ReadYourWrites is how long after this server writes to a tenant
	// that tenant's reads stay on the primary (0: 5s; -1s: never).
	ReadYourWrites time.Duration `yaml:"read_your_writes"`
	// ReplicaMaxLag is how far behind the primary a replica may be and
	// still be read (0: 10s).
	ReplicaMaxLag time.Duration `yaml:"replica_max_lag"`
	// Databases names further PostgreSQL databases, each by its DSN, and
	// Tenants maps a tenant to the name of the one that holds all its
	// data (PG-12); a tenant not listed lives in dsn's database, which
	// the name "default" also means. Replicas (read_dsn) serve dsn's only.
	Databases map[string]Secret `yaml:"databases"`
	Tenants   map[string]string `yaml:"tenants"`
	// Hash, a list of database names, places the tenants that Tenants
	// does not list by rendezvous hashing over those databases instead of
	// in the default one.
	Hash []string `yaml:"hash"`
}

// DefaultDatabase is the name store.postgres.tenants gives dsn's database.
const DefaultDatabase = "default"

// validateTenants checks store.postgres.databases and tenants: every
// database a DSN of its own, every tenant routed to a database listed.
func (p *PostgresConfig) validateTenants() error {
	seen := map[string]string{strings.TrimSpace(string(p.DSN)): "store.postgres.dsn"}
	for _, name := range slices.Sorted(maps.Keys(p.Databases)) {
		key := "store.postgres.databases." + name
		dsn := strings.TrimSpace(string(p.Databases[name]))
		switch {
		case name == DefaultDatabase:
			return &ConfigError{key, fmt.Sprintf("%q is store.postgres.dsn's name: choose another", DefaultDatabase)}
		case !dsnShaped(dsn):
			return &ConfigError{key, "must be a postgres:// URL or key=value settings"}
		case seen[dsn] != "":
			return &ConfigError{key, "is the same database as " + seen[dsn] + ": give each database one name"}
		}
		seen[dsn] = key
	}
	for i, name := range p.Hash {
		key := fmt.Sprintf("store.postgres.hash[%d]", i)
		switch {
		case name != DefaultDatabase && p.Databases[name] == "":
			return &ConfigError{key, fmt.Sprintf("names database %q, which store.postgres.databases does not list", name)}
		case slices.Index(p.Hash, name) != i:
			return &ConfigError{key, fmt.Sprintf("names database %q twice", name)}
		}
	}
	for _, tenant := range slices.Sorted(maps.Keys(p.Tenants)) {
		key := "store.postgres.tenants." + tenant
		name := p.Tenants[tenant]
		switch {
		case strings.TrimSpace(tenant) == "":
			return &ConfigError{"store.postgres.tenants", "has an empty tenant"}
		case name == DefaultDatabase:
		case p.Databases[name] == "":
			return &ConfigError{key, fmt.Sprintf("names database %q, which store.postgres.databases does not list", name)}
		}
	}
	return nil
}

// DSNList is one DSN or a list of them; each may hold a password.
type DSNList []Secret

// UnmarshalYAML takes a single DSN as a list of one.
func (l *DSNList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var s string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*l = nil
		if strings.TrimSpace(s) != "" {
			*l = DSNList{Secret(s)}
		}
		return nil
	}
	var ss []Secret
	if err := n.Decode(&ss); err != nil {
		return err
	}
	*l = ss
	return nil
}

// strings returns the DSNs.
func (l DSNList) strings() []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}

// HNSWConfig is store.postgres.hnsw: pgvector's HNSW index. M and
// EfConstruction apply when the index is created (SetVectorSpace: the first
// vector space, or a reindex); EfSearch per query.
type HNSWConfig struct {
	M              int `yaml:"m"`               // links per node, 2-100; 0: 16
	EfConstruction int `yaml:"ef_construction"` // build candidates, 4-1000, at least 2m; 0: 64
	EfSearch       int `yaml:"ef_search"`       // search candidates, 1-1000; 0: 100
}

// SQLiteConfig is the sqlite section: the SQLite backend's settings.
type SQLiteConfig struct {
	Synchronous string `yaml:"synchronous"` // FULL (default) or NORMAL
}

func defaultStoreConfig() StoreConfig { return StoreConfig{Backend: BackendSQLite} }

func defaultSQLiteConfig() SQLiteConfig { return SQLiteConfig{Synchronous: "FULL"} }

// validate checks the store's settings.
func (c *StoreConfig) validate() error {
	switch c.Backend {
	case BackendSQLite, BackendFiles, BackendMemory:
	case BackendPostgres:
		dsn := strings.TrimSpace(string(c.Postgres.DSN))
		switch {
		case dsn == "":
			return &ConfigError{"store.postgres.dsn", "is required with store.backend postgres (a postgres:// URL, usually ${MNEMO_POSTGRES_DSN})"}
		case !dsnShaped(dsn):
			return &ConfigError{"store.postgres.dsn", "must be a postgres:// URL or key=value settings"}
		}
		for i, r := range c.Postgres.ReadDSN {
			if !dsnShaped(strings.TrimSpace(string(r))) {
				return &ConfigError{fmt.Sprintf("store.postgres.read_dsn[%d]", i), "must be a postgres:// URL or key=value settings"}
			}
		}
		if err := c.Postgres.validateTenants(); err != nil {
			return err
		}
	default:
		return &ConfigError{"store.backend", fmt.Sprintf("must be sqlite, files, postgres or memory, got %q", c.Backend)}
	}
	if err := c.Files.validate(); err != nil {
		return err
	}
	return c.Postgres.validate()
}

// dsnShaped reports whether dsn looks like a PostgreSQL DSN: a URL or
// key=value settings.
func dsnShaped(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || strings.Contains(dsn, "=")
}

// validate checks store.files.
func (c *FilesConfig) validate() error {
	switch c.History {
	case "", "keep", "rotate":
	default:
		return &ConfigError{"store.files.history", fmt.Sprintf("must be keep or rotate, got %q", c.History)}
	}
	if c.CompactEvery < -1 {
		return &ConfigError{"store.files.compact_every", "must be a number of lines, 0 for the default or -1 for on demand only"}
	}
	return nil
}

var sqlIdentifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// validate checks store.postgres but for the DSN, which only the
// postgres backend needs.
func (p *PostgresConfig) validate() error {
	if p.PoolSize < 0 || p.PoolSize > 1000 {
		return &ConfigError{"store.postgres.pool_size", "must be from 1 to 1000 (0: the driver's default)"}
	}
	if p.EfSearch < 0 || p.EfSearch > 1000 {
		return &ConfigError{"store.postgres.ef_search", "must be from 1 to 1000 (0: the default, 100)"}
	}
	h := &p.HNSW
	switch {
	case h.EfSearch < 0 || h.EfSearch > 1000:
		return &ConfigError{"store.postgres.hnsw.ef_search", "must be from 1 to 1000 (0: the default, 100)"}
	case p.EfSearch != 0 && h.EfSearch != 0 && p.EfSearch != h.EfSearch:
		return &ConfigError{"store.postgres.hnsw.ef_search", "and store.postgres.ef_search (its older spelling) differ: keep one"}
	case h.M != 0 && (h.M < 2 || h.M > 100):
		return &ConfigError{"store.postgres.hnsw.m", "must be from 2 to 100 (0: pgvector's default, 16)"}
	case h.EfConstruction != 0 && (h.EfConstruction < 4 || h.EfConstruction > 1000):
		return &ConfigError{"store.postgres.hnsw.ef_construction", "must be from 4 to 1000 (0: pgvector's default, 64)"}
	case h.EfConstruction != 0 && h.EfConstruction < 2*cmp.Or(h.M, 16):
		return &ConfigError{"store.postgres.hnsw.ef_construction", "must be at least twice hnsw.m"}
	}
	if p.Partitions < 0 || p.Partitions > 1024 {
		return &ConfigError{"store.postgres.partitions", "must be from 0 (not partitioned) to 1024"}
	}
	if p.Pooler != "" && p.Pooler != postgres.PoolerTransaction {
		return &ConfigError{"store.postgres.pooler", fmt.Sprintf("must be empty or %q, got %q", postgres.PoolerTransaction, p.Pooler)}
	}
	if p.FailoverAfter < 0 {
		return &ConfigError{"store.postgres.failover_after", "must not be negative (0 means the default, 2s)"}
	}
	if p.ProbeEvery < 0 {
		return &ConfigError{"store.postgres.probe_every", "must not be negative (0 means the default, 1s)"}
	}
	if p.ReplicaMaxLag < 0 {
		return &ConfigError{"store.postgres.replica_max_lag", "must not be negative (0 means the default, 10s)"}
	}
	if p.Schema != "" && !sqlIdentifier.MatchString(p.Schema) {
		return &ConfigError{"store.postgres.schema", "must be a lower-case SQL identifier"}
	}
	return nil
}

// validate checks sqlite.synchronous and upper-cases it.
func (c *SQLiteConfig) validate() error {
	switch strings.ToUpper(c.Synchronous) {
	case "FULL", "NORMAL":
		c.Synchronous = strings.ToUpper(c.Synchronous)
	default:
		return &ConfigError{"sqlite.synchronous", "must be FULL or NORMAL"}
	}
	return nil
}

// filesRoot is the files backend's memory root.
func (c *Config) filesRoot() string {
	if c.Store.Files.Root != "" {
		return c.Store.Files.Root
	}
	return filepath.Join(c.Data, "files")
}

// spoolDir is where writes wait while PostgreSQL is unreachable.
func (c *Config) spoolDir() string {
	if c.Store.Postgres.SpoolDir != "" {
		return c.Store.Postgres.SpoolDir
	}
	return filepath.Join(c.Data, "spool")
}
