-- 0008: seed 002's third layer (L3).
--
-- event_vectors hold one vector per event and modality (text, image,
-- audio, video): of the event's text or of a media reference it carries.
-- A row without a vector waits for the embedding worker (remote
-- embedders); input is what the vector is made of, kept for that worker
-- and for lexical scoring. ts, type and source repeat the event's so that
-- a search filters without reading events (cold ones included). Rows are
-- dropped by vector cleanup when old and rarely found (access_count);
-- the events themselves stay. Cleanup is rare and scans the table: one
-- index less for every append to maintain.
CREATE TABLE event_vectors (
	tenant_id    TEXT    NOT NULL,
	agent_id     TEXT    NOT NULL,
	event_id     TEXT    NOT NULL,
	modality     TEXT    NOT NULL,
	ts           INTEGER NOT NULL,
	type         TEXT    NOT NULL,
	source       TEXT    NOT NULL,
	model        TEXT    NOT NULL,
	vector       BLOB,
	input        TEXT    NOT NULL,
	access_count INTEGER NOT NULL DEFAULT 0,
	last_access  INTEGER,
	PRIMARY KEY (tenant_id, agent_id, event_id, modality)
);
CREATE INDEX event_vectors_scope ON event_vectors (tenant_id, agent_id, model, ts) WHERE vector IS NOT NULL;
CREATE INDEX event_vectors_pending ON event_vectors (ts) WHERE vector IS NULL;
