package agentcontext

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/security"

	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/rank"
)

// SnapshotQuery asks for the memories a run starts with (CTX-12 … CTX-16).
type SnapshotQuery struct {
	Trigger Trigger `json:"trigger"`
	Focus   string  `json:"focus,omitempty"`
	// TokenLimit bounds the whole section; 0 is the configured limit
	// (500 by default).
	TokenLimit int `json:"token_limit,omitempty"`
	// Now is the time "recent" and expiry are judged at; zero is the clock.
	Now time.Time `json:"now,omitempty"`
}

// Snapshot reasons: why a memory is in a snapshot.
const (
	ReasonPinned  = "pinned"
	ReasonRelated = "related"
	ReasonRecent  = "recent"
)

// Snapshot is the memories a run starts with, and their "Recent
// Experience" section for the system prompt.
type Snapshot struct {
	Memories   []SnapshotItem `json:"memories"`
	Text       string         `json:"text"` // the section, ready for the prompt
	Tokens     int            `json:"tokens"`
	TokenLimit int            `json:"token_limit"`
	// Omitted counts the memories that were chosen but did not fit; Notes
	// say which kind, so that nothing is dropped silently.
	Omitted  int      `json:"omitted"`
	Notes    []string `json:"notes,omitempty"`
	Degraded bool     `json:"degraded"`
	Reason   string   `json:"reason,omitempty"`
	// SecurityLevel is the highest level of the memories in Text (SEC-12):
	// the section is as secret as they are, masked or not.
	SecurityLevel string `json:"security_level"`
}

