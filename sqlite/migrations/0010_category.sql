-- 0010: covering indexes of each scope's memories by category and by type,
-- with the live checks (archived, expiry) and vector_rev, so that a
-- filtered vector search (sqlite/vectors.go) lists the memories such a
-- filter keeps from index entries instead of reading every row it names:
-- 0.75 s (categories) and 0.18 s (one type of four) a query at 100k before
-- (docs/BENCHMARKS.md, "Filtered recall").
CREATE INDEX memories_category ON memories (tenant_id, agent_id, category, archived, expires_at, data_expired_at, vector_rev)
	WHERE tombstone = 0;
CREATE INDEX memories_type_vector ON memories (tenant_id, agent_id, type, archived, expires_at, data_expired_at, vector_rev)
	WHERE tombstone = 0;
