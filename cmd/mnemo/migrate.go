package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/internal/endpoint"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func (a *app) migrateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Bring the configured store's schema up to date and print its version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			log := a.logger()
			var (
				name     string
				from, to int
			)
			switch a.cfg.Store.Backend {
			case BackendPostgres:
				var err error
				name = "postgres " + dsnWhere(string(a.cfg.Store.Postgres.DSN))
				if from, to, err = postgres.Migrate(ctx, string(a.cfg.Store.Postgres.DSN), a.postgresOptions(log)); err != nil {
					return err
				}
			case BackendSQLite:
				path := filepath.Join(a.cfg.Data, "mnemo.db")
				name = "sqlite " + path
				// Open applies the migrations.
				db, err := sqlite.Open(ctx, path, sqlite.Options{Logger: log, Synchronous: a.cfg.SQLite.Synchronous})
				if err != nil {
					return err
				}
				defer db.Close()
				if to, err = db.SchemaVersion(ctx); err != nil {
					return err
				}
				from = to
			default:
				return usagef("store %s has no schema to migrate", a.cfg.Store.Backend)
			}
			if a.asJSON {
				return a.printJSON(map[string]any{"store": name, "from": from, "version": to})
			}
			if from == to {
				fmt.Fprintf(a.stdout, "%s: schema version %d, up to date\n", name, to)
			} else {
				fmt.Fprintf(a.stdout, "%s: schema version %d (was %d)\n", name, to, from)
			}
			return nil
		},
	}
}

func (a *app) migrateStoreCommand() *cobra.Command {
	var (
		from, to   string
		partitions int
	)
	cmd := &cobra.Command{
		Use:   "migrate-store --from sqlite:PATH|files:DIR|postgres:DSN --to ...",
		Short: "Copy every memory of every scope from one store to another, then check the counts",
		Long: "Copy every memory of every scope (archived and expired included, with their vectors) and\n" +
			"the ledger from one store to another, then compare the number of memories of each scope:\n" +
			"a mismatch fails (exit 1). Ids, times and keys are kept, so copying again changes nothing;\n" +
			"a scope whose ledger the destination already has keeps it. The history of the keys of live\n" +
			"memories is copied into PostgreSQL, with its times (a key with history there keeps it). Runs,\n" +
			"sessions and profiles (state documents) are copied with their times, each scope's counts of\n" +
			"them checked; a document the destination has already is kept. sqlite:PATH is a data directory or a .db file; postgres:DSN a postgres://\n" +
			"URL (its search_path chooses the schema). An empty PostgreSQL destination is loaded without\n" +
			"its full-text and HNSW indexes, which are built after the copy.\n\n" +
			"Between two stores that keep events (sqlite, postgres) every scope's event layers are copied\n" +
			"too: events hot and cold, in order, with their ids and times (cold ones arrive hot: the\n" +
			"destination's next archival moves them), their relations, event vectors (as made, with their\n" +
			"models; not into a PostgreSQL without pgvector, and without their access counts), summaries\n" +
			"and capabilities, and each scope's counts of events, relations, summaries and capabilities\n" +
			"are checked as the memories' are. Events the destination has already are skipped.\n\n" +
			"A new PostgreSQL destination is partitioned by tenant with --partitions N (default:\n" +
			"store.postgres.partitions); this is how an existing store moves to another number of\n" +
			"partitions: copied into a new schema (its search_path in the DSN, or a new database).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usagef("give both --from and --to, such as --from sqlite:./mnemo-data --to postgres:postgres://host/db")
			}
			ctx := cmd.Context()
			if !cmd.Flags().Changed("partitions") {
				partitions = a.cfg.Store.Postgres.Partitions
			}
			src, err := a.openEndpoint(ctx, from, true, 0)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := a.openEndpoint(ctx, to, false, partitions)
			if err != nil {
				return err
			}
			defer dst.Close()
			return a.copyStore(ctx, src, dst)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the store to copy: sqlite:PATH, files:DIR or postgres:DSN")
	cmd.Flags().StringVar(&to, "to", "", "the store to copy into: sqlite:PATH, files:DIR or postgres:DSN")
	cmd.Flags().IntVar(&partitions, "partitions", 0, "a new PostgreSQL destination's partitions by tenant (default: store.postgres.partitions; 0: none)")
	return cmd
}

