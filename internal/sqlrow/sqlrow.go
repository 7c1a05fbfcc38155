// Package sqlrow is how the SQL backends (sqlite, postgres) encode a memory
// as a table row: times as unix nanoseconds, "never" and empty values as
// NULL, embeddings as little-endian float32s, and the checks a memory must
// pass before a row can hold it faithfully. The SQL itself, which differs by
// dialect and driver, stays in each backend.
package sqlrow

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/temporal"
)

// CheckTime reports EINVALID for a time outside the range every store
// keeps (mnemo.EarliestTime to mnemo.LatestTime, TIME-1), which unix
// nanoseconds in an int64 hold. The zero time passes: it means "never".
// The range's end itself passes: it ends an open window.
func CheckTime(t time.Time) error {
	if t.IsZero() || (!t.Before(mnemo.EarliestTime) && !t.After(mnemo.LatestTime)) {
		return nil
	}
	return mnemo.CheckTime("time", t)
}

// Nanos returns t as unix nanoseconds, the form every time column holds.
func Nanos(t time.Time) int64 { return t.UnixNano() }

// FromNanos is the time of a column, in UTC.
func FromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// NullTime stores the zero time as NULL: it means "never", not 1970.
func NullTime(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	n := Nanos(t)
	return &n
}

// NullTimePtr stores a nil time as NULL.
func NullTimePtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	n := Nanos(*t)
	return &n
}

// NullString stores the empty string as NULL.
func NullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NullJSON stores empty JSON as NULL, and JSON as text.
func NullJSON(b json.RawMessage) *string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	return &s
}

