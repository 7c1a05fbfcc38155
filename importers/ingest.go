package importers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/memory"
)

// Target is what Import writes through: the methods of service.Mnemo it
// uses (the gate's, so a caller's clearance holds).
type Target interface {
	AddMessages(context.Context, mnemo.Scope, string, []memory.Message) ([]mnemo.Memory, error)
	List(context.Context, mnemo.Scope, mnemo.ListQuery) ([]mnemo.Memory, int, error)
	RememberUnguarded(context.Context, mnemo.Scope, []mnemo.Draft) ([]mnemo.Memory, error)
	Link(context.Context, mnemo.Scope, mnemo.Relation) (mnemo.Relation, error)
}

// Options steer Import.
type Options struct {
	// Limits are the store's (mnemo.DefaultLimits when zero): a message
	// longer than MaxMessageChars, or an observation longer than
	// MaxContentChars, is stored in parts, never cut.
	Limits mnemo.Limits
	// Progress, if not nil, is called after each conversation or entity
	// with what is done so far.
	Progress func(Progress)
}

// Progress is how far an import has come.
type Progress struct {
	Done  int `json:"done"`  // conversations or entities written
	Total int `json:"total"` // of these
	Result
}

// Result counts what an import stored (IMP-2): what was there already is
// skipped, so a second import of the same history stores nothing.
type Result struct {
	Conversations int `json:"conversations"` // sessions that got new messages
	Messages      int `json:"messages"`      // messages stored
	Skipped       int `json:"skipped"`       // messages and observations stored before
	Entities      int `json:"entities"`      // entities that got new memories
	Memories      int `json:"memories"`      // observations (and entity descriptions) stored
	Links         int `json:"links"`         // relations linked
}

// Root is the key prefix imported history is kept under: a message of
// conversation C of format F is /history/F/C/<message id> (IMP-2), but for
// Claude Code's, which are keyed as its hooks key them (keyPrefix).
const Root = "/history"

// messageBatch is how many messages one AddMessages call stores.
const messageBatch = 200

// PartialError is an import that stopped after storing some of its input:
// Result says exactly what is stored, and importing again stores the rest
// (IMP-3).
type PartialError struct {
	Result Result
	What   string // the conversation, entity or relation it stopped at
	Err    error
}

func (e *PartialError) Error() string {
	r := e.Result
	msg := e.Err.Error()
	var me *mnemo.Error
	if errors.As(e.Err, &me) {
		msg = me.Message
	}
	return fmt.Sprintf("%s: %s (stored before it: %s in %s, %s, %s; importing again stores the rest)", e.What, msg,
		textutil.Count(r.Messages, "message", "messages"), textutil.Count(r.Conversations, "conversation", "conversations"),
		textutil.Count(r.Memories, "memory", "memories"), textutil.Count(r.Links, "link", "links"))
}

func (e *PartialError) Unwrap() error { return e.Err }

// Import stores h in scope: each conversation as a session of its own
// (sessionID), each message keyed (keyPrefix) with its time and speaker, each entity's
// observations as memories about it, each relation as a link between the
// entities' memories. What an earlier import stored is skipped, by key.
func Import(ctx context.Context, t Target, sc mnemo.Scope, f Format, h *History, o Options) (Result, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return Result{}, err
	}
	o.Limits = o.Limits.WithDefaults()
	var res Result
	total := len(h.Conversations) + len(h.Entities)
	done := 0
	step := func() {
		done++
		if o.Progress != nil {
			o.Progress(Progress{Done: done, Total: total, Result: res})
		}
	}
	for i := range h.Conversations {
		if err := importConversation(ctx, t, sc, f, &h.Conversations[i], o.Limits, &res); err != nil {
			return res, &PartialError{Result: res, What: "conversation " + h.Conversations[i].ID, Err: err}
		}
		step()
	}
	heads := map[string]string{} // entity name → its memory's id
	for i := range h.Entities {
		if err := importEntity(ctx, t, sc, &h.Entities[i], o.Limits, heads, &res); err != nil {
			return res, &PartialError{Result: res, What: fmt.Sprintf("entity %q", h.Entities[i].Name), Err: err}
		}
		step()
	}
	for _, rel := range h.Relations {
		from, to := heads[rel.From], heads[rel.To]
		if from == "" || to == "" || from == to {
			// An edge to an entity the file does not hold has no node.
			res.Skipped++
			continue
		}
		if _, err := t.Link(ctx, sc, mnemo.Relation{Source: from, Target: to, Type: relationType(rel.Type)}); err != nil {
			return res, &PartialError{Result: res, What: fmt.Sprintf("relation %s %s %s", rel.From, rel.Type, rel.To), Err: err}
		}
		res.Links++
	}
	return res, nil
}

