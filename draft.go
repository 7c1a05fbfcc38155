package mnemo

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits bound what one write may hold. Over a limit is an ETOOLARGE error,
// never a silent truncation.
type Limits struct {
	MaxContentChars int // content, in characters (MEM-2: 2,000)
	// MaxMessageChars is the limit of a conversation message's content
	// (AddMessages): people write long messages, and a message is stored
	// whole, as said (32,000).
	MaxMessageChars int
	MaxSummaryChars int
	MaxDataBytes    int // data JSON, in bytes
	MaxSourceBytes  int // source JSON, in bytes
	MaxTags         int
	MaxTagChars     int
	MaxBatch        int // records in one batch write
	// Untrusted, when set (say "/untrusted"), routes a write whose
	// provenance FS-6 finds wanting into that namespace instead of
	// refusing it: its key becomes Untrusted+key (a memory without a key
	// gets Untrusted+"/"+a new id), and it is tagged "untrusted". Empty:
	// refused, with the missing fields named.
	Untrusted string
}

// DefaultLimits are the limits used when none are configured.
func DefaultLimits() Limits {
	return Limits{
		MaxContentChars: 2000,
		MaxMessageChars: 32000,
		MaxSummaryChars: 2000,
		MaxDataBytes:    64 << 10,
		MaxSourceBytes:  4 << 10,
		MaxTags:         32,
		MaxTagChars:     64,
		MaxBatch:        1000,
	}
}

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, d *int }{
		{&l.MaxContentChars, &d.MaxContentChars}, {&l.MaxMessageChars, &d.MaxMessageChars}, {&l.MaxSummaryChars, &d.MaxSummaryChars},
		{&l.MaxDataBytes, &d.MaxDataBytes}, {&l.MaxSourceBytes, &d.MaxSourceBytes},
		{&l.MaxTags, &d.MaxTags}, {&l.MaxTagChars, &d.MaxTagChars}, {&l.MaxBatch, &d.MaxBatch},
	} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	return l
}

// Draft is a write: a new memory, an upsert of Key, or — when Key is set and
// both Content and Data are null — a tombstone of Key. Unset optional fields
// get defaults: type knowledge, priority 2, importance 0.5, confidence 1,
// security internal.
type Draft struct {
	Key       string          `json:"key,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	Content   *string         `json:"content"`
	Data      json.RawMessage `json:"data,omitempty"`
	Summary   string          `json:"summary,omitempty"`

	Type          string   `json:"type,omitempty"`
	Category      string   `json:"category,omitempty"`
	Priority      *int     `json:"priority,omitempty"`
	Importance    *float64 `json:"importance,omitempty"`
	Confidence    *float64 `json:"confidence,omitempty"`
	Tags          []string `json:"tags,omitempty"`
	SecurityLevel string   `json:"security_level,omitempty"`
	Pinned        bool     `json:"pinned,omitempty"`

	Source json.RawMessage `json:"source,omitempty"`

	// CreatedAt defaults to now; UpdatedAt, the time last-write-wins
	// compares, defaults to CreatedAt when that is given, else to now.
	CreatedAt *time.Time `json:"created_at,omitempty"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	Archived  bool       `json:"archived,omitempty"`

	// When what the memory tells happened (REC-24): an instant, a day,
	// words or a recurrence (When, TIME-2), or a span [valid_from,
	// valid_to). Without either, the first time expression of the content,
	// resolved against created_at, or else created_at.
	OccurredAt *When      `json:"occurred_at,omitempty"`
	ValidFrom  *time.Time `json:"valid_from,omitempty"`
	ValidTo    *time.Time `json:"valid_to,omitempty"`
	// Occurred, when set, is the memory's window as it stands, kept by a
	// correction that rewrites the memory (the writer's word survives a
	// change of its text); ValidTo then says only when it stopped holding.
	// Not part of any request.
	Occurred *Occurred `json:"-"`

	// Entities are names the memory is by or about that its text may not
	// say, aliases included ("Ana", "Ana Silva", "my sister"), REC-28: they
	// join the names found in it, are searchable and rank it for a query
	// naming one. At most MaxEntities.
	Entities []string `json:"entities,omitempty"`
}

// MaxEntities bounds a write's entities.
const MaxEntities = 32