// openEndpoint opens the store a migrate-store argument names. A source
// must exist; a destination is created, a PostgreSQL one with partitions
// by tenant when partitions > 0.
func (a *app) openEndpoint(ctx context.Context, spec string, source bool, partitions int) (mnemo.LifecycleStore, error) {
	kind, arg, err := parseEndpoint(spec)
	if err != nil {
		return nil, err
	}
	log := a.logger()
	exists := func(p string) error {
		if _, err := os.Stat(p); source && err != nil {
			return usagef("%s: no store there: %v", spec, err)
		}
		return nil
	}
	switch kind {
	case BackendSQLite:
		path := arg
		if !strings.HasSuffix(path, ".db") {
			path = filepath.Join(path, "mnemo.db")
		}
		if err := exists(path); err != nil {
			return nil, err
		}
		if !source {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
		}
		return sqlite.Open(ctx, path, sqlite.Options{Logger: log, Synchronous: a.cfg.SQLite.Synchronous})
	case BackendFiles:
		if err := exists(arg); err != nil {
			return nil, err
		}
		return files.OpenStore(ctx, arg, files.StoreOptions{Logger: log, Home: a.scope()})
	default:
		return postgres.Open(ctx, arg, postgres.Options{Logger: log, Partitions: partitions})
	}
}

// parseEndpoint splits a migrate-store argument into its backend and
// where it is (internal/endpoint); a bad one is a usage error.
func parseEndpoint(spec string) (kind, arg string, err error) {
	if kind, arg, err = endpoint.Parse(spec); err != nil {
		return "", "", usagef("%v", err)
	}
	return kind, arg, nil
}

