-- 0006: seed 002's event layers. L1: raw events, append-only; recent ones
-- in events (hot), older ones moved by archival into compressed per-day
-- segments (cold). L2: relations between events and memories.
CREATE TABLE events (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	id        TEXT    NOT NULL,
	tenant_id TEXT    NOT NULL,
	agent_id  TEXT    NOT NULL,
	ts        INTEGER NOT NULL,
	type      TEXT    NOT NULL,
	source    TEXT    NOT NULL,
	data      TEXT,
	metadata  TEXT
);
-- Ids are unique within a scope (another tenant's ids are none of a
-- caller's business). Queries walk a scope in (ts, seq) order; the rules look up the previous
-- event of a source, of any type or of one.
CREATE UNIQUE INDEX events_id ON events (tenant_id, agent_id, id);
CREATE INDEX events_time ON events (tenant_id, agent_id, ts, seq);
CREATE INDEX events_source ON events (tenant_id, agent_id, source, ts, seq);
CREATE INDEX events_source_type ON events (tenant_id, agent_id, source, type, ts, seq);

-- event_segments hold the cold events of one scope and day (UTC, by ts)
-- as gzip-compressed tab-separated lines in (ts, seq) order, cut into parts of a
-- fixed number of events (the last part of a day may hold fewer), so that
-- a page of a query decompresses a part or two, not a whole day;
-- cold_events says on which day each cold event is, for reads by id and
-- for unique ids.
CREATE TABLE event_segments (
	tenant_id TEXT    NOT NULL,
	agent_id  TEXT    NOT NULL,
	day       INTEGER NOT NULL,
	part      INTEGER NOT NULL,
	first_ts  INTEGER NOT NULL,
	last_ts   INTEGER NOT NULL,
	count     INTEGER NOT NULL,
	codec     TEXT    NOT NULL,
	body      BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, day, part)
) WITHOUT ROWID;
CREATE INDEX event_segments_last ON event_segments (tenant_id, agent_id, last_ts);

CREATE TABLE cold_events (
	tenant_id TEXT    NOT NULL,
	agent_id  TEXT    NOT NULL,
	id        TEXT    NOT NULL,
	day       INTEGER NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, id)
) WITHOUT ROWID;

-- Append-only, enforced by the schema: no event is changed, and one leaves
-- the hot table only once its cold copy is recorded; cold events and
-- segments are never deleted, and a part only grows (every part of a day
-- but the last is full, so merging a late event in never shrinks one).
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN
	SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN NOT EXISTS (SELECT 1 FROM cold_events WHERE tenant_id = OLD.tenant_id AND agent_id = OLD.agent_id AND id = OLD.id) BEGIN
	SELECT RAISE(ABORT, 'events are append-only: only archival moves them, to cold segments');
END;
CREATE TRIGGER events_cold_id BEFORE INSERT ON events
WHEN EXISTS (SELECT 1 FROM cold_events WHERE tenant_id = NEW.tenant_id AND agent_id = NEW.agent_id AND id = NEW.id) BEGIN
	SELECT RAISE(ABORT, 'event id is already taken');
END;
CREATE TRIGGER cold_events_no_delete BEFORE DELETE ON cold_events BEGIN
	SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER event_segments_no_delete BEFORE DELETE ON event_segments BEGIN
	SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER event_segments_grow BEFORE UPDATE ON event_segments
WHEN NEW.count < OLD.count BEGIN
	SELECT RAISE(ABORT, 'events are append-only: a segment only grows');
END;

-- relations are L2's edges; source and target are event or memory ids.
CREATE TABLE relations (
	tenant_id  TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL,
	source     TEXT    NOT NULL,
	target     TEXT    NOT NULL,
	type       TEXT    NOT NULL,
	confidence REAL    NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
	created_at INTEGER NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, source, target, type)
) WITHOUT ROWID;
CREATE INDEX relations_target ON relations (tenant_id, agent_id, target, source, type);
