package http

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/webhook"
)

// The routes of the event layers (EVT-1): L1 events (append, query, get,
// replay to a webhook or a Server-Sent Events stream, export) and the L2
// graph (neighbours, traversal, shortest path, links).

// eventInput is one event as a client sends it: its scope is the
// request's.
type eventInput struct {
	ID       string          `json:"id,omitempty"`
	TS       *time.Time      `json:"ts,omitempty"`
	Type     string          `json:"type"`
	Source   string          `json:"source,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Vectors are L3 embeddings the caller made (a media embedding with
	// its model's name).
	Vectors []mnemo.EventVector `json:"vectors,omitempty"`
}

func (in eventInput) event() mnemo.Event {
	e := mnemo.Event{ID: in.ID, Type: in.Type, Source: in.Source, Data: in.Data, Metadata: in.Metadata, Vectors: in.Vectors}
	if in.TS != nil {
		e.TS = *in.TS
	}
	return e
}

type appendEventRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	eventInput
}

type appendEventsRequest struct {
	AgentID string       `json:"agent_id,omitempty"`
	Events  []eventInput `json:"events"`
}

type eventsResponse struct {
	Events []mnemo.Event `json:"events"`
}

type replayRequest struct {
	AgentID    string     `json:"agent_id,omitempty"`
	From       *time.Time `json:"from,omitempty"`
	To         *time.Time `json:"to,omitempty"`
	Types      []string   `json:"types,omitempty"`
	Sources    []string   `json:"sources,omitempty"`
	Cursor     string     `json:"cursor,omitempty"`
	Speed      float64    `json:"speed,omitempty"`
	WebhookURL string     `json:"webhook_url"`
}

// replayResponse says how far a replay got; error and code say why it
// stopped early, and next resumes it.
type replayResponse struct {
	events.ReplayResult
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

type linkRequest struct {
	AgentID    string  `json:"agent_id,omitempty"`
	Source     string  `json:"source"`
	Target     string  `json:"target"`
	Type       string  `json:"type,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
}

type relationsResponse struct {
	Relations []mnemo.Relation `json:"relations"`
}

func (b appendEventRequest) agent() string  { return b.AgentID }
func (b appendEventsRequest) agent() string { return b.AgentID }
func (b replayRequest) agent() string       { return b.AgentID }
func (b linkRequest) agent() string         { return b.AgentID }

// eventExportDocument is the shape of the JSON export, for the OpenAPI
// document (mnemo.ExportEvents streams it).
type eventExportDocument struct {
	Format   string     `json:"format"`
	TenantID string     `json:"tenant_id"`
	AgentID  string     `json:"agent_id"`
	From     *time.Time `json:"from,omitempty"`
	To       *time.Time `json:"to,omitempty"`
	Layers   struct {
		L1Events       []mnemo.Event      `json:"l1_events"`
		L2Relations    []mnemo.Relation   `json:"l2_relations"`
		L3Embeddings   []json.RawMessage  `json:"l3_embeddings"`
		L4Summaries    []mnemo.Summary    `json:"l4_summaries"`
		L5Capabilities []mnemo.Capability `json:"l5_capabilities"`
	} `json:"layers"`
}

var windowParams = []param{
	{name: "from", schema: timeSchema, doc: "Events at or after this time (RFC 3339, a date or words)."},
	{name: "to", schema: timeSchema, doc: "Events before this time (RFC 3339, a date or words); before from is an error."},
	{name: "types", schema: stringsSchema, doc: "Events of these types; repeat the parameter or separate with commas."},
	{name: "sources", schema: stringsSchema, doc: "Events from these sources."},
	{name: "cursor", schema: stringSchema, doc: "Continue after a previous page: its next."},
}

var speedParam = param{name: "speed", schema: map[string]any{"type": "number", "minimum": 0, "default": 0},
	doc: "How many times faster than it happened: 1 real speed, 10 ten times faster, 0 as fast as possible."}

