package postgres

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// memoryColumns are the columns scanMemory reads, on a table aliased m, in
// the order of sqlrow.Scan.Dest.
const memoryColumns = `m.id, m.tenant_id, m.agent_id, m.session_id, m.key,
	m.content, m.data::text, m.summary,
	m.type, m.category, m.priority, m.importance, m.confidence, m.tags::text, m.security_level, m.pinned,
	m.source::text,
	m.created_ns, m.updated_ns, m.accessed_ns, m.access_count, m.expires_ns, m.archived,
	m.vitality, m.stability, m.version,
	m.embedding, m.embedding_model,
	m.occurred_start_ns, m.occurred_end_ns, m.occurred_expr, m.occurred_source, m.valid_to_ns, m.entities`

// memoryColumnsNoVector reads the same columns but the embedding.
var memoryColumnsNoVector = strings.Replace(memoryColumns, "m.embedding,", "NULL::bytea,", 1)

// scanMemory scans memoryColumns, then extra, from row. Empty tags are nil.
func scanMemory(row pgx.Row, extra ...any) (mnemo.Memory, error) {
	var s sqlrow.Scan
	if err := row.Scan(append(s.Dest(), extra...)...); err != nil {
		return mnemo.Memory{}, err
	}
	m, err := s.Memory()
	if len(m.Tags) == 0 {
		m.Tags = nil
	}
	return m, err
}

// row is a memory as memory_entries stores it.
type row struct {
	m             mnemo.Memory
	tombstone     bool
	arrival       int64
	dataExpiredAt *int64
	tags          string
	index         mnemo.IndexText
	embedText     string
	vectored      bool
	vec           *string // the vector literal, when vectored and the vec column exists
}

// insertColumns are the columns row.args fills, in order.
const insertColumns = `id, tenant_id, agent_id, key, session_id,
	tombstone, archived, created_ns, updated_ns, accessed_ns, access_count,
	expires_ns, data_expired_ns, arrival,
	type, category, priority, importance, confidence, security_level, pinned,
	vitality, stability, version, tags, embedding_model, summary,
	source, data, content,
	index_text, index_context, index_meta, embedding,
	embed_text, vectored,
	occurred_start_ns, occurred_end_ns, occurred_expr, occurred_source, valid_to_ns, entities`

// insertCasts are the placeholders' casts, in the order of insertColumns:
// with the simple protocol every parameter is text, so each says its type.
var insertCasts = []string{"text", "text", "text", "text", "text",
	"boolean", "boolean", "bigint", "bigint", "bigint", "integer",
	"bigint", "bigint", "bigint",
	"text", "text", "integer", "float8", "float8", "text", "boolean",
	"float8", "float8", "integer", "jsonb", "text", "text",
	"json", "json", "text",
	"text", "text", "text", "bytea",
	"text", "boolean",
	"bigint", "bigint", "text", "text", "bigint", "text"}

// args returns the row's values in the order of insertColumns.
func (r *row) args() []any {
	m := &r.m
	o := sqlrow.OccurredArgs(m)
	return []any{m.ID, m.TenantID, m.AgentID, sqlrow.NullString(m.Key), sqlrow.NullString(m.SessionID),
		r.tombstone, m.Archived, sqlrow.Nanos(m.CreatedAt), sqlrow.Nanos(m.UpdatedAt), sqlrow.NullTime(m.AccessedAt), m.AccessCount,
		sqlrow.NullTimePtr(m.ExpiresAt), r.dataExpiredAt, r.arrival,
		m.Type, m.Category, m.Priority, m.Importance, m.Confidence, m.SecurityLevel, m.Pinned,
		m.Vitality, m.Stability, m.Version, r.tags, m.EmbeddingModel, m.Summary,
		sqlrow.NullJSON(m.Source), sqlrow.NullJSON(m.Data), m.Content,
		r.index.Text, r.index.Context, r.index.Meta, sqlrow.EncodeEmbedding(m.Embedding),
		r.embedText, r.vectored, o[0], o[1], o[2], o[3], sqlrow.NullTimePtr(m.ValidTo), sqlrow.EntitiesArg(m)}
}

// newRow validates m and returns its row. It reports EINVALID for a value
// the table cannot hold faithfully.
func newRow(m mnemo.Memory, idx mnemo.IndexText, tombstone bool) (*row, error) {
	if err := sqlrow.CheckMemory(&m); err != nil {
		return nil, err
	}
	tags := []byte("[]")
	if len(m.Tags) > 0 {
		var err error
		if tags, err = json.Marshal(m.Tags); err != nil {
			return nil, fmt.Errorf("memory %s: tags: %w", m.ID, err)
		}
	}
	return &row{m: m, tombstone: tombstone, tags: string(tags), index: idx,
		dataExpiredAt: sqlrow.DataExpiredAt(m.Data)}, nil
}

// vectorLiteral is v in pgvector's text form, exact for float32.
func vectorLiteral(v []float32) string {
	var b strings.Builder
	b.Grow(12 * len(v))
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// params numbers the parameters of a statement as it is built.
type params struct{ args []any }

// p adds v and returns its placeholder, cast to typ (every parameter is
// text under the simple protocol; the cast says what it is).
func (p *params) p(v any, typ string) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(len(p.args)) + "::" + typ
}
