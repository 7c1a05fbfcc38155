// Package mnemo is long-term and short-term memory for AI agents.
//
// The root package holds the domain and nothing else: the Memory record,
// the write and query types, the Store interface and the optional
// interfaces backends implement, and the error model. It imports nothing
// of mnemo's. The services live in their own packages (memory, events,
// lifecycle, agentcontext, service), backends in theirs (sqlite, postgres,
// files, inmem), ways in in theirs (http, mcp, cmd/mnemo).
package mnemo

import (
	"encoding/json"
	"math"
	"time"
)

// Security levels (SEC-2). Internal is the default.
const (
	SecurityPublic       = "public"
	SecurityInternal     = "internal"
	SecurityConfidential = "confidential"
	SecurityRestricted   = "restricted"
)

// Well-known memory types. Any other lower-case word is accepted too.
const (
	TypeIdentity   = "identity"
	TypeEmotion    = "emotion"
	TypeKnowledge  = "knowledge"
	TypeEvent      = "event"
	TypePreference = "preference"
	TypeFact       = "fact"
	TypePattern    = "pattern"
)

// FormatVersion is the Version of a memory when it is first written.
const FormatVersion = 1

// NextVersion is the Version a store gives a memory it writes: the one
// the record carries (a copy: an import, a migration, a replay), else the
// next after the stored memory's when the write changes it in place
// (upsert), else FormatVersion.
func NextVersion(given int, upsert bool, stored int) int {
	switch {
	case given > 0:
		return given
	case upsert:
		return max(stored, FormatVersion-1) + 1
	}
	return FormatVersion
}

// Scope isolates memories: every read and write names one tenant and one
// agent, and no call sees another scope's data.
type Scope struct {
	TenantID string `json:"tenant_id"`
	AgentID  string `json:"agent_id"`
}

