package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/entity"
)

// What the inspector needs of the memory service (API-13, API-14): a
// memory corrected in place, the agents of a tenant, the key tree, counts
// by type and the reasons of recent degradations.

// Patch is a partial change of one memory: a nil field stays as it is.
type Patch struct {
	Content       *string   `json:"content,omitempty"`
	Tags          *[]string `json:"tags,omitempty"`
	Type          *string   `json:"type,omitempty"`
	Priority      *int      `json:"priority,omitempty"`
	Pinned        *bool     `json:"pinned,omitempty"`
	SecurityLevel *string   `json:"security_level,omitempty"`
	Archived      *bool     `json:"archived,omitempty"`
}

func (p Patch) empty() bool {
	return p.Content == nil && p.Tags == nil && p.Type == nil && p.Priority == nil &&
		p.Pinned == nil && p.SecurityLevel == nil && p.Archived == nil
}

// UpdateResult is a memory after Update, and what happened to it.
type UpdateResult struct {
	mnemo.Memory
	// Changed names the fields that changed, in Patch's order; empty when
	// the patch changed nothing.
	Changed []string `json:"changed"`
	// Guard is the Write Guard's decision on a changed text: update, or
	// for a keyless memory whose new text repeats another memory,
	// duplicate or merge, reported but not acted on (a correction asked
	// for is applied as asked).
	Guard *GuardDecision `json:"guard,omitempty"`
	// Applied is false when the change lost last-write-wins to a newer
	// revision of the memory's key, which stands.
	Applied bool `json:"applied"`
	// LedgerSeq is the ledger entry of an archive or unarchive: POST
	// /v1/restore with it brings an archived memory back.
	LedgerSeq int64 `json:"ledger_seq,omitempty"`
}

// Update changes the fields of memory id that p sets (API-14), as a write
// does: the Draft's validation and limits, the Write Guard's rejection of
// empty or too short text, a new revision in history, the index and the
// vector made again. A memory with a key changes by its key (last write
// wins); one without is replaced in place (Store.Replace). Archiving and
// unarchiving go to the ledger (archive, restore) with actor, so that an
// archive can be undone from the ledger like any other.
func (s *Service) Update(ctx context.Context, scope mnemo.Scope, id string, p Patch, actor string) (UpdateResult, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return UpdateResult{}, err
	}
	if id == "" {
		return UpdateResult{}, mnemo.Errorf(mnemo.EINVALID, "id is required")
	}
	if p.empty() {
		return UpdateResult{}, mnemo.Errorf(mnemo.EINVALID, "nothing to change: give content, tags, type, priority, pinned, security_level or archived")
	}
	if actor == "" {
		actor = "api"
	}
	m, err := s.store.Get(ctx, scope, id)
	if err != nil {
		return UpdateResult{}, err
	}
	d, changed, err := patched(&m, p)
	if err != nil {
		return UpdateResult{}, err
	}
	now := s.now().UTC()
	d.UpdatedAt = &now // a correction is a write of now, whatever its creation
	res := UpdateResult{Memory: m, Changed: changed, Applied: true}
	if len(changed) > 0 {
		if err := s.rewrite(ctx, scope, &m, d, &res); err != nil {
			return UpdateResult{}, err
		}
		if !res.Applied {
			return res, nil
		}
	}
	if p.Archived != nil && *p.Archived != m.Archived {
		if err := s.setArchived(ctx, scope, &res, *p.Archived, actor); err != nil {
			return UpdateResult{}, err
		}
		res.Changed = append(res.Changed, "archived")
	}
	if res.Changed == nil {
		res.Changed = []string{}
	}
	res.Embedding = nil
	return res, nil
}

