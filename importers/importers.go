// Package importers reads the history people keep in other tools — ChatGPT
// and Claude exports, Claude Code and Codex sessions, the MCP reference
// memory server's memory.json — and stores it in mnemo (IMP-1): each
// conversation as a session of messages with its times and speakers, each
// entity's observations as memories about it, each relation as a link.
//
// A reader per format (one file each) streams its input and yields what it
// finds; Read collects a whole input and fails, naming the line or byte
// offset, before anything is stored (IMP-3); Import then stores it, keyed
// so that importing the same history again adds only what is new (IMP-2).
package importers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// Format names an input format.
type Format string

// The formats Read knows.
const (
	ChatGPT    Format = "chatgpt"     // conversations.json of a ChatGPT export
	Claude     Format = "claude"      // conversations.json of a Claude export
	ClaudeCode Format = "claude-code" // ~/.claude/projects/<project>/<session>.jsonl
	Codex      Format = "codex"       // ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl
	MCPMemory  Format = "mcp-memory"  // the MCP reference memory server's memory.json
)

// Formats lists every format, in the order the help names them.
var Formats = []Format{ChatGPT, Claude, ClaudeCode, Codex, MCPMemory}

// ParseFormat checks a format's name.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Formats, f) {
		return f, nil
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", mnemo.Errorf(mnemo.EINVALID, "--from must be one of %s, not %q", strings.Join(names, ", "), s)
}

// fileMatches reports whether a directory walk takes the file at path
// (slash-separated, relative to the directory) for format f: the files a
// tool writes, not whatever else lies beside them.
func (f Format) fileMatches(name string) bool {
	switch f {
	case ChatGPT, Claude:
		return name == "conversations.json"
	case ClaudeCode:
		return strings.HasSuffix(name, ".jsonl")
	case Codex:
		return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
	case MCPMemory:
		return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")
	}
	return false
}

// Message is one turn of a conversation as a tool recorded it.
type Message struct {
	// ID is the message's id in its tool, unique in its conversation; a
	// format without ids uses the message's place in the file.
	ID   string
	Role string // user or assistant
	// Name is the speaker's name, when the tool records one.
	Name string
	Text string
	// Time is when it was said; zero when the tool did not record it.
	Time time.Time
}

// Conversation is one chat or agent session.
type Conversation struct {
	ID       string
	Title    string
	Time     time.Time // when it began; zero when unknown
	Messages []Message
}

// Entity is a node of a knowledge graph: a name, a type and what is known
// of it.
type Entity struct {
	Name         string
	Type         string
	Observations []string
}

// Relation is an edge of a knowledge graph, between two entities' names.
type Relation struct {
	From, To, Type string
}

// History is everything read from one input.
type History struct {
	Conversations []Conversation
	Entities      []Entity
	Relations     []Relation
}

// Messages counts the messages of every conversation.
func (h *History) Messages() int {
	n := 0
	for i := range h.Conversations {
		n += len(h.Conversations[i].Messages)
	}
	return n
}

// SyntaxError is a malformed input: where, and what is wrong (IMP-3).
type SyntaxError struct {
	File string // the file, when a directory or a named file was read
	// Line is the line of a JSON Lines file (1-based); Offset the byte
	// offset in a JSON file when Line is 0.
	Line   int
	Offset int64
	Msg    string
	// Err is the reader's error behind Msg, when there is one (a body
	// over its size limit, say).
	Err error
}

func (e *SyntaxError) Unwrap() error { return e.Err }

func (e *SyntaxError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	} else {
		fmt.Fprintf(&b, "byte %d: ", e.Offset)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// MaxLine is the longest line of a JSON Lines file a reader accepts: a
// Claude Code line holding a whole tool result can run to megabytes.
const MaxLine = 64 << 20

// clean makes text storable: invalid UTF-8 becomes U+FFFD (a JSON decoder
// does that already; a reader of raw bytes may not), NUL bytes go, and the
// ends are trimmed.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\x00", "")
	return strings.TrimSpace(s)
}

// segment makes one key segment of an id from a tool: escaped, so that no
// '/' splits it, and hashed when it is too long or could not be a segment.
func segment(id string) string {
	s := url.PathEscape(clean(id))
	if s == "" || strings.Trim(s, ".") == "" || len(s) > 96 {
		return hashed(id)
	}
	return s
}

// hashed stands for an id that cannot be used as it is.
func hashed(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "h" + hex.EncodeToString(sum[:12])
}

// sessionID is the session a conversation's messages are stored in:
// the format and the conversation's id, hashed when that is no session id.
// A Claude Code session is the session the Claude Code hooks capture it
// in, so that a turn they captured is not imported again (AGT-4, IMP-2).
func sessionID(f Format, conv string) string {
	sep := ":"
	if f == ClaudeCode {
		sep = "-"
	}
	id := string(f) + sep + conv
	if _, err := mnemo.CheckID("session_id", id, false); err != nil {
		return string(f) + sep + hashed(conv)
	}
	return id
}

// keyPrefix is the key prefix of a conversation's messages: a message is
// keyPrefix + "/" + its segment. A Claude Code session's are the keys the
// hooks give its turns (/claude-code/<session>/<uuid>).
func keyPrefix(f Format, conv string) string {
	if f == ClaudeCode {
		return "/" + string(ClaudeCode) + "/" + segment(conv)
	}
	return Root + "/" + string(f) + "/" + segment(conv)
}

// checkTime refuses a time outside what mnemo stores (TIME-1).
func checkTime(t time.Time) error {
	if t.IsZero() || mnemo.InTimeRange(t) {
		return nil
	}
	return fmt.Errorf("time %s is out of range", t.UTC().Format(time.RFC3339))
}

// unixTime reads the float seconds ChatGPT writes; nil is zero.
func unixTime(f *float64) (time.Time, error) {
	if f == nil || *f == 0 {
		return time.Time{}, nil
	}
	if *f < 0 || *f > 1e11 {
		return time.Time{}, fmt.Errorf("create_time %v is out of range", *f)
	}
	sec := int64(*f)
	t := time.Unix(sec, int64((*f-float64(sec))*1e9)).UTC()
	return t, checkTime(t)
}

// parseTime reads an RFC 3339 time; "" is zero.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q is not RFC 3339", s)
	}
	return t.UTC(), checkTime(t)
}

// errorf is a plain error of a malformed input; the reader adds where.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func itoa(i int) string { return strconv.Itoa(i) }
