package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// jobRunsKept is how long a job's finished runs are remembered: long
// enough for any period a server still asks about.
const jobRunsKept = 7 * 24 * time.Hour

// RunJob runs fn as job's run for a period on one server of those sharing the database (PG-10). The lease is an advisory lock
// of the job (and the schema, so that stores in other schemas of the
// database do not contend) taken with pg_try_advisory_xact_lock in a
// transaction that stays open while fn runs, on its own connection: a
// holder that dies loses its connection, PostgreSQL ends the transaction
// and frees the lock, and the period, which has no row, goes to the next
// server that asks. The transaction writes nothing until fn has returned,
// so it holds no transaction id, and so no vacuum horizon, meanwhile; and
// being a transaction, it works behind a transaction-mode pooler too.
// The lease's connection is its own, outside the pool, so that a long job
// holds none of the connections requests need.
func (db *DB) RunJob(ctx context.Context, job string, period time.Time, holder string, fn func(context.Context) error) (bool, error) {
	pc := db.pool.Config()
	conn, err := pgx.ConnectConfig(ctx, pc.ConnConfig)
	if err != nil {
		return false, db.fail("job lease", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if pc.AfterConnect != nil {
		if err := pc.AfterConnect(ctx, conn); err != nil {
			return false, db.fail("job lease", err)
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, db.fail("job lease", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if db.local != "" {
		if _, err := tx.Exec(ctx, `SELECT set_config('search_path', $1::text, true)`, db.local); err != nil {
			return false, db.fail("job lease", err)
		}
	}
	var leased, done bool
	err = tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended(current_schema() || '.mnemo.job.' || $1::text, 0))`, job).Scan(&leased)
	if err != nil || !leased {
		return false, db.fail("job lease", err)
	}
	p := period.UnixNano()
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM job_runs WHERE job = $1::text AND period_ns = $2::bigint)`, job, p).Scan(&done)
	if err != nil || done {
		return false, db.fail("job lease", err)
	}
	started := db.now()
	if err := fn(ctx); err != nil {
		return true, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO job_runs (job, period_ns, holder, started_ns, finished_ns)
		VALUES ($1::text, $2::bigint, $3::text, $4::bigint, $5::bigint)`, job, p, holder, started.UnixNano(), db.now().UnixNano()); err != nil {
		return true, db.fail("job run", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM job_runs WHERE job = $1::text AND period_ns < $2::bigint`, job, period.Add(-jobRunsKept).UnixNano()); err != nil {
		return true, db.fail("job run", err)
	}
	return true, db.fail("job run", tx.Commit(ctx))
}

// JobRun is one finished run of a periodic job, as JobRuns lists it.
type JobRun struct {
	Job      string
	Period   time.Time
	Holder   string
	Started  time.Time
	Finished time.Time
}

// JobRuns lists the finished runs of the periodic jobs the store
// remembers, by job and period, for operators and tests.
func (db *DB) JobRuns(ctx context.Context) ([]JobRun, error) {
	var out []JobRun
	err := db.read(ctx, allTenants, func(q querier) error {
		rows, err := q.Query(ctx, `SELECT job, period_ns, holder, started_ns, finished_ns FROM job_runs ORDER BY job, period_ns`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				r          JobRun
				p, st, fin int64
			)
			if err := rows.Scan(&r.Job, &p, &r.Holder, &st, &fin); err != nil {
				return err
			}
			r.Period, r.Started, r.Finished = time.Unix(0, p), time.Unix(0, st), time.Unix(0, fin)
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, db.fail("job runs", err)
}
