package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
)

// Declarative partitioning by tenant (PG-6, Options.Partitions): the
// tables that grow with a tenant's use are split by hash of tenant_id
// into a fixed number of partitions, so that each tenant's rows, and
// their indexes (the HNSW graph included), are in one partition of a
// fraction of the store's size, and every statement, which names its
// tenant, is pruned to it.
//
// The number is chosen when the store is created: an empty schema is
// partitioned when Open migrates it (or `mnemo migrate`); a store with
// rows keeps its layout, and Open refuses a number that differs from its
// own. A store moves to another layout by a copy (mnemo migrate-store into
// a new schema opened with the number wanted).

// partitionedTables are the tables partitioned by tenant, each with its
// every unique key led by tenant_id (migrations 0004, 0005, 0009).
var partitionedTables = []string{"memory_entries", "history", "ledger", "term_stats",
	"events", "event_vectors", "relations"}

// maxPartitions bounds Options.Partitions.
const maxPartitions = 1024

func checkPartitions(n int) error {
	if n < 0 || n > maxPartitions {
		return mnemo.Errorf(mnemo.EINVALID, "postgres: %d partitions: give 0 (not partitioned) to %d", n, maxPartitions)
	}
	return nil
}

// partitionIndex is the name of index's copy on partition i: the same
// name with _p and the partition's number, so that a unique violation
// reported by a partition's index is recognised by the parent's name.
func partitionIndex(index string, i int) string { return index + "_p" + strconv.Itoa(i) }

