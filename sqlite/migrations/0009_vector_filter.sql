-- 0009: a covering index of the fields a filtered vector search judges
-- that have no index of their own (confidence, vitality, security level,
-- pinned, archived, expiry), so that listing the few memories such a
-- filter selects (sqlite/vectors.go) reads small index entries instead of
-- every row of the scope with its vector: 1.2 s a query at 100k before.
CREATE INDEX memories_vector_filter ON memories
	(tenant_id, agent_id, confidence, vitality, security_level, pinned, archived, expires_at, data_expired_at, vector_rev)
	WHERE tombstone = 0;
