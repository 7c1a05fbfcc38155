-- 0003: embeddings.
--
-- embed_text is what a memory's vector is made from (its content with some
-- conversational context), kept so that a store can be re-embedded with
-- another model at any time (reindex). vector_rev says which write of
-- vector_space.rev stored the memory's embedding; NULL means the memory waits
-- for one. The persisted ANN index of a scope records the highest rev it
-- holds, so that on open it catches up from here instead of rebuilding.
ALTER TABLE memories ADD COLUMN embed_text TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN vector_rev INTEGER;

-- Memories written before this version are queued with their content (an
-- embedding they carry is kept until the embedder replaces it).
UPDATE memories SET embed_text = content WHERE tombstone = 0;

CREATE INDEX memories_unembedded ON memories (seq)
WHERE vector_rev IS NULL AND embed_text <> '' AND tombstone = 0;
CREATE INDEX memories_vector_rev ON memories (vector_rev) WHERE vector_rev IS NOT NULL;

-- vector_space is the model and dimension of every stored vector: one row,
-- or none before a model is chosen. rev counts the writes of embeddings.
CREATE TABLE vector_space (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	model     TEXT    NOT NULL,
	dimension INTEGER NOT NULL,
	rev       INTEGER NOT NULL DEFAULT 0
);
