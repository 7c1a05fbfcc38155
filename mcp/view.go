package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
)

// Memory is what a tool result shows of a memory. It leaves out what the
// model has no use for (tenant and agent, which the connection fixed;
// embeddings; format version). The service masked what this channel may
// not read (SEC-3, SEC-8) before it got here.
type Memory struct {
	ID            string          `json:"id"`
	Key           string          `json:"key,omitempty" jsonschema:"the memory's key: a path such as /user/preference/editor or a URI such as knowledge://go/errors"`
	SessionID     string          `json:"session_id,omitempty"`
	Content       string          `json:"content" jsonschema:"the memory's text; masked when security_level is confidential or restricted"`
	Data          json.RawMessage `json:"data,omitempty" jsonschema:"free JSON kept with the memory (set_memory's json_content)"`
	Summary       string          `json:"summary,omitempty"`
	Type          string          `json:"type"`
	Category      string          `json:"category,omitempty"`
	Priority      int             `json:"priority" jsonschema:"0 (P0, never decays) to 3 (P3, decays fastest)"`
	Importance    float64         `json:"importance"`
	Confidence    float64         `json:"confidence"`
	Tags          []string        `json:"tags"`
	SecurityLevel string          `json:"security_level"`
	Masked        bool            `json:"masked,omitempty" jsonschema:"true when the memory was masked for its security level: content and summary are a marker and a length, and data, entities and occurred are left out"`
	Pinned        bool            `json:"pinned"`
	Source        json.RawMessage `json:"source,omitempty" jsonschema:"provenance: a string or an object with kind, name, retrieved_at and locator"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	AccessedAt    time.Time       `json:"accessed_at"`
	AccessCount   int             `json:"access_count"`
	ExpiresAt     *time.Time      `json:"expires_at,omitempty"`
	Archived      bool            `json:"archived,omitempty"`
	Vitality      float64         `json:"vitality"`
	Occurred      *mnemo.Occurred `json:"occurred,omitempty" jsonschema:"when what it tells happened: start, end, the expression it was read from, source (writer, text or created)"`
	ValidTo       *time.Time      `json:"valid_to,omitempty" jsonschema:"when what it says stopped holding: replaced by a newer value of its key, contradicted, or as its writer said"`
	Entities      []string        `json:"entities,omitempty" jsonschema:"people and named things it is by or about"`
}

// Scored is a recalled memory with its score.
type Scored struct {
	Memory
	Score     float64           `json:"score" jsonschema:"the final score, which orders the results: relevance less the diversity penalty"`
	Relevance float64           `json:"relevance" jsonschema:"how well the memory scored on its own, before diversity"`
	Match     string            `json:"match" jsonschema:"how well it matches the query: strong, weak or none"`
	Explain   *rank.Explanation `json:"explain,omitempty" jsonschema:"every score component, when explain was asked"`
}

// view returns what a tool result shows of m, which the service masked for
// this channel (SEC-3, SEC-8).
func view(m *mnemo.Memory) Memory {
	v := Memory{
		ID: m.ID, Key: m.Key, SessionID: m.SessionID,
		Content: m.Content, Data: m.Data, Summary: m.Summary,
		Type: m.Type, Category: m.Category, Priority: m.Priority,
		Importance: m.Importance, Confidence: m.Confidence, Tags: m.Tags,
		SecurityLevel: m.SecurityLevel, Pinned: m.Pinned, Source: m.Source,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, AccessedAt: m.AccessedAt,
		AccessCount: m.AccessCount, ExpiresAt: m.ExpiresAt, Archived: m.Archived,
		Vitality: m.Vitality, Occurred: m.Occurred, ValidTo: m.ValidTo, Entities: m.Entities,
	}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	v.Masked = security.Masked.Conceals(m.SecurityLevel)
	return v
}

func views(ms []mnemo.Memory) []Memory {
	out := make([]Memory, len(ms))
	for i := range ms {
		out[i] = view(&ms[i])
	}
	return out
}

func scoredViews(rs []memory.Scored) []Scored {
	out := make([]Scored, len(rs))
	for i := range rs {
		out[i] = Scored{Memory: view(&rs[i].Memory), Score: rs[i].Score, Relevance: rs[i].Relevance, Match: rs[i].Match, Explain: rs[i].Explain}
	}
	return out
}

// line renders a memory on one line for a tool's text result.
func line(m *Memory, extra ...string) string {
	var b strings.Builder
	b.WriteString(oneLine(m.Content))
	b.WriteString(" (id ")
	b.WriteString(m.ID)
	if m.Key != "" {
		b.WriteString(", key ")
		b.WriteString(m.Key)
	}
	fmt.Fprintf(&b, ", %s, P%d", m.Type, m.Priority)
	if len(m.Tags) > 0 {
		b.WriteString(", tags ")
		b.WriteString(strings.Join(m.Tags, " "))
	}
	for _, e := range extra {
		b.WriteString(", ")
		b.WriteString(e)
	}
	b.WriteString(")")
	return b.String()
}

// list renders memories as a numbered list, or none when there are none.
func list(n int, render func(i int) string, none string) string {
	if n == 0 {
		return none
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d. %s\n", i+1, render(i))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
