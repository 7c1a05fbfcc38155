-- 0011: when what a memory tells happened (REC-24): the window
-- [occurred_start, occurred_end) in unix nanoseconds, the expression it was
-- read from and its source (writer, text, created). A memory written before
-- is given its creation's second. The index serves the occurred filters of
-- recall and list within a scope (REC-25): the rows whose window starts
-- before the asked end, read from the scope's first entry.
ALTER TABLE memories ADD COLUMN occurred_start INTEGER;
ALTER TABLE memories ADD COLUMN occurred_end INTEGER;
ALTER TABLE memories ADD COLUMN occurred_expr TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN occurred_source TEXT NOT NULL DEFAULT '';
UPDATE memories SET occurred_start = created_at, occurred_end = created_at + 1000000000, occurred_source = 'created'
	WHERE occurred_start IS NULL;
CREATE INDEX memories_occurred ON memories (tenant_id, agent_id, occurred_start, occurred_end)
	WHERE tombstone = 0;
