-- 0005: the statistics of BM25, per scope (REC-10, PG-6: recall ranks on PostgreSQL
-- as on SQLite, whose FTS5 bm25 the Service's weights are tuned for).
--
-- A document is a memory_entries row that is not a tombstone (archived and
-- expired memories included, as in SQLite's full-text index). scope_stats
-- keeps a scope's documents and their tokens (the positions of their
-- tsvectors: every token of the simple configuration is a lexeme), from
-- which the average length; term_stats keeps, for each lexeme of a scope,
-- the number of documents that hold it. Statement-level triggers keep both
-- in the writing transaction, whatever path writes (Write, Forget, Clear,
-- ApplyLife, imports, hand-made SQL). A lexeme whose count falls to zero
-- keeps its row (df 0), which a later write of it reuses.
--
-- Every writer of a scope updates its scope_stats row, so writers of one
-- scope queue on that row lock until they commit: the price of exact
-- statistics. Writers of different scopes do not meet.
CREATE TABLE scope_stats (
	tenant_id text   NOT NULL,
	agent_id  text   NOT NULL,
	docs      bigint NOT NULL,
	total_len bigint NOT NULL,
	PRIMARY KEY (tenant_id, agent_id)
);

CREATE TABLE term_stats (
	tenant_id text   NOT NULL,
	agent_id  text   NOT NULL,
	term      text   NOT NULL,
	df        bigint NOT NULL,
	PRIMARY KEY (tenant_id, agent_id, term)
);

-- mnemo_tsv_len is the number of tokens of a tsvector (its positions).
CREATE FUNCTION mnemo_tsv_len(tsvector) RETURNS bigint
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$ SELECT coalesce(sum(cardinality(positions)), 0)::bigint FROM unnest($1) $$;

-- tsv_len is a memory's number of tokens, all parts together: FTS5's
-- document length. Kept in the row so that ranking does not count every
-- token of every match again (adding it rewrites the table once).
ALTER TABLE memory_entries ADD COLUMN tsv_len integer GENERATED ALWAYS AS (
	mnemo_tsv_len(to_tsvector('simple'::regconfig, index_text)) +
	mnemo_tsv_len(to_tsvector('simple'::regconfig, index_meta)) +
	mnemo_tsv_len(to_tsvector('simple'::regconfig, index_context))) STORED;

-- One trigger per kind of statement applies the documents it added (+1)
-- and removed (-1), read from its transition tables. An update counts only the rows whose tsvector or tombstone changed
-- (Touch and ApplyLife change neither). Rows are locked in the order of
-- their keys, so that two statements never take them in opposite orders.
-- The functions keep the search_path they were created with, so that a
-- session with another one (a tool naming the tables by schema) finds the
-- statistics of this schema.
CREATE FUNCTION mnemo_fts_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	WITH d AS (SELECT tenant_id, agent_id, tsv, tsv_len, 1 AS sign FROM new_rows WHERE NOT tombstone),
	s AS (
		INSERT INTO scope_stats AS s (tenant_id, agent_id, docs, total_len)
		SELECT tenant_id, agent_id, sum(sign), sum(sign * tsv_len) FROM d
		GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (tenant_id, agent_id) DO UPDATE
		SET docs = s.docs + excluded.docs, total_len = s.total_len + excluded.total_len
	)
	INSERT INTO term_stats AS t (tenant_id, agent_id, term, df)
	SELECT d.tenant_id, d.agent_id, u.lexeme, sum(d.sign) FROM d, unnest(d.tsv) u
	GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT (tenant_id, agent_id, term) DO UPDATE SET df = t.df + excluded.df;
	RETURN NULL;
END $$;

CREATE FUNCTION mnemo_fts_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	WITH d AS (SELECT tenant_id, agent_id, tsv, tsv_len, -1 AS sign FROM old_rows WHERE NOT tombstone),
	s AS (
		INSERT INTO scope_stats AS s (tenant_id, agent_id, docs, total_len)
		SELECT tenant_id, agent_id, sum(sign), sum(sign * tsv_len) FROM d
		GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (tenant_id, agent_id) DO UPDATE
		SET docs = s.docs + excluded.docs, total_len = s.total_len + excluded.total_len
	)
	INSERT INTO term_stats AS t (tenant_id, agent_id, term, df)
	SELECT d.tenant_id, d.agent_id, u.lexeme, sum(d.sign) FROM d, unnest(d.tsv) u
	GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT (tenant_id, agent_id, term) DO UPDATE SET df = t.df + excluded.df;
	RETURN NULL;
END $$;

CREATE FUNCTION mnemo_fts_update() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	WITH ch AS (
		SELECT o.tenant_id, o.agent_id, o.tombstone AS o_dead, o.tsv AS o_tsv, o.tsv_len AS o_len,
			n.tombstone AS n_dead, n.tsv AS n_tsv, n.tsv_len AS n_len
		FROM old_rows o JOIN new_rows n ON n.seq = o.seq
		WHERE o.tombstone IS DISTINCT FROM n.tombstone OR o.tsv IS DISTINCT FROM n.tsv
	),
	d AS (
		SELECT tenant_id, agent_id, o_tsv AS tsv, o_len AS tsv_len, -1 AS sign FROM ch WHERE NOT o_dead
		UNION ALL
		SELECT tenant_id, agent_id, n_tsv, n_len, 1 FROM ch WHERE NOT n_dead
	),
	s AS (
		INSERT INTO scope_stats AS s (tenant_id, agent_id, docs, total_len)
		SELECT tenant_id, agent_id, sum(sign), sum(sign * tsv_len) FROM d
		GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (tenant_id, agent_id) DO UPDATE
		SET docs = s.docs + excluded.docs, total_len = s.total_len + excluded.total_len
	)
	INSERT INTO term_stats AS t (tenant_id, agent_id, term, df)
	SELECT d.tenant_id, d.agent_id, u.lexeme, sum(d.sign) FROM d, unnest(d.tsv) u
	GROUP BY 1, 2, 3 HAVING sum(d.sign) <> 0 ORDER BY 1, 2, 3
	ON CONFLICT (tenant_id, agent_id, term) DO UPDATE SET df = t.df + excluded.df;
	RETURN NULL;
END $$;

CREATE TRIGGER memory_entries_fts_insert AFTER INSERT ON memory_entries
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemo_fts_insert();
CREATE TRIGGER memory_entries_fts_delete AFTER DELETE ON memory_entries
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemo_fts_delete();
CREATE TRIGGER memory_entries_fts_update AFTER UPDATE ON memory_entries
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mnemo_fts_update();

-- The statistics of the memories already stored. Row-level security, when
-- on, would hide them from a session without a tenant.
SET LOCAL mnemo.tenant = '*';
INSERT INTO scope_stats (tenant_id, agent_id, docs, total_len)
SELECT tenant_id, agent_id, count(*), sum(tsv_len)
FROM memory_entries WHERE NOT tombstone GROUP BY 1, 2;
INSERT INTO term_stats (tenant_id, agent_id, term, df)
SELECT m.tenant_id, m.agent_id, u.lexeme, count(*)
FROM memory_entries m, unnest(m.tsv) u WHERE NOT m.tombstone GROUP BY 1, 2, 3;

-- A store with row-level security on holds its statistics, which are its
-- words, to the same policy (the store's rlsPolicy).
DO $$
BEGIN
	IF (SELECT relrowsecurity FROM pg_class WHERE oid = 'memory_entries'::regclass) THEN
		ALTER TABLE scope_stats ENABLE ROW LEVEL SECURITY;
		ALTER TABLE scope_stats FORCE ROW LEVEL SECURITY;
		CREATE POLICY mnemo_tenant ON scope_stats
			USING (tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*')
			WITH CHECK (tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*');
		ALTER TABLE term_stats ENABLE ROW LEVEL SECURITY;
		ALTER TABLE term_stats FORCE ROW LEVEL SECURITY;
		CREATE POLICY mnemo_tenant ON term_stats
			USING (tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*')
			WITH CHECK (tenant_id = current_setting('mnemo.tenant', true) OR current_setting('mnemo.tenant', true) = '*');
	END IF;
END $$;
