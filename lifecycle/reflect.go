package lifecycle

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
)

// Reflect phases, in the order they run: LIFE-9's sleep cycle, then
// retention (LIFE-2), capacity (LIFE-1), compaction (LIFE-5) and purge.
const (
	PhaseDecay     = "decay"     // recompute vitality: Ebbinghaus retention
	PhaseTidy      = "tidy"      // archive memories whose vitality fell below ArchiveBelow
	PhaseGovern    = "govern"    // archive empty memories, remove orphan links
	PhaseRetention = "retention" // archive old memories hardly ever recalled
	PhaseCapacity  = "capacity"  // archive the oldest, least accessed over MaxEntries
	PhasePurge     = "purge"     // erase what prune, reset and retention archived, once past the grace period
)

var phases = []string{PhaseDecay, PhaseTidy, PhaseGovern, PhaseRetention, PhaseCapacity, PhaseCompact, PhasePurge}

// Options configure reflect. The zero value is the defaults of the LIFE
// requirements.
type Options struct {
	ArchiveBelow       float64 // tidy: vitality under this is archived (LIFE-9: 0.1)
	RetentionDays      int     // LIFE-2: 365; memories older and ...
	RetentionMinAccess int     // ... recalled fewer times than this (3) are archived
	MaxEntries         int     // LIFE-1: 10,000 active memories per agent
	// EvictByConfidence orders capacity's archiving by lowest confidence,
	// then oldest access (LIFE-7's optional eviction) instead of oldest
	// access, then fewest accesses.
	EvictByConfidence bool
	// TypeQuota caps the active memories of a type (govern archives the
	// lowest vitality over it); none by default.
	TypeQuota map[string]int
	// CompactOver: a tag holding more active memories than this is
	// compacted into one summary memory (50).
	CompactOver int
	Every       time.Duration // how often serve runs reflect (24 h)
	// Grace is how long archived memories can be restored from the ledger
	// before reflect's purge erases those archived by prune, reset,
	// retention or capacity (30 days).
	Grace time.Duration
}

func (o Options) withDefaults() Options {
	if o.ArchiveBelow <= 0 {
		o.ArchiveBelow = 0.1
	}
	if o.RetentionDays <= 0 {
		o.RetentionDays = 365
	}
	if o.RetentionMinAccess <= 0 {
		o.RetentionMinAccess = 3
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 10000
	}
	if o.Every <= 0 {
		o.Every = 24 * time.Hour
	}
	if o.CompactOver <= 0 {
		o.CompactOver = 50
	}
	if o.Grace <= 0 {
		o.Grace = 30 * 24 * time.Hour
	}
	return o
}

// ReflectOptions ask for a sleep cycle.
type ReflectOptions struct {
	Phases []string  `json:"phases,omitempty"` // empty: all, in order
	DryRun bool      `json:"dry_run,omitempty"`
	Now    time.Time `json:"now,omitempty"`
	Actor  string    `json:"-"` // who runs it, for the ledger: cli, api, mcp, serve
}

// ReflectReport says what a sleep cycle changed, memory by memory.
type ReflectReport struct {
	At        time.Time        `json:"at"`
	DryRun    bool             `json:"dry_run"`
	Phases    []string         `json:"phases"`
	Examined  int              `json:"examined"`
	Decayed   []VitalityChange `json:"decayed"`
	Archived  []LifeAction     `json:"archived"`
	Purged    []LifeAction     `json:"purged"` // erased for good
	Compacted []Compaction     `json:"compacted"`
	// OrphanLinks are the links govern removed (would remove, when dry)
	// because an end is neither a memory nor an event any more.
	OrphanLinks []mnemo.Relation `json:"orphan_links"`
	Before      LifeTotals       `json:"before"`
	After       LifeTotals       `json:"after"`
	NextRun     time.Time        `json:"next_run"`
	Text        string           `json:"text"` // the markdown report
}

