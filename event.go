package mnemo

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Event is one raw event of the first event layer, L1 (EVT-2): something that
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
	// SecurityLevel is the event's level (SEC-11): its writer's, or the
	// classifier's of what it holds (Classify). A store keeps it as it
	// came; an event stored before levels were kept reads "" from its
	// store, and the Service classifies it on read.
	SecurityLevel string `json:"security_level,omitempty"`
	// Vectors are the event's L3 embeddings, written in the append's
	// transaction (see events/vectors.go). A caller may supply some (a media
	// embedding made elsewhere, with its model's name); the Service adds
	// those of its embedders. Reads leave them out.
	Vectors []EventVector `json:"vectors,omitempty"`
}

// Event limits.
const (
	MaxEventData  = 64 << 10 // bytes of data, and of metadata
	MaxEventBatch = 1000     // events in one append
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

// Relation is an edge of the second event layer, L2 (EVT-7): a typed, weighted
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

// Prefixes of the nodes read from an event's text (EVT-6): what it
// mentions, feels and wants. Such a node is no record: a link to it is
// never an orphan for it, and goes with its event.
const (
	NodeEntity  = "entity:"
	NodeEmotion = "emotion:"
	NodeIntent  = "intent:"
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

// EventStore is a Store that keeps events and their relations. A Service
// whose store is not one answers every event call with EUNAVAILABLE.
type EventStore interface {
	// AppendEvents stores events, each with the relations relate returns
	// for it (nil: none), in one transaction: all or nothing — relate runs
	// inside it, so an event and its relations commit together. An id
	// that is already stored is ECONFLICT.
	AppendEvents(ctx context.Context, scope Scope, events []Event, relate func(ctx context.Context, look EventLookup, e Event) ([]Relation, error)) ([]Event, error)
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
	// PruneLinks returns the scope's orphan links — those with an end that
	// is neither a memory (live or archived) nor an event of the scope,
	// nor a node read from text (NodeEntity, NodeEmotion, NodeIntent) —
	// and, unless dry, deletes them. Reflect's govern phase calls it.
	PruneLinks(ctx context.Context, scope Scope, dry bool) ([]Relation, error)
}

// CheckEventQuery validates q and fills its default limit. A time window
// that runs backwards is EINVALID.
func CheckEventQuery(q EventQuery) (EventQuery, error) {
	if err := cmp.Or(CheckTimePtr("from", q.From), CheckTimePtr("to", q.To)); err != nil { // TIME-1
		return q, err
	}
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

// Other returns the end of r away from node.
func (r Relation) Other(node string) string {
	if r.Source == node {
		return r.Target
	}
	return r.Source
}
