package memory

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Message is one turn of a conversation.
type Message struct {
	Key       string     `json:"key,omitempty"`
	Role      string     `json:"role"`
	Name      string     `json:"name,omitempty"`
	Content   string     `json:"content"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	// OccurredAt is when what it tells happened (REC-24): an instant, a
	// day, words or a recurrence (mnemo.When); default: a time the text
	// names, resolved against CreatedAt, else CreatedAt.
	OccurredAt *mnemo.When `json:"occurred_at,omitempty"`
	// Entities are names the message is by or about that its text may not
	// say, aliases included ("Ana Silva", "my sister"), REC-28: they join
	// its speaker and the names found in it. At most mnemo.MaxEntities.
	Entities []string `json:"entities,omitempty"`
}

// contextTurns is how many turns on each side of a message are indexed as
// its conversational context, and contextLines and contextWords the most
// lines and words a side that context takes (a long run of one speaker's
// messages, long messages), REC-33.
const (
	contextTurns = 2
	contextLines = 8
	contextWords = 200
)

// AddMessages stores a session's messages in order, each as a memory of type
// event whose data holds the role and speaker name. The speaker name is
// indexed with the text, and each message's neighbours in the session are
// indexed as its context (with a lower weight), so that recall can find a
// turn by what was said around it.
//
// Neighbours are taken from the same call and from the session's last
// messages already stored (up to contextLines of them); a message stored
// earlier does not learn of replies that arrive in a later call.
func (s *Service) AddMessages(ctx context.Context, scope mnemo.Scope, sessionID string, msgs []Message) ([]mnemo.Memory, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	if sessionID == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "session_id is required")
	}
	if len(msgs) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "no messages")
	}
	lines := make([]string, len(msgs))
	speakers := make([]string, len(msgs))
	drafts := make([]mnemo.Draft, len(msgs))
	for i, m := range msgs {
		role, err := mnemo.CheckWord("role", m.Role)
		if err != nil {
			return nil, mnemo.WithPrefix(err, messagePrefix(i))
		}
		name := strings.TrimSpace(m.Name)
		if len(name) > 128 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "%sname is longer than 128 bytes", messagePrefix(i))
		}
		data, _ := json.Marshal(struct {
			Role string `json:"role"`
			Name string `json:"name,omitempty"`
		}{role, name})
		content := m.Content
		drafts[i] = mnemo.Draft{
			Key: m.Key, SessionID: sessionID, Content: &content, Data: data,
			Type: mnemo.TypeEvent, CreatedAt: m.CreatedAt, OccurredAt: m.OccurredAt,
			Entities: m.Entities,
		}
		lines[i], speakers[i] = content, role
		if name != "" {
			lines[i], speakers[i] = name+": "+content, "name:"+name
		}
	}

	// The session's last lines stored before this call are the first
	// message's context, as they would be had the session come in one call.
	off := 0
	if last, _, err := s.store.List(ctx, scope, mnemo.ListQuery{
		Filter: mnemo.Filter{SessionID: sessionID, Types: []string{mnemo.TypeEvent}, IncludeArchived: true, IncludeExpired: true},
		Order:  mnemo.OrderNewest, Limit: contextLines,
		// Read on every request: counting the session's turns and
		// reading vectors would cost more than the rest of a one-turn
		// request's store work (PERF-8).
		NoTotal: true, NoVectors: true,
	}); err == nil && len(last) > 0 {
		stored, who := make([]string, len(last)), make([]string, len(last))
		for i := range last {
			m := &last[len(last)-1-i]
			stored[i], who[i] = m.Content, speakerRole(m)
			if name := speakerName(m); name != "" {
				stored[i], who[i] = name+": "+m.Content, "name:"+name
			}
		}
		lines, speakers, off = append(stored, lines...), append(who, speakers...), len(last)
	}
	c := newConversation(lines, speakers)
	turns := make([]turn, len(drafts))
	for i := range turns {
		turns[i].context = c.context(i + off)
		turns[i].prev = c.before(i + off)
	}
	recs, err := s.records(ctx, scope, drafts, turns)
	if err != nil {
		return nil, err
	}
	ms, err := s.write(ctx, scope, recs, true)
	if err == nil && s.extractor != nil {
		level := mnemo.SecurityInternal
		for _, r := range recs {
			level = mnemo.Highest(level, r.Memory.SecurityLevel)
		}
		s.extract(ctx, scope, sessionID, msgs, level)
	}
	return ms, err
}

// conversation is a session's lines in order ("name: content") and the
// turn each belongs to: a turn is what one speaker says before another
// speaks, one message or a run of them, as chat apps have people send
// a sentence at a time (REC-33). A message's context goes by turns, so a
// chat gets what composed turns get.
type conversation struct {
	lines []string
	turn  []int // turn[i] is line i's turn, counted from 0
	start []int // start[t] is turn t's first line; start[len] = len(lines)
}

func newConversation(lines, speakers []string) *conversation {
	c := &conversation{lines: lines, turn: make([]int, len(lines))}
	// Lines of one speaker throughout tell no turns apart: notes an agent
	// keeps, or a chat whose speakers were not named. Each is a turn.
	one := !slices.ContainsFunc(speakers, func(s string) bool { return s != speakers[0] })
	for i := range lines {
		if i == 0 || one || speakers[i] != speakers[i-1] || speakers[i] == "" {
			c.start = append(c.start, i)
		}
		c.turn[i] = len(c.start) - 1
	}
	c.start = append(c.start, len(lines))
	return c
}

// context joins the lines around line k that are indexed as its
// conversational context: the rest of its turn and the contextTurns turns
// on each side, at most contextLines lines and contextWords words a side
// (the words nearest line k).
func (c *conversation) context(k int) string {
	t := c.turn[k]
	lo := max(c.start[max(0, t-contextTurns)], k-contextLines)
	hi := min(c.start[min(len(c.start)-1, t+contextTurns+1)], k+contextLines+1)
	var before, after []string
	for j, room := k-1, contextWords; j >= lo && room > 0; j-- {
		w := strings.Fields(c.lines[j])
		if len(w) > room {
			before = append(before, strings.Join(w[len(w)-room:], " "))
			break
		}
		before, room = append(before, c.lines[j]), room-len(w)
	}
	slices.Reverse(before)
	for j, room := k+1, contextWords; j < hi && room > 0; j++ {
		w := strings.Fields(c.lines[j])
		if len(w) > room {
			after = append(after, strings.Join(w[:room], " "))
			break
		}
		after, room = append(after, c.lines[j]), room-len(w)
	}
	return strings.Join(append(before, after...), "\n")
}

// before is what line k is read with when its vector is made: the turn
// before its own and what its own turn said before it, at most
// contextLines lines.
func (c *conversation) before(k int) string {
	lo := max(c.start[max(0, c.turn[k]-1)], k-contextLines)
	return strings.Join(c.lines[lo:k], "\n")
}

// messagePrefix names message i in an error, even the only one: the
// caller sent a list.
func messagePrefix(i int) string {
	return "messages[" + strconv.Itoa(i) + "]: "
}
