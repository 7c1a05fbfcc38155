-- 0012: the periodic jobs' runs (PG-10). Several servers on one store
-- take a job's lease (a transaction-scoped advisory lock, freed when its
-- holder's connection dies) and run a period's job only if it has no row
-- here; the row is written in the lease's transaction, as the run ends.
CREATE TABLE job_runs (
    job         text   NOT NULL,
    period_ns   bigint NOT NULL,
    holder      text   NOT NULL,
    started_ns  bigint NOT NULL,
    finished_ns bigint NOT NULL,
    PRIMARY KEY (job, period_ns)
);
