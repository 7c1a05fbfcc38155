-- 0014: the recurring memories of a scope (REC-30): their occurred window
-- runs to the end of the supported range (2262-01-01, unix nanoseconds),
-- and the occurred filters judge their occurrences in Go, reading only
-- these rows.
CREATE INDEX memories_recurring ON memories (tenant_id, agent_id)
	WHERE occurred_end = 9214646400000000000 AND tombstone = 0;