var graphParams = []param{
	{name: "direction", schema: map[string]any{"type": "string", "enum": []string{mnemo.DirOut, mnemo.DirIn, mnemo.DirBoth}, "default": mnemo.DirBoth},
		doc: "Follow edges out of a node, into it, or both."},
	{name: "types", schema: stringsSchema, doc: "Only relations of these types (parent, precedes, causes, related, ...)."},
	{name: "depth", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": events.MaxGraphDepth}, doc: "How many hops."},
}

var nodeParam = param{name: "node", schema: stringSchema, required: true, doc: "An event id or a memory id."}

func (s *Server) eventRoutes() []route {
	agent := []param{agentParam}
	return []route{
		{method: "POST", path: "/v1/events", summary: "Append an event (L1)",
			doc:    "Stores a raw event, append-only, with the relations (L2) the rules find: parent (data.parent_id or metadata.parent_id), precedes (the previous event of its source), causes (a start and its end such as AgentStarted and AgentStopped, an error and its retry or data.retry_of); the event and its relations commit together. id defaults to a UUIDv7, ts to now. In strict mode an unknown type is refused.",
			scopes: []string{ScopeWrite}, body: appendEventRequest{}, status: 201, resp: mnemo.Event{}, handler: s.handleAppendEvent},
		{method: "POST", path: "/v1/events/batch", summary: "Append many events at once",
			doc:    "Stores every event and its relations or none: an invalid one fails the batch with an error naming its index.",
			scopes: []string{ScopeWrite}, body: appendEventsRequest{}, status: 201, resp: eventsResponse{}, handler: s.handleAppendEvents},
		{method: "GET", path: "/v1/events", summary: "Query events in order",
			doc:    "Events by time, then arrival, in a window and by type and source, recent and archived (cold) alike; page with cursor.",
			scopes: []string{ScopeRead}, params: append(append([]param{agentParam}, windowParams...),
				param{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": 100}, doc: "How many events to return."}),
			status: 200, resp: mnemo.EventPage{}, handler: s.handleQueryEvents},
		{method: "GET", path: "/v1/events/{id}", summary: "Get an event by id",
			scopes: []string{ScopeRead}, params: agent, status: 200, resp: mnemo.Event{}, handler: s.handleGetEvent},
		{method: "GET", path: "/v1/events/stream", summary: "Replay events as a Server-Sent Events stream",
			doc:    "Re-publishes a window in its original order, at a speed factor, one SSE message per event (its id is the cursor, so that Last-Event-ID resumes), then an end event with how many were sent; comments keep the connection alive while it waits. The request is not bounded by the server's timeout.",
			scopes: []string{ScopeRead}, params: append(append([]param{agentParam}, windowParams...), speedParam),
			status: 200, resp: "", contentType: "text/event-stream", stream: true, handler: s.handleStreamEvents},
		{method: "POST", path: "/v1/events/replay", summary: "Replay events to a webhook",
			doc:    "POSTs each event of the window in order to webhook_url at a speed factor, retrying with backoff; it stops when the webhook gives up or refuses, and the answer says how far it got (next resumes it) and why it stopped. Bounded by the server's request timeout: replay long windows with the stream or the CLI.",
			scopes: []string{ScopeAdmin}, body: replayRequest{}, status: 200, resp: replayResponse{}, handler: s.handleReplay},
		{method: "GET", path: "/v1/events/export", summary: "Export events and their relations, JSON or CSV",
			doc:    "Every layer of a window: L1 events, the L2 relations touching them, the L4 summaries of periods starting in it and the agent's L5 capabilities (L3 as an empty array until it exists). format=csv answers text/csv instead: one row per item with a layer column.",
			scopes: []string{ScopeRead}, params: append(append([]param{agentParam}, windowParams[:4]...),
				param{name: "format", schema: map[string]any{"type": "string", "enum": []string{events.ExportJSON, events.ExportCSV}, "default": events.ExportJSON}, doc: "json or csv."}),
			status: 200, resp: eventExportDocument{}, handler: s.handleExportEvents},
		{method: "GET", path: "/v1/events/graph/neighbours", summary: "The relations touching a node",
			scopes: []string{ScopeRead}, params: append([]param{agentParam, nodeParam}, graphParams[0], graphParams[1],
				param{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": mnemo.MaxListLimit, "default": 100}, doc: "How many relations."}),
			status: 200, resp: relationsResponse{}, handler: s.handleNeighbours},
		{method: "GET", path: "/v1/events/graph/traverse", summary: "Walk the graph from a node",
			doc:    "Breadth first, up to depth hops (default 1), along relations of the given types and direction: every node reached with its distance, and every edge crossed.",
			scopes: []string{ScopeRead}, params: append([]param{agentParam, nodeParam}, graphParams...), status: 200, resp: events.Graph{}, handler: s.handleTraverse},
		{method: "GET", path: "/v1/events/graph/path", summary: "A shortest path between two nodes",
			doc:    "The relations of a shortest path (breadth first, at most depth hops, default 6), in walk order; 404 when there is none.",
			scopes: []string{ScopeRead}, params: append([]param{agentParam,
				{name: "from", schema: stringSchema, required: true, doc: "The start: an event id or a memory id."},
				{name: "to", schema: stringSchema, required: true, doc: "The end."}}, graphParams...),
			status: 200, resp: relationsResponse{}, handler: s.handlePath},
		{method: "POST", path: "/v1/events/graph/links", summary: "Link two events or memories",
			doc:    "Relates two nodes of the agent, each an event or a memory (type defaults to related, confidence to 1); 404 when an end is neither.",
			scopes: []string{ScopeWrite}, body: linkRequest{}, status: 201, resp: mnemo.Relation{}, handler: s.handleLink},
	}
}

func (s *Server) handleAppendEvent(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b appendEventRequest) (mnemo.Event, error) {
		return s.svc.AppendEvent(r.Context(), sc, b.event())
	})(w, r)
}

func (s *Server) handleAppendEvents(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b appendEventsRequest) (eventsResponse, error) {
		evs := make([]mnemo.Event, len(b.Events))
		for i, in := range b.Events {
			evs[i] = in.event()
		}
		out, err := s.svc.AppendEvents(r.Context(), sc, evs)
		return eventsResponse{Events: out}, err
	})(w, r)
}

// eventQuery reads a window, its filters and a cursor from the query.
func eventQuery(r *http.Request) (mnemo.EventQuery, error) {
	v := r.URL.Query()
	q := mnemo.EventQuery{Types: splitList(v["types"]), Sources: splitList(v["sources"]), Cursor: v.Get("cursor")}
	for _, t := range []struct {
		name string
		dst  **time.Time
	}{{"from", &q.From}, {"to", &q.To}} {
		if s := v.Get(t.name); s != "" {
			at, err := queryTime(t.name, s)
			if err != nil {
				return q, err
			}
			*t.dst = &at
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return q, mnemo.Errorf(mnemo.EINVALID, "limit must be a positive integer")
		}
		q.Limit = n
	}
	return q, nil
}

func (s *Server) handleQueryEvents(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (mnemo.EventPage, error) {
		q, err := eventQuery(r)
		if err != nil {
			return mnemo.EventPage{}, err
		}
		p, err := s.svc.QueryEvents(r.Context(), sc, q)
		if p.Events == nil {
			p.Events = []mnemo.Event{}
		}
		return p, err
	})(w, r)
}

