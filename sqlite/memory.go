package sqlite

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// memoryColumns are the columns scanMemory reads, on a table aliased m.
const memoryColumns = `m.id, m.tenant_id, m.agent_id, m.session_id, m.key,
	m.content, m.data, m.summary,
	m.type, m.category, m.priority, m.importance, m.confidence, m.tags, m.security_level, m.pinned,
	m.source,
	m.created_at, m.updated_at, m.accessed_at, m.access_count, m.expires_at, m.archived,
	m.vitality, m.stability, m.version,
	m.embedding, m.embedding_model`

// memoryColumnsNoVector reads the same columns but the embedding.
var memoryColumnsNoVector = strings.Replace(memoryColumns, "m.embedding,", "NULL,", 1)

type scanner interface {
	Scan(dest ...any) error
}

// scanMemory scans memoryColumns, then extra, from row.
func scanMemory(row scanner, extra ...any) (mnemo.Memory, error) {
	var (
		m                  mnemo.Memory
		session, key       sql.NullString
		data, tags, source sql.NullString
		created, updated   int64
		accessed, expires  sql.NullInt64
		embedding          []byte
		pinned, archived   bool
	)
	dest := []any{&m.ID, &m.TenantID, &m.AgentID, &session, &key,
		&m.Content, &data, &m.Summary,
		&m.Type, &m.Category, &m.Priority, &m.Importance, &m.Confidence, &tags, &m.SecurityLevel, &pinned,
		&source,
		&created, &updated, &accessed, &m.AccessCount, &expires, &archived,
		&m.Vitality, &m.Stability, &m.Version,
		&embedding, &m.EmbeddingModel}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return mnemo.Memory{}, err
	}
	m.SessionID, m.Key = session.String, key.String
	m.Pinned, m.Archived = pinned, archived
	if data.Valid {
		m.Data = json.RawMessage(data.String)
	}
	if source.Valid {
		m.Source = json.RawMessage(source.String)
	}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &m.Tags); err != nil {
			return mnemo.Memory{}, fmt.Errorf("memory %s: tags: %w", m.ID, err)
		}
	}
	m.CreatedAt, m.UpdatedAt = fromNanos(created), fromNanos(updated)
	if accessed.Valid {
		m.AccessedAt = fromNanos(accessed.Int64)
	}
	if expires.Valid {
		t := fromNanos(expires.Int64)
		m.ExpiresAt = &t
	}
	m.Embedding = decodeEmbedding(embedding)
	return m, nil
}

// row is a memory as the memories table stores it.
type row struct {
	m             *mnemo.Memory
	tombstone     bool
	arrival       int64
	dataExpiredAt any
	tags          string
	index         mnemo.IndexText
	embedText     string
	vectorRev     any // int64, or nil while the memory waits for a vector
}

// args returns the row's values in the order of insertColumns.
func (r *row) args() []any {
	m := r.m
	return []any{m.ID, m.TenantID, m.AgentID, nullString(m.Key), nullString(m.SessionID),
		r.tombstone, m.Archived, nanos(m.CreatedAt), nanos(m.UpdatedAt), nullTime(m.AccessedAt), m.AccessCount,
		nullTimePtr(m.ExpiresAt), r.dataExpiredAt, r.arrival,
		m.Type, m.Category, m.Priority, m.Importance, m.Confidence, m.SecurityLevel, m.Pinned,
		m.Vitality, m.Stability, m.Version, r.tags, m.EmbeddingModel, m.Summary,
		nullJSON(m.Source), nullJSON(m.Data), m.Content,
		r.index.Text, r.index.Context, r.index.Meta, encodeEmbedding(m.Embedding),
		r.embedText, r.vectorRev}
}

// insertColumns are the columns row.args fills.
const insertColumns = `id, tenant_id, agent_id, key, session_id,
	tombstone, archived, created_at, updated_at, accessed_at, access_count,
	expires_at, data_expired_at, arrival,
	type, category, priority, importance, confidence, security_level, pinned,
	vitality, stability, version, tags, embedding_model, summary,
	source, data, content,
	index_text, index_context, index_meta, embedding,
	embed_text, vector_rev`

// newRow validates m and returns its row. It reports EINVALID for a value
// the table cannot hold faithfully.
func newRow(m *mnemo.Memory, idx mnemo.IndexText, tombstone bool) (*row, error) {
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
	tags, err := json.Marshal(m.Tags)
	if err != nil {
		return nil, fmt.Errorf("memory %s: tags: %w", m.ID, err)
	}
	r := &row{m: m, tombstone: tombstone, tags: string(tags), index: idx}
	if t, ok := mnemo.DataExpiredAt(m.Data); ok && checkTime(t) == nil {
		r.dataExpiredAt = nanos(t)
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
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return nanos(t)
}

func nullTimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return nanos(*t)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// encodeEmbedding packs v as little-endian float32s; nil stays NULL.
func encodeEmbedding(v []float32) any {
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
