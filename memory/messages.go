package memory

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
// messages already stored (up to contextLines of them); those stored
// earlier learn of the replies that follow them, where the store can
// index a context again (REC-36).
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
	roles, names := make([]string, len(msgs)), make([]string, len(msgs))
	for i, m := range msgs {
		role, err := mnemo.CheckWord("role", m.Role)
		if err != nil {
			return nil, mnemo.WithPrefix(err, messagePrefix(i))
		}
		name := strings.TrimSpace(m.Name)
		if len(name) > 128 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "%sname is longer than 128 bytes", messagePrefix(i))
		}
		// Refused, not mended: the name is stored in the message's data
		// and written into what is indexed and embedded.
		if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
			return nil, mnemo.Errorf(mnemo.EINVALID, "%sname must be UTF-8 text with no control characters", messagePrefix(i))
		}
		roles[i], names[i] = role, name
	}

	ms, err := s.addMessages(ctx, scope, sessionID, msgs, roles, names)
	if err == nil && s.extractor != nil {
		level := mnemo.SecurityInternal
		for _, m := range ms {
			level = mnemo.Highest(level, m.SecurityLevel)
		}
		s.extract(ctx, scope, sessionID, msgs, level)
	}
	return ms, err
}

// addMessages stores msgs, checked, with the contexts of the session's
// messages before them that change, the session locked meanwhile.
func (s *Service) addMessages(ctx context.Context, scope mnemo.Scope, sessionID string, msgs []Message, roles, names []string) ([]mnemo.Memory, error) {
	defer s.sessions.lock(scope, sessionID)()
	// The session's last lines stored before this call are the first
	// message's context, as they would be had the session come in one call.
	last, _, err := s.store.List(ctx, scope, mnemo.ListQuery{
		Filter: mnemo.Filter{SessionID: sessionID, Types: []string{mnemo.TypeEvent}, IncludeArchived: true, IncludeExpired: true},
		// Twice the lines a context reaches back: the earlier ones are the
		// context of the later ones, which learn of this call's (REC-36).
		Order: mnemo.OrderNewest, Limit: 2 * contextLines,
		// Read on every request: counting the session's turns and
		// reading vectors would cost more than the rest of a one-turn
		// request's store work (PERF-8).
		NoTotal: true, NoVectors: true,
	})
	if err != nil {
		last = nil // context is a help, not a condition of storing
	}
	off := len(last)
	window := make([]line, 0, off+len(msgs))
	for i := range last {
		window = append(window, lineOf(&last[off-1-i]))
	}
	for i, m := range msgs {
		window = append(window, line{role: roles[i], name: names[i], content: m.Content})
	}
	nameFromText(window[max(0, off-contextLines):])
	s.knownSpeakers(ctx, scope, window[off:])

	drafts := make([]mnemo.Draft, len(msgs))
	turns := make([]turn, len(msgs))
	c := conversationOf(window)
	// Turns are numbered on from the newest stored line's; a session whose
	// lines have none (stored before numbers were kept) is numbered from
	// the window. A line whose turn grows later (a session's first
	// speaker's, REC-36) keeps its number: the turn's lines then count as
	// several, never another's as one (REC-38).
	first := 1
	if off > 0 && window[off-1].turn > 0 {
		first = window[off-1].turn - c.turn[off-1]
	}
	for i, m := range msgs {
		data, _ := json.Marshal(messageData{Role: roles[i], Name: window[off+i].name, Turn: first + c.turn[off+i]})
		content := m.Content
		drafts[i] = mnemo.Draft{
			Key: m.Key, SessionID: sessionID, Content: &content, Data: data,
			Type: mnemo.TypeEvent, CreatedAt: m.CreatedAt, OccurredAt: m.OccurredAt,
			Entities: m.Entities,
		}
		turns[i].context = c.context(i + off)
		turns[i].prev = c.before(i + off)
	}
	recs, err := s.records(ctx, scope, drafts, turns, true)
	if err != nil {
		return nil, err
	}
	return s.writeWith(ctx, scope, recs, true, s.putWith(s.replyContexts(last, c, len(last) < 2*contextLines)))
}

