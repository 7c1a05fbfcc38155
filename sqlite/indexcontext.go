package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

var _ mnemo.ContextIndexer = (*DB)(nil)

// opContext is the op of the history entry an index context takes: one
// with no key and no revision, so no reader of history sees it, which
// another process's in-memory full-text index follows (lexIndex.catchUp).
const opContext = "context"

// WriteContexts implements mnemo.ContextIndexer (REC-36, REC-37): the
// records and each memory's index_context column and full-text row, and
// its embed_text and vector where an update says so, change in one
// transaction of the writer, as a write does.
func (db *DB) WriteContexts(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	if len(updates) == 0 {
		return db.Write(ctx, scope, recs)
	}
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	w := &groupWrite{ctx: ctx, scope: scope, recs: recs, contexts: updates, done: make(chan struct{})}
	db.group.do(ctx, w, db.commitGroup)
	return w.out, w.err
}

// indexContexts sets the index context of the scope's live memories of
// ups, in the batch's transaction.
func (b *batch) indexContexts(ctx context.Context, ups []mnemo.ContextUpdate) error {
	id, err := scopeID(ctx, b, b.scope)
	if err != nil || id == 0 {
		return err // a scope never written holds none of them
	}
	b.span = spanOf(id)
	var docs, tokens int64 // the full-text statistics' change
	for _, u := range ups {
		var (
			seq             int64
			text, was, meta string
			dated           bool
		)
		err := b.QueryRowContext(ctx, `SELECT seq, index_text, index_context, index_meta,
			occurred_source IN ('`+mnemo.OccurredText+`', '`+mnemo.OccurredWriter+`')
			FROM memories WHERE tenant_id = ? AND agent_id = ? AND id = ? AND NOT tombstone`,
			b.scope.TenantID, b.scope.AgentID, u.ID).Scan(&seq, &text, &was, &meta, &dated)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		}
		if u.Embed != "" {
			// The vector made from the old text goes; the memory waits for
			// the embedder (Unembedded), as one written without a vector.
			res, err := b.exec(ctx, `UPDATE memories SET embed_text = ?, embedding = NULL, embedding_model = '', vector_rev = NULL
				WHERE seq = ? AND embed_text <> ?`, u.Embed, seq, u.Embed)
			if err != nil {
				return fmt.Errorf("sqlite: index context: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				b.unvectored = append(b.unvectored, seq)
			}
		}
		if was == u.Context {
			continue
		}
		if _, err := b.exec(ctx, `UPDATE memories SET index_context = ? WHERE seq = ?`, u.Context, seq); err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		}
		if _, err := b.exec(ctx, `INSERT INTO history (tenant_id, agent_id, memory_id, key, op, at, applied, memory)
			VALUES (?, ?, ?, NULL, ?, ?, 1, NULL)`, b.scope.TenantID, b.scope.AgentID, u.ID, opContext, sqlrow.Nanos(b.now)); err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		}
		if !b.fts {
			continue
		}
		n, held, err := ftsLen(ctx, b, seq)
		if err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		}
		if _, err := b.exec(ctx, `DELETE FROM memories_fts WHERE rowid = ?`, seq); err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		}
		if held {
			docs--
			tokens -= n
		}
		if _, err := b.exec(ctx, `INSERT INTO memories_fts (rowid, text, context, meta) VALUES (?, ?, ?, ?)`,
			seq, text, u.Context, meta); err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		}
		if n, ok := lexLen(text, u.Context, meta); ok {
			tokens += n
		} else if n, _, err = ftsLen(ctx, b, seq); err != nil {
			return fmt.Errorf("sqlite: index context: %w", err)
		} else {
			tokens += n
		}
		docs++
		b.ftsRows += 2
		b.lexOps = append(b.lexOps, lexOp{seq: seq, dated: dated, text: [3]string{text, u.Context, meta}})
	}
	if err := addFTSStats(ctx, b.exec, b.span, docs, tokens); err != nil {
		return fmt.Errorf("sqlite: index context: %w", err)
	}
	return nil
}
