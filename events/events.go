package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/ids"
	"github.com/mnemo-dev/mnemo/security"
)

// EventOptions configure the event layers of a Service.
type Options struct {
	// Strict rejects events whose type is not one of KnownTypes.
	Strict     bool
	KnownTypes []string
	// ColdAfter is the age past which ArchiveEvents moves events to cold
	// segments; 0 means 90 days (EVT-14).
	ColdAfter time.Duration
	// Rules are the relation rules; the zero value is DefaultRelationRules.
	Rules *RelationRules
	// Tasks say what tasks, successes and errors are, for summaries (L4)
	// and capabilities (L5); unset fields take DefaultTaskRules'.
	Tasks TaskRules
	// Insighter writes the trends, patterns and suggestions of week, month
	// and year summaries, and Describer names and describes capabilities
	// (an LLM); nil, or a failure, means deterministic rules.
	Insighter Insighter
	Describer CapabilityDescriber
	// Vectors configure L3 (vectors.go).
	Vectors VectorOptions
	// TextRelations configure L2 relations from unstructured text
	// (text.go); off unless set.
	TextRelations TextRelationOptions
	// Profile configures the adaptive user profile (profile.go).
	Profile ProfileOptions
}

// Bounds of an event's type and source, in bytes.
const (
	maxEventType = 128
	maxEventSrc  = 256
)

// DefaultColdAfter is when events move to cold segments (EVT-14: 90 days).
const DefaultColdAfter = 90 * 24 * time.Hour

func (o Options) withDefaults() Options {
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
func (s *Service) eventStore() (mnemo.EventStore, error) {
	es, ok := s.store.Events, s.store.Events != nil
	if !ok {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "this store keeps no events")
	}
	return es, nil
}

// AppendEvents validates events, gives each an id (UUIDv7) and a time (now)
// when it has none, and stores them with the relations the rules find, in
// one transaction. Errors: EINVALID (a malformed event, or an unknown type
// in strict mode: the message names its index), ETOOLARGE, ECONFLICT (an
// id already stored), EUNAVAILABLE (the store keeps no events).
func (s *Service) AppendEvents(ctx context.Context, scope mnemo.Scope, events []mnemo.Event) ([]mnemo.Event, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	es, err := s.eventStore()
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "no events")
	}
	if len(events) > mnemo.MaxEventBatch {
		return nil, mnemo.Errorf(mnemo.ETOOLARGE, "%d events in one batch; at most %d", len(events), mnemo.MaxEventBatch)
	}
	now := s.now().UTC()
	out := make([]mnemo.Event, len(events))
	for i, e := range events {
		e, err := s.prepareEvent(scope, e, now)
		if err != nil {
			if len(events) > 1 {
				err = mnemo.WithPrefix(err, fmt.Sprintf("event %d: ", i))
			}
			return nil, err
		}
		out[i] = e
	}
	pending := s.after.attach(ctx, out)
	stored, err := es.AppendEvents(ctx, scope, out, s.events.Rules.Relate(now))
	if err != nil {
		return nil, err
	}
	s.learnCapabilities(ctx, scope, stored)
	if pending {
		s.after.kick()
	}
	s.afterAppend(scope, stored)
	return stored, nil
}

// AppendEvent appends one event; see AppendEvents.
func (s *Service) AppendEvent(ctx context.Context, scope mnemo.Scope, e mnemo.Event) (mnemo.Event, error) {
	out, err := s.AppendEvents(ctx, scope, []mnemo.Event{e})
	if err != nil {
		return mnemo.Event{}, err
	}
	return out[0], nil
}

