package agentcontext

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"

	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// ReadQuery asks for the default read (CTX-19): the memories to put
// into a prompt when the agent wakes, with no query.
type ReadQuery struct {
	TokenLimit int `json:"token_limit"`
	// Tags are the context's tags: a memory sharing them ranks higher, but
	// they select nothing (a signal, not a filter).
	Tags []string `json:"tags,omitempty"`
	// Now is the current time, for expiry and recency; zero is the clock.
	Now time.Time `json:"current_time,omitempty"`
}

// ReadResult is a default read: compact lines `key type summary` under a
// header, within the token limit.
type ReadResult struct {
	Text       string     `json:"text"`
	Lines      []ReadLine `json:"lines"`
	Tokens     int        `json:"tokens"`
	TokenLimit int        `json:"token_limit"`
	// Effective counts the memories that could be read (live, neither
	// expired nor archived); Omitted those that did not fit.
	Effective int `json:"effective"`
	Omitted   int `json:"omitted"`
	// SecurityLevel is the highest level of the memories in Text (SEC-12):
	// the read is as secret as they are, masked or not.
	SecurityLevel string `json:"security_level"`
}

// ReadLine is one memory of a default read.
type ReadLine struct {
	ID     string  `json:"id"`
	Key    string  `json:"key,omitempty"`
	Type   string  `json:"type,omitempty"`
	Line   string  `json:"line"`
	Score  float64 `json:"score"`
	Tokens int     `json:"tokens"`
	// SecurityLevel is the memory's (SEC-2); Line is masked for it when
	// the read was asked redacted.
	SecurityLevel string `json:"security_level"`
}

// ReadHeader opens a default read (CTX-22).
const ReadHeader = "[Agent Memory]"

// Default-read ranking (CTX-21): recency first, then importance,
// then tag match, as weights of one score; recency halves every week.
const (
	readRecencyWeight    = 0.5
	readImportanceWeight = 0.3
	readTagWeight        = 0.2
	readHalfLife         = 7 * 24 * time.Hour
	// readCandidates bounds the memories scored: the newest 2,000. The read
	// is best-effort (CTX-19); a memory further back can rank only
	// on importance and tags, and there are 2,000 newer ones for a prompt
	// of a few dozen lines. Scoring every one would miss PERF-5 on a large
	// store (docs/BENCHMARKS.md, "Context for a prompt").
	readCandidates = 2000
	readLineChars  = 160
	// A line is at least minReadLine tokens; after maxReadMisses lines in a
	// row that do not fit, the read is taken as full.
	minReadLine   = 6
	maxReadMisses = 32
)

