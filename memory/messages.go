package memory

import (
	"context"
	"encoding/json"
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

// contextWindow is how many neighbours on each side of a message are indexed
// as its conversational context.
const contextWindow = 2

// AddMessages stores a session's messages in order, each as a memory of type
// event whose data holds the role and speaker name. The speaker name is
// indexed with the text, and each message's neighbours in the session are
// indexed as its context (with a lower weight), so that recall can find a
// turn by what was said around it.
//
// Neighbours are taken from the same call and, for the first message, from
// the last message already stored in the session; a message stored earlier
// does not learn of replies that arrive in a later call.
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
		lines[i] = content
		if name != "" {
			lines[i] = name + ": " + content
		}
	}

	prev := ""
	if last, _, err := s.store.List(ctx, scope, mnemo.ListQuery{
		Filter: mnemo.Filter{SessionID: sessionID, Types: []string{mnemo.TypeEvent}, IncludeArchived: true, IncludeExpired: true},
		Order:  mnemo.OrderNewest, Limit: 1,
		// One row, read on every request: counting the session's turns
		// and reading a vector would cost more than the rest of a
		// one-turn request's store work (PERF-8).
		NoTotal: true, NoVectors: true,
	}); err == nil && len(last) == 1 {
		prev = last[0].Content
		if name := speakerName(&last[0]); name != "" {
			prev = name + ": " + prev
		}
	}
	off := 0
	if prev != "" {
		lines = append([]string{prev}, lines...)
		off = 1
	}
	turns := make([]turn, len(drafts))
	for i := range turns {
		turns[i].context = neighbours(lines, i+off)
		if i+off > 0 {
			turns[i].prev = lines[i+off-1]
		}
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

// neighbours joins the lines within contextWindow of line k, except k.
func neighbours(lines []string, k int) string {
	var out []string
	for j := max(0, k-contextWindow); j <= k+contextWindow && j < len(lines); j++ {
		if j != k {
			out = append(out, lines[j])
		}
	}
	return strings.Join(out, "\n")
}

// messagePrefix names message i in an error, even the only one: the
// caller sent a list.
func messagePrefix(i int) string {
	return "messages[" + strconv.Itoa(i) + "]: "
}