// EncodeEmbedding packs v as little-endian float32s; an empty v is nil.
func EncodeEmbedding(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeEmbedding unpacks what EncodeEmbedding packed; empty b is nil.
func DecodeEmbedding(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// embeddingDest scans an embedding column straight into floats: the
// driver's bytes are decoded where they lie instead of copied first, as a
// []byte destination would (recall reads a few hundred vectors a query;
// PERF-2).
type embeddingDest struct{ v *[]float32 }

func (d embeddingDest) Scan(src any) error {
	switch b := src.(type) {
	case nil:
		*d.v = nil
	case []byte:
		*d.v = DecodeEmbedding(b)
	case string:
		*d.v = DecodeEmbedding([]byte(b))
	default:
		return fmt.Errorf("embedding: a column of %T, want bytes", src)
	}
	return nil
}

// Finite reports whether every component of v is a number.
func Finite(v []float32) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// CheckMemory reports EINVALID for a value of m a row cannot hold
// faithfully: a time out of range, or data or source that is not JSON.
func CheckMemory(m *mnemo.Memory) error {
	if err := mnemo.CheckMemoryTimes(m); err != nil {
		return err
	}
	if len(m.Data) > 0 && !json.Valid(m.Data) {
		return mnemo.Errorf(mnemo.EINVALID, "memory %s: data is not valid JSON", m.ID)
	}
	if len(m.Source) > 0 && !json.Valid(m.Source) {
		return mnemo.Errorf(mnemo.EINVALID, "memory %s: source is not valid JSON", m.ID)
	}
	return nil
}

// CheckFilter reports EINVALID for a time of f a column cannot hold.
func CheckFilter(f *mnemo.Filter) error {
	for _, t := range []*time.Time{f.CreatedAfter, f.CreatedBefore, f.OccurredAfter, f.OccurredBefore, f.AsOf, &f.Now} {
		if t != nil {
			if err := CheckTime(*t); err != nil {
				return err
			}
		}
	}
	return nil
}

// DataExpiredAt is the expiry m's data declares (see mnemo.DataExpiredAt)
// as unix nanoseconds, or NULL when it declares none a column can hold.
func DataExpiredAt(data json.RawMessage) *int64 {
	t, ok := mnemo.DataExpiredAt(data)
	if !ok || CheckTime(t) != nil {
		return nil
	}
	n := Nanos(t)
	return &n
}

// Scan decodes a memory row. A backend selects the columns in the order
// Dest lists them (its own names and casts), scans into Dest, and calls
// Memory.
//
// The columns that may be NULL scan into sql.NullString and sql.NullInt64,
// which database/sql fills directly: a **string or **int64 takes it a
// reflected allocation a column, and recall reads a hundred rows or more
// a query (PERF-10).
type Scan struct {
	m                  mnemo.Memory
	session, key       sql.NullString
	data, tags, source sql.NullString
	created, updated   int64
	accessed, expires  sql.NullInt64
	occStart, occEnd   sql.NullInt64
	occExpr, occSource sql.NullString
	validTo            sql.NullInt64
	entities           sql.NullString
}

// Dest returns where to scan the columns id, tenant_id, agent_id,
// session_id, key, content, data, summary, type, category, priority,
// importance, confidence, tags, security_level, pinned, source, created,
// updated, accessed, access_count, expires, archived, vitality, stability,
// version, embedding, embedding_model, occurred_start, occurred_end,
// occurred_expr, occurred_source, valid_to, entities (JSON): text columns as text, times as
// unix nanoseconds, the embedding as bytes.
func (s *Scan) Dest() []any {
	m := &s.m
	return []any{&m.ID, &m.TenantID, &m.AgentID, &s.session, &s.key,
		&m.Content, &s.data, &m.Summary,
		&m.Type, &m.Category, &m.Priority, &m.Importance, &m.Confidence, &s.tags, &m.SecurityLevel, &m.Pinned,
		&s.source,
		&s.created, &s.updated, &s.accessed, &m.AccessCount, &s.expires, &m.Archived,
		&m.Vitality, &m.Stability, &m.Version,
		embeddingDest{&m.Embedding}, &m.EmbeddingModel,
		&s.occStart, &s.occEnd, &s.occExpr, &s.occSource, &s.validTo, &s.entities}
}

// OccurredArgs are m's occurred_start, occurred_end, occurred_expr and
// occurred_source (REC-24): its creation's when it has none.
func OccurredArgs(m *mnemo.Memory) []any {
	o := m.OccurredOf()
	return []any{Nanos(o.Start), Nanos(o.End), o.Expression, o.Source}
}

// EntitiesArg is m's entities as the JSON text a column holds, NULL for
// none (REC-28).
func EntitiesArg(m *mnemo.Memory) *string {
	if len(m.Entities) == 0 {
		return nil
	}
	b, _ := json.Marshal(m.Entities)
	s := string(b)
	return &s
}

// Memory returns the memory scanned. Tags stored as JSON null are nil.
func (s *Scan) Memory() (mnemo.Memory, error) {
	m := s.m
	if s.session.Valid {
		m.SessionID = s.session.String
	}
	if s.key.Valid {
		m.Key = s.key.String
	}
	if s.data.Valid {
		m.Data = json.RawMessage(s.data.String)
	}
	if s.source.Valid {
		m.Source = json.RawMessage(s.source.String)
	}
	if s.tags.Valid {
		if err := unmarshalStrings(s.tags.String, &m.Tags); err != nil {
			return mnemo.Memory{}, fmt.Errorf("memory %s: tags: %w", m.ID, err)
		}
	}
	m.CreatedAt, m.UpdatedAt = FromNanos(s.created), FromNanos(s.updated)
	if s.accessed.Valid {
		m.AccessedAt = FromNanos(s.accessed.Int64)
	}
	if s.expires.Valid {
		t := FromNanos(s.expires.Int64)
		m.ExpiresAt = &t
	}
	if s.occStart.Valid && s.occEnd.Valid {
		m.Occurred = &mnemo.Occurred{Start: FromNanos(s.occStart.Int64), End: FromNanos(s.occEnd.Int64)}
		if s.occExpr.Valid {
			m.Occurred.Expression = s.occExpr.String
		}
		if s.occSource.Valid {
			m.Occurred.Source = s.occSource.String
		}
		if m.Occurred.End.Equal(mnemo.LatestTime) && m.Occurred.Expression != "" {
			// A recurring time (REC-30) is kept as its expression and
			// first occurrence, going on to the end of the range: its
			// rule is read again from the expression.
			if r, ok := temporal.RecurrenceOf(m.Occurred.Expression, m.Occurred.Start); ok {
				rec := mnemo.Recurrence(r)
				m.Occurred.Recurrence = &rec
			}
		}
	} else {
		m.Occurred = mnemo.CreatedOccurred(m.CreatedAt)
	}
	if s.validTo.Valid {
		t := FromNanos(s.validTo.Int64)
		m.ValidTo = &t
	}
	if s.entities.Valid && s.entities.String != "" {
		if err := unmarshalStrings(s.entities.String, &m.Entities); err != nil {
			return mnemo.Memory{}, fmt.Errorf("memory %s: entities: %w", m.ID, err)
		}
	}
	return m, nil
}

// unmarshalStrings is json.Unmarshal of a JSON array of strings into v,
// as json.Marshal writes one (no spaces, no escapes, valid UTF-8) read
// without reflection; anything else json.Unmarshal reads.
func unmarshalStrings(s string, v *[]string) error {
	if s == "null" {
		return nil // as json.Unmarshal: v is left as it is
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' || strings.ContainsAny(s, `\ `+"\t\n\r") || !utf8.ValidString(s) {
		return json.Unmarshal([]byte(s), v)
	}
	body := s[1 : len(s)-1]
	if body == "" {
		*v = []string{}
		return nil
	}
	out := make([]string, 0, strings.Count(body, ",")+1)
	for body != "" {
		if body[0] != '"' {
			return json.Unmarshal([]byte(s), v)
		}
		end := strings.IndexByte(body[1:], '"') + 1
		if end == 0 {
			return json.Unmarshal([]byte(s), v)
		}
		str := body[1:end]
		for i := 0; i < len(str); i++ {
			if str[i] < 0x20 {
				return json.Unmarshal([]byte(s), v) // a control character: not JSON
			}
		}
		out = append(out, str)
		body = body[end+1:]
		if body != "" {
			if body[0] != ',' || len(body) == 1 {
				return json.Unmarshal([]byte(s), v)
			}
			body = body[1:]
		}
	}
	*v = out
	return nil
}

// RecurringEnd is the occurred end of a recurring memory (REC-30), the
// supported range's end, as the literal its partial index names: the
// memories of a scope that recur are found without reading the others.
const RecurringEnd = "9214646400000000000"

// RecurringMiss reports whether the recurring memory whose occurred
// window starts at start and was read from expr has no occurrence within
// f's occurred bounds: the SQL overlap cannot tell, and the store leaves
// it out (Filter.NotIDs).
func RecurringMiss(f *mnemo.Filter, start int64, expr string) bool {
	r, ok := temporal.RecurrenceOf(expr, FromNanos(start))
	return ok && !r.Overlaps(temporal.FilterWindow(f))
}