// DefaultRead returns the effective memories (the latest write of each
// key, without tombstones, expired or archived ones) ranked by recency,
// importance and tag match, as compact lines within TokenLimit.
func (s *Service) DefaultRead(ctx context.Context, scope mnemo.Scope, q ReadQuery) (ReadResult, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ReadResult{}, err
	}
	if q.TokenLimit <= 0 {
		return ReadResult{}, mnemo.Errorf(mnemo.EINVALID, "token_limit must be positive")
	}
	if q.TokenLimit > 1<<20 {
		return ReadResult{}, mnemo.Errorf(mnemo.EINVALID, "token_limit is over %d", 1<<20)
	}
	tags, err := mnemo.CheckWords("tags", q.Tags)
	if err != nil {
		return ReadResult{}, err
	}
	if err := mnemo.CheckTime("now", q.Now); err != nil { // TIME-1
		return ReadResult{}, err
	}
	now := q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	ms, _, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: mnemo.Filter{Now: now}, Order: mnemo.OrderNewest, Limit: readCandidates, NoVectors: true, NoTotal: true})
	if err != nil {
		return ReadResult{}, err
	}
	// The census counts the effective memories without reading them.
	types, err := s.store.CountTypes(ctx, scope, mnemo.Filter{Now: now})
	if err != nil {
		return ReadResult{}, err
	}
	total := 0
	for _, tc := range types {
		total += tc.Count
	}
	type scored struct {
		m     *mnemo.Memory
		score float64
	}
	ranked := make([]scored, len(ms))
	for i := range ms {
		m := &ms[i]
		fromData(m)
		age := max(0, now.Sub(m.UpdatedAt))
		recency := math.Exp2(-float64(age) / float64(readHalfLife))
		match := 0.0
		if len(tags) > 0 {
			n := 0
			for _, t := range tags {
				if slices.Contains(m.Tags, t) {
					n++
				}
			}
			match = float64(n) / float64(len(tags))
		}
		ranked[i] = scored{m, readRecencyWeight*recency + readImportanceWeight*m.Importance + readTagWeight*match}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return b.m.UpdatedAt.Compare(a.m.UpdatedAt)
	})

	res := ReadResult{Lines: []ReadLine{}, TokenLimit: q.TokenLimit, Effective: total, SecurityLevel: mnemo.SecurityPublic}
	used := s.tok.Count(ReadHeader + "\n")
	if used > q.TokenLimit {
		return ReadResult{}, mnemo.Errorf(mnemo.EINVALID, "token_limit %d cannot hold even the header", q.TokenLimit)
	}
	// Room for the note saying how many did not fit.
	const noteReserve = 16
	var b strings.Builder
	b.WriteString(ReadHeader + "\n")
	misses := 0
	clear := security.ClearanceFrom(ctx) // SEC-8: what it may not read is masked
	for _, r := range ranked {
		if q.TokenLimit-noteReserve-used < minReadLine || misses == maxReadMisses {
			break // full, or full enough that nothing further down will fit
		}
		line := readLine(r.m, clear)
		n := s.tok.Count(line + "\n")
		if used+n > q.TokenLimit-noteReserve {
			misses++
			continue // a shorter line further down may still fit
		}
		used += n
		b.WriteString(line + "\n")
		res.Lines = append(res.Lines, ReadLine{ID: r.m.ID, Key: r.m.Key, Type: r.m.Type, Line: line, Score: r.score, Tokens: n, SecurityLevel: r.m.SecurityLevel})
		res.SecurityLevel = mnemo.Highest(res.SecurityLevel, r.m.SecurityLevel)
	}
	res.Omitted = total - len(res.Lines)
	if res.Omitted > 0 {
		note := fmt.Sprintf("(%d more not shown)", res.Omitted)
		if used+s.tok.Count(note+"\n") <= q.TokenLimit {
			b.WriteString(note + "\n")
		}
	}
	res.Text = b.String()
	res.Tokens = s.tok.Count(res.Text)
	return res, nil
}

// fromData takes type, summary, importance and tags from a set_memory
// memory's content (CTX-20, FS-17: optional fields of the free content)
// where the memory's own are unset.
func fromData(m *mnemo.Memory) {
	if len(m.Data) == 0 || m.Data[0] != '{' {
		return
	}
	var d struct {
		Type       string   `json:"type"`
		Summary    string   `json:"summary"`
		Importance *float64 `json:"importance"`
		Tags       []string `json:"tags"`
	}
	if json.Unmarshal(m.Data, &d) != nil {
		return // content that does not follow the convention is fine
	}
	if d.Type != "" && (m.Type == "" || m.Type == mnemo.TypeKnowledge) { // knowledge is the default type
		m.Type = d.Type
	}
	if m.Summary == "" {
		m.Summary = d.Summary
	}
	if d.Importance != nil && *d.Importance >= 0 && *d.Importance <= 1 {
		m.Importance = *d.Importance
	}
	for _, t := range d.Tags {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" && !slices.Contains(m.Tags, t) {
			m.Tags = append(m.Tags, t)
		}
	}
}

// readLine is CTX-22's `key type summary`: the key without its
// leading slash (as ls and grep see it), or the id when there is none.
func readLine(m *mnemo.Memory, clear security.Clearance) string {
	key := strings.TrimPrefix(m.Key, "/")
	if key == "" {
		key = "id:" + m.ID
	}
	text := m.Summary
	if text == "" {
		text = m.Content
	}
	if text == "" && len(m.Data) > 0 {
		text = string(m.Data)
	}
	parts := []string{"-", key}
	if m.Type != "" {
		parts = append(parts, m.Type)
	}
	parts = append(parts, clear.Text(m.SecurityLevel, textutil.Clip(textutil.OneLine(text), readLineChars)))
	return strings.Join(parts, " ")
}