// Tombstone reports whether d deletes its key.
func (d *Draft) Tombstone() bool { return d.Key != "" && d.Content == nil && isNull(d.Data) }

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// Build validates d and builds the memory it writes, without an ID. When
// what it tells happened is read from words — occurred_at, or a time
// expression of the content — Occurred is left nil: temporal.Build, what
// the services call, reads it (REC-24).
func (d *Draft) Build(scope Scope, lim Limits, now time.Time) (Memory, error) {
	m := Memory{
		TenantID: scope.TenantID, AgentID: scope.AgentID,
		Type: TypeKnowledge, Priority: 2, Importance: 0.5, Confidence: 1,
		SecurityLevel: SecurityInternal, Pinned: d.Pinned, Archived: d.Archived,
		Vitality: 1, Tags: []string{}, // Version 0: the store numbers the revision
	}
	var err error
	if d.Key != "" {
		if m.Key, err = NormalizeKey(d.Key); err != nil {
			return m, err
		}
	}
	if m.SessionID, err = CheckID("session_id", d.SessionID, true); err != nil {
		return m, err
	}
	if d.Tombstone() {
		// A tombstone keeps who deleted the key and why (FS-3, FS-8).
		if m.Source, err = checkSource(d.Source, lim); err != nil {
			return m, err
		}
		if err := d.checkTimes(); err != nil {
			return m, err
		}
		m.CreatedAt, m.UpdatedAt = writeTimes(d, now)
		m.AccessedAt = m.CreatedAt
		return m, nil
	}

	if !isNull(d.Data) {
		if len(d.Data) > lim.MaxDataBytes {
			return m, Errorf(ETOOLARGE, "data is %d bytes, the limit is %d", len(d.Data), lim.MaxDataBytes)
		}
		if err := CheckJSONDepth("data", d.Data); err != nil {
			return m, err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, d.Data); err != nil {
			return m, Errorf(EINVALID, "data is not valid JSON: %v", err)
		}
		m.Data = buf.Bytes()
	}
	switch {
	case d.Content != nil:
		m.Content = strings.TrimSpace(*d.Content)
	case m.Data != nil:
		// What search sees of a JSON-only memory (FS-17) is its text.
		m.Content = truncateRunes(string(m.Data), lim.MaxContentChars)
	}
	if m.Content == "" {
		return m, Errorf(EINVALID, "content is empty: give content or data")
	}
	if n := utf8.RuneCountInString(m.Content); n > lim.MaxContentChars {
		return m, Errorf(ETOOLARGE, "content is %d characters, the limit is %d", n, lim.MaxContentChars)
	}
	if !utf8.ValidString(m.Content) || !utf8.ValidString(d.Summary) {
		return m, Errorf(EINVALID, "content is not valid UTF-8")
	}
	m.Summary = strings.TrimSpace(d.Summary)
	if n := utf8.RuneCountInString(m.Summary); n > lim.MaxSummaryChars {
		return m, Errorf(ETOOLARGE, "summary is %d characters, the limit is %d", n, lim.MaxSummaryChars)
	}

	if d.Type != "" {
		if m.Type, err = CheckWord("type", d.Type); err != nil {
			return m, err
		}
	}
	if d.Category != "" {
		if m.Category, err = CheckWord("category", d.Category); err != nil {
			return m, err
		}
	}
	if d.Priority != nil {
		if *d.Priority < 0 || *d.Priority > 3 {
			return m, Errorf(EINVALID, "priority must be 0 (P0) to 3 (P3), got %d", *d.Priority)
		}
		m.Priority = *d.Priority
	} else {
		m.Priority = DefaultPriority(m.Type)
	}
	if m.Importance, err = checkUnit("importance", d.Importance, m.Importance); err != nil {
		return m, err
	}
	if m.Confidence, err = checkUnit("confidence", d.Confidence, m.Confidence); err != nil {
		return m, err
	}
	if m.Tags, err = checkTags(d.Tags, lim); err != nil {
		return m, err
	}
	switch d.SecurityLevel {
	case "":
	case SecurityPublic, SecurityInternal, SecurityConfidential, SecurityRestricted:
		m.SecurityLevel = d.SecurityLevel
	default:
		return m, Errorf(EINVALID, "security_level must be public, internal, confidential or restricted, got %q", d.SecurityLevel)
	}
	if m.Source, err = checkSource(d.Source, lim); err != nil {
		return m, err
	}
	if err := CheckProvenance(m.Key, m.Source, false); err != nil {
		if lim.Untrusted == "" {
			return m, err
		}
		// A key already in the quarantine stays where it is (set_memory
		// routes before it writes).
		ns := strings.TrimSuffix(lim.Untrusted, "/")
		if m.Key != ns && !strings.HasPrefix(m.Key, ns+"/") {
			if m.Key, err = UntrustedKey(lim.Untrusted, m.Key); err != nil {
				return m, err
			}
		}
		if !slices.Contains(m.Tags, "untrusted") && len(m.Tags) < lim.MaxTags {
			m.Tags = append(m.Tags, "untrusted")
		}
	}

	if err := d.checkTimes(); err != nil {
		return m, err
	}
	m.CreatedAt, m.UpdatedAt = writeTimes(d, now)
	m.AccessedAt = m.CreatedAt
	if m.Occurred, err = d.occurred(m.CreatedAt); err != nil {
		return m, err
	}
	if d.ExpiresAt != nil {
		t := d.ExpiresAt.UTC()
		m.ExpiresAt = &t
	}
	if len(d.Entities) > MaxEntities {
		return m, Errorf(ETOOLARGE, "%d entities, the limit is %d", len(d.Entities), MaxEntities)
	}
	if d.ValidTo != nil { // what it says ends then (REC-27)
		t := d.ValidTo.UTC()
		m.ValidTo = &t
	}
	m.Stability = StabilityDays(m.Priority)
	// Every time it keeps within the range every store keeps (TIME-1).
	if err := CheckMemoryTimes(&m); err != nil {
		return m, err
	}
	return m, nil
}