// copyStore copies every scope of src into dst, with a progress bar, and
// checks the counts.
func (a *app) copyStore(ctx context.Context, src, dst mnemo.LifecycleStore) (err error) {
	log := a.logger()
	scopes, err := src.Scopes(ctx)
	if err != nil {
		return err
	}
	slices.SortFunc(scopes, func(x, y mnemo.Scope) int {
		return strings.Compare(x.TenantID+"\x00"+x.AgentID, y.TenantID+"\x00"+y.AgentID)
	})
	counts := make([]int, len(scopes))
	total := 0
	for i, sc := range scopes {
		st, err := src.Stats(ctx, sc)
		if err != nil {
			return err
		}
		counts[i] = st.Memories
		total += st.Memories
	}
	// Vectors are kept when the destination has the source's space.
	if sv, ok := src.(mnemo.VectorStore); ok {
		if dv, ok := dst.(mnemo.VectorStore); ok {
			if space, err := sv.VectorSpace(ctx); err != nil && mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
				return err
			} else if space.Model != "" {
				if err := dv.SetVectorSpace(ctx, space, false); mnemo.ErrorCode(err) == mnemo.EUNAVAILABLE {
					log.Warn("the destination keeps no vectors: memories are copied without them", "err", err)
				} else if err != nil {
					return fmt.Errorf("destination: %w", err)
				}
			}
		}
	}

	// An empty PostgreSQL destination loads without its full-text and
	// HNSW indexes, built once after the copy, whatever its outcome.
	if b, ok := dst.(interface {
		BulkLoad(context.Context) (func(context.Context) error, error)
	}); ok {
		finish, berr := b.BulkLoad(ctx)
		if berr != nil {
			return fmt.Errorf("destination: %w", berr)
		}
		defer func() {
			if ferr := finish(context.WithoutCancel(ctx)); ferr != nil && err == nil {
				err = fmt.Errorf("destination: %w", ferr)
			}
		}()
	}

	from := service.New(src, service.Options{Logger: log})
	into := service.New(dst, service.Options{Logger: log, Limits: maxLimits(a.cfg.limits())})
	bar := a.bar(int64(total), "copying")
	done, ledger, histories := 0, 0, 0
	for i, sc := range scopes {
		pr, pw := io.Pipe()
		go func() {
			err := panics.Call(log, "exporting for migrate", func() error {
				_, err := from.Export(ctx, sc, pw, nil)
				return err
			})
			pw.CloseWithError(err) // a panic fails the import, not the process
		}()
		// The key history goes first, with its own times: the copy's own
		// write of each memory is then its latest revision.
		hist, err := copyHistory(ctx, src, dst, sc)
		if err != nil {
			pr.Close()
			return fmt.Errorf("copying the key history of %s/%s: %w", sc.TenantID, sc.AgentID, err)
		}
		histories += hist
		base := done
		n, err := into.Import(ctx, pr, memory.ImportOptions{Progress: func(k int) {
			if bar != nil {
				bar.Set(base + k)
			}
		}})
		pr.Close()
		if err != nil {
			return fmt.Errorf("copying %s/%s: %w", sc.TenantID, sc.AgentID, err)
		}
		done += n.Records()
		k, err := copyLedger(ctx, src, dst, sc)
		if err != nil {
			return fmt.Errorf("copying the ledger of %s/%s: %w", sc.TenantID, sc.AgentID, err)
		}
		ledger += k
		if !a.asJSON {
			fmt.Fprintf(a.stdout, "%s/%s: %s, %s, %s\n", sc.TenantID, sc.AgentID, textutil.Count(counts[i], "memory", "memories"), textutil.Count(k, "ledger entry", "ledger entries"), textutil.Count(hist, "key revision", "key revisions"))
		}
	}
	if bar != nil {
		bar.Finish()
	}

	// The event layers, scope by scope (PG-6).
	ec, evScopes, err := newEventCopy(ctx, log, src, dst)
	if err != nil {
		return fmt.Errorf("listing the scopes with events: %w", err)
	}
	evWant := make([]layerCounts, len(evScopes))
	var evTotal layerCounts
	for i, sc := range evScopes {
		n, err := ec.scope(ctx, sc)
		if err != nil {
			return fmt.Errorf("copying the events of %s/%s: %w", sc.TenantID, sc.AgentID, err)
		}
		evWant[i] = n
		evTotal.add(n)
		if !a.asJSON {
			fmt.Fprintf(a.stdout, "%s/%s: %s\n", sc.TenantID, sc.AgentID, n)
		}
	}

	// Runs, sessions and profiles: the state documents of every scope.
	states, stBad, err := copyState(ctx, src, dst)
	if err != nil {
		return fmt.Errorf("copying runs, sessions and profiles: %w", err)
	}
	if !a.asJSON && states.total() > 0 {
		fmt.Fprintf(a.stdout, "copied %s, %s and %s; counts match\n", textutil.Count(states[mnemo.StateRun], "run", "runs"), textutil.Count(states[mnemo.StateSession], "session", "sessions"), textutil.Count(states[mnemo.StateProfile], "profile", "profiles"))
	}

	// The count check: every scope has as many memories on both sides.
	bad := stBad
	for i, sc := range scopes {
		st, err := dst.Stats(ctx, sc)
		if err != nil {
			return err
		}
		if st.Memories != counts[i] {
			bad = append(bad, fmt.Sprintf("%s/%s has %d memories in the source and %d in the destination", sc.TenantID, sc.AgentID, counts[i], st.Memories))
		}
	}
	if ec != nil {
		evBad, err := ec.check(ctx, evScopes, evWant)
		if err != nil {
			return err
		}
		bad = append(bad, evBad...)
	}
	if len(bad) > 0 {
		return errors.New("count check failed: " + strings.Join(bad, "; "))
	}
	if a.asJSON {
		return a.printJSON(map[string]any{"scopes": len(scopes), "memories": total, "ledger_entries": ledger, "key_revisions": histories,
			"event_scopes": len(evScopes), "event_layers": evTotal, "state": states})
	}
	fmt.Fprintf(a.stdout, "copied %s of %s and %s; counts match\n", textutil.Count(total, "memory", "memories"), textutil.Count(len(scopes), "scope", "scopes"), textutil.Count(ledger, "ledger entry", "ledger entries"))
	if ec != nil {
		fmt.Fprintf(a.stdout, "copied %s of %s; counts match\n", evTotal, textutil.Count(len(evScopes), "scope", "scopes"))
	}
	return nil
}

// maxLimits raises the write limits so that anything a store holds can be
// copied: the source accepted it under its own configuration.
func maxLimits(l mnemo.Limits) mnemo.Limits {
	l.MaxContentChars = max(l.MaxContentChars, 1<<20)
	l.MaxDataBytes = max(l.MaxDataBytes, memory.MaxImportLine)
	l.MaxTags = max(l.MaxTags, 1024)
	return l
}

// historyImporter is a destination that takes key history as it was
// (the postgres store).
type historyImporter interface {
	ImportHistory(ctx context.Context, scope mnemo.Scope, revs []mnemo.Revision) (int, error)
}

