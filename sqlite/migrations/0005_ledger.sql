-- 0005: the ledger of lifecycle events (archive, delete, forget, clear,
-- decay, ...), append-only, per scope; memory_ids is a JSON array.
CREATE TABLE ledger (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant_id  TEXT    NOT NULL,
	agent_id   TEXT    NOT NULL,
	at         INTEGER NOT NULL,
	action     TEXT    NOT NULL,
	actor      TEXT    NOT NULL,
	reason     TEXT    NOT NULL,
	memory_ids TEXT    NOT NULL DEFAULT '[]',
	details    TEXT
);
CREATE INDEX ledger_scope ON ledger (tenant_id, agent_id, seq);