// VitalityChange is one memory whose vitality moved.
type VitalityChange struct {
	ID       string  `json:"id"`
	Key      string  `json:"key,omitempty"`
	Type     string  `json:"type"`
	Priority int     `json:"priority"`
	Text     string  `json:"text"`
	From     float64 `json:"from"`
	To       float64 `json:"to"`
}

// LifeAction is one memory archived, and why.
type LifeAction struct {
	ID     string `json:"id"`
	Key    string `json:"key,omitempty"`
	Type   string `json:"type"`
	Text   string `json:"text"`
	Phase  string `json:"phase"`
	Reason string `json:"reason"`
}

// LifeTotals counts active memories.
type LifeTotals struct {
	Active       int     `json:"active"`
	MeanVitality float64 `json:"mean_vitality"`
}

// reflectChunk bounds the memories read at once.
const reflectChunk = 5000

// Reflect runs the sleep cycle over the agent's active memories: decay,
// tidy, govern, retention, capacity. Every change goes to the ledger in the
// same transaction; archiving hides a memory from recall but keeps it (it
// can be restored). With DryRun nothing changes and the report says what
// would. The report masks what the caller's clearance (on ctx) may not
// read (SEC-8).
func (s *Service) Reflect(ctx context.Context, scope mnemo.Scope, o ReflectOptions) (ReflectReport, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ReflectReport{}, err
	}
	if err := mnemo.CheckTime("now", o.Now); err != nil { // TIME-1
		return ReflectReport{}, err
	}
	if s.mem != nil {
		s.mem.FlushAccess(ctx) // reflect judges by access counts: recall's last ones too
	}
	ls, ok := s.store.Life, s.store.Life != nil
	if !ok {
		return ReflectReport{}, mnemo.Errorf(mnemo.EUNAVAILABLE, "this store keeps no lifecycle: reflect needs one that does (sqlite)")
	}
	run := phases
	if len(o.Phases) > 0 {
		run = nil
		for _, p := range o.Phases {
			if !slices.Contains(phases, p) {
				return ReflectReport{}, mnemo.Errorf(mnemo.EINVALID, "unknown phase %q: decay, tidy, govern, retention, capacity, compact or purge", p)
			}
		}
		for _, p := range phases { // always in the cycle's order
			if slices.Contains(o.Phases, p) {
				run = append(run, p)
			}
		}
	}
	now := o.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	actor := o.Actor
	if actor == "" {
		actor = "api"
	}
	lc := s.life
	clear := mnemo.ClearanceFrom(ctx)
	text := func(m *mnemo.Memory) string {
		return clear.Text(m.SecurityLevel, textutil.Clip(textutil.OneLine(m.Content), 60))
	}
	rep := ReflectReport{At: now, DryRun: o.DryRun, Phases: run, Decayed: []VitalityChange{}, Archived: []LifeAction{}, Purged: []LifeAction{}, Compacted: []Compaction{}, OrphanLinks: []mnemo.Relation{}}

	// Every active memory, without vectors.
	ms, err := s.listAll(ctx, scope, mnemo.Filter{Now: now})
	if err != nil {
		return ReflectReport{}, err
	}
	rep.Examined = len(ms)
	rep.Before = totals(ms, nil)

	vitality := make([]float64, len(ms))
	for i := range ms {
		vitality[i] = ms[i].Vitality
	}
	archived := make([]bool, len(ms))
	archive := func(i int, phase, reason string) {
		if archived[i] {
			return
		}
		archived[i] = true
		m := &ms[i]
		rep.Archived = append(rep.Archived, LifeAction{ID: m.ID, Key: m.Key, Type: m.Type, Text: text(m), Phase: phase, Reason: reason})
	}
	for _, p := range run {
		switch p {
		case PhaseDecay:
			for i := range ms {
				v := math.Round(mnemo.Vitality(&ms[i], now)*1e4) / 1e4
				if math.Abs(v-vitality[i]) >= 0.005 {
					m := &ms[i]
					rep.Decayed = append(rep.Decayed, VitalityChange{ID: m.ID, Key: m.Key, Type: m.Type, Priority: m.Priority,
						Text: text(m), From: vitality[i], To: v})
					vitality[i] = v
				}
			}
		case PhaseTidy:
			for i := range ms {
				if vitality[i] < lc.ArchiveBelow && !ms[i].Pinned {
					archive(i, p, fmt.Sprintf("vitality %.2f < %.2f", vitality[i], lc.ArchiveBelow))
				}
			}
		case PhaseGovern:
			if lp, ok := s.store.Links, s.store.Links != nil; ok {
				orphans, err := lp.PruneLinks(ctx, scope, o.DryRun)
				if err != nil {
					return ReflectReport{}, err
				}
				rep.OrphanLinks = orphans
			}
			for i := range ms {
				if textutil.EmptyJSON([]byte(ms[i].Content)) && strings.TrimSpace(ms[i].Summary) == "" && textutil.EmptyJSON(ms[i].Data) {
					archive(i, p, "empty: no content, summary or data")
				}
			}
			for typ, quota := range lc.TypeQuota {
				var of []int
				for i := range ms {
					if !archived[i] && ms[i].Type == typ && !ms[i].Pinned && ms[i].Priority > 0 {
						of = append(of, i)
					}
				}
				if len(of) <= quota {
					continue
				}
				// The faded first, then the oldest.
				slices.SortStableFunc(of, func(a, b int) int {
					if vitality[a] != vitality[b] {
						if vitality[a] < vitality[b] {
							return -1
						}
						return 1
					}
					return ms[a].CreatedAt.Compare(ms[b].CreatedAt)
				})
				for _, i := range of[:len(of)-quota] {
					archive(i, p, fmt.Sprintf("over the quota of %d %s memories", quota, typ))
				}
			}
		case PhaseRetention:
			cut := now.AddDate(0, 0, -lc.RetentionDays)
			for i := range ms {
				m := &ms[i]
				if m.CreatedAt.Before(cut) && m.AccessCount < lc.RetentionMinAccess && !m.Pinned && m.Priority > 0 {
					archive(i, p, fmt.Sprintf("older than %d days, recalled %d times (< %d)", lc.RetentionDays, m.AccessCount, lc.RetentionMinAccess))
				}
			}
		case PhaseCapacity:
			var keep []int
			for i := range ms {
				if !archived[i] {
					keep = append(keep, i)
				}
			}
			over := len(keep) - lc.MaxEntries
			if over <= 0 {
				continue
			}
			// Pinned and P0 memories are never evicted; the rest go
			// oldest access and fewest accesses first (or LIFE-7's order).
			var cands []int
			for _, i := range keep {
				if !ms[i].Pinned && ms[i].Priority > 0 {
					cands = append(cands, i)
				}
			}
			slices.SortStableFunc(cands, func(a, b int) int {
				ma, mb := &ms[a], &ms[b]
				if lc.EvictByConfidence && ma.Confidence != mb.Confidence {
					if ma.Confidence < mb.Confidence {
						return -1
					}
					return 1
				}
				if c := lastAccess(ma).Compare(lastAccess(mb)); c != 0 {
					return c
				}
				return ma.AccessCount - mb.AccessCount
			})
			for _, i := range cands[:min(over, len(cands))] {
				archive(i, p, fmt.Sprintf("over capacity: %d active memories, the limit is %d", len(keep), lc.MaxEntries))
			}
		}
	}
	// Compaction plans here, on what the phases before left active, and
	// writes after them: its summary is a new memory.
	var groups map[string][]*mnemo.Memory
	if slices.Contains(run, PhaseCompact) {
		groups = map[string][]*mnemo.Memory{}
		for tag, is := range compactGroups(ms, archived, lc.CompactOver) {
			c := Compaction{Tag: tag}
			var group []*mnemo.Memory
			for _, i := range is {
				archived[i] = true
				c.Merged = append(c.Merged, ms[i].ID)
				c.SecurityLevel = mnemo.Highest(c.SecurityLevel, ms[i].SecurityLevel)
				group = append(group, &ms[i])
			}
			c.Summary, c.By = s.compactText(ctx, tag, slices.Clone(group))
			rep.Compacted = append(rep.Compacted, c)
			groups[tag] = group
		}
		slices.SortFunc(rep.Compacted, func(a, b Compaction) int { return strings.Compare(a.Tag, b.Tag) })
	}
	rep.After = totals(ms, func(i int) (float64, bool) { return vitality[i], archived[i] })
	if n := len(rep.Compacted); n > 0 { // the summaries, at vitality 1
		a := &rep.After
		a.MeanVitality = (a.MeanVitality*float64(a.Active) + float64(n)) / float64(a.Active+n)
		a.Active += n
	}
	rep.NextRun = now.Add(lc.Every)
	if slices.Contains(run, PhasePurge) {
		purged, err := s.purge(ctx, ls, scope, now, actor, o.DryRun, clear)
		if err != nil {
			return ReflectReport{}, err
		}
		rep.Purged = append(rep.Purged, purged...)
	}
	if !o.DryRun {
		for i := range rep.Compacted {
			if err := s.writeCompaction(ctx, ls, scope, &rep.Compacted[i], groups[rep.Compacted[i].Tag], now, actor); err != nil {
				return ReflectReport{}, err
			}
		}
	}
	// The summaries are written whole; the report shows them as the
	// caller may read them (SEC-8).
	for i := range rep.Compacted {
		rep.Compacted[i].Conceal(clear)
	}
	rep.Text = rep.markdown()
	if o.DryRun || (len(rep.Decayed) == 0 && len(rep.Archived) == 0) {
		return rep, nil
	}

	// Apply: one transaction with its ledger rows.
	changes := make([]mnemo.LifeChange, 0, len(rep.Decayed)+len(rep.Archived))
	at := make(map[string]int, len(changes))
	for _, d := range rep.Decayed {
		v := d.To
		at[d.ID] = len(changes)
		changes = append(changes, mnemo.LifeChange{ID: d.ID, Vitality: &v})
	}
	yes := true
	byReason := map[string][]string{}
	var reasons []string
	for _, a := range rep.Archived {
		if i, ok := at[a.ID]; ok {
			changes[i].Archived = &yes
		} else {
			changes = append(changes, mnemo.LifeChange{ID: a.ID, Archived: &yes})
		}
		key := a.Phase + ": " + a.Reason
		if _, ok := byReason[key]; !ok {
			reasons = append(reasons, key)
		}
		byReason[key] = append(byReason[key], a.ID)
	}
	var entries []mnemo.LedgerEntry
	if len(rep.Decayed) > 0 {
		ids := make([]string, len(rep.Decayed))
		for i, d := range rep.Decayed {
			ids[i] = d.ID
		}
		entries = append(entries, mnemo.LedgerEntry{At: now, Action: mnemo.ActionDecay, MemoryIDs: ids, Actor: actor,
			Reason: fmt.Sprintf("reflect: vitality of %d memories recomputed", len(ids))})
	}
	for _, r := range reasons {
		action := mnemo.ActionArchive
		if strings.HasPrefix(r, PhaseRetention+":") {
			action = mnemo.ActionRetention // erased after the grace period
		}
		entries = append(entries, mnemo.LedgerEntry{At: now, Action: action, MemoryIDs: byReason[r], Actor: actor, Reason: r})
	}
	if _, err := ls.ApplyLife(ctx, scope, changes, entries); err != nil {
		return ReflectReport{}, err
	}
	return rep, nil
}

