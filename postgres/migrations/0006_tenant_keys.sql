-- 0006: indexes lead with the scope (tenant_id, agent_id) wherever the
-- statements that use them name it, so that each tenant's entries are
-- together in the index, and the index carries over to a table
-- partitioned by tenant (docs/POSTGRES.md, "Scale-out").
--
-- history_memory was on memory_id alone; its one user (forgetting and
-- clearing, which blank the history of the memories deleted) names the
-- scope.
DROP INDEX history_memory;
CREATE INDEX history_memory ON history (tenant_id, agent_id, memory_id);
