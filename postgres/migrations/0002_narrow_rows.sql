-- 0002: keep the vectors out of memory_entries' heap rows.
--
-- A memory's two copies of its vector (embedding, the bytes as written,
-- and vec, pgvector's) are 1 KB each at 256 dimensions, and stay in the row
-- whenever the row fits PostgreSQL's default 2 KB target: the heap is then
-- three times wider than the text, and a full-text search, which reads the
-- heap row of every match it ranks, reads three times the pages. With a
-- 1 KB target both vectors go to the TOAST table, read only for the few
-- rows a search returns. The text columns are MAIN: compressed if need be,
-- but never moved out of the row that full-text search reads. Rows take the
-- new layout when they are written; `VACUUM FULL memory_entries` rewrites
-- the old ones.
ALTER TABLE memory_entries SET (toast_tuple_target = 1024);
ALTER TABLE memory_entries
	ALTER COLUMN embedding SET STORAGE EXTERNAL, -- floats do not compress
	ALTER COLUMN tsv SET STORAGE MAIN,
	ALTER COLUMN content SET STORAGE MAIN,
	ALTER COLUMN index_text SET STORAGE MAIN;
