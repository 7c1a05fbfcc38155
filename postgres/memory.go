package postgres

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
)

// memoryColumns are the columns scanMemory reads, on a table aliased m.
const memoryColumns = `m.id, m.tenant_id, m.agent_id, m.session_id, m.key,
	m.content, m.data::text, m.summary,
	m.type, m.category, m.priority, m.importance, m.confidence, m.tags::text, m.security_level, m.pinned,
	m.source::text,
	m.created_ns, m.updated_ns, m.accessed_ns, m.access_count, m.expires_ns, m.archived,
	m.vitality, m.stability, m.version,
	m.embedding, m.embedding_model`

// memoryColumnsNoVector reads the same columns but the embedding.
var memoryColumnsNoVector = strings.Replace(memoryColumns, "m.embedding,", "NULL::bytea,", 1)

// scanMemory scans memoryColumns, then extra, from row.
func scanMemory(row pgx.Row, extra ...any) (mnemo.Memory, error) {
	var (
		m                  mnemo.Memory
		session, key       *string
		data, tags, source *string
		created, updated   int64
		accessed, expires  *int64
		embedding          []byte
	)
	dest := []any{&m.ID, &m.TenantID, &m.AgentID, &session, &key,
		&m.Content, &data, &m.Summary,
		&m.Type, &m.Category, &m.Priority, &m.Importance, &m.Confidence, &tags, &m.SecurityLevel, &m.Pinned,
		&source,
		&created, &updated, &accessed, &m.AccessCount, &expires, &m.Archived,
		&m.Vitality, &m.Stability, &m.Version,
		&embedding, &m.EmbeddingModel}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return mnemo.Memory{}, err
	}
	if session != nil {
		m.SessionID = *session
	}
	if key != nil {
		m.Key = *key
	}
	if data != nil {
		m.Data = json.RawMessage(*data)
	}
	if source != nil {
		m.Source = json.RawMessage(*source)
	}
	if tags != nil {
		if err := json.Unmarshal([]byte(*tags), &m.Tags); err != nil {
			return mnemo.Memory{}, fmt.Errorf("memory %s: tags: %w", m.ID, err)
		}
		if len(m.Tags) == 0 {
			m.Tags = nil
		}
	}
	m.CreatedAt, m.UpdatedAt = fromNanos(created), fromNanos(updated)
	if accessed != nil {
		m.AccessedAt = fromNanos(*accessed)
	}
	if expires != nil {
		t := fromNanos(*expires)
		m.ExpiresAt = &t
	}
	m.Embedding = decodeEmbedding(embedding)
	return m, nil
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

	seq int64 // once stored
}

// insertColumns are the columns row.args fills, in order.
const insertColumns = `id, tenant_id, agent_id, key, session_id,
	tombstone, archived, created_ns, updated_ns, accessed_ns, access_count,
	expires_ns, data_expired_ns, arrival,
	type, category, priority, importance, confidence, security_level, pinned,
	vitality, stability, version, tags, embedding_model, summary,
	source, data, content,
	index_text, index_context, index_meta, embedding,
	embed_text, vectored`

// insertCasts are the placeholders' casts, in the order of insertColumns:
// with the simple protocol every parameter is text, so each says its type.
var insertCasts = []string{"text", "text", "text", "text", "text",
	"boolean", "boolean", "bigint", "bigint", "bigint", "integer",
	"bigint", "bigint", "bigint",
	"text", "text", "integer", "float8", "float8", "text", "boolean",
	"float8", "float8", "integer", "jsonb", "text", "text",
	"json", "json", "text",
	"text", "text", "text", "bytea",
	"text", "boolean"}

// args returns the row's values in the order of insertColumns.
func (r *row) args() []any {
	m := &r.m
	return []any{m.ID, m.TenantID, m.AgentID, nullString(m.Key), nullString(m.SessionID),
		r.tombstone, m.Archived, nanos(m.CreatedAt), nanos(m.UpdatedAt), nullTime(m.AccessedAt), m.AccessCount,
		nullTimePtr(m.ExpiresAt), r.dataExpiredAt, r.arrival,
		m.Type, m.Category, m.Priority, m.Importance, m.Confidence, m.SecurityLevel, m.Pinned,
		m.Vitality, m.Stability, m.Version, r.tags, m.EmbeddingModel, m.Summary,
		nullJSON(m.Source), nullJSON(m.Data), m.Content,
		r.index.Text, r.index.Context, r.index.Meta, encodeEmbedding(m.Embedding),
		r.embedText, r.vectored}
}

// newRow validates m and returns its row. It reports EINVALID for a value
// the table cannot hold faithfully.
func newRow(m mnemo.Memory, idx mnemo.IndexText, tombstone bool) (*row, error) {
	for _, t := range []time.Time{m.CreatedAt, m.UpdatedAt, m.AccessedAt} {
		if err := checkTime(t); err != nil {
			return nil, err
		}
	}
	if m.ExpiresAt != nil {
		if err := checkTime(*m.ExpiresAt); err != nil {
			return nil, err
		}
	}
	if len(m.Data) > 0 && !json.Valid(m.Data) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "memory %s: data is not valid JSON", m.ID)
	}
	if len(m.Source) > 0 && !json.Valid(m.Source) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "memory %s: source is not valid JSON", m.ID)
	}
	tags := []byte("[]")
	if len(m.Tags) > 0 {
		var err error
		if tags, err = json.Marshal(m.Tags); err != nil {
			return nil, fmt.Errorf("memory %s: tags: %w", m.ID, err)
		}
	}
	r := &row{m: m, tombstone: tombstone, tags: string(tags), index: idx}
	if t, ok := mnemo.DataExpiredAt(m.Data); ok && checkTime(t) == nil {
		n := nanos(t)
		r.dataExpiredAt = &n
	}
	return r, nil
}

// minTime and maxTime bound what unix nanoseconds in an int64 can hold.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

func checkTime(t time.Time) error {
	if t.IsZero() || (!t.Before(minTime) && !t.After(maxTime)) {
		return nil
	}
	return mnemo.Errorf(mnemo.EINVALID, "time %s is out of range (years 1678 to 2262)", t.Format(time.RFC3339))
}

// nanos returns t as unix nanoseconds, the form every time column holds.
func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// nullTime stores the zero time as NULL: it means "never", not 1970.
func nullTime(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	n := nanos(t)
	return &n
}

func nullTimePtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	n := nanos(*t)
	return &n
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullJSON(b json.RawMessage) *string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	return &s
}

// encodeEmbedding packs v as little-endian float32s; nil stays NULL.
func encodeEmbedding(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeEmbedding(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
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

// finite reports whether every component of v is a number.
func finite(v []float32) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// params numbers the parameters of a statement as it is built.
type params struct{ args []any }

// p adds v and returns its placeholder, cast to typ (every parameter is
// text under the simple protocol; the cast says what it is).
func (p *params) p(v any, typ string) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(len(p.args)) + "::" + typ
}
