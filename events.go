package mnemo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/internal/ids"
)

// Event is one raw event of seed 002's first layer (L1): something that
// happened to an agent, kept as it came, append-only. No lifecycle action
// deletes events; old ones move to compressed cold segments that every
// read still sees.
type Event struct {
	ID string `json:"id"`
	Scope
	// Seq is the store's arrival number: among events with the same TS the
	// one appended first comes first.
	Seq    int64     `json:"seq,omitempty"`
	TS     time.Time `json:"ts"`
	Type   string    `json:"type"`
	Source string    `json:"source,omitempty"`
	// Data is the event's payload, any JSON value. data.parent_id names the
	// event's parent (an L2 parent/child relation).
	Data json.RawMessage `json:"data,omitempty"`
	// Metadata is a JSON object; metadata.parent_id works as data's does.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Vectors are the event's L3 embeddings, written in the append's
	// transaction (see eventvec.go). A caller may supply some (a media
	// embedding made elsewhere, with its model's name); the Service adds
	// those of its embedders. Reads leave them out.
	Vectors []EventVector `json:"vectors,omitempty"`
}

// Event limits.
const (
	MaxEventData  = 64 << 10 // bytes of data, and of metadata
	MaxEventBatch = 1000     // events in one append
	maxEventType  = 128
	maxEventSrc   = 256
)

// EventQuery selects events of one scope in order: by TS, then by Seq.
type EventQuery struct {
	From    *time.Time `json:"from,omitempty"` // inclusive
	To      *time.Time `json:"to,omitempty"`   // exclusive
	Types   []string   `json:"types,omitempty"`
	Sources []string   `json:"sources,omitempty"`
	Limit   int        `json:"limit,omitempty"` // 0: 100; at most MaxListLimit
	// Cursor continues a previous page: its EventPage.Next.
	Cursor string `json:"cursor,omitempty"`
}

// EventPage is one page of events and the cursor of the next, "" at the end.
type EventPage struct {
	Events []Event `json:"events"`
	Next   string  `json:"next,omitempty"`
}

// EventCursor is a position in a scope's event order: after the event at
// TS with Seq. Stores decode EventQuery.Cursor with ParseEventCursor.
type EventCursor struct {
	TS  time.Time
	Seq int64
}

// String encodes the cursor as an opaque token.
func (c EventCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.TS.UnixNano(), 10) + "." + strconv.FormatInt(c.Seq, 10)))
}

// ParseEventCursor decodes a cursor; "" is the start (ok false).
func ParseEventCursor(s string) (c EventCursor, ok bool, err error) {
	if s == "" {
		return EventCursor{}, false, nil
	}
	bad := Errorf(EINVALID, "cursor %q is not one this server gave: pass a page's next as it was", s)
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return EventCursor{}, false, bad
	}
	ts, seq, found := strings.Cut(string(b), ".")
	if !found {
		return EventCursor{}, false, bad
	}
	n, err1 := strconv.ParseInt(ts, 10, 64)
	q, err2 := strconv.ParseInt(seq, 10, 64)
	if err1 != nil || err2 != nil || q < 0 {
		return EventCursor{}, false, bad
	}
	return EventCursor{TS: time.Unix(0, n).UTC(), Seq: q}, true, nil
}

// Relation is an edge of seed 002's second layer (L2): a typed, weighted
// link from Source to Target, each an event id or a memory id.
type Relation struct {
	Source     string    `json:"source"`
	Target     string    `json:"target"`
	Type       string    `json:"type"`
	Confidence float64   `json:"confidence"`
	CreatedAt  time.Time `json:"created_at"`
}

// Relation types the rules write. Edges point forward: from the parent, the
// earlier event, the cause.
const (
	RelParent   = "parent"   // Source is Target's parent (data.parent_id)
	RelPrecedes = "precedes" // Source is the previous event of Target's source
	RelCauses   = "causes"   // Source started what Target ended, or failed what Target retries
	RelRelated  = "related"  // the default of a Link
)

// Directions of a relation query, seen from the node asked about.
const (
	DirOut  = "out"  // edges whose Source is the node
	DirIn   = "in"   // edges whose Target is the node
	DirBoth = "both" // either
)