// copyHistory copies the history of the keys of the scope's live memories
// (archived and expired included) into a destination that takes it; keys
// whose memory is gone are not listed by any store, and are left behind.
func copyHistory(ctx context.Context, src, dst mnemo.LifecycleStore, sc mnemo.Scope) (int, error) {
	hi, ok := dst.(historyImporter)
	if !ok {
		return 0, nil
	}
	ms, _, err := src.List(ctx, sc, mnemo.ListQuery{
		Filter:    mnemo.Filter{IncludeArchived: true, IncludeExpired: true},
		NoVectors: true, NoTotal: true,
	})
	if err != nil {
		return 0, err
	}
	var revs []mnemo.Revision
	for _, m := range ms {
		if m.Key == "" {
			continue
		}
		rs, err := src.History(ctx, sc, m.Key)
		if err != nil {
			return 0, err
		}
		revs = append(revs, rs...)
	}
	return hi.ImportHistory(ctx, sc, revs)
}

// copyLedger copies the scope's ledger, oldest first, unless the
// destination has entries for the scope already (an earlier copy).
func copyLedger(ctx context.Context, src, dst mnemo.LifecycleStore, sc mnemo.Scope) (int, error) {
	if _, n, err := dst.Ledger(ctx, sc, mnemo.LedgerQuery{Limit: 1}); err != nil || n > 0 {
		return 0, err
	}
	const page = 1000
	var all []mnemo.LedgerEntry
	for off := 0; ; off += page {
		es, total, err := src.Ledger(ctx, sc, mnemo.LedgerQuery{Limit: page, Offset: off})
		if err != nil {
			return 0, err
		}
		all = append(all, es...)
		if len(es) < page || off+len(es) >= total {
			break
		}
	}
	slices.Reverse(all)
	for i := range all {
		all[i].Seq = 0
	}
	copied := len(all)
	for len(all) > 0 {
		n := min(len(all), page)
		if err := dst.AppendLedger(ctx, sc, all[:n]); err != nil {
			return 0, err
		}
		all = all[n:]
	}
	return copied, nil
}

// stateKinds are the state documents migrate-store copies.
var stateKinds = []string{mnemo.StateRun, mnemo.StateSession, mnemo.StateProfile}

// stateCounts is how many documents of each kind were copied.
type stateCounts map[string]int

func (c stateCounts) total() int {
	return c[mnemo.StateRun] + c[mnemo.StateSession] + c[mnemo.StateProfile]
}

// copyState copies every state document (runs' short-term memory,
// sessions' working memory, profiles) of every scope from src to dst when
// both keep them, with its body and time; a document dst has already is
// left as it is. The version starts again at 1: it counts the writes of the
// store that holds the document. It then compares each scope's count of
// each kind on both sides and returns the mismatches.
func copyState(ctx context.Context, src, dst mnemo.LifecycleStore) (stateCounts, []string, error) {
	ss, ok := src.(mnemo.StateStore)
	if !ok {
		return nil, nil, nil
	}
	ds, ok := dst.(mnemo.StateStore)
	if !ok {
		return nil, nil, nil
	}
	copied := stateCounts{}
	var bad []string
	// IdleState lists a kind across scopes: every document updated before
	// the end of the times a store keeps.
	end := time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, kind := range stateKinds {
		docs, err := ss.IdleState(ctx, kind, end, 0)
		if err != nil {
			return nil, nil, err
		}
		want := map[mnemo.Scope]int{}
		for _, d := range docs {
			want[d.Scope]++
			switch _, err := ds.GetState(ctx, d.Scope, kind, d.ID); {
			case err == nil:
				continue // copied before, or the destination's own
			case mnemo.ErrorCode(err) != mnemo.ENOTFOUND:
				return nil, nil, err
			}
			d.Version = 0
			if _, err := ds.PutState(ctx, d.Scope, d); err != nil {
				return nil, nil, fmt.Errorf("%s %q of %s/%s: %w", kind, d.ID, d.Scope.TenantID, d.Scope.AgentID, err)
			}
			copied[kind]++
		}
		for sc, n := range want {
			got, err := ds.ListState(ctx, sc, kind)
			if err != nil {
				return nil, nil, err
			}
			if len(got) < n {
				bad = append(bad, fmt.Sprintf("%s/%s has %d %s documents in the source and %d in the destination", sc.TenantID, sc.AgentID, n, kind, len(got)))
			}
		}
	}
	slices.Sort(bad)
	return copied, bad, nil
}
