package http

import (
	"net/http"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// The routes of L3 (search by meaning, EVT-8, EVT-9), of L2 relations from
// text (EVT-6), and of the adaptive user profile (EVT-13).

type searchEventsRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	events.Search
}

type searchEventsResponse struct {
	Hits []events.Hit `json:"hits"`
}

type relateTextRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	EventID string `json:"event_id"`
}

type putProfileRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	// Version is the record's version as read (0: none yet); a write
	// that raced another is 409 conflict.
	Version int64          `json:"version"`
	Profile events.Profile `json:"profile"`
}

type interactionRequest struct {
	AgentID string `json:"agent_id,omitempty"`
	Text    string `json:"text"`
}

type interactionResponse struct {
	Updated bool                 `json:"updated"`
	Record  events.ProfileRecord `json:"record"`
}

func (b searchEventsRequest) agent() string { return b.AgentID }
func (b relateTextRequest) agent() string   { return b.AgentID }
func (b putProfileRequest) agent() string   { return b.AgentID }
func (b interactionRequest) agent() string  { return b.AgentID }

func (s *Server) eventLayerRoutes() []route {
	return []route{
		{method: "POST", path: "/v1/events/search", summary: "Search events by meaning (L3)",
			doc:    "The events nearest query (embedded with the server's embedder) or vector (made by model), best first, top 10 by default, filtered by time window, types, sources and modalities; lexical (0 to 1) weighs the share of query words in an event's text into the score. Only vectors of the query's model are compared: image, audio and text vectors of one multimodal model are searched together; asking for a modality embedded by another model is 409 model_mismatch.",
			scopes: []string{ScopeRead}, body: searchEventsRequest{}, status: 200, resp: searchEventsResponse{}, handler: s.handleSearchEvents},
		{method: "POST", path: "/v1/events/graph/text", summary: "Extract an event's text relations now (L2)",
			doc:    "Entity, emotion and intent relations of a stored event's text, from the configured model or rules, as edges to entity:, emotion: and intent: nodes; the same runs in the background after appends when configured.",
			scopes: []string{ScopeWrite}, body: relateTextRequest{}, status: 200, resp: relationsResponse{}, handler: s.handleRelateText},
		{method: "GET", path: "/v1/profile", summary: "The user profile and its update schedule",
			doc:    "Interests, needs, traits and emotions, with the schedule: phase (initial: every interaction for the first 100; backoff: every 1st, 5th, 10th, 50th; weekly), the interactions until the next update or its time, and why the last one happened.",
			scopes: []string{ScopeRead}, params: []param{agentParam}, status: 200, resp: events.ProfileRecord{}, handler: s.handleGetProfile},
		{method: "PUT", path: "/v1/profile", summary: "Replace the user profile",
			doc:    "Optimistic locking: version is the one read; 409 conflict when another writer changed the profile since.",
			scopes: []string{ScopeWrite}, body: putProfileRequest{}, status: 200, resp: events.ProfileRecord{}, handler: s.handlePutProfile},
		{method: "POST", path: "/v1/profile/interactions", summary: "Record an interaction of the user",
			doc:    "Counts it and updates the profile when the schedule says so, or at once when the text shows a new interest or need (which resets the backoff); updated says whether it did.",
			scopes: []string{ScopeWrite}, body: interactionRequest{}, status: 200, resp: interactionResponse{}, handler: s.handleInteraction},
	}
}

func (s *Server) handleSearchEvents(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b searchEventsRequest) (searchEventsResponse, error) {
		hits, err := s.svc.SearchEvents(r.Context(), sc, b.Search)
		if hits == nil {
			hits = []events.Hit{}
		}
		return searchEventsResponse{Hits: hits}, err
	})(w, r)
}

func (s *Server) handleRelateText(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b relateTextRequest) (relationsResponse, error) {
		if b.EventID == "" {
			return relationsResponse{}, mnemo.Errorf(mnemo.EINVALID, "event_id is required")
		}
		rels, err := s.svc.RelateEventText(r.Context(), sc, b.EventID)
		if rels == nil {
			rels = []mnemo.Relation{}
		}
		return relationsResponse{Relations: rels}, err
	})(w, r)
}

func (s *Server) handleGetProfile(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (events.ProfileRecord, error) {
		return s.svc.Profile(r.Context(), sc)
	})(w, r)
}

func (s *Server) handlePutProfile(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b putProfileRequest) (events.ProfileRecord, error) {
		return s.svc.PutProfile(r.Context(), sc, b.Version, b.Profile)
	})(w, r)
}

func (s *Server) handleInteraction(w http.ResponseWriter, r *http.Request) {
	scoped(s, http.StatusOK, func(r *http.Request, sc mnemo.Scope, b interactionRequest) (interactionResponse, error) {
		rec, up, err := s.svc.RecordInteraction(r.Context(), sc, b.Text)
		return interactionResponse{Updated: up, Record: rec}, err
	})(w, r)
}
