// Package tenantroute spreads tenants over several PostgreSQL databases
// (PG-12): each tenant's data lives in exactly one of them, chosen by a
// tenant map with a default for the tenants it does not list. A Store
// holds one postgres.DB per database and implements every interface the
// postgres store does, routing each call by its scope's tenant; the calls
// without a scope (the background jobs' queues, the scope listings, the
// vector space) go to every database and merge what they answer.
package tenantroute

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
)

// Store routes each call to the database of its tenant.
type Store struct {
	dbs    []*postgres.DB          // dbs[0] is the default
	routes map[string]*postgres.DB // tenant -> its database, when not the default
	// ring places the tenants routes does not list, when set: names and
	// their databases.
	ring      []string
	ringNodes []*postgres.DB
}

// Hash places the tenants the map does not list by rendezvous hashing
// over the databases of nodes, by name (PG-12): each tenant goes to the
// name of the highest weight of hash(name, tenant), so adding a database
// moves only the tenants it wins, about one in len(nodes), and removing
// one moves only its own.
func (s *Store) Hash(names []string, dbs []*postgres.DB) {
	s.ring, s.ringNodes = slices.Clone(names), slices.Clone(dbs)
	for _, db := range dbs {
		s.Add(db)
	}
}

// Place is the index in names of the name tenant hashes to: rendezvous
// hashing of FNV-1a 64 of the name and the tenant, ties to the first.
func Place(tenant string, names []string) int {
	best, at := uint64(0), -1
	for i, name := range names {
		h := fnv.New64a()
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write([]byte(tenant))
		if w := mix(h.Sum64()); at < 0 || w > best {
			best, at = w, i
		}
	}
	return at
}

// mix is splitmix64's finaliser: FNV's high bits alone spread names that
// differ in their last characters poorly.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// New routes the tenants of routes to their databases and every other
// tenant to def. The Store owns the databases: Close closes them all.
func New(def *postgres.DB, routes map[string]*postgres.DB) *Store {
	s := &Store{dbs: []*postgres.DB{def}, routes: make(map[string]*postgres.DB, len(routes))}
	for tenant, db := range routes {
		s.routes[tenant] = db
		if !slices.Contains(s.dbs, db) {
			s.dbs = append(s.dbs, db)
		}
	}
	return s
}

// Add adds a database no tenant is routed to yet: the calls that go to
// every database reach it too, and Close closes it.
func (s *Store) Add(db *postgres.DB) {
	if !slices.Contains(s.dbs, db) {
		s.dbs = append(s.dbs, db)
	}
}

// DB returns the database that holds tenant's data.
func (s *Store) DB(tenant string) *postgres.DB {
	if db, ok := s.routes[tenant]; ok {
		return db
	}
	if len(s.ring) > 0 {
		return s.ringNodes[Place(tenant, s.ring)]
	}
	return s.dbs[0]
}

func (s *Store) of(scope mnemo.Scope) *postgres.DB { return s.DB(scope.TenantID) }

// each calls fn on every database, stopping at the first error.
func (s *Store) each(fn func(db *postgres.DB) error) error {
	for _, db := range s.dbs {
		if err := fn(db); err != nil {
			return err
		}
	}
	return nil
}

// sum adds what fn answers on every database.
func (s *Store) sum(fn func(db *postgres.DB) (int, error)) (int, error) {
	total := 0
	err := s.each(func(db *postgres.DB) error {
		n, err := fn(db)
		total += n
		return err
	})
	return total, err
}

// scopes merges the scope lists of every database.
func (s *Store) scopes(fn func(db *postgres.DB) ([]mnemo.Scope, error)) ([]mnemo.Scope, error) {
	var out []mnemo.Scope
	seen := map[mnemo.Scope]bool{}
	err := s.each(func(db *postgres.DB) error {
		got, err := fn(db)
		for _, sc := range got {
			if !seen[sc] {
				seen[sc] = true
				out = append(out, sc)
			}
		}
		return err
	})
	return out, err
}