// Memory is one stored record (MEM-1, MEM-6, FS-8): a chat fact, a typed
// memory, a keyed document and a conversation turn are all views of it.
type Memory struct {
	// Identity.
	ID        string `json:"id"` // UUIDv7
	TenantID  string `json:"tenant_id"`
	AgentID   string `json:"agent_id"`
	SessionID string `json:"session_id,omitempty"`
	Key       string `json:"key,omitempty"`

	// Content.
	Content string          `json:"content"`
	Data    json.RawMessage `json:"data,omitempty"`
	Summary string          `json:"summary,omitempty"`

	// Classification.
	Type          string   `json:"type"`
	Category      string   `json:"category,omitempty"`
	Priority      int      `json:"priority"` // 0 (P0, never decays) .. 3 (P3)
	Importance    float64  `json:"importance"`
	Confidence    float64  `json:"confidence"`
	Tags          []string `json:"tags"`
	SecurityLevel string   `json:"security_level"`
	Pinned        bool     `json:"pinned"`

	// Provenance: a JSON string or an object with kind/name/retrieved_at/locator.
	Source json.RawMessage `json:"source,omitempty"`

	// Life.
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	AccessedAt  time.Time  `json:"accessed_at"`
	AccessCount int        `json:"access_count"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	Archived    bool       `json:"archived"`
	Vitality    float64    `json:"vitality"`
	Stability   float64    `json:"stability"` // days; Ebbinghaus S in R = e^(-t/S)
	// Version is the memory's revision: 1 when written, one more each
	// time the store changes it in place (a new value of its key, a
	// correction of a keyless memory), as its key's history counts them;
	// a copy (import, migration) keeps its own. A record's Version of 0
	// lets the store number it (NextVersion). The record's format is
	// versioned by the store's schema (MEM-4).
	Version int `json:"version"`

	// Occurred is when what the memory tells happened (REC-24).
	Occurred *Occurred `json:"occurred,omitempty"`
	// ValidTo is when what the memory says stopped holding (REC-27): the
	// writer's valid_to, or the time a later memory contradicted it (the
	// Write Guard's conflict). A keyed memory's revision superseded by a
	// newer write of its key gets the newer write's time when read as of a
	// past time (Service.Recall and List with as_of); the live memory of a
	// key never has one unless its writer said so. Nil: still holds.
	ValidTo *time.Time `json:"valid_to,omitempty"`
	// Entities are the people and named things the memory is by or about
	// (REC-28): its speaker, the names its text mentions (entity.Of) and
	// the aliases its writer gave.
	Entities []string `json:"entities,omitempty"`

	// Embedding is the memory's vector, when one has been computed.
	Embedding      []float32 `json:"embedding,omitempty"`
	EmbeddingModel string    `json:"embedding_model,omitempty"`
}

// Where a memory's Occurred came from (REC-24).
const (
	OccurredWriter  = "writer"  // occurred_at, or valid_from/valid_to, of the write
	OccurredText    = "text"    // the first time expression of its content
	OccurredCreated = "created" // its creation time: nothing else said when
)

// Occurred is the window [Start, End) in which what a memory tells happened,
// the expression it was read from and where it came from (REC-24).
type Occurred struct {
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Expression string    `json:"expression,omitempty"`
	Source     string    `json:"source"`
	// Recurrence is set when what the memory tells recurs ("every Sunday
	// morning", REC-30): Start is then its first occurrence's start, End
	// the end of the supported range (it goes on), and the filters and
	// recall match it on its occurrences.
	Recurrence *Recurrence `json:"recurrence,omitempty"`
}

// Recurrence is a time that repeats (REC-30): "every Sunday morning",
// "the first Monday of each month", "every two weeks". Its occurrences are
// days (or a part of each: morning 06–12, afternoon 12–18, evening and
// night 18–24) or, when it names no day, whole periods ("each month": some
// time in every month), counted in Interval periods from Anchor. Package
// temporal reads it from text and finds its occurrences.
type Recurrence struct {
	// Freq is the period: daily, weekly, monthly or yearly.
	Freq string `json:"freq"`
	// Interval is how many periods apart the occurrences are: 2 for
	// "every two weeks".
	Interval int `json:"interval"`
	// Weekdays, lower-case English names, are the days of a weekly
	// recurrence, or the one weekday of a monthly one with Ordinal.
	Weekdays []string `json:"weekdays,omitempty"`
	// Ordinal picks the weekday of a month: 1 to 4 the first to the
	// fourth, -1 the last.
	Ordinal int `json:"ordinal,omitempty"`
	// MonthDay is the day of a monthly recurrence ("every month on the 15th").
	MonthDay int `json:"month_day,omitempty"`
	// Month is the month of a yearly recurrence ("every May").
	Month int `json:"month,omitempty"`
	// Part is the part of the day: morning, afternoon, evening or night.
	Part string `json:"part,omitempty"`
	// Anchor is the first occurrence's start: intervals count from it.
	Anchor time.Time `json:"anchor"`
	// Rule is the same as an iCalendar RRULE (RFC 5545), for a reader that
	// knows it; it is written from the fields above and never read.
	Rule string `json:"rule,omitempty"`
}

// CreatedOccurred is the Occurred of a memory that says nothing of when:
// the second of its creation.
func CreatedOccurred(created time.Time) *Occurred {
	return &Occurred{Start: created, End: clampEnd(created.Add(time.Second)), Source: OccurredCreated}
}

// OccurredOf is m's Occurred, or its creation's when it has none (a record
// written before REC-24).
func (m *Memory) OccurredOf() Occurred {
	if m.Occurred != nil {
		return *m.Occurred
	}
	return *CreatedOccurred(m.CreatedAt)
}

// ValidFrom is when what m says began to hold (REC-27): when it happened
// (Occurred's start) or, if that is later, when this revision was written.
func (m *Memory) ValidFrom() time.Time {
	if o := m.OccurredOf(); o.Start.Before(m.UpdatedAt) {
		return o.Start
	}
	return m.UpdatedAt
}

// ValidAt reports whether m held at t (REC-27): begun by then (ValidFrom)
// and not yet ended (ValidTo).
func (m *Memory) ValidAt(t time.Time) bool {
	return !m.ValidFrom().After(t) && (m.ValidTo == nil || m.ValidTo.After(t))
}

// Scope returns the memory's scope.
func (m *Memory) Scope() Scope { return Scope{TenantID: m.TenantID, AgentID: m.AgentID} }

// Expired reports whether the memory has expired at now, by expires_at or by
// an "expired_at" timestamp inside data (FS-17).
func (m *Memory) Expired(now time.Time) bool {
	if m.ExpiresAt != nil && !now.Before(*m.ExpiresAt) {
		return true
	}
	if t, ok := DataExpiredAt(m.Data); ok && !now.Before(t) {
		return true
	}
	return false
}

// DataExpiredAt returns the "expired_at" timestamp of a JSON object, if it
// has one in RFC 3339 form.
func DataExpiredAt(data json.RawMessage) (time.Time, bool) {
	if len(data) == 0 || data[0] != '{' {
		return time.Time{}, false
	}
	var v struct {
		ExpiredAt string `json:"expired_at"`
	}
	if json.Unmarshal(data, &v) != nil || v.ExpiredAt == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v.ExpiredAt)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// DefaultPriority is a type's priority when a write gives none (MEM-8's
// typed priorities): identity P0 (never decays), emotion P1, every other
// type P2. Events are P2 too, not MEM-8's P3: a conversation is a memory
// worth keeping for months; ingest gives the events of a daily note P3, as
// MEM-8 and MEM-11 say.
func DefaultPriority(typ string) int {
	switch typ {
	case TypeIdentity:
		return 0
	case TypeEmotion:
		return 1
	}
	return 2
}

// StabilityDays is the Ebbinghaus stability a priority starts with
// (LIFE-8: P0 never decays, P1 365 days, P2 90 days, P3 14 days).
func StabilityDays(priority int) float64 {
	switch priority {
	case 0:
		return 0 // 0 means no decay
	case 1:
		return 365
	case 2:
		return 90
	default:
		return 14
	}
}

// Vitality is a memory's Ebbinghaus retention at now: R = e^(−t/S), t the
// days since it was last recalled (or written), S its stability in days
// grown by recall: S × (1 + ln(1 + access_count)). P0 memories (stability
// 0) and pinned ones never decay.
func Vitality(m *Memory, now time.Time) float64 {
	if m.Stability <= 0 || m.Pinned {
		return 1
	}
	last := m.AccessedAt
	if last.IsZero() || last.Before(m.CreatedAt) {
		last = m.CreatedAt
	}
	days := max(0, now.Sub(last).Hours()/24)
	s := m.Stability * (1 + math.Log1p(float64(m.AccessCount)))
	return math.Exp(-days / s)
}