// prepareEvent validates e and fills its defaults.
func (s *Service) prepareEvent(scope mnemo.Scope, e mnemo.Event, now time.Time) (mnemo.Event, error) {
	if e.Scope != (mnemo.Scope{}) && e.Scope != scope {
		return mnemo.Event{}, mnemo.Errorf(mnemo.EINVALID, "the event's tenant_id and agent_id must be the request's, or left out")
	}
	e.Scope, e.Seq = scope, 0
	if e.ID == "" {
		e.ID = ids.New()
	} else if _, err := mnemo.CheckID("id", e.ID, false); err != nil {
		return mnemo.Event{}, err
	}
	if e.TS.IsZero() {
		e.TS = now
	}
	e.TS = e.TS.UTC()
	if err := mnemo.CheckTime("ts", e.TS); err != nil { // TIME-1
		return mnemo.Event{}, err
	}
	var err error
	if e.Type, err = checkEventText("type", e.Type, maxEventType, true); err != nil {
		return mnemo.Event{}, err
	}
	if e.Source, err = checkEventText("source", e.Source, maxEventSrc, false); err != nil {
		return mnemo.Event{}, err
	}
	if s.events.Strict && !slices.Contains(s.events.KnownTypes, e.Type) {
		return mnemo.Event{}, mnemo.Errorf(mnemo.EINVALID, "unknown event type %q in strict mode; known types: %s", e.Type, strings.Join(s.events.KnownTypes, ", "))
	}
	if e.Data, err = checkEventJSON("data", e.Data, false); err != nil {
		return mnemo.Event{}, err
	}
	if e.Metadata, err = checkEventJSON("metadata", e.Metadata, true); err != nil {
		return mnemo.Event{}, err
	}
	if _, err := Media(e); err != nil {
		return mnemo.Event{}, err
	}
	if err := checkEventVectors(e.Vectors); err != nil {
		return mnemo.Event{}, err
	}
	e.Vectors = slices.Clone(e.Vectors)
	// Classified as memories are (SEC-11): a level the writer gives is kept.
	if err := mnemo.CheckLevel("security_level", e.SecurityLevel); err != nil {
		return mnemo.Event{}, err
	}
	security.ClassifyEvent(&e)
	return e, nil
}

// checkEventText validates a type or source: printable UTF-8, trimmed.
func checkEventText(field, v string, max int, required bool) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "" && required:
		return "", mnemo.Errorf(mnemo.EINVALID, "event %s is required", field)
	case len(v) > max:
		return "", mnemo.Errorf(mnemo.EINVALID, "event %s is longer than %d bytes", field, max)
	case !utf8.ValidString(v):
		return "", mnemo.Errorf(mnemo.EINVALID, "event %s is not valid UTF-8", field)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return "", mnemo.Errorf(mnemo.EINVALID, "event %s must not contain control characters", field)
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
	if len(v) > mnemo.MaxEventData {
		return nil, mnemo.Errorf(mnemo.ETOOLARGE, "event %s is %d bytes; at most %d", field, len(v), mnemo.MaxEventData)
	}
	if err := mnemo.CheckJSONDepth("event "+field, v); err != nil {
		return nil, err
	}
	if !json.Valid(v) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "event %s is not valid JSON", field)
	}
	if object && v[0] != '{' {
		return nil, mnemo.Errorf(mnemo.EINVALID, "event %s must be a JSON object", field)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "event %s is not valid JSON", field)
	}
	return buf.Bytes(), nil
}

// QueryEvents returns a page of the scope's events in order (by time, then
// arrival), hot and cold alike. Errors: EINVALID (a window that runs
// backwards, a bad cursor or limit), EUNAVAILABLE.
func (s *Service) QueryEvents(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery) (mnemo.EventPage, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.EventPage{}, err
	}
	es, err := s.eventStore()
	if err != nil {
		return mnemo.EventPage{}, err
	}
	if q, err = mnemo.CheckEventQuery(q); err != nil {
		return mnemo.EventPage{}, err
	}
	p, err := es.QueryEvents(ctx, scope, q)
	for i := range p.Events {
		security.ClassifyEvent(&p.Events[i]) // stored before levels were kept (SEC-11)
	}
	return p, err
}

// eachEvent calls fn with every event matching q, in order, page by page:
// no read is held open while fn runs.
func (s *Service) eachEvent(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery, fn func(mnemo.Event) error) error {
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
func (s *Service) GetEvent(ctx context.Context, scope mnemo.Scope, id string) (mnemo.Event, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Event{}, err
	}
	es, err := s.eventStore()
	if err != nil {
		return mnemo.Event{}, err
	}
	if id == "" {
		return mnemo.Event{}, mnemo.Errorf(mnemo.EINVALID, "id is required")
	}
	e, err := es.GetEvent(ctx, scope, id)
	security.ClassifyEvent(&e) // stored before levels were kept (SEC-11)
	return e, err
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
		return 0, mnemo.Errorf(mnemo.EINVALID, "the age of events to archive must not be negative")
	}
	if olderThan == 0 {
		olderThan = s.events.ColdAfter
	}
	return es.ArchiveEvents(ctx, s.now().Add(-olderThan))
}