func (s *Server) handleGetEvent(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (mnemo.Event, error) {
		return s.svc.GetEvent(r.Context(), sc, r.PathValue("id"))
	})(w, r)
}

// speedOf reads the speed parameter.
func speedOf(r *http.Request) (float64, error) {
	s := r.URL.Query().Get("speed")
	if s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, mnemo.Errorf(mnemo.EINVALID, "speed must be a number, 0 or more")
	}
	return f, nil
}

// sseKeepAlive is how often a waiting stream sends a comment, so that
// proxies and clients do not take the silence for a dead connection.
const sseKeepAlive = 15 * time.Second

func (s *Server) handleStreamEvents(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q, err := eventQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if id := r.Header.Get("Last-Event-ID"); id != "" && q.Cursor == "" {
		q.Cursor = id // an EventSource reconnecting resumes where it was
	}
	speed, err := speedOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Check the window and the scope before the first byte: once the
	// stream starts, an error can no longer become a problem response.
	probe := q
	probe.Limit = 1
	if _, err := s.svc.QueryEvents(r.Context(), sc, probe); err != nil {
		s.writeError(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc.Flush()

	// Writes come from the replay and from the keep-alive ticker.
	var mu sync.Mutex
	write := func(format string, args ...any) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return mnemo.Errorf(mnemo.EUNAVAILABLE, "the stream's client went away")
		}
		return rc.Flush()
	}
	ctx, cancel := context.WithCancel(r.Context())
	var ticking sync.WaitGroup
	defer ticking.Wait() // no write after the handler returns
	defer cancel()
	ticking.Go(func() {
		t := time.NewTicker(sseKeepAlive)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if write(": keep-alive\n\n") != nil {
					cancel()
					return
				}
			}
		}
	})
	sink := events.SinkFunc(func(_ context.Context, e mnemo.Event) error {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		return write("id: %s\nevent: event\ndata: %s\n\n", mnemo.EventCursor{TS: e.TS, Seq: e.Seq}, b)
	})
	res, err := s.svc.Replay(ctx, sc, events.ReplayOptions{EventQuery: q, Speed: speed}, sink)
	end, _ := json.Marshal(replayEnd(res, err))
	if ctx.Err() == nil {
		write("event: end\ndata: %s\n\n", end)
	}
	if err != nil && ctx.Err() == nil {
		s.log.Warn("event stream cut short", "err", err)
	}
}

