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

-- Boot lists each type by vitality (memories_type_vitality, whose entries
-- end in seq: vitality, then the newest first) and counts the types and the
-- recent events (memories_type_created, which holds every column those
-- counts filter on, so that they never visit a row); a snapshot lists the
-- pinned. All three hold only active memories.
CREATE INDEX memories_type_vitality ON memories (tenant_id, agent_id, type, vitality)
WHERE tombstone = 0 AND archived = 0;
CREATE INDEX memories_type_created ON memories (tenant_id, agent_id, type, created_at, vitality, expires_at, data_expired_at)
WHERE tombstone = 0 AND archived = 0;
CREATE INDEX memories_pinned ON memories (tenant_id, agent_id, created_at, arrival)
WHERE pinned = 1 AND tombstone = 0;

-- type_stats counts the active memories (neither tombstones nor archived) of
-- each scope by type, with the sum of their vitality, in the writing
-- transaction: boot's census reads a few rows instead of scanning every
-- memory. Inserts are counted by the writer, one row per type and batch
-- (a trigger per inserted row cost a third of the import rate); updates and
-- deletes, rarer and made by several statements, by the triggers below.
-- Expired memories are still counted here; a census subtracts them, found
-- by the two expiry indexes.
CREATE TABLE type_stats (
	tenant_id TEXT    NOT NULL,
	agent_id  TEXT    NOT NULL,
	type      TEXT    NOT NULL,
	n         INTEGER NOT NULL,
	vitality  REAL    NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, type)
) WITHOUT ROWID;

INSERT INTO type_stats
SELECT tenant_id, agent_id, type, count(*), total(vitality) FROM memories
WHERE tombstone = 0 AND archived = 0 GROUP BY tenant_id, agent_id, type;

-- The triggers add and subtract by upsert: a row counted by the writer at
-- the end of its batch may be updated or deleted before that.
CREATE TRIGGER memories_stats_delete AFTER DELETE ON memories
WHEN OLD.tombstone = 0 AND OLD.archived = 0 BEGIN
	INSERT INTO type_stats VALUES (OLD.tenant_id, OLD.agent_id, OLD.type, -1, -OLD.vitality)
	ON CONFLICT DO UPDATE SET n = n + excluded.n, vitality = vitality + excluded.vitality;
END;

CREATE TRIGGER memories_stats_update AFTER UPDATE OF tombstone, archived, type, vitality, tenant_id, agent_id ON memories BEGIN
	INSERT INTO type_stats SELECT OLD.tenant_id, OLD.agent_id, OLD.type, -1, -OLD.vitality
	WHERE OLD.tombstone = 0 AND OLD.archived = 0
	ON CONFLICT DO UPDATE SET n = n + excluded.n, vitality = vitality + excluded.vitality;
	INSERT INTO type_stats SELECT NEW.tenant_id, NEW.agent_id, NEW.type, 1, NEW.vitality
	WHERE NEW.tombstone = 0 AND NEW.archived = 0
	ON CONFLICT DO UPDATE SET n = n + excluded.n, vitality = vitality + excluded.vitality;
END;

CREATE INDEX memories_expires ON memories (tenant_id, agent_id, expires_at)
WHERE expires_at IS NOT NULL AND tombstone = 0 AND archived = 0;
CREATE INDEX memories_data_expires ON memories (tenant_id, agent_id, data_expired_at)
WHERE data_expired_at IS NOT NULL AND tombstone = 0 AND archived = 0;