// replyContexts returns the new index contexts of the session's messages
// stored before a call, last (newest first), which c holds before the
// call's (REC-36): the context each would have had in one call with them,
// so that a message sent on its own is found by the replies that follow
// it. Only a line whose context changes is indexed again, and only one
// whose earlier side c holds in full (whole: c holds the session from its
// first line). A line whose vector's text changes too — a session's first
// speaker's lines, each a turn of its own until another speaks (REC-33) —
// is embedded again. A store that cannot index a context again gets none.
func (s *Service) replyContexts(last []mnemo.Memory, c *conversation, whole bool) []mnemo.ContextUpdate {
	off := len(last)
	if s.store.Contexts == nil || off == 0 {
		return nil
	}
	was := newConversation(c.lines[:off], c.speakers[:off])
	window := slices.Clone(last)
	slices.Reverse(window)
	lo := off - contextLines
	if !whole {
		lo = max(lo, contextLines)
	}
	return s.changes(window, c, was, lo, off, -1, func(j int) int { return j })
}

// line is a message of a session as its conversation reads it, and its
// stored turn's number (0 for one not stored, or stored with none).
type line struct {
	role, name, content string
	turn                int
}

// lineOf is a stored message as a line of its conversation.
func lineOf(m *mnemo.Memory) line {
	d := messageOf(m)
	return line{role: d.Role, name: d.Name, content: m.Content, turn: d.Turn}
}

// conversationOf reads lines as a conversation: a speaker is its name
// where it has one, else its role.
func conversationOf(window []line) *conversation {
	lines, speakers := make([]string, len(window)), make([]string, len(window))
	for i, l := range window {
		lines[i], speakers[i] = turnLine(l.name, l.content), l.role
		if l.name != "" {
			speakers[i] = "name:" + l.name
		}
	}
	return newConversation(lines, speakers)
}

// turnLine is a message as a line of its conversation: "name: content",
// or the content as it is where it opens with its name already.
func turnLine(name, content string) string {
	if name == "" || speakerLabel(content) == name {
		return content
	}
	return name + ": " + content
}

// nameFromText names the speakers of lines sent with no name whose text
// opens with one ("Caroline: …", as transcripts and harnesses that know
// only roles write a conversation), REC-35: where two lines or more open
// so, each is said by the name it opens with. A label one line alone
// opens with ("Meeting: …") names no one; a name sent is never replaced.
func nameFromText(lines []line) {
	labels := make([]string, len(lines))
	labelled := 0
	for i, l := range lines {
		label := speakerLabel(l.content)
		if label == "" || l.name != "" && l.name != label {
			continue
		}
		labels[i] = label
		labelled++
	}
	if labelled < 2 {
		return
	}
	for i := range lines {
		if lines[i].name == "" {
			lines[i].name = labels[i]
		}
	}
}

// knownSpeakers names, in a call whose lines alone cannot tell (a
// session's first message, sent on its own), the speakers of lines sent
// with no name whose text opens with the name of someone the agent's last
// messages were said by (REC-35).
func (s *Service) knownSpeakers(ctx context.Context, scope mnemo.Scope, lines []line) {
	unnamed := slices.ContainsFunc(lines, func(l line) bool { return l.name == "" && speakerLabel(l.content) != "" })
	if !unnamed {
		return
	}
	last, _, err := s.store.List(ctx, scope, mnemo.ListQuery{
		Filter: mnemo.Filter{Types: []string{mnemo.TypeEvent}, IncludeArchived: true, IncludeExpired: true},
		Order:  mnemo.OrderNewest, Limit: contextLines, NoTotal: true, NoVectors: true,
	})
	if err != nil {
		return // a name is a help, not a condition of storing
	}
	known := make(map[string]bool)
	for i := range last {
		if name := speakerName(&last[i]); name != "" {
			known[name] = true
		}
	}
	for i := range lines {
		if label := speakerLabel(lines[i].content); lines[i].name == "" && known[label] {
			lines[i].name = label
		}
	}
}

// speakerLabel is the speaker's name a text opens with, "Caroline" of
// "Caroline: I went…" or "小明" of "小明：我去了…", or "": one to three
// words of a name (capitalised, or Han), then a colon, a space and the
// text. Roles and the labels notes open with ("User", "Note", "Q") are no
// names; nor is a word in capitals ("TODO"). A transcript in one text,
// whose later lines open with another's name ("Ann: hi\nBo: hello"), is
// no one's.
func speakerLabel(text string) string {
	label, rest := lineLabel(text)
	if label == "" {
		return ""
	}
	for line := range strings.Lines(rest) {
		if other, _ := lineLabel(line); other != "" && other != label {
			return ""
		}
	}
	return label
}

