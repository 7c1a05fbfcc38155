-- A database as migration 0001 left it, before the full-text index existed.
-- Frozen: it is what an old file looks like, not what the migration says
-- today, so it must never be regenerated from migrations/.
CREATE TABLE schema_migrations (
	version    INTEGER PRIMARY KEY,
	applied_at INTEGER NOT NULL
);
INSERT INTO schema_migrations VALUES (1, 1741964966000000000);

CREATE TABLE scopes (
	id        INTEGER PRIMARY KEY,
	tenant_id TEXT NOT NULL,
	agent_id  TEXT NOT NULL,
	UNIQUE (tenant_id, agent_id)
);

CREATE TABLE memories (
	seq             INTEGER PRIMARY KEY,
	id              TEXT    NOT NULL,
	tenant_id       TEXT    NOT NULL,
	agent_id        TEXT    NOT NULL,
	key             TEXT,
	session_id      TEXT,
	tombstone       INTEGER NOT NULL DEFAULT 0,
	archived        INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	accessed_at     INTEGER,
	access_count    INTEGER NOT NULL DEFAULT 0,
	expires_at      INTEGER,
	data_expired_at INTEGER,
	arrival         INTEGER NOT NULL,
	type            TEXT    NOT NULL DEFAULT '',
	category        TEXT    NOT NULL DEFAULT '',
	priority        INTEGER NOT NULL DEFAULT 0,
	importance      REAL    NOT NULL DEFAULT 0,
	confidence      REAL    NOT NULL DEFAULT 0,
	security_level  TEXT    NOT NULL DEFAULT '',
	pinned          INTEGER NOT NULL DEFAULT 0,
	vitality        REAL    NOT NULL DEFAULT 0,
	stability       REAL    NOT NULL DEFAULT 0,
	version         INTEGER NOT NULL DEFAULT 0,
	tags            TEXT    NOT NULL DEFAULT '[]',
	embedding_model TEXT    NOT NULL DEFAULT '',
	summary         TEXT    NOT NULL DEFAULT '',
	source          TEXT,
	data            TEXT,
	content         TEXT    NOT NULL DEFAULT '',
	index_text      TEXT    NOT NULL DEFAULT '',
	index_context   TEXT    NOT NULL DEFAULT '',
	index_meta      TEXT    NOT NULL DEFAULT '',
	embedding       BLOB
);
CREATE UNIQUE INDEX memories_id ON memories (id);
CREATE UNIQUE INDEX memories_key ON memories (tenant_id, agent_id, key) WHERE key IS NOT NULL;
CREATE INDEX memories_created ON memories (tenant_id, agent_id, created_at, arrival);
CREATE INDEX memories_session ON memories (tenant_id, agent_id, session_id) WHERE session_id IS NOT NULL;

CREATE TABLE memory_tags (
	seq INTEGER NOT NULL,
	tag TEXT    NOT NULL,
	PRIMARY KEY (seq, tag)
) WITHOUT ROWID;
CREATE INDEX memory_tags_tag ON memory_tags (tag, seq);

CREATE TABLE history (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant_id TEXT    NOT NULL,
	agent_id  TEXT    NOT NULL,
	memory_id TEXT    NOT NULL,
	key       TEXT,
	op        TEXT    NOT NULL,
	at        INTEGER NOT NULL,
	applied   INTEGER NOT NULL,
	memory    TEXT
);
CREATE INDEX history_key ON history (tenant_id, agent_id, key) WHERE key IS NOT NULL;
CREATE INDEX history_memory ON history (memory_id);

-- tenant-1/agent-1: a keyed, tagged memory with an embedding (0.5, -2 as
-- little-endian float32), a keyless one in a session, and a tombstoned key.
-- tenant-1/agent-2 has the same words, to check the scope of the back-fill.
-- seq is the scope's number << 32 plus a count.
INSERT INTO scopes (id, tenant_id, agent_id) VALUES (1, 'tenant-1', 'agent-1'), (2, 'tenant-1', 'agent-2');
INSERT INTO memory_tags (seq, tag) VALUES (4294967297, 'style'), (4294967297, 'ux'), (8589934593, 'style');
INSERT INTO memories (seq, id, tenant_id, agent_id, key, session_id, tombstone, archived,
	created_at, updated_at, accessed_at, access_count, arrival,
	type, category, priority, importance, confidence, security_level, pinned, vitality, stability, version,
	tags, embedding_model, summary, source, data, content, index_text, index_context, index_meta, embedding)
