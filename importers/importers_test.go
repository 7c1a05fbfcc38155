package importers_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/importers"
)

// describe writes what a reader found, one line per conversation and per
// message, so that a test can say all it expects at once.
func describe(h *importers.History) string {
	var b strings.Builder
	for _, c := range h.Conversations {
		fmt.Fprintf(&b, "conv %s %q %s\n", c.ID, c.Title, stamp(c.Time))
		for _, m := range c.Messages {
			text := m.Text
			if len(text) > 60 {
				text = text[:60] + "…"
			}
			fmt.Fprintf(&b, "  %s %s %s %q\n", m.ID, m.Role, stamp(m.Time), text)
		}
	}
	for _, e := range h.Entities {
		fmt.Fprintf(&b, "entity %s (%s) %q\n", e.Name, e.Type, e.Observations)
	}
	for _, r := range h.Relations {
		fmt.Fprintf(&b, "relation %s %s %s\n", r.From, r.Type, r.To)
	}
	return b.String()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// Each reader keeps what was said, with its ids, times and speakers, and
// leaves out the other branches, deleted nodes, attachments, tool traffic,
// hidden and meta messages (IMP-4 … IMP-8).
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format importers.Format
		input  []byte
		want   string
	}{
		{"chatgpt", importers.ChatGPT, chatgptExport(t), `conv c-lisbon "Lisbon trip" 2023-11-14T22:13:19Z
  m-u1 user 2023-11-14T22:13:20.25Z "Plan a trip to Lisbon in May"
  m-a2 assistant 2023-11-14T22:13:29.5Z "Lisbon in May is warm; stay in Alfama."
  m-u2 user 2023-11-14T22:15:00Z "Thanks!"
conv c-empty "New chat" 2023-11-14T22:30:00Z
`},
		{"claude", importers.Claude, claudeExport(t), `conv cl-1 "Sourdough" 2025-02-01T09:00:00Z
  cm-1 user 2025-02-01T09:00:05.123456Z "How long should I proof sourdough?"
  cm-2 assistant 2025-02-01T09:00:20Z "Proof it 4 to 6 hours at room temperature."
  cm-3 user 2025-02-01T09:01:00Z "Great, thanks"
conv cl-2 "" 2025-02-02T00:00:00Z
`},
		{"claude-code", importers.ClaudeCode, claudeCodeSession(t), `conv s-1111 "Fix the checkout bug" 2025-06-01T10:00:01Z
  u-1 user 2025-06-01T10:00:01Z "The checkout total ignores the discount; fix it"
  a-1 assistant 2025-06-01T10:00:03Z "I'll look at cart.go."
  a-2 assistant 2025-06-01T10:00:10Z "Fixed: the discount is applied before tax."
  u-2 user 2025-06-01T10:00:11Z "caf` + "\ufffd" + ` receipts too"
`},
		{"codex", importers.Codex, codexRollout(t), `conv 0199-aaaa "" 2025-09-03T08:00:02Z
  l3 user 2025-09-03T08:00:02Z "Add rate limiting to the login endpoint"
  l8 assistant 2025-09-03T08:00:09Z "Added a token bucket of 5 attempts a minute per IP."
`},
		{"codex legacy", importers.Codex, codexLegacy(t), `conv legacy-1 "" 2025-04-20T12:00:00Z
  l3 user 2025-04-20T12:00:00Z "Rename the package"
  l4 assistant 2025-04-20T12:00:00Z "Renamed to billing."
`},
		{"mcp-memory", importers.MCPMemory, mcpMemory(t), `entity Ana Silva (person) ["Works at Acme as a data engineer" "Prefers morning meetings"]
entity Acme (organization) ["Makes industrial sensors"]
entity Empty Co (organization) []
relation Ana Silva works_at Acme
relation Ana Silva knows Nobody
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := importers.Read(tc.format, "file", bytes.NewReader(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(h); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A ChatGPT export without current_node (an older one) follows the last
// child at each fork: the latest regeneration.
func TestChatGPTWithoutCurrentNode(t *testing.T) {
	in := strings.ReplaceAll(string(chatgptExport(t)), `"current_node":"n-u2"`, `"current_node":""`)
	h, err := importers.Read(importers.ChatGPT, "", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range h.Conversations[0].Messages {
		ids = append(ids, m.ID)
	}
	if got := strings.Join(ids, " "); got != "m-u1 m-a2 m-u2" {
		t.Fatalf("messages %s", got)
	}
}

// A malformed input fails as a whole, naming where (IMP-3): the line of a
// JSON Lines file, the byte offset in a JSON file.
func TestMalformed(t *testing.T) {
	deep := strings.Repeat("[", mnemo.MaxRequestDepth+1) + strings.Repeat("]", mnemo.MaxRequestDepth+1)
	for _, tc := range []struct {
		name   string
		format importers.Format
		input  string
		want   string
	}{
		{"not json", importers.ChatGPT, `{"title":`, "byte"},
		{"not an array", importers.Claude, `{"uuid":"x"}`, "must be a JSON array"},
		{"cut short", importers.ChatGPT, `[{"id":"a","mapping":{}},{"id":`, "ends early"},
		{"no id", importers.ChatGPT, `[{"title":"t","mapping":{}}]`, "has no id"},
		{"bad time", importers.Claude, `[{"uuid":"a","chat_messages":[{"uuid":"m","sender":"human","text":"hi","created_at":"yesterday"}]}]`, "not RFC 3339"},
		{"time out of range", importers.ChatGPT, `[{"id":"a","create_time":99999999999,"mapping":{}}]`, "out of range"},
		{"wrong type", importers.Claude, `[{"uuid":"a","chat_messages":"none"}]`, "chat_messages holds a JSON string"},
		{"trailing", importers.Claude, `[] []`, "more after the array"},
		{"too deep", importers.ChatGPT, "[" + deep + "]", "nests"},
		{"bad line", importers.ClaudeCode, "{\"type\":\"user\"}\n{\"type\":\n", "line 2: malformed JSON"},
		{"bad content", importers.ClaudeCode, `{"type":"user","message":{"role":"user","content":7}}`, "line 1: message.content"},
		{"bad payload", importers.Codex, "\n\n" + `{"type":"response_item","payload":{"type":"message","role":"user","content":"x"}}`, "line 3: content is not a list"},
		{"unknown type", importers.MCPMemory, `{"type":"entity","name":"a"}` + "\n" + `{"type":"thing"}`, "line 2: type must be entity or relation"},
		{"no name", importers.MCPMemory, `{"type":"entity","name":" "}`, "line 1: an entity has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := importers.Read(tc.format, "", strings.NewReader(tc.input))
			var se *importers.SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a SyntaxError with %q", err, tc.want)
			}
			if h != nil {
				t.Fatalf("a malformed input returned %d conversations", len(h.Conversations))
			}
		})
	}
}

// A line of several megabytes (a Claude Code tool result) is read; one past
// MaxLine is refused by its number.
func TestHugeLine(t *testing.T) {
	h, err := importers.Read(importers.ClaudeCode, "s", bytes.NewReader(claudeCodeSession(t)))
	if err != nil || len(h.Conversations) != 1 {
		t.Fatalf("%v", err)
	}
	if testing.Short() {
		t.Skip("builds a line past MaxLine")
	}
	big := append([]byte(`{"type":"summary","summary":"`), bytes.Repeat([]byte("x"), importers.MaxLine)...)
	big = append(big, "\"}\n"...)
	in := append([]byte("{}\n"), big...)
	if _, err := importers.Read(importers.ClaudeCode, "s", bytes.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 2: the line is longer") {
		t.Fatalf("error %v", err)
	}
}

// checkHistory is what every reader promises of what it returns.
func checkHistory(t *testing.T, h *importers.History) {
	for _, c := range h.Conversations {
		if strings.TrimSpace(c.ID) == "" {
			t.Fatalf("conversation without an id")
		}
		for _, m := range c.Messages {
			if m.Role != "user" && m.Role != "assistant" || m.ID == "" || strings.TrimSpace(m.Text) == "" || !utf8.ValidString(m.Text) {
				t.Fatalf("message %+v", m)
			}
			if !m.Time.IsZero() && !mnemo.InTimeRange(m.Time) {
				t.Fatalf("time %v", m.Time)
			}
		}
	}
	for _, e := range h.Entities {
		if e.Name == "" || !utf8.ValidString(e.Name) {
			t.Fatalf("entity %+v", e)
		}
	}
}
