package main

import (
	"testing"
	"time"
)

func TestStoreConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultStoreConfig, (*StoreConfig).validate, []sectionCase[StoreConfig]{
		{"files", func(c *StoreConfig) { c.Backend = BackendFiles }, ""},
		{"memory", func(c *StoreConfig) { c.Backend = BackendMemory }, ""},
		{"unknown backend", func(c *StoreConfig) { c.Backend = "mysql" }, "store.backend"},
		{"postgres without dsn", func(c *StoreConfig) { c.Backend = BackendPostgres }, "store.postgres.dsn"},
		{"postgres bad dsn", func(c *StoreConfig) { c.Backend, c.Postgres.DSN = BackendPostgres, "db.internal" }, "store.postgres.dsn"},
		{"postgres url", func(c *StoreConfig) { c.Backend, c.Postgres.DSN = BackendPostgres, "postgresql://h/db" }, ""},
		{"postgres key=value", func(c *StoreConfig) { c.Backend, c.Postgres.DSN = BackendPostgres, "host=h dbname=db" }, ""},
		{"dsn unused by sqlite", func(c *StoreConfig) { c.Postgres.DSN = "nonsense" }, ""},
		{"history rotate", func(c *StoreConfig) { c.Files.History = "rotate" }, ""},
		{"history", func(c *StoreConfig) { c.Files.History = "drop" }, "store.files.history"},
		{"compact on demand", func(c *StoreConfig) { c.Files.CompactEvery = -1 }, ""},
		{"compact_every", func(c *StoreConfig) { c.Files.CompactEvery = -2 }, "store.files.compact_every"},
		{"pool_size", func(c *StoreConfig) { c.Postgres.PoolSize = 1001 }, "store.postgres.pool_size"},
		{"ef_search", func(c *StoreConfig) { c.Postgres.EfSearch = -1 }, "store.postgres.ef_search"},
		{"pooler", func(c *StoreConfig) { c.Postgres.Pooler = "transaction" }, ""},
		{"pooler statement", func(c *StoreConfig) { c.Postgres.Pooler = "statement" }, "store.postgres.pooler"},
		{"hnsw", func(c *StoreConfig) { c.Postgres.HNSW = HNSWConfig{M: 24, EfConstruction: 128, EfSearch: 200} }, ""},
		{"hnsw.ef_search and ef_search agree", func(c *StoreConfig) { c.Postgres.EfSearch, c.Postgres.HNSW.EfSearch = 200, 200 }, ""},
		{"hnsw.ef_search and ef_search differ", func(c *StoreConfig) { c.Postgres.EfSearch, c.Postgres.HNSW.EfSearch = 100, 200 }, "store.postgres.hnsw.ef_search"},
		{"hnsw.ef_search", func(c *StoreConfig) { c.Postgres.HNSW.EfSearch = 1001 }, "store.postgres.hnsw.ef_search"},
		{"hnsw.m", func(c *StoreConfig) { c.Postgres.HNSW.M = 1 }, "store.postgres.hnsw.m"},
		{"hnsw.ef_construction", func(c *StoreConfig) { c.Postgres.HNSW.EfConstruction = 2000 }, "store.postgres.hnsw.ef_construction"},
		{"hnsw.ef_construction below 2m", func(c *StoreConfig) { c.Postgres.HNSW = HNSWConfig{M: 32, EfConstruction: 40} }, "store.postgres.hnsw.ef_construction"},
		{"failover_after", func(c *StoreConfig) { c.Postgres.FailoverAfter = -time.Second }, "store.postgres.failover_after"},
		{"probe_every", func(c *StoreConfig) { c.Postgres.ProbeEvery = -time.Second }, "store.postgres.probe_every"},
		{"schema", func(c *StoreConfig) { c.Postgres.Schema = "Mnemo-App" }, "store.postgres.schema"},
		{"tenants", func(c *StoreConfig) { *c = tenantsConfig(map[string]string{"acme": "eu", "globex": "default"}) }, ""},
		{"tenants unknown database", func(c *StoreConfig) { *c = tenantsConfig(map[string]string{"acme": "us"}) }, "store.postgres.tenants.acme"},
		{"tenants empty tenant", func(c *StoreConfig) { *c = tenantsConfig(map[string]string{" ": "eu"}) }, "store.postgres.tenants"},
		{"hash", func(c *StoreConfig) {
			*c = tenantsConfig(nil)
			c.Postgres.Hash = []string{"default", "eu"}
		}, ""},
		{"hash unknown database", func(c *StoreConfig) {
			*c = tenantsConfig(nil)
			c.Postgres.Hash = []string{"default", "us"}
		}, "store.postgres.hash[1]"},
		{"hash twice", func(c *StoreConfig) {
			*c = tenantsConfig(nil)
			c.Postgres.Hash = []string{"eu", "default", "eu"}
		}, "store.postgres.hash[2]"},
		{"databases named default", func(c *StoreConfig) {
			*c = tenantsConfig(nil)
			c.Postgres.Databases["default"] = "postgres://c/m"
		}, "store.postgres.databases.default"},
		{"databases bad dsn", func(c *StoreConfig) {
			*c = tenantsConfig(nil)
			c.Postgres.Databases["us"] = "db-c"
		}, "store.postgres.databases.us"},
		{"databases same dsn", func(c *StoreConfig) {
			*c = tenantsConfig(nil)
			c.Postgres.Databases["us"] = "postgres://b/m"
		}, "store.postgres.databases.us"},
	})
}

func TestSQLiteConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultSQLiteConfig, (*SQLiteConfig).validate, []sectionCase[SQLiteConfig]{
		{"normal", func(c *SQLiteConfig) { c.Synchronous = "normal" }, ""},
		{"off", func(c *SQLiteConfig) { c.Synchronous = "OFF" }, "sqlite.synchronous"},
	})
	c := SQLiteConfig{Synchronous: "normal"}
	if err := c.validate(); err != nil || c.Synchronous != "NORMAL" {
		t.Fatalf("synchronous %q, %v: want NORMAL", c.Synchronous, err)
	}
}

// tenantsConfig is a postgres store over a default database and "eu",
// with tenants routed as given.
func tenantsConfig(tenants map[string]string) StoreConfig {
	c := defaultStoreConfig()
	c.Backend, c.Postgres.DSN = BackendPostgres, "postgres://a/m"
	c.Postgres.Databases = map[string]Secret{"eu": "postgres://b/m"}
	c.Postgres.Tenants = tenants
	return c
}