// SnapshotItem is one memory of a snapshot.
type SnapshotItem struct {
	ID        string    `json:"id"`
	Key       string    `json:"key,omitempty"`
	Type      string    `json:"type"`
	Reason    string    `json:"reason"` // pinned, related or recent
	Score     float64   `json:"score,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Line      string    `json:"line"` // as it appears in Text
	Tokens    int       `json:"tokens"`
	Cut       bool      `json:"cut,omitempty"` // the line was shortened to fit
	// SecurityLevel is the memory's (SEC-2); Line is masked for it when
	// the snapshot was asked redacted.
	SecurityLevel string `json:"security_level"`
}

// Snapshot budgets (CTX-13).
const (
	snapshotRelated   = 3
	snapshotRecent    = 5
	snapshotWindow    = 24 * time.Hour
	snapshotMaxPinned = 50
	lineTokens        = 80 // a memory's line is cut beyond this
	minLineTokens     = 16 // a line is not worth cutting below this
)

// RecentExperienceHeading opens a snapshot's section.
const RecentExperienceHeading = "## Recent Experience"

// Snapshot returns the memories a run should start with: every pinned
// memory, the three most related to the trigger and focus, and up to five
// created in the last day, within a token budget (pinned first, then
// relevance, then recency), rendered as the "Recent Experience" section of
// a system prompt. Nothing is recorded as accessed.
func (s *Service) Snapshot(ctx context.Context, scope mnemo.Scope, q SnapshotQuery) (Snapshot, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return Snapshot{}, err
	}
	var err error
	if q.Trigger, err = s.checkTrigger(q.Trigger); err != nil {
		return Snapshot{}, err
	}
	limit, err := tokenLimit(q.TokenLimit, s.opts.SnapshotTokenLimit, 20, "a snapshot")
	if err != nil {
		return Snapshot{}, err
	}
	if err := mnemo.CheckTime("now", q.Now); err != nil { // TIME-1
		return Snapshot{}, err
	}
	now := q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	snap := Snapshot{Memories: []SnapshotItem{}, TokenLimit: limit, SecurityLevel: mnemo.SecurityPublic}

	pinned, nPinned, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: mnemo.Filter{Pinned: true, Now: now}, Limit: snapshotMaxPinned, NoVectors: true})
	if err != nil {
		return Snapshot{}, err
	}
	seen := make(map[string]bool)
	for _, m := range pinned {
		seen[m.ID] = true
	}
	var related []memory.Scored
	text := strings.TrimSpace(q.Trigger.text() + " " + q.Focus)
	// Related means related: what matches nothing of the trigger is left
	// out, not padded in as its nearest (API-17).
	res, err := s.mem.Surface(ctx, scope, memory.Query{Text: text, Limit: min(s.mem.MaxLimit(), snapshotRelated+len(pinned)), Now: now, MinMatch: rank.MatchWeak})
	switch {
	case mnemo.ErrorCode(err) == mnemo.EINVALID:
		snap.Notes = append(snap.Notes, "no related memories: the trigger and focus have nothing to search by")
	case err != nil:
		return Snapshot{}, err
	default:
		snap.Degraded, snap.Reason = res.Degraded, res.Reason
		for _, r := range res.Results {
			if !seen[r.ID] && len(related) < snapshotRelated {
				seen[r.ID] = true
				related = append(related, r)
			}
		}
	}
	after := now.Add(-snapshotWindow)
	recentAll, _, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: mnemo.Filter{CreatedAfter: &after, Now: now}, Limit: snapshotRecent + len(seen), NoVectors: true})
	if err != nil {
		return Snapshot{}, err
	}
	var recent []mnemo.Memory
	for _, m := range recentAll {
		if !seen[m.ID] && len(recent) < snapshotRecent {
			seen[m.ID] = true
			recent = append(recent, m)
		}
	}

	// Fill the budget in priority order; the note about what did not fit
	// is reserved for up front, so that it always fits too.
	const noteReserve = 24
	used := s.tok.Count(RecentExperienceHeading + "\n")
	budget := limit - noteReserve
	omitted := map[string]int{}
	clear := security.ClearanceFrom(ctx) // SEC-8: what it may not read is masked
	add := func(m *mnemo.Memory, reason string, score float64) {
		line := snapshotLine(m, reason, now, clear)
		n := s.tok.Count(line + "\n")
		cut := false
		if n > lineTokens || used+n > budget {
			room := min(lineTokens, budget-used) - 2
			if room < minLineTokens {
				omitted[reason]++
				return
			}
			line, _ = s.tok.Truncate(line, room)
			line += "…"
			n, cut = s.tok.Count(line+"\n"), true
		}
		used += n
		snap.Memories = append(snap.Memories, SnapshotItem{ID: m.ID, Key: m.Key, Type: m.Type, Reason: reason,
			Score: score, CreatedAt: m.CreatedAt, Line: line, Tokens: n, Cut: cut, SecurityLevel: m.SecurityLevel})
		snap.SecurityLevel = mnemo.Highest(snap.SecurityLevel, m.SecurityLevel)
	}
	for i := range pinned {
		add(&pinned[i], ReasonPinned, 0)
	}
	if extra := nPinned - len(pinned); extra > 0 {
		omitted[ReasonPinned] += extra
	}
	for i := range related {
		add(&related[i].Memory, ReasonRelated, related[i].Score)
	}
	for i := range recent {
		add(&recent[i], ReasonRecent, 0)
	}

	var b strings.Builder
	b.WriteString(RecentExperienceHeading + "\n")
	for _, it := range snap.Memories {
		b.WriteString(it.Line + "\n")
	}
	if len(snap.Memories) == 0 {
		b.WriteString("- (no memories yet)\n")
	}
	for _, reason := range []string{ReasonPinned, ReasonRelated, ReasonRecent} {
		if n := omitted[reason]; n > 0 {
			snap.Omitted += n
			snap.Notes = append(snap.Notes, fmt.Sprintf("%d %s memories did not fit in %d tokens", n, reason, limit))
		}
	}
	if snap.Omitted > 0 {
		fmt.Fprintf(&b, "(%d more did not fit; use recall to search them)\n", snap.Omitted)
	}
	snap.Text = b.String()
	snap.Tokens = s.tok.Count(snap.Text)
	return snap, nil
}

// snapshotLine renders a memory for the Recent Experience section.
func snapshotLine(m *mnemo.Memory, reason string, now time.Time, clear security.Clearance) string {
	text := m.Summary
	if text == "" {
		text = m.Content
	}
	text = clear.Text(m.SecurityLevel, textutil.OneLine(text))
	var when string
	switch reason {
	case ReasonPinned:
		return "- [pinned] " + text
	case ReasonRecent:
		when = m.CreatedAt.UTC().Format("2006-01-02 15:04")
	default:
		when = m.CreatedAt.UTC().Format("2006-01-02")
	}
	return fmt.Sprintf("- [%s · %s] %s", m.Type, when, text)
}