// occurred is when what the memory tells happened (REC-24) as the writer
// gave it as a window or as valid_from/valid_to; nil when it is to be read
// from occurred_at or the content, which temporal.Build does.
func (d *Draft) occurred(created time.Time) (*Occurred, error) {
	if d.Occurred != nil {
		o := *d.Occurred
		o.Start, o.End = o.Start.UTC(), o.End.UTC()
		if !o.End.After(o.Start) {
			return nil, Errorf(EINVALID, "occurred.end must be after occurred.start")
		}
		return &o, nil
	}
	if d.OccurredAt != nil && (d.ValidFrom != nil || d.ValidTo != nil) {
		return nil, Errorf(EINVALID, "give occurred_at or valid_from/valid_to, not both")
	}
	if d.ValidFrom != nil || d.ValidTo != nil {
		var from, to time.Time
		switch {
		case d.ValidFrom != nil && d.ValidTo != nil:
			from, to = d.ValidFrom.UTC(), d.ValidTo.UTC()
		case d.ValidFrom != nil: // from then on, as far as the writer knows: until it was written
			from = d.ValidFrom.UTC()
			to = clampEnd(from.Add(time.Second))
			if created.After(to) {
				to = created
			}
		default: // until then
			to = d.ValidTo.UTC()
			if from = to.Add(-time.Second); from.Before(EarliestTime) {
				from = EarliestTime
			}
			if created.Before(from) {
				from = created
			}
		}
		if !to.After(from) {
			return nil, Errorf(EINVALID, "valid_to must be after valid_from")
		}
		return &Occurred{Start: from, End: to, Source: OccurredWriter}, nil
	}
	return nil, nil
}

// UntrustedKey is key moved under the namespace ns (FS-6's
// quarantine), or a new key there for a memory without one.
func UntrustedKey(ns, key string) (string, error) {
	if key == "" {
		key = "/" + uuid.Must(uuid.NewV7()).String()
	}
	if i := strings.Index(key, "://"); i > 0 {
		key = "/" + key[:i] + key[i+2:] // kb://a/b -> /kb/a/b
	}
	return NormalizeKey(strings.TrimSuffix(ns, "/") + key)
}