// RelationQuery selects the edges touching some nodes.
type RelationQuery struct {
	IDs       []string // the nodes
	Direction string   // DirOut, DirIn or DirBoth ("" is both)
	Types     []string // only these relation types; none: all
	Limit     int      // 0: no limit
}

// EventLookup reads the events of a scope inside an append's transaction,
// so that rules see the events appended before, in the same batch too.
type EventLookup interface {
	// LastEvent returns the newest event of scope from source, of one of
	// types (any type when empty), at or before ts; ok is false when there
	// is none. Events already moved to cold segments are not looked at.
	LastEvent(ctx context.Context, scope Scope, source string, types []string, ts time.Time) (e Event, ok bool, err error)
}

// RelateFunc extracts the relations of a new event. A store's AppendEvents
// calls it inside the transaction that stores the event: the event and
// its relations commit together or not at all.
type RelateFunc func(ctx context.Context, look EventLookup, e Event) ([]Relation, error)

// EventStore is a Store that keeps events and their relations. A Service
// whose store is not one answers every event call with EUNAVAILABLE.
type EventStore interface {
	// AppendEvents stores events, each with the relations relate returns
	// for it (nil: none), in one transaction: all or nothing. An id that is
	// already stored is ECONFLICT.
	AppendEvents(ctx context.Context, scope Scope, events []Event, relate RelateFunc) ([]Event, error)
	// QueryEvents returns a page of the scope's events matching q, hot and
	// cold alike, in order.
	QueryEvents(ctx context.Context, scope Scope, q EventQuery) (EventPage, error)
	// GetEvent returns one event, hot or cold, or ENOTFOUND.
	GetEvent(ctx context.Context, scope Scope, id string) (Event, error)
	// ArchiveEvents moves every event, of any scope, older than before into
	// compressed cold segments and returns how many it moved.
	ArchiveEvents(ctx context.Context, before time.Time) (int, error)
	// AddRelations stores edges; an edge already stored keeps the higher
	// confidence.
	AddRelations(ctx context.Context, scope Scope, rels []Relation) error
	// Relations returns the edges touching q.IDs, oldest first.
	Relations(ctx context.Context, scope Scope, q RelationQuery) ([]Relation, error)
}

// EventOptions configure the event layers of a Service.
type EventOptions struct {
	// Strict rejects events whose type is not one of KnownTypes.
	Strict     bool
	KnownTypes []string
	// ColdAfter is the age past which ArchiveEvents moves events to cold
	// segments; 0 means 90 days (seed 002).
	ColdAfter time.Duration
	// Rules are the relation rules; the zero value is DefaultRelationRules.
	Rules *RelationRules
	// Tasks say what tasks, successes and errors are, for summaries (L4)
	// and capabilities (L5); unset fields take DefaultTaskRules'.
	Tasks TaskRules
	// Insighter writes the trends, patterns and suggestions of week, month
	// and year summaries, and Describer names and describes capabilities
	// (an LLM); nil, or a failure, means deterministic rules.
	Insighter EventInsighter
	Describer CapabilityDescriber
	// Vectors configure L3 (eventvec.go).
	Vectors EventVectorOptions
	// TextRelations configure L2 relations from unstructured text
	// (eventtext.go); off unless set.
	TextRelations TextRelationOptions
	// Profile configures the adaptive user profile (profile.go).
	Profile ProfileOptions
}

// DefaultColdAfter is when events move to cold segments (seed 002: 90 days).
const DefaultColdAfter = 90 * 24 * time.Hour

func (o EventOptions) withDefaults() EventOptions {
	if o.ColdAfter <= 0 {
		o.ColdAfter = DefaultColdAfter
	}
	o.Profile = o.Profile.withDefaults()
	if o.Rules == nil {
		r := DefaultRelationRules()
		o.Rules = &r
	}
	o.Tasks = o.Tasks.withDefaults()
	return o
}

