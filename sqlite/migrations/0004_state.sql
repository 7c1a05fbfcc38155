-- 0004: short-lived state, and indexes for boot and snapshots.
--
-- state keeps the documents of runs (short-term memory) and sessions
-- (working memory) as JSON, one row each, with a version for optimistic
-- concurrency: every process on the store sees the same runs and sessions.
CREATE TABLE state (
	tenant_id  TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL,
	kind       TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	body       TEXT    NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, kind, id)
) WITHOUT ROWID;
CREATE INDEX state_idle ON state (kind, updated_at);

-- Boot lists each type by vitality and counts the types; a snapshot lists
-- the pinned. These partial indexes hold only the active memories and the
-- columns those reads filter on, so that they never visit a row they skip.
CREATE INDEX memories_type_vitality ON memories (tenant_id, agent_id, type, vitality, expires_at, data_expired_at)
WHERE tombstone = 0 AND archived = 0;
CREATE INDEX memories_pinned ON memories (tenant_id, agent_id, created_at)
WHERE pinned = 1 AND tombstone = 0;
