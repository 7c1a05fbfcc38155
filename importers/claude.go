package importers

import (
	"encoding/json"
	"io"
	"strings"
)

// Claude's export: conversations.json is an array of conversations (uuid,
// name, created_at, chat_messages), each message with its sender (human or
// assistant), its text, and in newer exports content blocks, of which the
// text ones are what was said and tool_use and tool_result the tools'
// traffic (IMP-5).

type claudeConversation struct {
	UUID      string          `json:"uuid"`
	Name      string          `json:"name"`
	CreatedAt string          `json:"created_at"`
	Messages  []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	UUID      string        `json:"uuid"`
	Sender    string        `json:"sender"`
	Text      string        `json:"text"`
	Content   []claudeBlock `json:"content"`
	CreatedAt string        `json:"created_at"`
}

type claudeBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ReadClaude streams the conversations of a Claude conversations.json.
func ReadClaude(r io.Reader, yield func(Conversation) error) error {
	return readArray(r, func(raw json.RawMessage) error {
		var c claudeConversation
		if err := decode(raw, &c); err != nil {
			return err
		}
		if clean(c.UUID) == "" {
			return errorf("a conversation has no uuid")
		}
		start, err := parseTime(c.CreatedAt)
		if err != nil {
			return err
		}
		conv := Conversation{ID: c.UUID, Title: clean(c.Name), Time: start}
		for i, m := range c.Messages {
			var role string
			switch m.Sender {
			case "human", "user":
				role = "user"
			case "assistant":
				role = "assistant"
			default:
				continue
			}
			text := m.text()
			if text == "" {
				continue
			}
			at, err := parseTime(m.CreatedAt)
			if err != nil {
				return errorf("chat_messages[%d]: %v", i, err)
			}
			id := m.UUID
			if clean(id) == "" {
				id = "n" + itoa(i)
			}
			conv.Messages = append(conv.Messages, Message{ID: id, Role: role, Text: text, Time: at})
		}
		return yield(conv)
	})
}

// text is the message's text blocks, or its text when it has none.
func (m *claudeMessage) text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" && clean(b.Text) != "" {
			parts = append(parts, clean(b.Text))
		}
	}
	if len(parts) == 0 && len(m.Content) == 0 {
		return clean(m.Text)
	}
	return strings.Join(parts, "\n")
}
