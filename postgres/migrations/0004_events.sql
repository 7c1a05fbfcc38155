-- 0004: the event layers (EVT-1) on PostgreSQL, as sqlite's 0006-0008 do.
--
-- Every key and index leads with tenant_id, so that the schema runs on
-- Citus with tenant_id as the distribution column (SEC-1: every row is a tenant's): the tables of a
-- tenant are colocated, and the triggers' lookups stay on one shard.
-- Times are unix nanoseconds (bigint, *_ns), as in memory_entries.

-- L1: events, append-only. seq is the arrival number (among events of one
-- ts, the one appended first comes first). An event archived to a cold
-- segment keeps a slim row here (cold, no data or metadata): its id stays
-- taken, hot and cold alike (ECONFLICT), reads by id find its day, and
-- links to it are not orphans. Its body lives only in event_segments.
CREATE TABLE events (
	tenant_id text    NOT NULL,
	agent_id  text    NOT NULL,
	id        text    NOT NULL,
	seq       bigint  GENERATED ALWAYS AS IDENTITY,
	ts_ns     bigint  NOT NULL,
	type      text    NOT NULL,
	source    text    NOT NULL,
	data      json,
	metadata  json,
	cold      boolean NOT NULL DEFAULT false,
	PRIMARY KEY (tenant_id, agent_id, id)
);
-- Queries walk a scope's hot events in (ts, seq) order; the rules look up
-- the previous event of a source, of any type or of one. Cold events are
-- read from their segments, so these indexes hold hot events only.
CREATE INDEX events_time ON events (tenant_id, agent_id, ts_ns, seq) WHERE NOT cold;
CREATE INDEX events_source ON events (tenant_id, agent_id, source, ts_ns, seq) WHERE NOT cold;
CREATE INDEX events_source_type ON events (tenant_id, agent_id, source, type, ts_ns, seq) WHERE NOT cold;
-- Archival and the summaries' sweep look across tenants by time: a BRIN
-- index (a few pages; events arrive roughly in time order) serves a
-- condition on ts_ns alone, and still leads with tenant_id.
CREATE INDEX events_ts_brin ON events USING brin (tenant_id, ts_ns);

-- event_segments hold the cold events of one scope and UTC day as
-- gzip-compressed tab-separated lines in (ts, seq) order, cut into parts of
-- 1,000 events (the last part of a day may hold fewer), so that a page of
-- a query decompresses a part or two: sqlite's format (sqlite/events.go).
CREATE TABLE event_segments (
	tenant_id text    NOT NULL,
	agent_id  text    NOT NULL,
	day       bigint  NOT NULL,
	part      integer NOT NULL,
	first_ns  bigint  NOT NULL,
	last_ns   bigint  NOT NULL,
	count     integer NOT NULL,
	codec     text    NOT NULL,
	body      bytea   NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, day, part)
);
-- The body is compressed already: keep PostgreSQL from trying again.
ALTER TABLE event_segments ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE INDEX event_segments_last ON event_segments (tenant_id, agent_id, last_ns);

-- Append-only, enforced by the schema (EVT-2): no event is deleted or
-- truncated, and the one change allowed is archival's, which drops the
-- body of a hot event once a segment of its scope and day holds it.
-- Segments are never deleted, and a part only grows.
CREATE FUNCTION mnemo_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND NOT OLD.cold AND NEW.cold AND NEW.data IS NULL AND NEW.metadata IS NULL
		AND (NEW.tenant_id, NEW.agent_id, NEW.id, NEW.seq, NEW.ts_ns, NEW.type, NEW.source)
			IS NOT DISTINCT FROM (OLD.tenant_id, OLD.agent_id, OLD.id, OLD.seq, OLD.ts_ns, OLD.type, OLD.source)
		AND EXISTS (SELECT 1 FROM event_segments s
			WHERE s.tenant_id = OLD.tenant_id AND s.agent_id = OLD.agent_id
			AND s.day = CASE WHEN OLD.ts_ns >= 0 THEN OLD.ts_ns / 86400000000000 ELSE (OLD.ts_ns - 86399999999999) / 86400000000000 END
			AND OLD.ts_ns BETWEEN s.first_ns AND s.last_ns) THEN
		RETURN NEW;
	END IF;
	RAISE EXCEPTION 'events are append-only: only archival changes one, moving its body to a cold segment'
		USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
	FOR EACH ROW EXECUTE FUNCTION mnemo_events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
	FOR EACH STATEMENT EXECUTE FUNCTION mnemo_events_append_only();

