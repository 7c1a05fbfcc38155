package memory

import (
	"cmp"
	"context"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// A conversation message is indexed with its neighbours' words (REC-33),
// and its vector reads the turn before it. When a message is corrected or
// forgotten for good, the messages around it are indexed again from what
// the session now holds, so that nothing of the old text is found through
// them, and a corrected message keeps its own context (REC-37).

// sessionLocks serialises, within a process, the changes of a session's
// messages that read the session's other messages: a call adding messages
// (whose contexts read the session's last lines), a correction and a
// forgetting. Without it, a call that read a message being forgotten
// could index its words into a neighbour after the forgetting took them
// out, and two calls adding to one session at once would each miss the
// other's lines. Sessions share a lock by a hash of their names: they
// wait for each other now and then, but never deadlock, as each locker
// takes its locks in one order.
type sessionLocks [64]sync.Mutex

// lock locks the sessions of scope and returns their unlock.
func (l *sessionLocks) lock(scope mnemo.Scope, sessions ...string) (unlock func()) {
	var idx []int
	for _, sess := range sessions {
		if sess == "" {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(scope.TenantID + "\x00" + scope.AgentID + "\x00" + sess))
		idx = append(idx, int(h.Sum32()%uint32(len(l))))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		l[i].Lock()
	}
	return func() {
		for _, i := range slices.Backward(idx) {
			l[i].Unlock()
		}
	}
}

// isMessage reports whether m was stored as a conversation message
// (AddMessages): an event of a session said by a role.
func isMessage(m *mnemo.Memory) bool {
	role, _ := speaker(m)
	return m.SessionID != "" && role != ""
}

// around reads the messages of m's session around m, in the session's
// order: up to reach before the place m has (or had) and reach after it,
// and every message stored at m's time. m's place is window[at:], m
// itself being window[at] while it is stored. Messages stored at one time
// (a call's) are in the order of their ids, which is their order of
// arrival.
func (s *Service) around(ctx context.Context, scope mnemo.Scope, m *mnemo.Memory, reach int) (window []mnemo.Memory, at int, err error) {
	t := m.CreatedAt
	next := t.Add(time.Nanosecond)
	q := func(after, before *time.Time, order string, limit int) ([]mnemo.Memory, error) {
		ms, _, err := s.store.List(ctx, scope, mnemo.ListQuery{
			Filter: mnemo.Filter{SessionID: m.SessionID, Types: []string{mnemo.TypeEvent},
				IncludeArchived: true, IncludeExpired: true, CreatedAfter: after, CreatedBefore: before},
			Order: order, Limit: limit, NoTotal: true, NoVectors: true,
		})
		return ms, err
	}
	before, err := q(nil, &t, mnemo.OrderNewest, reach)
	if err != nil {
		return nil, 0, err
	}
	same, err := q(&t, &next, mnemo.OrderOldest, mnemo.MaxListLimit)
	if err != nil {
		return nil, 0, err
	}
	after, err := q(&next, nil, mnemo.OrderOldest, reach)
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(before)
	slices.SortStableFunc(same, func(a, b mnemo.Memory) int { return cmp.Compare(a.ID, b.ID) })
	at = len(before)
	for _, o := range same {
		if o.ID < m.ID {
			at++
		}
	}
	return slices.Concat(before, same, after), at, nil
}

// changes returns the updates of window's lines in [lo, hi) but skip (a
// message rewritten, which gets its own), read as conversation now, whose
// index context or vector's text differ from what they were in was, the
// session as it read before; wasAt(j) is line j's index in was. A line's
// context and vector reach contextLines lines back or on, so the lines
// within contextLines of a place are those that can hold what was there,
// and window, reaching twice as far, holds all of theirs.
func (s *Service) changes(window []mnemo.Memory, now, was *conversation, lo, hi, skip int, wasAt func(int) int) []mnemo.ContextUpdate {
	var ups []mnemo.ContextUpdate
	for j := max(0, lo); j < min(len(window), hi); j++ {
		if j == skip {
			continue
		}
		o := wasAt(j)
		text := now.context(j)
		u := mnemo.ContextUpdate{ID: window[j].ID, Context: s.analyzer.IndexString(text)}
		changed := text != was.context(o)
		// The text a vector is made from is kept with or without an
		// embedder (one configured later embeds it).
		if prev := now.before(j); prev != was.before(o) {
			u.Embed, changed = embedText(&window[j], prev), true
		}
		if changed {
			ups = append(ups, u)
		}
	}
	return ups
}

// writeContexts is the store's WriteContexts, waking the embedder for the
// vectors it drops.
func (s *Service) writeContexts(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record, ups []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	ms, err := s.store.Contexts.WriteContexts(ctx, scope, recs, ups)
	if err == nil && s.vec != nil && slices.ContainsFunc(ups, func(u mnemo.ContextUpdate) bool { return u.Embed != "" }) {
		s.vec.kick()
	}
	return ms, err
}

// linesOf is window's messages as lines of their conversation.
func linesOf(window []mnemo.Memory) []line {
	lines := make([]line, len(window))
	for i := range window {
		lines[i] = lineOf(&window[i])
	}
	return lines
}

// messageTurn returns the turn of message m, stored, as it reads once its
// content is changed to content: its context and the lines its vector
// reads, from the session around it; and, where the content changes, the
// contexts of the messages around it that hold its old words.
func (s *Service) messageTurn(ctx context.Context, scope mnemo.Scope, m *mnemo.Memory, content string) (turn, []mnemo.ContextUpdate, error) {
	window, at, err := s.around(ctx, scope, m, 2*contextLines)
	if err != nil {
		return turn{}, nil, err
	}
	lines := linesOf(window)
	if at >= len(window) || window[at].ID != m.ID {
		return turn{}, nil, nil // gone meanwhile: it is indexed alone
	}
	was := conversationOf(lines)
	lines[at].content = content
	c := conversationOf(lines)
	t := turn{context: c.context(at), prev: c.before(at)}
	if content == m.Content || s.store.Contexts == nil {
		return t, nil, nil
	}
	same := func(j int) int { return j }
	return t, s.changes(window, c, was, at-contextLines, at+contextLines+1, at, same), nil
}

// forgetContexts returns the updates that index the messages around gone,
// messages about to be forgotten for good, as their sessions will read
// without them. They are written before the forgetting, so that a
// forgetting acknowledged has left nothing of gone in its neighbours,
// whatever fails after, and a files store's rewrite of its log, which the
// forgetting makes, finds their old contexts replaced.
func (s *Service) forgetContexts(ctx context.Context, scope mnemo.Scope, gone []mnemo.Memory) ([]mnemo.ContextUpdate, error) {
	if s.store.Contexts == nil || len(gone) == 0 {
		return nil, nil
	}
	going := make(map[string]bool, len(gone))
	for _, g := range gone {
		going[g.ID] = true
	}
	var ups []mnemo.ContextUpdate
	seen := map[string]int{} // ups[seen[id]] is id's
	for i := range gone {
		window, at, err := s.around(ctx, scope, &gone[i], 2*contextLines)
		if err != nil {
			return nil, err
		}
		// kept is window without what is forgotten; kept[j] is
		// window[from[j]], and gone[i]'s place lies before kept[place].
		var (
			kept  []mnemo.Memory
			from  []int
			place int
		)
		for j := range window {
			if j == at {
				place = len(kept)
			}
			if !going[window[j].ID] {
				kept, from = append(kept, window[j]), append(from, j)
			}
		}
		if at >= len(window) {
			place = len(kept)
		}
		now, was := conversationOf(linesOf(kept)), conversationOf(linesOf(window))
		// Every window is read before the forgetting and leaves all of
		// gone out, so a line's context is the same in each; whether its
		// vector reads a message forgotten, each pass tells for its own.
		for _, u := range s.changes(kept, now, was, place-contextLines, place+contextLines, -1, func(j int) int { return from[j] }) {
			if k, ok := seen[u.ID]; ok {
				ups[k].Embed = cmp.Or(ups[k].Embed, u.Embed)
				continue
			}
			seen[u.ID] = len(ups)
			ups = append(ups, u)
		}
	}
	return ups, nil
}

// messagesOf returns the conversation messages among the live memories of
// ids and keys, read before they are forgotten: those whose neighbours
// are indexed with their words.
func (s *Service) messagesOf(ctx context.Context, scope mnemo.Scope, ids, keys []string) []mnemo.Memory {
	if s.store.Contexts == nil {
		return nil
	}
	var out []mnemo.Memory
	keep := func(m mnemo.Memory, err error) {
		if err == nil && isMessage(&m) {
			m.Embedding = nil
			out = append(out, m)
		}
	}
	for _, id := range ids {
		keep(s.store.Get(ctx, scope, id))
	}
	for _, k := range keys {
		keep(s.store.GetByKey(ctx, scope, k))
	}
	return out
}
