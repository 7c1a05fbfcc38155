package importers

import (
	"encoding/json"
	"io"
	"strings"
)

// ChatGPT's export: conversations.json is an array of conversations, each
// a tree of nodes in mapping (id → {message, parent, children}): every
// edit and regeneration starts a branch, and current_node is the leaf of
// the branch the person last saw. Only that branch is read (IMP-4).

type gptConversation struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversation_id"`
	Title          string             `json:"title"`
	CreateTime     *float64           `json:"create_time"`
	CurrentNode    string             `json:"current_node"`
	Mapping        map[string]gptNode `json:"mapping"`
}

type gptNode struct {
	ID       string      `json:"id"`
	Message  *gptMessage `json:"message"`
	Parent   *string     `json:"parent"`
	Children []string    `json:"children"`
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string  `json:"role"`
		Name *string `json:"name"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
	} `json:"content"`
	Recipient string `json:"recipient"`
	Metadata  struct {
		Hidden bool `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

// ReadChatGPT streams the conversations of a ChatGPT conversations.json,
// each with the messages of its current branch, oldest first.
func ReadChatGPT(r io.Reader, yield func(Conversation) error) error {
	return readArray(r, func(raw json.RawMessage) error {
		var c gptConversation
		if err := decode(raw, &c); err != nil {
			return err
		}
		conv, err := c.conversation()
		if err != nil {
			return err
		}
		return yield(conv)
	})
}

func (c *gptConversation) conversation() (Conversation, error) {
	id := c.ConversationID
	if id == "" {
		id = c.ID
	}
	if clean(id) == "" {
		return Conversation{}, errorf("a conversation has no id")
	}
	start, err := unixTime(c.CreateTime)
	if err != nil {
		return Conversation{}, err
	}
	conv := Conversation{ID: id, Title: clean(c.Title), Time: start}
	for _, n := range c.branch() {
		m := n.Message
		if m == nil {
			continue // the root, or a deleted node
		}
		msg, ok := m.message(n.ID)
		if !ok {
			continue
		}
		if msg.Time, err = unixTime(m.CreateTime); err != nil {
			return Conversation{}, err
		}
		conv.Messages = append(conv.Messages, msg)
	}
	return conv, nil
}

// branch returns the nodes from the root to current_node; without one (an
// older export), the branch that takes the last child at every fork.
func (c *gptConversation) branch() []gptNode {
	var path []gptNode
	seen := map[string]bool{}
	if n, ok := c.Mapping[c.CurrentNode]; ok {
		id := c.CurrentNode
		for ok && !seen[id] {
			seen[id] = true
			if n.ID == "" {
				n.ID = id
			}
			path = append(path, n)
			if n.Parent == nil {
				break
			}
			id = *n.Parent
			n, ok = c.Mapping[id]
		}
		for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
			path[i], path[j] = path[j], path[i]
		}
		return path
	}
	root := ""
	for id, n := range c.Mapping {
		if (n.Parent == nil || *n.Parent == "") && (root == "" || id < root) {
			root = id
		}
	}
	for id := root; id != "" && !seen[id]; {
		n, ok := c.Mapping[id]
		if !ok {
			break
		}
		seen[id] = true
		if n.ID == "" {
			n.ID = id
		}
		path = append(path, n)
		id = ""
		if len(n.Children) > 0 {
			id = n.Children[len(n.Children)-1]
		}
	}
	return path
}

// message keeps what a person said and the model answered, in words: not
// system or tool messages, not hidden context, not the model's calls to
// its tools, not attachments (parts that are not strings, but for the
// transcription of a voice message).
func (m *gptMessage) message(nodeID string) (Message, bool) {
	role := m.Author.Role
	if role != "user" && role != "assistant" || m.Metadata.Hidden {
		return Message{}, false
	}
	if m.Recipient != "" && m.Recipient != "all" {
		return Message{}, false
	}
	switch m.Content.ContentType {
	case "text", "multimodal_text":
	default:
		return Message{}, false
	}
	var parts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil && clean(s) != "" {
			parts = append(parts, clean(s))
			continue
		}
		// A voice conversation's words are transcriptions among the parts.
		var obj struct {
			ContentType string `json:"content_type"`
			Text        string `json:"text"`
		}
		if json.Unmarshal(p, &obj) == nil && obj.ContentType == "audio_transcription" && clean(obj.Text) != "" {
			parts = append(parts, clean(obj.Text))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		return Message{}, false
	}
	id := m.ID
	if id == "" {
		id = nodeID
	}
	msg := Message{ID: id, Role: role, Text: text}
	if m.Author.Name != nil {
		msg.Name = clean(*m.Author.Name)
	}
	return msg, true
}