// checkTimes refuses a time of d outside the supported range, naming the
// field (TIME-1): a Go caller's times are checked as a client's are.
func (d *Draft) checkTimes() error {
	for _, f := range []struct {
		name string
		t    *time.Time
	}{{"created_at", d.CreatedAt}, {"updated_at", d.UpdatedAt}, {"expires_at", d.ExpiresAt}, {"valid_from", d.ValidFrom}, {"valid_to", d.ValidTo}} {
		if f.t != nil && (f.t.IsZero() || !InTimeRange(*f.t)) {
			return outOfRange(f.name, *f.t)
		}
	}
	return nil
}

func writeTimes(d *Draft, now time.Time) (created, updated time.Time) {
	created, updated = now, now
	if d.CreatedAt != nil {
		created, updated = d.CreatedAt.UTC(), d.CreatedAt.UTC()
	}
	if d.UpdatedAt != nil {
		updated = d.UpdatedAt.UTC()
	}
	return created, updated
}

// CheckID validates a tenant, agent or session id: 1–128 characters with no
// spaces or control characters.
func CheckID(field, v string, optional bool) (string, error) {
	if v == "" {
		if optional {
			return "", nil
		}
		return "", Errorf(EINVALID, "%s is required", field)
	}
	if len(v) > 128 {
		return "", Errorf(EINVALID, "%s is longer than 128 bytes", field)
	}
	if !utf8.ValidString(v) {
		return "", Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	for _, r := range v {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return "", Errorf(EINVALID, "%s must not contain spaces or control characters", field)
		}
	}
	return v, nil
}

// CheckScope validates a scope's tenant and agent ids.
func CheckScope(s Scope) error {
	if _, err := CheckID("tenant_id", s.TenantID, false); err != nil {
		return err
	}
	_, err := CheckID("agent_id", s.AgentID, false)
	return err
}

// CheckWord validates a type or category: a lower-case word of letters,
// digits, '_' or '-', at most 32 bytes.
func CheckWord(field, v string) (string, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" || len(v) > 32 {
		return "", Errorf(EINVALID, "%s must be 1 to 32 characters", field)
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return "", Errorf(EINVALID, "%s %q may hold only letters, digits, '_' and '-'", field, v)
		}
	}
	return v, nil
}

func checkUnit(field string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if !(*v >= 0 && *v <= 1) { // also rejects NaN
		return 0, Errorf(EINVALID, "%s must be between 0 and 1, got %v", field, *v)
	}
	return *v, nil
}

// checkTags trims and lower-cases tags and drops duplicates.
func checkTags(tags []string, lim Limits) ([]string, error) {
	if len(tags) > lim.MaxTags {
		return nil, Errorf(ETOOLARGE, "%d tags, the limit is %d", len(tags), lim.MaxTags)
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			return nil, Errorf(EINVALID, "tags must not be empty")
		}
		if utf8.RuneCountInString(t) > lim.MaxTagChars {
			return nil, Errorf(ETOOLARGE, "tag %q is longer than %d characters", truncateRunes(t, 16)+"…", lim.MaxTagChars)
		}
		if !utf8.ValidString(t) || strings.IndexFunc(t, unicode.IsControl) >= 0 {
			return nil, Errorf(EINVALID, "tags must be valid UTF-8 text without control characters")
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// checkSource accepts provenance as a JSON string or object (FS-7).
func checkSource(src json.RawMessage, lim Limits) (json.RawMessage, error) {
	if isNull(src) {
		return nil, nil
	}
	if len(src) > lim.MaxSourceBytes {
		return nil, Errorf(ETOOLARGE, "source is %d bytes, the limit is %d", len(src), lim.MaxSourceBytes)
	}
	if err := CheckJSONDepth("source", src); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, src); err != nil {
		return nil, Errorf(EINVALID, "source is not valid JSON: %v", err)
	}
	if c := buf.Bytes()[0]; c != '"' && c != '{' {
		return nil, Errorf(EINVALID, "source must be a string or an object")
	}
	return buf.Bytes(), nil
}

// CheckWords validates a list of types or categories into a new slice.
func CheckWords(field string, in []string) ([]string, error) {
	if len(in) == 0 {
		return in, nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		var err error
		if out[i], err = CheckWord(field, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// truncateRunes cuts s to at most n characters, unmarked (as
// textutil.TruncateRunes, which the domain package does not import).
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
