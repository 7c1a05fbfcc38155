-- 0009: every unique key leads with tenant_id (SEC-1, PG-6), so that the
-- tables can be partitioned by tenant (Options.Partitions: a partitioned
-- table's unique keys must hold its partition key) and distributed by
-- tenant on Citus (likewise).
--
-- seq stays the identity every statement joins on; its key is now the
-- tenant's and the seq. A memory id is unique within its tenant, where
-- every read and write looks it up; the embedding queue sets vectors by id
-- and the text they were made from, so a row of another tenant with the
-- same id and text would get the same vector, which is its own.
ALTER TABLE memory_entries DROP CONSTRAINT memory_entries_pkey, ADD CONSTRAINT memory_entries_pkey PRIMARY KEY (tenant_id, seq);
DROP INDEX memory_entries_id;
CREATE UNIQUE INDEX memory_entries_id ON memory_entries (tenant_id, id);
ALTER TABLE history DROP CONSTRAINT history_pkey, ADD CONSTRAINT history_pkey PRIMARY KEY (tenant_id, seq);
ALTER TABLE ledger DROP CONSTRAINT ledger_pkey, ADD CONSTRAINT ledger_pkey PRIMARY KEY (tenant_id, seq);
