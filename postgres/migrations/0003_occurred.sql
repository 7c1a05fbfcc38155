-- 0003: when what a memory tells happened (REC-24): the window
-- [occurred_start_ns, occurred_end_ns) in unix nanoseconds, the expression
-- it was read from and its source (writer, text, created). A memory written
-- before is given its creation's second. The index serves the occurred
-- filters of recall and list within a scope (REC-25).
ALTER TABLE memory_entries
	ADD COLUMN occurred_start_ns bigint,
	ADD COLUMN occurred_end_ns bigint,
	ADD COLUMN occurred_expr text NOT NULL DEFAULT '',
	ADD COLUMN occurred_source text NOT NULL DEFAULT '';
UPDATE memory_entries SET occurred_start_ns = created_ns, occurred_end_ns = created_ns + 1000000000, occurred_source = 'created'
	WHERE occurred_start_ns IS NULL;
CREATE INDEX memory_entries_occurred ON memory_entries (tenant_id, agent_id, occurred_start_ns, occurred_end_ns)
	WHERE NOT tombstone;