// replayEnd is a replay's result with the reason it stopped early.
func replayEnd(res events.ReplayResult, err error) replayResponse {
	out := replayResponse{ReplayResult: res}
	if err != nil {
		out.Error, out.Code = mnemo.ErrorMessage(err), mnemo.ErrorCode(err)
	}
	return out
}

func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b replayRequest) (replayResponse, error) {
		sink, err := webhook.New(b.WebhookURL, s.webhook)
		if err != nil {
			return replayResponse{}, err
		}
		q := mnemo.EventQuery{From: b.From, To: b.To, Types: b.Types, Sources: b.Sources, Cursor: b.Cursor}
		if _, err := mnemo.CheckEventQuery(q); err != nil {
			return replayResponse{}, err
		}
		res, err := s.svc.Replay(r.Context(), sc, events.ReplayOptions{EventQuery: q, Speed: b.Speed}, sink)
		if err != nil && res.Published == 0 && mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
			return replayResponse{}, err // nothing was sent: a plain failure
		}
		return replayEnd(res, err), nil
	})(w, r)
}

func (s *Server) handleExportEvents(w http.ResponseWriter, r *http.Request) {
	sc, err := requestScope(r, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q, err := eventQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = events.ExportJSON
	}
	if format != events.ExportJSON && format != events.ExportCSV {
		s.writeError(w, r, mnemo.Errorf(mnemo.EINVALID, "format must be json or csv, not %q", format))
		return
	}
	if err := exportable(r, "events"); err != nil {
		s.writeError(w, r, err)
		return
	}
	probe := q
	probe.Limit = 1
	if _, err := s.svc.QueryEvents(r.Context(), sc, probe); err != nil {
		s.writeError(w, r, err)
		return
	}
	if format == events.ExportCSV {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if _, err := s.svc.ExportEvents(r.Context(), sc, q, format, w); err != nil {
		s.log.Warn("event export cut short", "err", err)
	}
}

// graphQuery reads direction, types, depth and limit from the query.
func graphQuery(r *http.Request) (events.GraphQuery, error) {
	v := r.URL.Query()
	q := events.GraphQuery{Direction: v.Get("direction"), Types: splitList(v["types"])}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"depth", &q.Depth}, {"limit", &q.Limit}} {
		if s := v.Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return q, mnemo.Errorf(mnemo.EINVALID, "%s must be a positive integer", p.name)
			}
			*p.dst = n
		}
	}
	return q, nil
}

func (s *Server) handleNeighbours(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (relationsResponse, error) {
		q, err := graphQuery(r)
		if err != nil {
			return relationsResponse{}, err
		}
		rels, err := s.svc.Neighbours(r.Context(), sc, r.URL.Query().Get("node"), q)
		return relationsResponse{Relations: rels}, err
	})(w, r)
}

func (s *Server) handleTraverse(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (events.Graph, error) {
		q, err := graphQuery(r)
		if err != nil {
			return events.Graph{}, err
		}
		return s.svc.Traverse(r.Context(), sc, r.URL.Query().Get("node"), q)
	})(w, r)
}

func (s *Server) handlePath(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (relationsResponse, error) {
		q, err := graphQuery(r)
		if err != nil {
			return relationsResponse{}, err
		}
		v := r.URL.Query()
		if strings.TrimSpace(v.Get("to")) == "" {
			return relationsResponse{}, mnemo.Errorf(mnemo.EINVALID, "to is required")
		}
		rels, err := s.svc.ShortestPath(r.Context(), sc, v.Get("from"), v.Get("to"), q)
		return relationsResponse{Relations: rels}, err
	})(w, r)
}

func (s *Server) handleLink(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusCreated, func(r *http.Request, sc mnemo.Scope, b linkRequest) (mnemo.Relation, error) {
		return s.svc.Link(r.Context(), sc, mnemo.Relation{Source: b.Source, Target: b.Target, Type: b.Type, Confidence: b.Confidence})
	})(w, r)
}
