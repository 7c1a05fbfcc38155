package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-dev/mnemo"
)

// Replica defaults (PG-11).
const (
	// DefaultReadYourWrites is Options.ReadYourWrites when zero.
	DefaultReadYourWrites = 5 * time.Second
	// DefaultMaxReplicaLag is Options.MaxReplicaLag when zero.
	DefaultMaxReplicaLag = 10 * time.Second
	// replicaCheckEvery is how often the replicas' lag is measured.
	replicaCheckEvery = time.Second
	// replicaCheckTimeout bounds one measure of one server.
	replicaCheckTimeout = 2 * time.Second
)

// replica is a streaming replica that recall, list and search may read
// (PG-11), with what its last check found.
type replica struct {
	where string // host:port, never a password
	pool  *pgxpool.Pool

	mu  sync.Mutex
	why string // empty while usable: why it is skipped
}

func (r *replica) state() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.why
}

func (r *replica) set(why string) (changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed, r.why = r.why != why, why
	return changed
}

// lsnSample is the primary's WAL position at a time.
type lsnSample struct {
	at  time.Time
	lsn int64
}

// replicas routes reads to streaming replicas (PG-11).
type replicas struct {
	list   []*replica
	next   atomic.Uint64
	ryw    time.Duration
	maxLag time.Duration
	// wrote holds, per tenant (allTenants for the writes across
	// tenants), when this process last wrote to it.
	wrote sync.Map
	// samples are the primary's WAL positions measured over the last
	// maxLag and more, oldest first: a replica that has replayed up to
	// LSN x is behind by the time since the primary first passed x.
	samples []lsnSample
	// schema is the primary's WAL position once this process had
	// migrated it: a replica that has not replayed that far may lack a
	// table or column the reads use, however little time it is behind.
	schema int64
	stop   context.CancelFunc
	done   chan struct{}
}

// replicaKey is the context key of the pool a routed read uses.
type replicaKey struct{}

// openReplicas connects to the read DSNs, with the primary's pool
// settings, and starts measuring their lag.
func (db *DB) openReplicas(ctx context.Context, dsns []string, opts Options) error {
	if len(dsns) == 0 {
		return nil
	}
	rs := &replicas{ryw: opts.ReadYourWrites, maxLag: opts.MaxReplicaLag}
	if rs.ryw == 0 {
		rs.ryw = DefaultReadYourWrites
	}
	if rs.maxLag <= 0 {
		rs.maxLag = DefaultMaxReplicaLag
	}
	for _, dsn := range dsns {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			rs.close()
			return mnemo.Errorf(mnemo.EINVALID, "postgres: bad read DSN: %v", err)
		}
		if opts.MaxConns > 0 {
			cfg.MaxConns = opts.MaxConns
		}
		if cfg.ConnConfig.ConnectTimeout == 0 {
			cfg.ConnConfig.ConnectTimeout = replicaCheckTimeout
		}
		if _, err := setPooler(cfg, opts.Pooler, opts.Schema); err != nil {
			rs.close()
			return err
		}
		// pgxpool connects lazily: a replica down at start is skipped
		// until it answers.
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			rs.close()
			return mnemo.Errorf(mnemo.EINVALID, "postgres: read DSN: %v", err)
		}
		rs.list = append(rs.list, &replica{where: fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port), pool: pool, why: "not checked yet"})
	}
	db.replicas = rs
	if err := db.pool.QueryRow(ctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&rs.schema); err != nil {
		rs.close()
		db.replicas = nil
		return db.fail("open replicas", err)
	}
	db.checkReplicas(ctx)
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rs.stop, rs.done = cancel, make(chan struct{})
	go func() {
		defer close(rs.done)
		t := time.NewTicker(replicaCheckEvery)
		defer t.Stop()
		for {
			select {
			case <-cctx.Done():
				return
			case <-t.C:
				db.checkReplicas(cctx)
			}
		}
	}()
	return nil
}

// close stops the checks, awaits them, and closes the replicas' pools.
func (rs *replicas) close() {
	if rs == nil {
		return
	}
	if rs.stop != nil {
		rs.stop()
		<-rs.done
	}
	for _, r := range rs.list {
		r.pool.Close()
	}
}

// checkReplicas measures each replica's lag behind the primary and marks
// those past the bound, or unreachable, or not standbys, skipped.
func (db *DB) checkReplicas(ctx context.Context) {
	rs := db.replicas
	now := time.Now()
	pctx, cancel := context.WithTimeout(ctx, replicaCheckTimeout)
	var primary int64
	err := db.pool.QueryRow(pctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&primary)
	cancel()
	if err != nil {
		return // the primary's own trouble is the failover's to report
	}
	if n := len(rs.samples); n == 0 || rs.samples[n-1].lsn != primary {
		rs.samples = append(rs.samples, lsnSample{now, primary})
	}
	// Keep the samples of the last 2×maxLag, and the one before them.
	for len(rs.samples) > 2 && now.Sub(rs.samples[1].at) > 2*rs.maxLag {
		rs.samples = rs.samples[1:]
	}
	for _, r := range rs.list {
		why := db.replicaLag(ctx, r, primary, now)
		if r.set(why) {
			if why == "" {
				db.logger.Info("read replica in use", "replica", r.where)
			} else {
				db.logger.Warn("read replica skipped: reads go to the primary", "replica", r.where, "why", why)
			}
		}
	}
}

