-- 0010: the recurring memories of a scope (REC-30): their occurred window
-- runs to the end of the supported range (2262-01-01, unix nanoseconds),
-- and the occurred filters judge their occurrences in Go, reading only
-- these rows.
CREATE INDEX memory_entries_recurring ON memory_entries (tenant_id, agent_id)
	WHERE occurred_end_ns = 9214646400000000000 AND NOT tombstone;