// lineLabel is the speaker's name a line opens with, as speakerLabel, and
// the text after it; it reads no further than the name's colon, and the
// text after only to see that there is some.
func lineLabel(text string) (label, rest string) {
	i := strings.IndexAny(text[:min(len(text), maxLabel+len("："))], ":：")
	if i <= 0 || i > maxLabel {
		return "", ""
	}
	label, rest = text[:i], text[i:]
	if r, size := utf8.DecodeRuneInString(rest); r == ':' {
		if rest = rest[size:]; rest == "" || rest[0] != ' ' {
			return "", "" // "https://…", "10:30"
		}
	} else {
		rest = rest[size:]
	}
	line, _, _ := strings.Cut(rest, "\n")
	if strings.TrimSpace(line) == "" {
		return "", ""
	}
	words := strings.Fields(label)
	if len(words) == 0 || len(words) > 3 || strings.Join(words, " ") != label || notNames[strings.ToLower(label)] {
		return "", ""
	}
	for _, w := range words {
		if !nameWord(w) {
			return "", ""
		}
	}
	return label, rest
}

// maxLabel is the longest speaker's name, in bytes, speakerLabel takes.
const maxLabel = 40

// nameWord reports whether w can be a word of a name: a capitalised word
// of letters (with marks, digits, apostrophes, hyphens, dots), not all
// capitals, or up to four Han characters.
func nameWord(w string) bool {
	first, _ := utf8.DecodeRuneInString(w)
	han := unicode.Is(unicode.Han, first)
	if !han && !unicode.IsUpper(first) && !unicode.IsTitle(first) {
		return false
	}
	letters, upper := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			if unicode.Is(unicode.Han, r) != han {
				return false
			}
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		case han:
			return false
		case unicode.IsMark(r) || unicode.IsDigit(r) || strings.ContainsRune(".'’-_", r):
		default:
			return false
		}
	}
	if han {
		return letters <= 4
	}
	return letters == 1 || upper < letters
}

// notNames are labels a line opens with that name no speaker: roles, and
// what notes and transcripts mark.
var notNames = map[string]bool{
	"user": true, "assistant": true, "system": true, "human": true, "ai": true, "bot": true,
	"agent": true, "tool": true, "function": true, "developer": true, "model": true,
	"me": true, "you": true, "q": true, "a": true, "question": true, "answer": true,
	"note": true, "notes": true, "nb": true, "ps": true, "re": true, "fyi": true, "edit": true,
	"update": true, "todo": true, "warning": true, "error": true, "tip": true, "hint": true,
	"summary": true, "important": true, "reminder": true, "context": true, "task": true,
	"goal": true, "example": true, "source": true, "title": true, "subject": true,
	"date": true, "time": true, "location": true, "result": true, "input": true,
	"output": true, "response": true, "reply": true, "status": true, "info": true,
	"用户": true, "助手": true, "系统": true, "问": true, "答": true, "注意": true, "备注": true, "提示": true,
}

// conversation is a session's lines in order ("name: content") and the
// turn each belongs to: a turn is what one speaker says before another
// speaks, one message or a run of them, as chat apps have people send
// a sentence at a time (REC-33). A message's context goes by turns, so a
// chat gets what composed turns get.
type conversation struct {
	lines    []string
	speakers []string
	turn     []int // turn[i] is line i's turn, counted from 0
	start    []int // start[t] is turn t's first line; start[len] = len(lines)
}

func newConversation(lines, speakers []string) *conversation {
	c := &conversation{lines: lines, speakers: speakers, turn: make([]int, len(lines))}
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

// messageData is what AddMessages keeps in a message's data.
type messageData struct {
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	// Turn is the message's turn in its session, counted from 1: the
	// messages one speaker sends before another speaks share it (REC-38).
	Turn int `json:"turn,omitempty"`
}

// messageOf reads what AddMessages kept in a message's data; the zero
// value for a memory that is no message.
func messageOf(m *mnemo.Memory) messageData {
	var v messageData
	if m.Type != mnemo.TypeEvent || len(m.Data) == 0 || m.Data[0] != '{' {
		return v
	}
	if json.Unmarshal(m.Data, &v) != nil || v.Role == "" {
		return messageData{}
	}
	return v
}