// replicaLag returns why r is not to be read, or "".
func (db *DB) replicaLag(ctx context.Context, r *replica, primary int64, now time.Time) string {
	rs := db.replicas
	cctx, cancel := context.WithTimeout(ctx, replicaCheckTimeout)
	defer cancel()
	var (
		standby bool
		replay  *int64
	)
	err := r.pool.QueryRow(cctx, `SELECT pg_is_in_recovery(), (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&standby, &replay)
	switch {
	case err != nil:
		return fmt.Sprintf("unreachable (%v)", firstLine(err.Error()))
	case !standby || replay == nil:
		return "not a streaming replica (pg_is_in_recovery() is false)"
	case *replay < rs.schema:
		return "catching up with the schema"
	case *replay >= primary:
		return ""
	}
	behind := now.Sub(rs.samples[0].at) // at least
	for _, s := range rs.samples {
		if s.lsn > *replay {
			behind = now.Sub(s.at)
			break
		}
	}
	if behind > rs.maxLag {
		return fmt.Sprintf("%s behind the primary (bound %s)", behind.Round(time.Millisecond), rs.maxLag)
	}
	return ""
}

// replicaOnly reports whether a read failed for a reason of the replica's
// that the primary does not share (PG-11): a standby cancels a query that
// conflicts with the WAL it replays (SQLSTATE 40001, or 40P01 for a
// deadlock with recovery), and one not yet past a migration lacks its
// tables, columns or functions (42P01, 42703, 42883).
func replicaOnly(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01", "42P01", "42703", "42883":
		return true
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// bookkeepingKey marks the context of a write that no read routed to a
// replica needs to see at once: access counts, ledger entries, working
// state, vectors (which recall waits for anyway). It starts no
// read-your-writes window, or every recall, which counts its accesses,
// would send the next ones to the primary.
type bookkeepingKey struct{}

func bookkeeping(ctx context.Context) context.Context {
	return context.WithValue(ctx, bookkeepingKey{}, true)
}

// wrote notes a write of tenant in ctx, for read-your-writes.
func (db *DB) wrote(ctx context.Context, tenant string) {
	if db.replicas != nil && ctx.Value(bookkeepingKey{}) == nil {
		db.replicas.wrote.Store(tenant, time.Now())
	}
}

// onReplica runs the read fn on a replica when one is usable and tenant
// has not been written by this process within the read-your-writes window,
// else on the primary; a replica that fails the read is marked skipped and
// the read done again on the primary. It returns, when a replica was
// skipped, why, for the answer's degraded flag.
func (db *DB) onReplica(ctx context.Context, tenant string, fn func(ctx context.Context) error) (string, error) {
	rs := db.replicas
	if rs == nil {
		return "", fn(ctx)
	}
	for _, t := range []string{tenant, allTenants} {
		if at, ok := rs.wrote.Load(t); ok && time.Since(at.(time.Time)) < rs.ryw {
			return "", fn(ctx) // read your writes: the primary has them
		}
	}
	var skipped []string
	start := rs.next.Add(1)
	for i := range rs.list {
		r := rs.list[(int(start)+i)%len(rs.list)]
		why := r.state()
		if why != "" {
			skipped = append(skipped, "replica "+r.where+" "+why)
			continue
		}
		// A replica that stops answering gets half the caller's time, so
		// that the primary still has the other half.
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if dl, ok := ctx.Deadline(); ok {
			rctx, cancel = context.WithTimeout(ctx, time.Until(dl)/2)
		}
		err := fn(context.WithValue(rctx, replicaKey{}, r.pool))
		timedOut := rctx.Err() != nil
		cancel()
		if err == nil || ctx.Err() != nil {
			return strings.Join(skipped, "; "), err
		}
		if replicaOnly(err) {
			// This read's trouble, not the replica's: it stays in use.
			skipped = append(skipped, "replica "+r.where+" cancelled the read ("+firstLine(err.Error())+")")
			continue
		}
		if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE && !timedOut {
			return strings.Join(skipped, "; "), err
		}
		why = fmt.Sprintf("unreachable (%v)", firstLine(err.Error()))
		if r.set(why) {
			db.logger.Warn("read replica skipped: reads go to the primary", "replica", r.where, "why", why)
		}
		skipped = append(skipped, "replica "+r.where+" "+why)
	}
	if len(skipped) > 0 {
		return strings.Join(skipped, "; ") + ": read from the primary", fn(ctx)
	}
	return "", fn(ctx)
}

// poolFor returns the pool a read in ctx uses: a replica's, for a read
// onReplica routed, else the primary's.
func (db *DB) poolFor(ctx context.Context) *pgxpool.Pool {
	if p, ok := ctx.Value(replicaKey{}).(*pgxpool.Pool); ok {
		return p
	}
	return db.pool
}

// Replicas reports each read replica (host:port) and why it is skipped, or
// "" while it is read (PG-11).
func (db *DB) Replicas() map[string]string {
	out := map[string]string{}
	if db.replicas != nil {
		for _, r := range db.replicas.list {
			out[r.where] = r.state()
		}
	}
	return out
}