// patched returns the draft that writes m with p's changes, every other
// field kept, and the names of the fields p changes (archived aside).
func patched(m *mnemo.Memory, p Patch) (mnemo.Draft, []string, error) {
	content := m.Content
	prio, imp, conf := m.Priority, m.Importance, m.Confidence
	d := mnemo.Draft{
		Key: m.Key, SessionID: m.SessionID, Content: &content, Data: m.Data, Summary: m.Summary,
		Type: m.Type, Category: m.Category, Priority: &prio, Importance: &imp, Confidence: &conf,
		Tags: slices.Clone(m.Tags), SecurityLevel: m.SecurityLevel, Pinned: m.Pinned,
		Source: m.Source, ExpiresAt: m.ExpiresAt, Archived: m.Archived,
		// What the writer said of when and who stays (REC-24, REC-27,
		// REC-28), and a time its text names is read against its creation.
		CreatedAt: &m.CreatedAt, ValidTo: m.ValidTo, Entities: aliases(m),
	}
	if m.Occurred != nil && m.Occurred.Source == mnemo.OccurredWriter {
		o := *m.Occurred
		d.Occurred = &o
	}
	var changed []string
	if p.Content != nil && strings.TrimSpace(*p.Content) != m.Content {
		content = *p.Content
		changed = append(changed, "content")
	}
	if p.Tags != nil {
		tags := make([]string, 0, len(*p.Tags))
		for _, t := range *p.Tags {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" && !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
		old := slices.Clone(m.Tags)
		slices.Sort(old)
		sorted := slices.Clone(tags)
		slices.Sort(sorted)
		if !slices.Equal(old, sorted) {
			d.Tags = tags
			changed = append(changed, "tags")
		}
	}
	if p.Type != nil && strings.TrimSpace(*p.Type) != m.Type {
		d.Type = strings.TrimSpace(*p.Type)
		if d.Type == "" {
			return d, nil, mnemo.Errorf(mnemo.EINVALID, "type must not be empty")
		}
		changed = append(changed, "type")
	}
	if p.Priority != nil && *p.Priority != m.Priority {
		prio = *p.Priority
		changed = append(changed, "priority")
	}
	if p.Pinned != nil && *p.Pinned != m.Pinned {
		d.Pinned = *p.Pinned
		changed = append(changed, "pinned")
	}
	if p.SecurityLevel != nil && *p.SecurityLevel != m.SecurityLevel {
		switch l := *p.SecurityLevel; l {
		case mnemo.SecurityPublic, mnemo.SecurityInternal, mnemo.SecurityConfidential, mnemo.SecurityRestricted:
			d.SecurityLevel = l
		default:
			return d, nil, mnemo.Errorf(mnemo.EINVALID, "security_level must be public, internal, confidential or restricted, not %q", l)
		}
		changed = append(changed, "security_level")
	}
	return d, changed, nil
}

// aliases are the entities of m its writer gave (REC-28): those its
// speaker and text do not give. A name the writer gave that the text also
// says is the text's: it goes when a correction takes it out of the text.
func aliases(m *mnemo.Memory) []string {
	found := map[string]bool{}
	for _, e := range entity.Of(speakerName(m), m.Content, nil) {
		found[strings.ToLower(e)] = true
	}
	var out []string
	for _, e := range m.Entities {
		if !found[strings.ToLower(e)] {
			out = append(out, e)
		}
	}
	return out
}

// rewrite writes d over m: by its key through Write, or in place. It keeps
// m's vitality: a correction is not a use.
//
// A conversation message keeps its turn: it is indexed and embedded with
// the messages around it, and where its text changes, they are indexed
// again without its old words (REC-37).
func (s *Service) rewrite(ctx context.Context, scope mnemo.Scope, m *mnemo.Memory, d mnemo.Draft, res *UpdateResult) error {
	var o WriteOptions
	if isMessage(m) {
		defer s.sessions.lock(scope, m.SessionID)()
		t, ups, err := s.messageTurn(ctx, scope, m, strings.TrimSpace(*d.Content))
		if err != nil {
			return err
		}
		o.turns, o.contexts = []turn{t}, ups
	}
	if m.Key != "" {
		out, err := s.WriteWith(ctx, scope, []mnemo.Draft{d}, o)
		if err != nil {
			return err
		}
		w := out[0]
		res.Memory, res.Guard, res.Applied = w.Memory, &w.Guard, w.Applied
		return nil
	}
	recs, err := s.records(ctx, scope, []mnemo.Draft{d}, o.turns, false)
	if err != nil {
		return err
	}
	rec := recs[0]
	rec.Memory.ID, rec.Memory.Vitality = m.ID, m.Vitality
	g := GuardDecision{Action: GuardUpdate, ExistingID: m.ID, Reason: "changed in place on request"}
	if !s.guardOpts.Off {
		got, existing, err := s.guard(ctx, scope, &rec.Memory)
		if err != nil {
			return err
		}
		switch {
		case got.Action == GuardReject:
			return mnemo.Errorf(mnemo.EINVALID, "write guard rejected the change: %s", got.Reason)
		case (got.Action == GuardDuplicate || got.Action == GuardMerge) && existing != nil && existing.ID != m.ID:
			g = got
			g.Reason += fmt.Sprintf(" (memory %s changed as asked all the same)", m.ID)
		}
	}
	var stored mnemo.Memory
	_, err = s.writeWith(ctx, scope, []mnemo.Record{rec}, true, func(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
		m, err := s.store.Replace(ctx, scope, recs[0])
		stored = m
		return []mnemo.Memory{m}, err
	})
	if err != nil {
		return err
	}
	res.Memory, res.Guard = stored, &g
	res.Applied = !stored.UpdatedAt.After(rec.Memory.UpdatedAt)
	if res.Applied && len(o.contexts) > 0 {
		// After the change, not with it: Replace is a transaction of its
		// own. The change stands if this fails, and says so in the log.
		if _, err := s.writeContexts(ctx, scope, nil, o.contexts); err != nil {
			s.log.Warn("corrected message's neighbours not indexed again", "id", m.ID, "err", err)
		}
	}
	return nil
}

// setArchived archives or unarchives res's memory with a ledger entry.
func (s *Service) setArchived(ctx context.Context, scope mnemo.Scope, res *UpdateResult, archived bool, actor string) error {
	ls := s.store.Life
	if ls == nil {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "this store keeps no lifecycle (archive, restore, ledger); sqlite does")
	}
	ch := mnemo.LifeChange{ID: res.ID, Archived: &archived}
	e := mnemo.LedgerEntry{At: s.now().UTC(), Action: mnemo.ActionArchive, MemoryIDs: []string{res.ID}, Actor: actor,
		Reason: "archived on request: hidden from recall, restorable from this entry"}
	if !archived {
		one := 1.0
		ch.Vitality = &one
		e.Action, e.Reason = mnemo.ActionRestore, "unarchived on request"
	}
	if _, err := ls.ApplyLife(ctx, scope, []mnemo.LifeChange{ch}, []mnemo.LedgerEntry{e}); err != nil {
		return err
	}
	if es, _, err := ls.Ledger(ctx, scope, mnemo.LedgerQuery{Action: e.Action, MemoryID: res.ID, Limit: 1}); err == nil && len(es) == 1 {
		res.LedgerSeq = es[0].Seq
	}
	m, err := s.store.Get(ctx, scope, res.ID)
	if err != nil {
		return err
	}
	res.Memory = m
	return nil
}