// Close closes every database.
func (s *Store) Close() error {
	var errs []error
	for _, db := range s.dbs {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

// Ping reports whether every database answers: the failover takes the
// store for unreachable while one of them is (its spool keeps the writes).
func (s *Store) Ping(ctx context.Context) error {
	return s.each(func(db *postgres.DB) error {
		if err := db.Pool().Ping(ctx); err != nil {
			return mnemo.Errorf(mnemo.EUNAVAILABLE, "postgres: %v", err)
		}
		return nil
	})
}

// VectorIndex is the first database's reason for keeping no vectors.
func (s *Store) VectorIndex() error {
	for _, db := range s.dbs {
		if err := db.VectorIndex(); err != nil {
			return err
		}
	}
	return nil
}

// mnemo.Store.

func (s *Store) Write(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	return s.of(scope).Write(ctx, scope, recs)
}

func (s *Store) Replace(ctx context.Context, scope mnemo.Scope, rec mnemo.Record) (mnemo.Memory, error) {
	return s.of(scope).Replace(ctx, scope, rec)
}

func (s *Store) Get(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Memory, error) {
	return s.of(scope).Get(ctx, scope, id)
}

func (s *Store) GetByKey(ctx context.Context, scope mnemo.Scope, key string) (mnemo.Memory, error) {
	return s.of(scope).GetByKey(ctx, scope, key)
}

func (s *Store) List(ctx context.Context, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	return s.of(scope).List(ctx, scope, q)
}

func (s *Store) Search(ctx context.Context, scope mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	return s.of(scope).Search(ctx, scope, q)
}

func (s *Store) WriteContexts(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	return s.of(scope).WriteContexts(ctx, scope, recs, updates)
}

func (s *Store) Touch(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	return s.of(scope).Touch(ctx, scope, ids, at)
}

func (s *Store) Forget(ctx context.Context, scope mnemo.Scope, ids, keys []string) (int, error) {
	return s.of(scope).Forget(ctx, scope, ids, keys)
}

func (s *Store) Clear(ctx context.Context, scope mnemo.Scope) (int, error) {
	return s.of(scope).Clear(ctx, scope)
}

func (s *Store) History(ctx context.Context, scope mnemo.Scope, key string) ([]mnemo.Revision, error) {
	return s.of(scope).History(ctx, scope, key)
}

func (s *Store) DeletedAfter(ctx context.Context, scope mnemo.Scope, t time.Time, limit int) ([]mnemo.Revision, error) {
	return s.of(scope).DeletedAfter(ctx, scope, t, limit)
}

func (s *Store) Stats(ctx context.Context, scope mnemo.Scope) (mnemo.Stats, error) {
	return s.of(scope).Stats(ctx, scope)
}

func (s *Store) CountTypes(ctx context.Context, scope mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	return s.of(scope).CountTypes(ctx, scope, f)
}

// Lookup is the failover's batched lookup.
func (s *Store) Lookup(ctx context.Context, scope mnemo.Scope, ids, keys []string) (map[string]bool, map[string]time.Time, error) {
	return s.of(scope).Lookup(ctx, scope, ids, keys)
}

// ReplayWrites is the failover replay's idempotent write.
func (s *Store) ReplayWrites(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) (int, error) {
	return s.of(scope).ReplayWrites(ctx, scope, recs)
}

// ImportHistory takes key history as it was (migrate-store).
func (s *Store) ImportHistory(ctx context.Context, scope mnemo.Scope, revs []mnemo.Revision) (int, error) {
	return s.of(scope).ImportHistory(ctx, scope, revs)
}

// mnemo.VectorStore. Every database has the same vector space: it is set
// on all of them.

func (s *Store) VectorSpace(ctx context.Context) (mnemo.VectorSpace, error) {
	return s.dbs[0].VectorSpace(ctx)
}

func (s *Store) SetVectorSpace(ctx context.Context, vs mnemo.VectorSpace, reset bool) error {
	return s.each(func(db *postgres.DB) error { return db.SetVectorSpace(ctx, vs, reset) })
}

// Unembedded takes the queue of each database in turn, up to n jobs.
func (s *Store) Unembedded(ctx context.Context, n int) ([]mnemo.EmbedJob, error) {
	var out []mnemo.EmbedJob
	err := s.each(func(db *postgres.DB) error {
		if len(out) >= n {
			return nil
		}
		jobs, err := db.Unembedded(ctx, n-len(out))
		out = append(out, jobs...)
		return err
	})
	return out, err
}

func (s *Store) CountUnembedded(ctx context.Context) (int, error) {
	return s.sum(func(db *postgres.DB) (int, error) { return db.CountUnembedded(ctx) })
}

// SetVectors goes to every database: a job names only its memory's id,
// and a database that does not hold it matches no row.
func (s *Store) SetVectors(ctx context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	return s.each(func(db *postgres.DB) error { return db.SetVectors(ctx, jobs, vecs) })
}

func (s *Store) SearchVectors(ctx context.Context, scope mnemo.Scope, q mnemo.VectorQuery) ([]mnemo.VectorHit, error) {
	return s.of(scope).SearchVectors(ctx, scope, q)
}

// BulkLoad prepares every database for a load; finish finishes them all.
func (s *Store) BulkLoad(ctx context.Context) (func(context.Context) error, error) {
	var finishes []func(context.Context) error
	finish := func(ctx context.Context) error {
		var errs []error
		for _, f := range finishes {
			errs = append(errs, f(ctx))
		}
		return errors.Join(errs...)
	}
	err := s.each(func(db *postgres.DB) error {
		f, err := db.BulkLoad(ctx)
		if err == nil {
			finishes = append(finishes, f)
		}
		return err
	})
	if err != nil {
		return nil, errors.Join(err, finish(context.WithoutCancel(ctx)))
	}
	return finish, nil
}

// mnemo.StateStore.

func (s *Store) GetState(ctx context.Context, scope mnemo.Scope, kind, id string) (mnemo.StateDoc, error) {
	return s.of(scope).GetState(ctx, scope, kind, id)
}

func (s *Store) PutState(ctx context.Context, scope mnemo.Scope, doc mnemo.StateDoc) (int64, error) {
	return s.of(scope).PutState(ctx, scope, doc)
}

func (s *Store) DeleteState(ctx context.Context, scope mnemo.Scope, kind, id string, version int64) (bool, error) {
	return s.of(scope).DeleteState(ctx, scope, kind, id, version)
}

func (s *Store) ListState(ctx context.Context, scope mnemo.Scope, kind string) ([]mnemo.StateDoc, error) {
	return s.of(scope).ListState(ctx, scope, kind)
}

// IdleState merges every database's idle documents, oldest first as each
// database answers them, and keeps the first n (0: all).
func (s *Store) IdleState(ctx context.Context, kind string, before time.Time, n int) ([]mnemo.StateDoc, error) {
	var out []mnemo.StateDoc
	err := s.each(func(db *postgres.DB) error {
		docs, err := db.IdleState(ctx, kind, before, n)
		out = append(out, docs...)
		return err
	})
	slices.SortStableFunc(out, func(a, b mnemo.StateDoc) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, err
}

// mnemo.LifecycleStore.

func (s *Store) ApplyLife(ctx context.Context, scope mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	return s.of(scope).ApplyLife(ctx, scope, changes, entries)
}

func (s *Store) AppendLedger(ctx context.Context, scope mnemo.Scope, entries []mnemo.LedgerEntry) error {
	return s.of(scope).AppendLedger(ctx, scope, entries)
}

func (s *Store) Ledger(ctx context.Context, scope mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	return s.of(scope).Ledger(ctx, scope, q)
}

func (s *Store) Scopes(ctx context.Context) ([]mnemo.Scope, error) {
	return s.scopes(func(db *postgres.DB) ([]mnemo.Scope, error) { return db.Scopes(ctx) })
}

// mnemo.EventStore.

func (s *Store) AppendEvents(ctx context.Context, scope mnemo.Scope, events []mnemo.Event, relate func(context.Context, mnemo.EventLookup, mnemo.Event) ([]mnemo.Relation, error)) ([]mnemo.Event, error) {
	return s.of(scope).AppendEvents(ctx, scope, events, relate)
}

func (s *Store) QueryEvents(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery) (mnemo.EventPage, error) {
	return s.of(scope).QueryEvents(ctx, scope, q)
}

func (s *Store) GetEvent(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Event, error) {
	return s.of(scope).GetEvent(ctx, scope, id)
}

func (s *Store) ArchiveEvents(ctx context.Context, before time.Time) (int, error) {
	return s.sum(func(db *postgres.DB) (int, error) { return db.ArchiveEvents(ctx, before) })
}

func (s *Store) AddRelations(ctx context.Context, scope mnemo.Scope, rels []mnemo.Relation) error {
	return s.of(scope).AddRelations(ctx, scope, rels)
}

func (s *Store) Relations(ctx context.Context, scope mnemo.Scope, q mnemo.RelationQuery) ([]mnemo.Relation, error) {
	return s.of(scope).Relations(ctx, scope, q)
}

func (s *Store) PruneLinks(ctx context.Context, scope mnemo.Scope, dry bool) ([]mnemo.Relation, error) {
	return s.of(scope).PruneLinks(ctx, scope, dry)
}

// EventLayerScopes and AllRelations are migrate-store's event dump.

func (s *Store) EventLayerScopes(ctx context.Context) ([]mnemo.Scope, error) {
	return s.scopes(func(db *postgres.DB) ([]mnemo.Scope, error) { return db.EventLayerScopes(ctx) })
}

func (s *Store) AllRelations(ctx context.Context, scope mnemo.Scope) ([]mnemo.Relation, error) {
	return s.of(scope).AllRelations(ctx, scope)
}

// mnemo.EventVectorStore.

func (s *Store) SearchEventVectors(ctx context.Context, scope mnemo.Scope, q mnemo.EventVectorQuery) ([]mnemo.EventVectorHit, error) {
	return s.of(scope).SearchEventVectors(ctx, scope, q)
}

func (s *Store) EventVectorsOf(ctx context.Context, scope mnemo.Scope, ids []string) ([]mnemo.StoredEventVector, error) {
	return s.of(scope).EventVectorsOf(ctx, scope, ids)
}

func (s *Store) EventVectorModels(ctx context.Context, scope mnemo.Scope) (map[string][]string, error) {
	return s.of(scope).EventVectorModels(ctx, scope)
}

func (s *Store) TouchEventVectors(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	return s.of(scope).TouchEventVectors(ctx, scope, ids, at)
}

func (s *Store) PruneEventVectors(ctx context.Context, before time.Time, minAccess int) (int, error) {
	return s.sum(func(db *postgres.DB) (int, error) { return db.PruneEventVectors(ctx, before, minAccess) })
}

// PendingEventVectors takes the queue of each database in turn, up to n.
func (s *Store) PendingEventVectors(ctx context.Context, n int) ([]mnemo.EventVectorJob, error) {
	var out []mnemo.EventVectorJob
	err := s.each(func(db *postgres.DB) error {
		if len(out) >= n {
			return nil
		}
		jobs, err := db.PendingEventVectors(ctx, n-len(out))
		out = append(out, jobs...)
		return err
	})
	return out, err
}

// SetEventVectors sends each job, which names its scope, to its database.
func (s *Store) SetEventVectors(ctx context.Context, jobs []mnemo.EventVectorJob, vecs [][]float32) error {
	if len(jobs) != len(vecs) {
		return fmt.Errorf("tenantroute: set event vectors: %d jobs but %d vectors", len(jobs), len(vecs))
	}
	type batch struct {
		jobs []mnemo.EventVectorJob
		vecs [][]float32
	}
	by := map[*postgres.DB]*batch{}
	for i, j := range jobs {
		db := s.of(j.Scope)
		b := by[db]
		if b == nil {
			b = &batch{}
			by[db] = b
		}
		b.jobs = append(b.jobs, j)
		b.vecs = append(b.vecs, vecs[i])
	}
	return s.each(func(db *postgres.DB) error {
		if b := by[db]; b != nil {
			return db.SetEventVectors(ctx, b.jobs, b.vecs)
		}
		return nil
	})
}

// mnemo.InsightStore.

func (s *Store) PutSummary(ctx context.Context, scope mnemo.Scope, sum mnemo.Summary) error {
	return s.of(scope).PutSummary(ctx, scope, sum)
}

func (s *Store) Summaries(ctx context.Context, scope mnemo.Scope, q mnemo.SummaryQuery) ([]mnemo.Summary, error) {
	return s.of(scope).Summaries(ctx, scope, q)
}

func (s *Store) DropSummaries(ctx context.Context, periods []mnemo.Period, before time.Time) (int, error) {
	return s.sum(func(db *postgres.DB) (int, error) { return db.DropSummaries(ctx, periods, before) })
}

func (s *Store) EventScopes(ctx context.Context, since time.Time) ([]mnemo.Scope, error) {
	return s.scopes(func(db *postgres.DB) ([]mnemo.Scope, error) { return db.EventScopes(ctx, since) })
}

func (s *Store) UpdateCapabilities(ctx context.Context, scope mnemo.Scope, taskTypes []string, fn func(have []mnemo.Capability) ([]mnemo.Capability, error)) error {
	return s.of(scope).UpdateCapabilities(ctx, scope, taskTypes, fn)
}

func (s *Store) ReplaceCapabilities(ctx context.Context, scope mnemo.Scope, caps []mnemo.Capability) error {
	return s.of(scope).ReplaceCapabilities(ctx, scope, caps)
}

func (s *Store) Capabilities(ctx context.Context, scope mnemo.Scope) ([]mnemo.Capability, error) {
	return s.of(scope).Capabilities(ctx, scope)
}

// mnemo.AgentLister.

func (s *Store) Agents(ctx context.Context, tenant string) ([]mnemo.AgentCount, error) {
	return s.DB(tenant).Agents(ctx, tenant)
}

// RunJob leases each periodic job (PG-10) in the default database: the
// job itself then works on every database through the Store.
func (s *Store) RunJob(ctx context.Context, job string, period time.Time, holder string, fn func(context.Context) error) (bool, error) {
	return s.dbs[0].RunJob(ctx, job, period, holder, fn)
}

// The interfaces the Store implements, checked by the compiler.
var (
	_ mnemo.VectorStore      = (*Store)(nil)
	_ mnemo.StateStore       = (*Store)(nil)
	_ mnemo.LifecycleStore   = (*Store)(nil)
	_ mnemo.EventVectorStore = (*Store)(nil)
	_ mnemo.InsightStore     = (*Store)(nil)
	_ mnemo.AgentLister      = (*Store)(nil)
	_ mnemo.ContextIndexer   = (*Store)(nil)
)