// purge finds the memories that prune, reset and retention archived more
// than Grace ago and are still archived; unless dry, it erases them, with
// a ledger entry.
func (s *Service) purge(ctx context.Context, ls mnemo.LifecycleStore, scope mnemo.Scope, now time.Time, actor string, dry bool, clear mnemo.Clearance) ([]LifeAction, error) {
	until := now.Add(-s.life.Grace)
	var out []LifeAction
	var ids []string
	seen := map[string]bool{}
	for _, action := range []string{mnemo.ActionPrune, mnemo.ActionReset, mnemo.ActionRetention} {
		for off := 0; ; off += mnemo.MaxListLimit {
			es, _, err := ls.Ledger(ctx, scope, mnemo.LedgerQuery{Action: action, Until: &until, Limit: mnemo.MaxListLimit, Offset: off})
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				for _, id := range e.MemoryIDs {
					if seen[id] {
						continue
					}
					seen[id] = true
					m, err := s.store.Get(ctx, scope, id)
					if mnemo.ErrorCode(err) == mnemo.ENOTFOUND || err == nil && !m.Archived {
						continue // erased already, or restored
					} else if err != nil {
						return nil, err
					}
					ids = append(ids, id)
					out = append(out, LifeAction{ID: id, Key: m.Key, Type: m.Type, Text: clear.Text(m.SecurityLevel, textutil.Clip(textutil.OneLine(m.Content), 60)), Phase: PhasePurge,
						Reason: fmt.Sprintf("%s (ledger %d) more than %s ago", action, e.Seq, s.life.Grace)})
				}
			}
			if len(es) < mnemo.MaxListLimit {
				break
			}
		}
	}
	if dry || len(ids) == 0 {
		return out, nil
	}
	if _, err := s.store.Forget(ctx, scope, ids, nil); err != nil {
		return nil, err
	}
	s.record(ctx, scope, mnemo.LedgerEntry{At: now, Action: mnemo.ActionDelete, MemoryIDs: ids, Actor: actor,
		Reason: fmt.Sprintf("purge: archived by prune, reset or retention more than %s ago", s.life.Grace)})
	return out, nil
}

