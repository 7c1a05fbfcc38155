-- 0002: the full-text index.
--
-- memories_fts is contentless (content=''): the text lives once, in the
-- index_* columns of memories, and the index is rebuilt from them at any
-- time by rerunning this file. contentless_delete lets a row be deleted by
-- rowid alone. The rowid is memories.seq, so a scope's rows are one rowid
-- range (see scopes in 0001), and a query names that range.
--
-- A scope column with one token per scope, ANDed into each query, would
-- narrow the posting lists too, but bm25() computes the IDF of every phrase
-- of the query by reading its whole posting list: for the scope token, all
-- of the scope's rows, on every search.
CREATE VIRTUAL TABLE memories_fts USING fts5 (
	text,
	context,
	meta,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 0'
);

INSERT INTO memories_fts (rowid, text, context, meta)
SELECT seq, index_text, index_context, index_meta
FROM memories
WHERE tombstone = 0;