// eventStore returns the store as an EventStore, or EUNAVAILABLE.
func (s *Service) eventStore() (EventStore, error) {
	es, ok := s.store.Events, s.store.Events != nil
	if !ok {
		return nil, Errorf(EUNAVAILABLE, "this store keeps no events")
	}
	return es, nil
}

// AppendEvents validates events, gives each an id (UUIDv7) and a time (now)
// when it has none, and stores them with the relations the rules find, in
// one transaction. Errors: EINVALID (a malformed event, or an unknown type
// in strict mode: the message names its index), ETOOLARGE, ECONFLICT (an
// id already stored), EUNAVAILABLE (the store keeps no events).
func (s *Service) AppendEvents(ctx context.Context, scope Scope, events []Event) ([]Event, error) {
	if err := CheckScope(scope); err != nil {
		return nil, err
	}
	es, err := s.eventStore()
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, Errorf(EINVALID, "no events")
	}
	if len(events) > MaxEventBatch {
		return nil, Errorf(ETOOLARGE, "%d events in one batch; at most %d", len(events), MaxEventBatch)
	}
	now := s.now().UTC()
	out := make([]Event, len(events))
	for i, e := range events {
		e, err := s.prepareEvent(scope, e, now)
		if err != nil {
			if len(events) > 1 {
				err = WithPrefix(err, fmt.Sprintf("event %d: ", i))
			}
			return nil, err
		}
		out[i] = e
	}
	pending := s.l3.attach(ctx, out)
	stored, err := es.AppendEvents(ctx, scope, out, s.events.Rules.Relate(now))
	if err != nil {
		return nil, err
	}
	s.learnCapabilities(ctx, scope, stored)
	if pending {
		s.l3.kick()
	}
	s.afterAppend(scope, stored)
	return stored, nil
}

// AppendEvent appends one event; see AppendEvents.
func (s *Service) AppendEvent(ctx context.Context, scope Scope, e Event) (Event, error) {
	out, err := s.AppendEvents(ctx, scope, []Event{e})
	if err != nil {
		return Event{}, err
	}
	return out[0], nil
}

// prepareEvent validates e and fills its defaults.
func (s *Service) prepareEvent(scope Scope, e Event, now time.Time) (Event, error) {
	if e.Scope != (Scope{}) && e.Scope != scope {
		return Event{}, Errorf(EINVALID, "the event's tenant_id and agent_id must be the request's, or left out")
	}
	e.Scope, e.Seq = scope, 0
	if e.ID == "" {
		e.ID = ids.New()
	} else if _, err := CheckID("id", e.ID, false); err != nil {
		return Event{}, err
	}
	if e.TS.IsZero() {
		e.TS = now
	}
	e.TS = e.TS.UTC()
	if e.TS.Year() < 1678 || e.TS.Year() > 2261 {
		return Event{}, Errorf(EINVALID, "ts %s is out of range (years 1678 to 2261)", e.TS.Format(time.RFC3339))
	}
	var err error
	if e.Type, err = checkEventText("type", e.Type, maxEventType, true); err != nil {
		return Event{}, err
	}
	if e.Source, err = checkEventText("source", e.Source, maxEventSrc, false); err != nil {
		return Event{}, err
	}
	if s.events.Strict && !slices.Contains(s.events.KnownTypes, e.Type) {
		return Event{}, Errorf(EINVALID, "unknown event type %q in strict mode; known types: %s", e.Type, strings.Join(s.events.KnownTypes, ", "))
	}
	if e.Data, err = checkEventJSON("data", e.Data, false); err != nil {
		return Event{}, err
	}
	if e.Metadata, err = checkEventJSON("metadata", e.Metadata, true); err != nil {
		return Event{}, err
	}
	if _, err := EventMedia(e); err != nil {
		return Event{}, err
	}
	if err := checkEventVectors(e.Vectors); err != nil {
		return Event{}, err
	}
	e.Vectors = slices.Clone(e.Vectors)
	return e, nil
}

