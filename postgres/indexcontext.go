package postgres

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.ContextIndexer = (*DB)(nil)

// WriteContexts implements mnemo.ContextIndexer (REC-36, REC-37): the
// records and the contexts in one transaction. The tsvector and the BM25
// statistics follow the column (0005_bm25.sql). A row's revision stays:
// nothing a writer reads changes, and a write racing this one sets the
// context it computed itself.
func (db *DB) WriteContexts(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	if len(updates) == 0 {
		return db.Write(ctx, scope, recs)
	}
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if len(recs) > 0 {
		return db.write(ctx, scope, recs, writeNew, updates)
	}
	err := db.writeTx(bookkeeping(ctx), "index context", scope.TenantID, func(tx pgx.Tx) error {
		if err := lockScopeStats(ctx, tx, scope); err != nil {
			return err
		}
		return db.indexContexts(ctx, tx, scope, updates)
	})
	return nil, err
}

// indexContexts sets, in tx, the index context of the scope's live
// memories of updates, and the text their vectors are made from where an
// update gives one: the vector made from the old text goes, and the
// memory waits for the embedder (Unembedded).
func (db *DB) indexContexts(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, updates []mnemo.ContextUpdate) error {
	// One update an id, the last: UPDATE … FROM takes any of several.
	last := make(map[string]int, len(updates))
	for i, u := range updates {
		last[u.ID] = i
	}
	ids, contexts, embeds := make([]string, 0, len(last)), make([]string, 0, len(last)), make([]string, 0, len(last))
	for i, u := range updates {
		if last[u.ID] == i {
			ids, contexts, embeds = append(ids, u.ID), append(contexts, u.Context), append(embeds, u.Embed)
		}
	}
	// SET reads the row as it was: drop is true where the text changes.
	const drop = `t.embed <> '' AND m.embed_text <> t.embed`
	sets := `index_context = t.context,
		embed_text = CASE WHEN ` + drop + ` THEN t.embed ELSE m.embed_text END,
		embedding = CASE WHEN ` + drop + ` THEN NULL ELSE m.embedding END,
		embedding_model = CASE WHEN ` + drop + ` THEN '' ELSE m.embedding_model END,
		vectored = CASE WHEN ` + drop + ` THEN false ELSE m.vectored END`
	if slices.ContainsFunc(embeds, func(e string) bool { return e != "" }) && db.vectors == nil {
		// The lock keeps SetVectorSpace from adding or dropping the vec
		// column meanwhile, as a write's does.
		if _, err := tx.Exec(ctx, `LOCK TABLE memory_entries IN ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		space, err := vectorSpace(ctx, tx)
		if err != nil {
			return err
		}
		if space.Model != "" {
			sets += `, vec = CASE WHEN ` + drop + ` THEN NULL ELSE m.vec END`
		}
	}
	// Rows are locked in the order of seq, as writes take them, in one
	// statement.
	_, err := tx.Exec(ctx, `WITH t AS (
			SELECT m.seq, u.context, u.embed FROM memory_entries m
			JOIN unnest($1::text[], $2::text[], $3::text[]) AS u(id, context, embed) ON m.id = u.id
			WHERE m.tenant_id = $4::text AND m.agent_id = $5::text AND NOT m.tombstone
				AND (m.index_context <> u.context OR u.embed <> '' AND m.embed_text <> u.embed)
			ORDER BY m.seq FOR UPDATE OF m)
		UPDATE memory_entries m SET `+sets+`
		FROM t WHERE m.tenant_id = $4::text AND m.seq = t.seq`,
		ids, contexts, embeds, scope.TenantID, scope.AgentID)
	return err
}