CREATE FUNCTION mnemo_segments_grow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.count >= OLD.count
		AND (NEW.tenant_id, NEW.agent_id, NEW.day, NEW.part) IS NOT DISTINCT FROM (OLD.tenant_id, OLD.agent_id, OLD.day, OLD.part) THEN
		RETURN NEW;
	END IF;
	RAISE EXCEPTION 'events are append-only: a cold segment only grows'
		USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER event_segments_grow BEFORE UPDATE OR DELETE ON event_segments
	FOR EACH ROW EXECUTE FUNCTION mnemo_segments_grow();
CREATE TRIGGER event_segments_no_truncate BEFORE TRUNCATE ON event_segments
	FOR EACH STATEMENT EXECUTE FUNCTION mnemo_segments_grow();

-- L2: relations, the edges between event and memory ids (EVT-7).
CREATE TABLE relations (
	tenant_id  text             NOT NULL,
	agent_id   text             NOT NULL,
	source     text             NOT NULL,
	target     text             NOT NULL,
	type       text             NOT NULL,
	confidence double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
	created_ns bigint           NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, source, target, type)
);
CREATE INDEX relations_target ON relations (tenant_id, agent_id, target, source, type);

-- L3: one vector per event and modality (EVT-8), of the event's text or of
-- a media reference. The vector itself is the column vec, added at Open
-- when the server has pgvector (halfvec: half of float32's bytes, of the
-- vector divided by scale, its largest component); without pgvector no
-- vector is kept. made is false for a row waiting for the embedding
-- worker. ts, type and source repeat the event's, so that a search filters
-- without reading events.
CREATE TABLE event_vectors (
	tenant_id      text    NOT NULL,
	agent_id       text    NOT NULL,
	event_id       text    NOT NULL,
	modality       text    NOT NULL,
	ts_ns          bigint  NOT NULL,
	type           text    NOT NULL,
	source         text    NOT NULL,
	model          text    NOT NULL,
	input          text    NOT NULL,
	made           boolean NOT NULL DEFAULT false,
	scale          real    NOT NULL DEFAULT 0,
	access_count   integer NOT NULL DEFAULT 0,
	last_access_ns bigint,
	PRIMARY KEY (tenant_id, agent_id, event_id, modality)
);
CREATE INDEX event_vectors_scope ON event_vectors (tenant_id, agent_id, model, ts_ns) WHERE made;
CREATE INDEX event_vectors_pending ON event_vectors (tenant_id, ts_ns) WHERE NOT made;

-- L4: summaries (EVT-10), one per scope, period and start: generating a
-- period again replaces it. Retention deletes hour and day summaries by
-- end, across tenants: a scan of a small table (25 rows a scope a day).
CREATE TABLE summaries (
	tenant_id    text   NOT NULL,
	agent_id     text   NOT NULL,
	period       text   NOT NULL CHECK (period IN ('hour', 'day', 'week', 'month', 'year')),
	start_ns     bigint NOT NULL,
	end_ns       bigint NOT NULL,
	generated_ns bigint NOT NULL,
	body         jsonb  NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, period, start_ns)
);
CREATE INDEX summaries_start ON summaries (tenant_id, agent_id, start_ns);

-- L5: capabilities (EVT-11), one per scope and task type.
CREATE TABLE capabilities (
	tenant_id  text    NOT NULL,
	agent_id   text    NOT NULL,
	task_type  text    NOT NULL,
	ready      boolean NOT NULL,
	successes  integer NOT NULL,
	updated_ns bigint  NOT NULL,
	body       jsonb   NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, task_type)
);

-- A store with row-level security (Options.RowLevelSecurity) holds its new
-- tables to the same policy.
DO $$
DECLARE t text;
BEGIN
	IF (SELECT relrowsecurity FROM pg_class WHERE oid = to_regclass(quote_ident(current_schema()) || '.memory_entries')) THEN
		FOREACH t IN ARRAY ARRAY['events', 'event_segments', 'relations', 'event_vectors', 'summaries', 'capabilities'] LOOP
			EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
			EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
			EXECUTE format('CREATE POLICY mnemo_tenant ON %I USING (%s) WITH CHECK (%s)', t,
				$p$tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*'$p$,
				$p$tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*'$p$);
		END LOOP;
	END IF;
END $$;
