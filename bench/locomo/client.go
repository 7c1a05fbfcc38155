package locomo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/temporal"
)

// HTTPSystem evaluates a mnemo server through its JSON API: turns go in
// through POST /v1/messages, questions through POST /v1/surface (no side
// effect, so the order questions are asked in does not matter).
type HTTPSystem struct {
	BaseURL string
	Client  *http.Client
	Profile string // ranking profile; empty is the server's default
	// PerRequest is how many turns a request sends; 0 sends a session
	// in one.
	PerRequest int
	// NamesInText sends each turn as "Speaker: text" with no name.
	NamesInText bool
}

type message struct {
	Key       string    `json:"key"`
	Role      string    `json:"role"`
	Name      string    `json:"name"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// AddSession implements System.
func (h *HTTPSystem) AddSession(ctx context.Context, agent, session string, at time.Time, turns []Turn) error {
	msgs := make([]message, len(turns))
	for i, t := range turns {
		msgs[i] = message{Key: "/turn/" + t.DiaID, Role: "user", Name: t.Speaker, Content: t.Content(), CreatedAt: at}
		if h.NamesInText {
			msgs[i].Name, msgs[i].Content = "", t.Speaker+": "+t.Content()
		}
	}
	n := h.PerRequest
	if n <= 0 {
		n = len(msgs)
	}
	for part := range slices.Chunk(msgs, n) {
		var out struct {
			IDs []string `json:"ids"`
		}
		if err := h.post(ctx, "/v1/messages", map[string]any{"agent_id": agent, "session_id": session, "messages": part}, &out); err != nil {
			return err
		}
		if len(out.IDs) != len(part) {
			return fmt.Errorf("stored %d of %d turns", len(out.IDs), len(part))
		}
	}
	return nil
}

// SearchMatch implements MatchSearcher: the keys, occurred windows and
// match of the answer, and with explain each result's match features.
func (h *HTTPSystem) SearchMatch(ctx context.Context, agent, query string, now time.Time, limit int, explain bool) (Answer, error) {
	req := map[string]any{"agent_id": agent, "query": query, "now": now, "limit": limit, "explain": explain, "trace": true}
	if h.Profile != "" {
		req["profile"] = h.Profile
	}
	var out struct {
		Trace      *memory.Trace `json:"trace"`
		Match      string        `json:"match"`
		MatchScore float64       `json:"match_score"`
		Results    []struct {
			Key      string           `json:"key"`
			Score    float64          `json:"score"`
			Occurred *temporal.Window `json:"occurred"`
			Explain  *struct {
				Match json.RawMessage `json:"match"`
			} `json:"explain"`
		} `json:"results"`
	}
	if err := h.post(ctx, "/v1/surface", req, &out); err != nil {
		return Answer{}, err
	}
	a := Answer{Trace: out.Trace, Match: out.Match, MatchScore: out.MatchScore, Keys: make([]string, len(out.Results)), Occurred: make([]temporal.Window, len(out.Results))}
	for i, r := range out.Results {
		a.Keys[i] = r.Key
		if i == 0 {
			a.TopScore = r.Score
		}
		if r.Occurred != nil {
			a.Occurred[i] = *r.Occurred
		}
		if r.Explain != nil {
			a.Features = append(a.Features, r.Explain.Match)
		}
	}
	return a, nil
}

// Search implements System.
func (h *HTTPSystem) Search(ctx context.Context, agent, query string, now time.Time, limit int) ([]string, error) {
	keys, _, err := h.SearchOccurred(ctx, agent, query, now, limit)
	return keys, err
}

// SearchOccurred implements OccurredSearcher: the keys and the occurred
// windows of the results (REC-24).
func (h *HTTPSystem) SearchOccurred(ctx context.Context, agent, query string, now time.Time, limit int) ([]string, []temporal.Window, error) {
	req := map[string]any{"agent_id": agent, "query": query, "now": now, "limit": limit}
	if h.Profile != "" {
		req["profile"] = h.Profile
	}
	var out struct {
		Results []struct {
			Key      string           `json:"key"`
			Occurred *temporal.Window `json:"occurred"`
		} `json:"results"`
	}
	if err := h.post(ctx, "/v1/surface", req, &out); err != nil {
		return nil, nil, err
	}
	keys := make([]string, len(out.Results))
	occ := make([]temporal.Window, len(out.Results))
	for i, r := range out.Results {
		keys[i] = r.Key
		if r.Occurred != nil {
			occ[i] = *r.Occurred
		}
	}
	return keys, occ, nil
}

func (h *HTTPSystem) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s: %s: %s", path, resp.Status, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, out)
}
