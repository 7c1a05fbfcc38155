package sqlite

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// memoryColumns are the columns scanMemory reads, on a table aliased m, in
// the order of sqlrow.Scan.Dest.
const memoryColumns = `m.id, m.tenant_id, m.agent_id, m.session_id, m.key,
	m.content, m.data, m.summary,
	m.type, m.category, m.priority, m.importance, m.confidence, m.tags, m.security_level, m.pinned,
	m.source,
	m.created_at, m.updated_at, m.accessed_at, m.access_count, m.expires_at, m.archived,
	m.vitality, m.stability, m.version,
	m.embedding, m.embedding_model,
	m.occurred_start, m.occurred_end, m.occurred_expr, m.occurred_source, m.valid_to, m.entities`

// memoryColumnsNoVector reads the same columns but the embedding.
var memoryColumnsNoVector = strings.Replace(memoryColumns, "m.embedding,", "NULL,", 1)

type scanner interface {
	Scan(dest ...any) error
}

// scanMemory scans memoryColumns, then extra, from row.
func scanMemory(row scanner, extra ...any) (mnemo.Memory, error) {
	var s sqlrow.Scan
	if err := row.Scan(append(s.Dest(), extra...)...); err != nil {
		return mnemo.Memory{}, err
	}
	return s.Memory()
}

// row is a memory as the memories table stores it.
type row struct {
	m             *mnemo.Memory
	tombstone     bool
	arrival       int64
	dataExpiredAt *int64
	tags          string
	index         mnemo.IndexText
	embedText     string
	vectorRev     any // int64, or nil while the memory waits for a vector
}

// args returns the row's values in the order of insertColumns.
func (r *row) args() []any {
	m := r.m
	o := sqlrow.OccurredArgs(m)
	return []any{m.ID, m.TenantID, m.AgentID, sqlrow.NullString(m.Key), sqlrow.NullString(m.SessionID),
		r.tombstone, m.Archived, sqlrow.Nanos(m.CreatedAt), sqlrow.Nanos(m.UpdatedAt), sqlrow.NullTime(m.AccessedAt), m.AccessCount,
		sqlrow.NullTimePtr(m.ExpiresAt), r.dataExpiredAt, r.arrival,
		m.Type, m.Category, m.Priority, m.Importance, m.Confidence, m.SecurityLevel, m.Pinned,
		m.Vitality, m.Stability, m.Version, r.tags, m.EmbeddingModel, m.Summary,
		sqlrow.NullJSON(m.Source), sqlrow.NullJSON(m.Data), m.Content,
		r.index.Text, r.index.Context, r.index.Meta, sqlrow.EncodeEmbedding(m.Embedding),
		r.embedText, r.vectorRev, o[0], o[1], o[2], o[3], sqlrow.NullTimePtr(m.ValidTo), sqlrow.EntitiesArg(m)}
}

// insertColumns are the columns row.args fills.
const insertColumns = `id, tenant_id, agent_id, key, session_id,
	tombstone, archived, created_at, updated_at, accessed_at, access_count,
	expires_at, data_expired_at, arrival,
	type, category, priority, importance, confidence, security_level, pinned,
	vitality, stability, version, tags, embedding_model, summary,
	source, data, content,
	index_text, index_context, index_meta, embedding,
	embed_text, vector_rev,
	occurred_start, occurred_end, occurred_expr, occurred_source, valid_to, entities`

// newRow validates m and returns its row. It reports EINVALID for a value
// the table cannot hold faithfully.
func newRow(m *mnemo.Memory, idx mnemo.IndexText, tombstone bool) (*row, error) {
	if err := sqlrow.CheckMemory(m); err != nil {
		return nil, err
	}
	tags, err := json.Marshal(m.Tags)
	if err != nil {
		return nil, fmt.Errorf("memory %s: tags: %w", m.ID, err)
	}
	return &row{m: m, tombstone: tombstone, tags: string(tags), index: idx,
		dataExpiredAt: sqlrow.DataExpiredAt(m.Data)}, nil
}
