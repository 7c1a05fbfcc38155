-- 0007: seed 002's summaries (L4) and capabilities (L5), both derived from
-- the events and kept as JSON bodies.
-- A summary is one per scope, period and start: generating a period again
-- replaces it. Retention deletes hour and day summaries by end.
CREATE TABLE summaries (
	tenant_id    TEXT    NOT NULL,
	agent_id     TEXT    NOT NULL,
	period       TEXT    NOT NULL CHECK (period IN ('hour', 'day', 'week', 'month', 'year')),
	start_ts     INTEGER NOT NULL,
	end_ts       INTEGER NOT NULL,
	generated_at INTEGER NOT NULL,
	body         TEXT    NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, period, start_ts)
) WITHOUT ROWID;
CREATE INDEX summaries_start ON summaries (tenant_id, agent_id, start_ts);
CREATE INDEX summaries_end ON summaries (period, end_ts);

-- A capability is one per scope and task type; ready says it succeeded
-- often enough to be returned by queries.
CREATE TABLE capabilities (
	tenant_id  TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL,
	task_type  TEXT    NOT NULL,
	ready      INTEGER NOT NULL,
	successes  INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	body       TEXT    NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, task_type)
) WITHOUT ROWID;
