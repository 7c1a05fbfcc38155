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
	"github.com/mnemo-dev/mnemo/security"
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
	// SecurityLevel is the highest level of the memories the report
	// names (SEC-12): the report is as secret as they are, masked or not.
	SecurityLevel string `json:"security_level"`
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
	// SecurityLevel is the memory's (SEC-2); Text is masked for it when
	// reflect was asked redacted.
	SecurityLevel string `json:"security_level"`
}

// LifeAction is one memory archived, and why.
type LifeAction struct {
	ID     string `json:"id"`
	Key    string `json:"key,omitempty"`
	Type   string `json:"type"`
	Text   string `json:"text"`
	Phase  string `json:"phase"`
	Reason string `json:"reason"`
	// SecurityLevel is the memory's (SEC-2); Text is masked for it when
	// reflect was asked redacted.
	SecurityLevel string `json:"security_level"`
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
	run, err := phasesToRun(o.Phases)
	if err != nil {
		return ReflectReport{}, err
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
	clear := security.ClearanceFrom(ctx)

	// Every active memory, without vectors.
	ms, err := s.listAll(ctx, scope, mnemo.Filter{Now: now})
	if err != nil {
		return ReflectReport{}, err
	}
	c := newCycle(ms, now, s.life, clear)
	c.rep.DryRun, c.rep.Phases = o.DryRun, run
	for _, p := range run {
		switch p {
		case PhaseDecay:
			c.decay()
		case PhaseTidy:
			c.tidy()
		case PhaseGovern:
			if err := c.govern(ctx, s.store.Store, s.store.Events, scope, o.DryRun); err != nil {
				return ReflectReport{}, err
			}
		case PhaseRetention:
			c.retention()
		case PhaseCapacity:
			c.capacity()
		}
	}
	// Compaction plans here, on what the phases before left active, and
	// writes after them: its summary is a new memory.
	var groups map[string][]*mnemo.Memory
	if slices.Contains(run, PhaseCompact) {
		groups = s.planCompaction(ctx, c)
	}
	c.after()
	rep := &c.rep
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
	// caller may read them (SEC-8), and says the highest level it names
	// (SEC-12).
	for i := range rep.Compacted {
		rep.Compacted[i].Conceal(clear)
	}
	rep.level()
	rep.Text = rep.markdown()
	if o.DryRun || (len(rep.Decayed) == 0 && len(rep.Archived) == 0) {
		return *rep, nil
	}
	if err := applyReflection(ctx, ls, scope, rep, actor); err != nil {
		return ReflectReport{}, err
	}
	return *rep, nil
}

// phasesToRun is the phases asked for, in the cycle's order; none asked
// is every phase.
func phasesToRun(asked []string) ([]string, error) {
	if len(asked) == 0 {
		return phases, nil
	}
	for _, p := range asked {
		if !slices.Contains(phases, p) {
			return nil, mnemo.Errorf(mnemo.EINVALID, "unknown phase %q: decay, tidy, govern, retention, capacity, compact or purge", p)
		}
	}
	var run []string
	for _, p := range phases { // always in the cycle's order
		if slices.Contains(asked, p) {
			run = append(run, p)
		}
	}
	return run, nil
}

// cycle is one reflect's state as its phases pass it on: the active
// memories, the vitality each phase sees, which are archived, and the
// report so far.
type cycle struct {
	ms       []mnemo.Memory
	vitality []float64 // ms's vitality, as decay recomputes it
	archived []bool    // ms archived by a phase before
	now      time.Time
	lc       Options
	clear    security.Clearance
	rep      ReflectReport
}

func newCycle(ms []mnemo.Memory, now time.Time, lc Options, clear security.Clearance) *cycle {
	c := &cycle{ms: ms, vitality: make([]float64, len(ms)), archived: make([]bool, len(ms)), now: now, lc: lc, clear: clear}
	for i := range ms {
		c.vitality[i] = ms[i].Vitality
	}
	c.rep = ReflectReport{At: now, Decayed: []VitalityChange{}, Archived: []LifeAction{}, Purged: []LifeAction{}, Compacted: []Compaction{}, OrphanLinks: []mnemo.Relation{}}
	c.rep.Examined = len(ms)
	c.rep.Before = totals(ms, nil)
	return c
}

// text is m's content as the report shows it: one clipped line, masked
// by the caller's clearance (SEC-8).
func (c *cycle) text(m *mnemo.Memory) string {
	return c.clear.Text(m.SecurityLevel, textutil.Clip(textutil.OneLine(m.Content), 60))
}

// archive marks ms[i] archived by phase, for reason, unless a phase
// before did.
func (c *cycle) archive(i int, phase, reason string) {
	if c.archived[i] {
		return
	}
	c.archived[i] = true
	m := &c.ms[i]
	c.rep.Archived = append(c.rep.Archived, LifeAction{ID: m.ID, Key: m.Key, Type: m.Type, Text: c.text(m), Phase: phase, Reason: reason, SecurityLevel: m.SecurityLevel})
}

// decay recomputes each memory's vitality (LIFE-9: Ebbinghaus retention),
// reporting the changes of 0.005 or more.
func (c *cycle) decay() {
	for i := range c.ms {
		v := math.Round(mnemo.Vitality(&c.ms[i], c.now)*1e4) / 1e4
		if math.Abs(v-c.vitality[i]) >= 0.005 {
			m := &c.ms[i]
			c.rep.Decayed = append(c.rep.Decayed, VitalityChange{ID: m.ID, Key: m.Key, Type: m.Type, Priority: m.Priority,
				Text: c.text(m), From: c.vitality[i], To: v, SecurityLevel: m.SecurityLevel})
			c.vitality[i] = v
		}
	}
}

// tidy archives the unpinned memories whose vitality fell below
// ArchiveBelow.
func (c *cycle) tidy() {
	for i := range c.ms {
		if c.vitality[i] < c.lc.ArchiveBelow && !c.ms[i].Pinned {
			c.archive(i, PhaseTidy, fmt.Sprintf("vitality %.2f < %.2f", c.vitality[i], c.lc.ArchiveBelow))
		}
	}
}

// govern removes orphan links (when the store keeps links), archives empty
// memories and, per type with a quota, the faded and then the oldest over
// it. The report lists the orphan links the caller may read (SEC-13).
func (c *cycle) govern(ctx context.Context, st mnemo.Store, lp mnemo.EventStore, scope mnemo.Scope, dry bool) error {
	if lp != nil {
		orphans, err := lp.PruneLinks(ctx, scope, dry)
		if err == nil {
			orphans, err = c.clear.Relations(st, lp, scope).Keep(ctx, orphans)
		}
		if err != nil {
			return err
		}
		c.rep.OrphanLinks = orphans
	}
	ms, vitality := c.ms, c.vitality
	for i := range ms {
		if textutil.EmptyJSON([]byte(ms[i].Content)) && strings.TrimSpace(ms[i].Summary) == "" && textutil.EmptyJSON(ms[i].Data) {
			c.archive(i, PhaseGovern, "empty: no content, summary or data")
		}
	}
	for typ, quota := range c.lc.TypeQuota {
		var of []int
		for i := range ms {
			if !c.archived[i] && ms[i].Type == typ && !ms[i].Pinned && ms[i].Priority > 0 {
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
			c.archive(i, PhaseGovern, fmt.Sprintf("over the quota of %d %s memories", quota, typ))
		}
	}
	return nil
}

// retention archives the memories older than RetentionDays recalled
// fewer than RetentionMinAccess times (LIFE-2), but pinned and P0 ones.
func (c *cycle) retention() {
	lc := c.lc
	cut := c.now.AddDate(0, 0, -lc.RetentionDays)
	for i := range c.ms {
		m := &c.ms[i]
		if m.CreatedAt.Before(cut) && m.AccessCount < lc.RetentionMinAccess && !m.Pinned && m.Priority > 0 {
			c.archive(i, PhaseRetention, fmt.Sprintf("older than %d days, recalled %d times (< %d)", lc.RetentionDays, m.AccessCount, lc.RetentionMinAccess))
		}
	}
}

// capacity archives what is over MaxEntries (LIFE-1).
func (c *cycle) capacity() {
	ms, lc := c.ms, c.lc
	var keep []int
	for i := range ms {
		if !c.archived[i] {
			keep = append(keep, i)
		}
	}
	over := len(keep) - lc.MaxEntries
	if over <= 0 {
		return
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
		c.archive(i, PhaseCapacity, fmt.Sprintf("over capacity: %d active memories, the limit is %d", len(keep), lc.MaxEntries))
	}
}

// planCompaction groups what the phases before left active by tag, over
// CompactOver a group (LIFE-5), and writes each group's summary into the
// report; the groups' memories count as archived. It returns each tag's
// group, for writeCompaction.
func (s *Service) planCompaction(ctx context.Context, c *cycle) map[string][]*mnemo.Memory {
	groups := map[string][]*mnemo.Memory{}
	for tag, is := range compactGroups(c.ms, c.archived, c.lc.CompactOver) {
		cp := Compaction{Tag: tag}
		var group []*mnemo.Memory
		for _, i := range is {
			c.archived[i] = true
			cp.Merged = append(cp.Merged, c.ms[i].ID)
			group = append(group, &c.ms[i])
		}
		cp.Summary, cp.By = s.compactText(ctx, tag, slices.Clone(group))
		cp.SecurityLevel = compactLevel(group, cp.Summary)
		c.rep.Compacted = append(c.rep.Compacted, cp)
		groups[tag] = group
	}
	slices.SortFunc(c.rep.Compacted, func(a, b Compaction) int { return strings.Compare(a.Tag, b.Tag) })
	return groups
}

// after totals what the phases leave active, the compactions' summaries
// among them, and when the next cycle runs.
func (c *cycle) after() {
	c.rep.After = totals(c.ms, func(i int) (float64, bool) { return c.vitality[i], c.archived[i] })
	if n := len(c.rep.Compacted); n > 0 { // the summaries, at vitality 1
		a := &c.rep.After
		a.MeanVitality = (a.MeanVitality*float64(a.Active) + float64(n)) / float64(a.Active+n)
		a.Active += n
	}
	c.rep.NextRun = c.now.Add(c.lc.Every)
}

// applyReflection writes rep's decay and archiving in one transaction
// with its ledger rows: one for the decay, one per phase and reason.
func applyReflection(ctx context.Context, ls mnemo.LifecycleStore, scope mnemo.Scope, rep *ReflectReport, actor string) error {
	now := rep.At
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
	_, err := ls.ApplyLife(ctx, scope, changes, entries)
	return err
}

// purge finds the memories that prune, reset and retention archived more
// than Grace ago and are still archived; unless dry, it erases them, with
// a ledger entry.
func (s *Service) purge(ctx context.Context, ls mnemo.LifecycleStore, scope mnemo.Scope, now time.Time, actor string, dry bool, clear security.Clearance) ([]LifeAction, error) {
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
						Reason: fmt.Sprintf("%s (ledger %d) more than %s ago", action, e.Seq, s.life.Grace), SecurityLevel: m.SecurityLevel})
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
	forget := s.store.Forget
	if s.mem != nil {
		forget = s.mem.Erase // the messages around one erased forget it too (REC-37)
	}
	if _, err := forget(ctx, scope, ids, nil); err != nil {
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

// level sets the report's level to the highest of the memories it names
// (SEC-12).
func (r *ReflectReport) level() {
	r.SecurityLevel = mnemo.SecurityPublic
	for _, d := range r.Decayed {
		r.SecurityLevel = mnemo.Highest(r.SecurityLevel, d.SecurityLevel)
	}
	for _, a := range slices.Concat(r.Archived, r.Purged) {
		r.SecurityLevel = mnemo.Highest(r.SecurityLevel, a.SecurityLevel)
	}
	for _, c := range r.Compacted {
		r.SecurityLevel = mnemo.Highest(r.SecurityLevel, c.SecurityLevel)
	}
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
