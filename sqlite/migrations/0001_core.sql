-- 0001: memories and their history.
--
-- scopes numbers each tenant and agent. A memory's seq is its scope's number
-- times 2^32 plus a count, so every scope owns one range of seqs: its rows
-- sit together in the table, and the full-text index (whose rowid is seq)
-- is narrowed to a scope by a rowid range, which FTS5 answers by seeking.
CREATE TABLE scopes (
	id        INTEGER PRIMARY KEY,
	tenant_id TEXT NOT NULL,
	agent_id  TEXT NOT NULL,
	UNIQUE (tenant_id, agent_id)
);

-- memories holds one row per memory, and one row per tombstoned key (a key
-- slot that remembers when it was deleted, so that an older write arriving
-- late still loses last-write-wins). Times are unix nanoseconds, UTC.
-- Columns that filters read come first and large ones last: SQLite decodes a
-- row left to right, so a filter never pays for content or an embedding.
CREATE TABLE memories (
	seq             INTEGER PRIMARY KEY, -- scopes.id << 32 | n; the full-text rowid
	id              TEXT    NOT NULL,
	tenant_id       TEXT    NOT NULL,
	agent_id        TEXT    NOT NULL,
	key             TEXT,                -- NULL when the memory has no key
	session_id      TEXT,                -- NULL when it has no session
	tombstone       INTEGER NOT NULL DEFAULT 0,
	archived        INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	accessed_at     INTEGER,             -- NULL when never accessed
	access_count    INTEGER NOT NULL DEFAULT 0,
	expires_at      INTEGER,
	data_expired_at INTEGER,             -- data's "expired_at", for the expiry filter
	arrival         INTEGER NOT NULL,    -- history seq of the write that stored the row
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
	tags            TEXT    NOT NULL DEFAULT '[]', -- JSON array
	embedding_model TEXT    NOT NULL DEFAULT '',
	summary         TEXT    NOT NULL DEFAULT '',
	source          TEXT,                -- JSON
	data            TEXT,                -- JSON
	content         TEXT    NOT NULL DEFAULT '',
	index_text      TEXT    NOT NULL DEFAULT '', -- analysed terms, weighted 1
	index_context   TEXT    NOT NULL DEFAULT '', -- analysed neighbours, weighted lower
	index_meta      TEXT    NOT NULL DEFAULT '', -- analysed key, tags, category, type
	embedding       BLOB                 -- little-endian float32
);

CREATE UNIQUE INDEX memories_id ON memories (id);
CREATE UNIQUE INDEX memories_key ON memories (tenant_id, agent_id, key) WHERE key IS NOT NULL;
CREATE INDEX memories_created ON memories (tenant_id, agent_id, created_at, arrival);
CREATE INDEX memories_session ON memories (tenant_id, agent_id, session_id) WHERE session_id IS NOT NULL;

-- memory_tags lists the tags of live memories, for tag filters: a tag's
-- memories in a scope are one range of its index, where reading the JSON
-- tags of every memory of the scope would be a scan.
CREATE TABLE memory_tags (
	seq INTEGER NOT NULL,
	tag TEXT    NOT NULL,
	PRIMARY KEY (seq, tag)
) WITHOUT ROWID;
CREATE INDEX memory_tags_tag ON memory_tags (tag, seq);

-- history is append-only: every write, won or lost, and every deletion.
-- memory is the record written, as JSON; it is set to NULL when the memory
-- is forgotten or cleared.
CREATE TABLE history (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: it orders writes
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