// Agents returns the agents of tenant that allowed lets a caller see (all
// when empty), with their counts of active memories. A store without
// mnemo.AgentLister is answered from its lifecycle's scopes, counted one
// by one, and partial says so; with neither, EUNAVAILABLE.
func (s *Service) Agents(ctx context.Context, tenant string, allowed []string) (agents []mnemo.AgentCount, partial string, err error) {
	switch {
	case s.store.Agents != nil:
		agents, err = s.store.Agents.Agents(ctx, tenant)
	case s.store.Life != nil:
		partial = "this store cannot list agents with one query: counted agent by agent"
		var scopes []mnemo.Scope
		if scopes, err = s.store.Life.Scopes(ctx); err != nil {
			return nil, "", err
		}
		for _, sc := range scopes {
			if sc.TenantID != tenant {
				continue
			}
			tc, err := s.store.CountTypes(ctx, sc, mnemo.Filter{IncludeExpired: true})
			if err != nil {
				return nil, "", err
			}
			n := 0
			for _, c := range tc {
				n += c.Count
			}
			agents = append(agents, mnemo.AgentCount{AgentID: sc.AgentID, Memories: n})
		}
		slices.SortFunc(agents, func(a, b mnemo.AgentCount) int { return strings.Compare(a.AgentID, b.AgentID) })
	default:
		return nil, "", mnemo.Errorf(mnemo.EUNAVAILABLE, "this store cannot list its agents")
	}
	if err != nil {
		return nil, "", err
	}
	out := []mnemo.AgentCount{}
	for _, a := range agents {
		if len(allowed) == 0 || slices.Contains(allowed, a.AgentID) {
			out = append(out, a)
		}
	}
	return out, partial, nil
}

// KeyTree returns one level of scope's key tree under prefix.
func (s *Service) KeyTree(ctx context.Context, scope mnemo.Scope, prefix string, limit int) ([]mnemo.KeyChild, bool, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, false, err
	}
	if s.store.KeyTree == nil {
		return nil, false, mnemo.Errorf(mnemo.EUNAVAILABLE, "this store cannot list the key tree (sqlite, files and the in-memory store can)")
	}
	return s.store.KeyTree.KeyTree(ctx, scope, prefix, limit)
}

// CountByType counts scope's active memories by type.
func (s *Service) CountByType(ctx context.Context, scope mnemo.Scope) (map[string]int, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	tc, err := s.store.CountTypes(ctx, scope, mnemo.Filter{Now: s.now()})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(tc))
	for _, c := range tc {
		out[c.Type] = c.Count
	}
	return out, nil
}

// DegradedReasons returns the degradations of scope noted in the ledger
// within the last two degradeEvery (each is noted at most once per
// degradeEvery, so a degradation still going on is always among them),
// sorted.
func (s *Service) DegradedReasons(scope mnemo.Scope) []string {
	prefix := scope.TenantID + "\x00" + scope.AgentID + "\x00"
	since := s.now().Add(-2 * degradeEvery)
	out := []string{}
	s.degraded.Range(func(k, v any) bool {
		if key := k.(string); strings.HasPrefix(key, prefix) && v.(time.Time).After(since) {
			out = append(out, strings.TrimPrefix(key, prefix))
		}
		return true
	})
	slices.Sort(out)
	return out
}