// checkEventText validates a type or source: printable UTF-8, trimmed.
func checkEventText(field, v string, max int, required bool) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "" && required:
		return "", Errorf(EINVALID, "event %s is required", field)
	case len(v) > max:
		return "", Errorf(EINVALID, "event %s is longer than %d bytes", field, max)
	case !utf8.ValidString(v):
		return "", Errorf(EINVALID, "event %s is not valid UTF-8", field)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return "", Errorf(EINVALID, "event %s must not contain control characters", field)
		}
	}
	return v, nil
}

// checkEventJSON validates data (any JSON value) or metadata (an object),
// compacted; JSON null is the same as none.
func checkEventJSON(field string, v json.RawMessage, object bool) (json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	if len(v) > MaxEventData {
		return nil, Errorf(ETOOLARGE, "event %s is %d bytes; at most %d", field, len(v), MaxEventData)
	}
	if !json.Valid(v) {
		return nil, Errorf(EINVALID, "event %s is not valid JSON", field)
	}
	if object && v[0] != '{' {
		return nil, Errorf(EINVALID, "event %s must be a JSON object", field)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, Errorf(EINVALID, "event %s is not valid JSON", field)
	}
	return buf.Bytes(), nil
}

// CheckEventQuery validates q and fills its default limit. A time window
// that runs backwards is EINVALID.
func CheckEventQuery(q EventQuery) (EventQuery, error) {
	if q.From != nil && q.To != nil && q.From.After(*q.To) {
		return q, Errorf(EINVALID, "time window runs backwards: from %s is after to %s",
			q.From.UTC().Format(time.RFC3339Nano), q.To.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return q, Errorf(EINVALID, "limit must be 1 to %d", MaxListLimit)
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	if _, _, err := ParseEventCursor(q.Cursor); err != nil {
		return q, err
	}
	return q, nil
}

// QueryEvents returns a page of the scope's events in order (by time, then
// arrival), hot and cold alike. Errors: EINVALID (a window that runs
// backwards, a bad cursor or limit), EUNAVAILABLE.
func (s *Service) QueryEvents(ctx context.Context, scope Scope, q EventQuery) (EventPage, error) {
	if err := CheckScope(scope); err != nil {
		return EventPage{}, err
	}
	es, err := s.eventStore()
	if err != nil {
		return EventPage{}, err
	}
	if q, err = CheckEventQuery(q); err != nil {
		return EventPage{}, err
	}
	return es.QueryEvents(ctx, scope, q)
}

// eachEvent calls fn with every event matching q, in order, page by page:
// no read is held open while fn runs.
func (s *Service) eachEvent(ctx context.Context, scope Scope, q EventQuery, fn func(Event) error) error {
	q.Limit = 500
	for {
		p, err := s.QueryEvents(ctx, scope, q)
		if err != nil {
			return err
		}
		for _, e := range p.Events {
			if err := fn(e); err != nil {
				return err
			}
		}
		if p.Next == "" {
			return nil
		}
		q.Cursor = p.Next
	}
}

// GetEvent returns one event by id. Errors: ENOTFOUND, EUNAVAILABLE.
func (s *Service) GetEvent(ctx context.Context, scope Scope, id string) (Event, error) {
	if err := CheckScope(scope); err != nil {
		return Event{}, err
	}
	es, err := s.eventStore()
	if err != nil {
		return Event{}, err
	}
	if id == "" {
		return Event{}, Errorf(EINVALID, "id is required")
	}
	return es.GetEvent(ctx, scope, id)
}

// ArchiveEvents moves the events (of every scope) older than olderThan, 0
// meaning the configured ColdAfter, to compressed cold segments, which
// queries, replay and export still read. It deletes nothing and returns
// how many events it moved.
func (s *Service) ArchiveEvents(ctx context.Context, olderThan time.Duration) (int, error) {
	es, err := s.eventStore()
	if err != nil {
		return 0, err
	}
	if olderThan < 0 {
		return 0, Errorf(EINVALID, "the age of events to archive must not be negative")
	}
	if olderThan == 0 {
		olderThan = s.events.ColdAfter
	}
	return es.ArchiveEvents(ctx, s.now().Add(-olderThan))
}

// Other returns the end of r away from node.
func (r Relation) Other(node string) string {
	if r.Source == node {
		return r.Target
	}
	return r.Source
}
