-- 0016: full-text statistics per scope.
--
-- Search ranks by BM25 over the statistics of the scope it searches, not
-- of the whole index as FTS5's bm25() has them, so that what one tenant or
-- agent stores never moves another's ranking (REC-10).
--
-- fts_scopes holds each scope's rows in memories_fts and their tokens, all
-- columns; the writer keeps it in step with the index, in the same
-- transaction. Its row for scope 0, which holds no memories, says it has
-- been filled: the store fills it from memories_fts_docsize when it opens
-- without that row, and again when the index is rebuilt.
CREATE TABLE fts_scopes (
	scope  INTEGER PRIMARY KEY,
	docs   INTEGER NOT NULL,
	tokens INTEGER NOT NULL
);

-- memories_fts_instances lists every token of memories_fts by row, column
-- and offset, for ranking a scope's matches without the in-memory index.
CREATE VIRTUAL TABLE memories_fts_instances USING fts5vocab(memories_fts, instance);