// isIndex reports whether name is index or a partition's copy of it.
func isIndex(name, index string) bool {
	if name == index {
		return true
	}
	rest, ok := strings.CutPrefix(name, index+"_p")
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

// partitions returns the number of partitions of memory_entries: 0 when it
// is an ordinary table.
func partitions(ctx context.Context, q querier) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(i.inhrelid) FROM pg_class c LEFT JOIN pg_inherits i ON i.inhparent = c.oid
		WHERE c.oid = to_regclass(quote_ident(current_schema()) || '.memory_entries') AND c.relkind = 'p'`).Scan(&n)
	return n, err
}

// partition splits the tables of an empty store into n partitions by hash
// of tenant_id, in one transaction under the migration lock. A store with
// rows, or partitioned already, is left as it is; checkLayout then says
// whether its layout is the one asked for.
func (db *DB) partition(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	tx, err := db.begin(ctx, pgx.TxOptions{})
	if err != nil {
		return unavailable("partition", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, migrateLock); err != nil {
		return fmtMigrate(err)
	}
	// Row-level security would hide rows from the emptiness check.
	if _, err := tx.Exec(ctx, `SELECT set_config('mnemo.tenant', '*', true)`); err != nil {
		return fmtMigrate(err)
	}
	have, err := partitions(ctx, tx)
	if err != nil {
		return fmtMigrate(err)
	}
	if have > 0 {
		return nil // checkLayout compares the numbers
	}
	for _, t := range partitionedTables {
		var rows bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM `+t+`)`).Scan(&rows); err != nil {
			return fmtMigrate(err)
		}
		if rows {
			return nil // checkLayout refuses it
		}
	}
	for _, t := range partitionedTables {
		if err := partitionTable(ctx, tx, t, n); err != nil {
			return fmt.Errorf("postgres: partitioning %s: %w", t, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmtMigrate(err)
	}
	db.logger.Info("partitioned the store by tenant", "partitions", n)
	return nil
}

// partitionTable replaces the empty table t by a table of the same columns
// (defaults, generated columns, identity, storage, checks) partitioned by
// hash of tenant_id into n partitions, with t's keys, indexes (under
// their names, and partitionIndex's on each partition), triggers, storage
// parameters and row-level security policy.
func partitionTable(ctx context.Context, tx pgx.Tx, t string, n int) error {
	var (
		reloptions []string
		rls, force bool
	)
	if err := tx.QueryRow(ctx, `SELECT coalesce(reloptions, '{}'), relrowsecurity, relforcerowsecurity FROM pg_class
		WHERE oid = to_regclass(quote_ident(current_schema()) || '.' || $1::text)`, t).Scan(&reloptions, &rls, &force); err != nil {
		return err
	}
	// Keys, then the other indexes, as their definitions; the primary
	// key's index comes with its constraint.
	type def struct{ name, sql string }
	collect := func(query string) ([]def, error) {
		rows, err := tx.Query(ctx, query, t)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) (def, error) {
			var d def
			err := r.Scan(&d.name, &d.sql)
			return d, err
		})
	}
	table := `to_regclass(quote_ident(current_schema()) || '.' || $1::text)`
	cons, err := collect(`SELECT conname::text, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = ` + table + ` AND contype IN ('p', 'u') ORDER BY contype, conname`)
	if err != nil {
		return err
	}
	indexes, err := collect(`SELECT c.relname::text, pg_get_indexdef(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = ` + table + ` AND NOT EXISTS (SELECT FROM pg_constraint k WHERE k.conindid = i.indexrelid)
		ORDER BY c.relname`)
	if err != nil {
		return err
	}
	triggers, err := collect(`SELECT tgname::text, pg_get_triggerdef(oid) FROM pg_trigger
		WHERE tgrelid = ` + table + ` AND NOT tgisinternal ORDER BY tgname`)
	if err != nil {
		return err
	}
	old := t + "_unpartitioned"
	id := func(s string) string { return pgx.Identifier{s}.Sanitize() }
	stmts := []string{
		`ALTER TABLE ` + id(t) + ` RENAME TO ` + id(old),
		`CREATE TABLE ` + id(t) + ` (LIKE ` + id(old) + ` INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY
			INCLUDING STORAGE INCLUDING CONSTRAINTS INCLUDING COMMENTS) PARTITION BY HASH (tenant_id)`,
	}
	with := ""
	if len(reloptions) > 0 {
		with = ` WITH (` + strings.Join(reloptions, ", ") + `)`
	}
	for i := range n {
		stmts = append(stmts, fmt.Sprintf(`CREATE TABLE %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)%s`,
			id(t+"_p"+strconv.Itoa(i)), id(t), n, i, with))
	}
	// The old table goes before the indexes are made again: their names
	// are its indexes' until then.
	stmts = append(stmts, `DROP TABLE `+id(old))
	for _, c := range cons {
		// A unique key's index on each partition first, under a name of
		// ours, which the parent's key then attaches.
		for i := range n {
			stmts = append(stmts, `ALTER TABLE `+id(t+"_p"+strconv.Itoa(i))+` ADD CONSTRAINT `+id(partitionIndex(c.name, i))+` `+c.sql)
		}
		stmts = append(stmts, `ALTER TABLE `+id(t)+` ADD CONSTRAINT `+id(c.name)+` `+c.sql)
	}
	for _, ix := range indexes {
		// CREATE [UNIQUE] INDEX name ON [ONLY] table USING method (...) ...
		head, tail, ok := strings.Cut(ix.sql, " USING ")
		if !ok {
			return fmt.Errorf("unexpected definition of index %s: %s", ix.name, ix.sql)
		}
		create := "CREATE INDEX "
		if strings.HasPrefix(head, "CREATE UNIQUE INDEX ") {
			create = "CREATE UNIQUE INDEX "
		}
		for i := range n {
			stmts = append(stmts, create+id(partitionIndex(ix.name, i))+` ON `+id(t+"_p"+strconv.Itoa(i))+` USING `+tail)
		}
		// The parent's index attaches the partitions' (the same
		// definition), and creates none.
		stmts = append(stmts, ix.sql)
	}
	for _, tr := range triggers {
		stmts = append(stmts, tr.sql)
	}
	if rls || force {
		// The store's one policy (enableRLS), which went with the table.
		stmts = append(stmts, `ALTER TABLE `+id(t)+` ENABLE ROW LEVEL SECURITY`,
			`ALTER TABLE `+id(t)+` FORCE ROW LEVEL SECURITY`,
			`CREATE POLICY mnemo_tenant ON `+id(t)+` USING (`+rlsPolicy+`) WITH CHECK (`+rlsPolicy+`)`)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// checkLayout refuses a store whose layout is not the one asked for: n
// partitions when n > 0 (0 accepts any layout: the store keeps its own).
func checkLayout(ctx context.Context, q querier, n int) error {
	if n == 0 {
		return nil
	}
	have, err := partitions(ctx, q)
	if err != nil {
		return err
	}
	if have == n {
		return nil
	}
	what := "is not partitioned, and holds memories already"
	if have > 0 {
		what = fmt.Sprintf("has %d partitions", have)
	}
	return mnemo.Errorf(mnemo.ECONFLICT, "postgres: the store %s, and %d partitions were asked for: "+
		"the number of partitions is chosen when a store is created; copy this one into a new schema with `mnemo migrate-store` "+
		"(docs/POSTGRES-DEPLOY.md, \"Partitioning\")", what, n)
}
