package lifecycle

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// PhaseCompact merges the memories of a tag that holds more than
// CompactOver into one summary memory (LIFE-5).
const PhaseCompact = "compact"

// compactTag marks summary memories, which are never compacted again.
const compactTag = "compacted"

// Compaction is one tag's memories merged, as reflect plans or does it.
type Compaction struct {
	Tag       string   `json:"tag"`
	Merged    []string `json:"merged"` // ids of the originals, archived
	SummaryID string   `json:"summary_id,omitempty"`
	Summary   string   `json:"summary"`
	By        string   `json:"by"` // "llm" or "extractive"
	// SecurityLevel is the summary memory's level (SEC-12): the highest of
	// the memories it merges, and at least what its own text calls for.
	SecurityLevel string `json:"security_level"`
}

// compactLevel is the level of a summary of group (SEC-12): never below a
// memory it merges, nor below what the classifier reads in its text.
func compactLevel(group []*mnemo.Memory, summary string) string {
	level := mnemo.SecurityInternal
	for _, m := range group {
		level = mnemo.Highest(level, m.SecurityLevel)
	}
	return security.ClassifyText(summary, level)
}

// Conceal masks the summary when c may not read what it was made of
// (SEC-8).
func (c *Compaction) Conceal(cl security.Clearance) { c.Summary = cl.Text(c.SecurityLevel, c.Summary) }

// compactGroups returns, for each tag over the threshold, the indexes of
// ms to merge: active, not pinned, not P0, not already a summary, not
// taken by an earlier tag. Tags in order of size, largest first.
func compactGroups(ms []mnemo.Memory, gone []bool, over int) map[string][]int {
	byTag := map[string][]int{}
	for i := range ms {
		m := &ms[i]
		if gone[i] || m.Pinned || m.Priority == 0 || slices.Contains(m.Tags, compactTag) {
			continue
		}
		for _, t := range m.Tags {
			byTag[t] = append(byTag[t], i)
		}
	}
	tags := make([]string, 0, len(byTag))
	for t, is := range byTag {
		if len(is) > over {
			tags = append(tags, t)
		}
	}
	slices.SortFunc(tags, func(a, b string) int { return cmp.Or(cmp.Compare(len(byTag[b]), len(byTag[a])), strings.Compare(a, b)) })
	taken := map[int]bool{}
	out := map[string][]int{}
	for _, t := range tags {
		var group []int
		for _, i := range byTag[t] {
			if !taken[i] {
				group = append(group, i)
			}
		}
		if len(group) > over {
			for _, i := range group {
				taken[i] = true
			}
			out[t] = group
		}
	}
	return out
}

// compactText merges memories into a summary: the Summarizer's (an LLM's)
// when configured, else an extractive merge — the first sentence of each,
// most vital and newest first, within the content limit.
func (s *Service) compactText(ctx context.Context, tag string, group []*mnemo.Memory) (string, string) {
	slices.SortStableFunc(group, func(a, b *mnemo.Memory) int {
		return cmp.Or(cmp.Compare(b.Vitality, a.Vitality), b.CreatedAt.Compare(a.CreatedAt))
	})
	first, last := group[0].CreatedAt, group[0].CreatedAt
	for _, m := range group {
		first, last = minTime(first, m.CreatedAt), maxTime(last, m.CreatedAt)
	}
	head := fmt.Sprintf("Summary of %d memories tagged %q (%s to %s): ", len(group), tag, first.Format("2006-01-02"), last.Format("2006-01-02"))
	if sum := s.sum; sum != nil {
		var b strings.Builder
		for _, m := range group {
			b.WriteString("- " + textutil.OneLine(m.Content) + "\n")
		}
		text, err := sum.Summarize(ctx, b.String(), 300)
		if err == nil && strings.TrimSpace(text) != "" {
			return textutil.Clip(head+textutil.OneLine(text), s.mem.Limits().MaxContentChars), "llm"
		}
		s.log.Warn("compaction summary failed, merging extractively", "tag", tag, "err", err)
	}
	var parts []string
	n := len([]rune(head))
	for _, m := range group {
		p := strings.TrimRight(textutil.FirstSentence(m.Content), ".。")
		if p == "" {
			continue
		}
		if n+len([]rune(p))+2 > s.mem.Limits().MaxContentChars-30 {
			parts = append(parts, fmt.Sprintf("and %d more", len(group)-len(parts)))
			break
		}
		parts = append(parts, p)
		n += len([]rune(p)) + 2
	}
	return textutil.Clip(head+strings.Join(parts, "; ")+".", s.mem.Limits().MaxContentChars), "extractive"
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// writeCompaction stores a compaction's summary under a key derived from
// what it merges (a retry after a crash rewrites the same memory, never a
// second one), then archives the originals with a ledger entry.
func (s *Service) writeCompaction(ctx context.Context, ls mnemo.LifecycleStore, scope mnemo.Scope, c *Compaction, group []*mnemo.Memory, now time.Time, actor string) error {
	h := sha256.New()
	for _, id := range c.Merged {
		h.Write([]byte(id))
	}
	key := fmt.Sprintf("/compacted/%s/%s", textutil.KeySegment(c.Tag), hex.EncodeToString(h.Sum(nil))[:16])
	types := map[string]int{}
	prio, imp := 3, 0.0
	for _, m := range group {
		types[m.Type]++
		prio, imp = min(prio, m.Priority), max(imp, m.Importance)
	}
	typ := mnemo.TypeKnowledge
	for t, n := range types {
		if n > types[typ] || n == types[typ] && t < typ {
			typ = t
		}
	}
	data, _ := json.Marshal(map[string]any{"compacted_from": c.Merged, "tag": c.Tag, "by": c.By})
	ms, err := s.mem.RememberUnguarded(ctx, scope, []mnemo.Draft{{Key: key, Content: &c.Summary, Type: typ, Priority: &prio, Importance: &imp,
		Tags: []string{c.Tag, compactTag}, Data: data, Source: json.RawMessage(`"auto:reflect"`), SecurityLevel: c.SecurityLevel}})
	if err != nil {
		return fmt.Errorf("compaction of %q: %w", c.Tag, err)
	}
	c.SummaryID = ms[0].ID
	yes := true
	changes := make([]mnemo.LifeChange, len(c.Merged))
	for i, id := range c.Merged {
		changes[i] = mnemo.LifeChange{ID: id, Archived: &yes}
	}
	details, _ := json.Marshal(map[string]string{"summary_id": c.SummaryID, "tag": c.Tag})
	_, err = ls.ApplyLife(ctx, scope, changes, []mnemo.LedgerEntry{{At: now, Action: mnemo.ActionCompact, MemoryIDs: c.Merged, Actor: actor, Details: details,
		Reason: fmt.Sprintf("compact: %d memories tagged %q merged into %s (%s)", len(c.Merged), c.Tag, c.SummaryID, c.By)}})
	return err
}