// ReflectAll runs the sleep cycle for every agent of the store, as serve
// does on its schedule, and returns how many memories it archived and
// erased in all.
func (s *Service) ReflectAll(ctx context.Context, actor string) (archived, purged int, err error) {
	ls, err := s.lifecycle()
	if err != nil {
		return 0, 0, err
	}
	scopes, err := ls.Scopes(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, sc := range scopes {
		rep, err := s.Reflect(ctx, sc, ReflectOptions{Actor: actor})
		if err != nil {
			return archived, purged, fmt.Errorf("reflect %s/%s: %w", sc.TenantID, sc.AgentID, err)
		}
		archived += len(rep.Archived)
		purged += len(rep.Purged)
	}
	return archived, purged, nil
}

func lastAccess(m *mnemo.Memory) time.Time {
	if m.AccessedAt.After(m.CreatedAt) {
		return m.AccessedAt
	}
	return m.CreatedAt
}

// totals counts the active memories; state, when set, gives a memory's
// vitality and whether it was archived.
func totals(ms []mnemo.Memory, state func(i int) (float64, bool)) LifeTotals {
	var t LifeTotals
	sum := 0.0
	for i := range ms {
		v, gone := ms[i].Vitality, false
		if state != nil {
			v, gone = state(i)
		}
		if !gone {
			t.Active++
			sum += v
		}
	}
	if t.Active > 0 {
		t.MeanVitality = sum / float64(t.Active)
	}
	return t
}

// reportLines bounds the memories a markdown section lists by name.
const reportLines = 20

// markdown is LIFE-10's human-readable report.
func (r *ReflectReport) markdown() string {
	var b strings.Builder
	title := "## 🌙 Sleep cycle report"
	if r.DryRun {
		title += " (dry run: nothing changed)"
	}
	b.WriteString(title + "\n")
	list := func(n int, line func(i int) string) {
		for i := range min(n, reportLines) {
			b.WriteString(line(i) + "\n")
		}
		if n > reportLines {
			fmt.Fprintf(&b, "- … and %d more\n", n-reportLines)
		}
	}
	if slices.Contains(r.Phases, PhaseDecay) {
		if len(r.Decayed) == 0 {
			fmt.Fprintf(&b, "\n### Decay\nExamined %s; no vitality moved.\n", textutil.Count(r.Examined, "memory", "memories"))
		} else {
			fmt.Fprintf(&b, "\n### Decay\nExamined %s; vitality moved for %d:\n", textutil.Count(r.Examined, "memory", "memories"), len(r.Decayed))
		}
		list(len(r.Decayed), func(i int) string {
			d := r.Decayed[i]
			return fmt.Sprintf("- «%s» %s P%d vitality %.2f → %.2f", d.Text, d.Type, d.Priority, d.From, d.To)
		})
	}
	for _, p := range []string{PhaseTidy, PhaseGovern, PhaseRetention, PhaseCapacity} {
		if !slices.Contains(r.Phases, p) {
			continue
		}
		var acts []LifeAction
		for _, a := range r.Archived {
			if a.Phase == p {
				acts = append(acts, a)
			}
		}
		if len(acts) == 0 {
			fmt.Fprintf(&b, "\n### %s\nNothing archived.\n", strings.ToUpper(p[:1])+p[1:])
		} else {
			fmt.Fprintf(&b, "\n### %s\nArchived %s:\n", strings.ToUpper(p[:1])+p[1:], textutil.Count(len(acts), "memory", "memories"))
		}
		list(len(acts), func(i int) string {
			a := acts[i]
			return fmt.Sprintf("- «%s» %s → archived (%s)", a.Text, a.Type, a.Reason)
		})
		if p == PhaseGovern && len(r.OrphanLinks) > 0 {
			fmt.Fprintf(&b, "Orphan links removed (an end is gone): %d\n", len(r.OrphanLinks))
			list(len(r.OrphanLinks), func(i int) string {
				l := r.OrphanLinks[i]
				return fmt.Sprintf("- %s -%s-> %s", l.Source, l.Type, l.Target)
			})
		}
	}
	if slices.Contains(r.Phases, PhaseCompact) {
		if len(r.Compacted) == 0 {
			b.WriteString("\n### Compact\nNo tag to merge.\n")
		} else {
			fmt.Fprintf(&b, "\n### Compact\nMerged %s:\n", textutil.Count(len(r.Compacted), "tag", "tags"))
		}
		list(len(r.Compacted), func(i int) string {
			c := r.Compacted[i]
			return fmt.Sprintf("- #%s: %s → one summary (%s): «%s»", c.Tag, textutil.Count(len(c.Merged), "memory", "memories"), c.By, textutil.Clip(c.Summary, 80))
		})
	}
	if slices.Contains(r.Phases, PhasePurge) {
		if len(r.Purged) == 0 {
			b.WriteString("\n### Purge\nNothing to erase (archived by prune, reset or retention, past the grace period).\n")
		} else {
			fmt.Fprintf(&b, "\n### Purge\nErased %s (archived by prune, reset or retention, past the grace period):\n", textutil.Count(len(r.Purged), "memory", "memories"))
		}
		list(len(r.Purged), func(i int) string {
			a := r.Purged[i]
			return fmt.Sprintf("- «%s» %s → erased (%s)", a.Text, a.Type, a.Reason)
		})
	}
	merged := 0
	for _, c := range r.Compacted {
		merged += len(c.Merged)
	}
	fmt.Fprintf(&b, "\n### 📊 Summary\nActive memories: %d → %d (%d archived, %d merged)\nMean vitality: %.2f → %.2f\nNext suggested reflect: %s\n",
		r.Before.Active, r.After.Active, len(r.Archived), merged, r.Before.MeanVitality, r.After.MeanVitality, r.NextRun.Format(time.RFC3339))
	return b.String()
}