VALUES
	(4294967297, '01959581-0000-7000-8000-000000000001', 'tenant-1', 'agent-1', '/user/preference/style', NULL, 0, 0,
	 1741964966535897932, 1741964966535897932, 1741968566000000001, 2, 1,
	 'preference', 'communication', 1, 0.75, 0.9, 'internal', 1, 1, 365, 1,
	 '["style","ux"]', 'test/mini', '', '{"kind":"user"}', '{"style":"concise"}',
	 'Prefers concise answers', 'prefer concis answer', '', 'user prefer style ux preference communic',
	 X'0000003F000000C0'),
	(4294967298, '01959581-0000-7000-8000-000000000002', 'tenant-1', 'agent-1', NULL, 'session-1', 0, 0,
	 1741968566535897932, 1741968566535897932, NULL, 0, 2,
	 'event', '', 3, 0.5, 0.8, 'internal', 0, 1, 14, 1,
	 '[]', '', '', NULL, NULL,
	 'Meeting with Alice on Tuesday', 'meet alic tuesday', 'plan week', 'event',
	 NULL),
	(4294967299, '01959581-0000-7000-8000-000000000003', 'tenant-1', 'agent-1', '/gone', NULL, 1, 0,
	 1741964966535897932, 1741972166535897932, NULL, 0, 4,
	 'fact', '', 2, 0.5, 0.8, 'internal', 0, 1, 90, 1,
	 'null', '', '', NULL, NULL, '', '', '', '', NULL),
	(8589934593, '01959581-0000-7000-8000-000000000004', 'tenant-1', 'agent-2', '/user/preference/style', NULL, 0, 0,
	 1741964966535897932, 1741964966535897932, NULL, 0, 5,
	 'preference', '', 1, 0.5, 0.8, 'internal', 0, 1, 365, 1,
	 '["style"]', '', '', NULL, NULL,
	 'Prefers concise answers', 'prefer concis answer', '', 'user prefer style',
	 NULL);

INSERT INTO history (seq, tenant_id, agent_id, memory_id, key, op, at, applied, memory) VALUES
	(1, 'tenant-1', 'agent-1', '01959581-0000-7000-8000-000000000001', '/user/preference/style', 'put', 1741964966535897932, 1,
	 '{"id":"01959581-0000-7000-8000-000000000001","tenant_id":"tenant-1","agent_id":"agent-1","key":"/user/preference/style","content":"Prefers concise answers","type":"preference","priority":1,"importance":0.75,"confidence":0.9,"tags":["style","ux"],"security_level":"internal","pinned":true,"created_at":"2025-03-14T15:09:26.535897932Z","updated_at":"2025-03-14T15:09:26.535897932Z","accessed_at":"0001-01-01T00:00:00Z","access_count":0,"archived":false,"vitality":1,"stability":365,"version":1}'),
	(2, 'tenant-1', 'agent-1', '01959581-0000-7000-8000-000000000002', NULL, 'put', 1741968566535897932, 1, '{"id":"01959581-0000-7000-8000-000000000002"}'),
	(3, 'tenant-1', 'agent-1', '01959581-0000-7000-8000-000000000003', '/gone', 'put', 1741964966535897932, 1, '{"id":"01959581-0000-7000-8000-000000000003","content":"gone soon"}'),
	(4, 'tenant-1', 'agent-1', '01959581-0000-7000-8000-000000000003', '/gone', 'tombstone', 1741972166535897932, 1, '{"id":"01959581-0000-7000-8000-000000000003","key":"/gone"}'),
	(5, 'tenant-1', 'agent-2', '01959581-0000-7000-8000-000000000004', '/user/preference/style', 'put', 1741964966535897932, 1, '{"id":"01959581-0000-7000-8000-000000000004"}');