func importConversation(ctx context.Context, t Target, sc mnemo.Scope, f Format, c *Conversation, lim mnemo.Limits, res *Result) error {
	prefix := keyPrefix(f, c.ID)
	have, err := keysUnder(ctx, t, sc, prefix)
	if err != nil {
		return err
	}
	var todo []memory.Message
	for _, m := range c.Messages {
		at := m.Time
		if at.IsZero() {
			at = c.Time
		}
		for k, part := range split(m.Text, lim.MaxMessageChars) {
			key := prefix + "/" + segment(m.ID)
			if k > 0 {
				key += "/" + itoa(k+1)
			}
			if have[key] {
				res.Skipped++
				continue
			}
			have[key] = true // an id twice in one file is one message
			msg := memory.Message{Key: key, Role: m.Role, Name: truncateBytes(m.Name, 128), Content: part}
			if !at.IsZero() {
				t := at
				msg.CreatedAt = &t
			}
			todo = append(todo, msg)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	session := sessionID(f, c.ID)
	for len(todo) > 0 {
		n := min(len(todo), messageBatch)
		if _, err := t.AddMessages(ctx, sc, session, todo[:n]); err != nil {
			return err
		}
		res.Messages += n
		todo = todo[n:]
	}
	res.Conversations++
	return nil
}

func importEntity(ctx context.Context, t Target, sc mnemo.Scope, e *Entity, lim mnemo.Limits, heads map[string]string, res *Result) error {
	prefix := Root + "/" + string(MCPMemory) + "/" + segment(e.Name)
	have, err := keysUnder(ctx, t, sc, prefix)
	if err != nil {
		return err
	}
	head := e.Name
	if e.Type != "" {
		head = e.Name + " is a " + e.Type + "."
	}
	entities := []string{truncateBytes(e.Name, 256)}
	var drafts []mnemo.Draft
	add := func(key, text string) {
		for k, part := range split(text, lim.MaxContentChars) {
			if k > 0 {
				key += "/" + itoa(k+1)
			}
			if have[key] {
				res.Skipped++
				continue
			}
			have[key] = true
			drafts = append(drafts, mnemo.Draft{Key: key, Content: &part, Type: mnemo.TypeFact, Entities: entities})
		}
	}
	add(prefix, head)
	for _, o := range e.Observations {
		add(prefix+"/"+hashed(o), o)
	}
	if len(drafts) > 0 {
		for len(drafts) > 0 {
			n := min(len(drafts), lim.MaxBatch)
			if _, err := t.RememberUnguarded(ctx, sc, drafts[:n]); err != nil {
				return err
			}
			res.Memories += n
			drafts = drafts[n:]
		}
		res.Entities++
	}
	ms, _, err := t.List(ctx, sc, mnemo.ListQuery{Filter: mnemo.Filter{KeyPrefix: prefix}, Order: mnemo.OrderKey, Limit: 1, NoVectors: true, NoTotal: true})
	if err != nil {
		return err
	}
	if len(ms) == 1 && ms[0].Key == prefix {
		heads[e.Name] = ms[0].ID
	}
	return nil
}

// keysUnder returns the keys of the memories under prefix, archived and
// expired included: what an earlier import stored.
func keysUnder(ctx context.Context, t Target, sc mnemo.Scope, prefix string) (map[string]bool, error) {
	have := map[string]bool{}
	for off := 0; ; off += mnemo.MaxListLimit {
		page, _, err := t.List(ctx, sc, mnemo.ListQuery{
			Filter: mnemo.Filter{KeyPrefix: prefix, IncludeArchived: true, IncludeExpired: true},
			Order:  mnemo.OrderKey, Limit: mnemo.MaxListLimit, Offset: off, NoVectors: true, NoTotal: true,
		})
		if err != nil {
			return nil, err
		}
		for i := range page {
			have[page[i].Key] = true
		}
		if len(page) < mnemo.MaxListLimit {
			return have, nil
		}
	}
}

// split cuts text into parts of at most max characters, at a line or a
// space where it can: a long message is stored whole, in parts.
func split(text string, max int) []string {
	var parts []string
	for {
		n, cut := 0, len(text)
		for i := range text {
			if n == max {
				cut = i
				break
			}
			n++
		}
		if cut == len(text) {
			if text != "" || len(parts) == 0 {
				parts = append(parts, text)
			}
			return parts
		}
		// Prefer the last line break or space in the second half.
		if i := strings.LastIndexAny(text[:cut], "\n "); i > cut/2 {
			cut = i
		}
		if p := strings.TrimSpace(text[:cut]); p != "" {
			parts = append(parts, p)
		}
		text = strings.TrimSpace(text[cut:])
	}
}

// truncateBytes cuts s to at most n bytes at a character's start.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// relationType makes a relation's type one a link takes: no control
// characters, at most 128 bytes.
func relationType(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(truncateBytes(strings.TrimSpace(s), 128))
	if s == "" {
		return mnemo.RelRelated
	}
	return s
}
