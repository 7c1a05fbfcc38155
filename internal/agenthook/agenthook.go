// Package agenthook answers the lifecycle hooks of coding agents (Claude
// Code's, AGT-1): it reads the JSON the agent sends on stdin, asks the
// running mnemo server over HTTP, and prints what the agent should add to
// its context. A hook never blocks its agent (AGT-3): every call is bounded
// by one deadline, and a failure of any kind gives the agent nothing and
// returns the reason for the caller to log.
package agenthook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Events, as Claude Code names them in hook_event_name.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreCompact       = "PreCompact"
	Stop             = "Stop"
	SessionEnd       = "SessionEnd"
)

// Defaults of Config.
const (
	DefaultURL        = "http://127.0.0.1:7077"
	DefaultTimeout    = time.Second
	DefaultBootTokens = 1500
	DefaultRecall     = 3
)

// maxInput bounds the hook JSON read from stdin: a prompt is the largest
// part, and more than this is not a hook payload.
const maxInput = 4 << 20

// Config is how a hook reaches the server and what it asks for.
type Config struct {
	URL string // the server's base URL
	Key string // its API key; "" when auth is off
	// Agent is the agent id; "" takes it from the repository the agent
	// works in (AgentFromDir, AGT-2).
	Agent string
	// Timeout bounds the whole hook, reading stdin included (AGT-3).
	Timeout time.Duration
	// BootTokens is the session-start context's budget, in tokens
	// estimated at four bytes each.
	BootTokens int
	// Recall is how many memories a prompt brings in.
	Recall int
	// Client makes the requests; nil is a plain client.
	Client *http.Client
}

func (c Config) withDefaults() Config {
	if c.URL == "" {
		c.URL = DefaultURL
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BootTokens <= 0 {
		c.BootTokens = DefaultBootTokens
	}
	if c.Recall <= 0 {
		c.Recall = DefaultRecall
	}
	if c.Client == nil {
		c.Client = &http.Client{}
	}
	c.URL = strings.TrimRight(c.URL, "/")
	return c
}

// Input is the JSON Claude Code sends every hook on stdin; each event
// fills the fields it has.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`  // UserPromptSubmit
	Source         string `json:"source"`  // SessionStart: startup, resume, clear, compact
	Trigger        string `json:"trigger"` // PreCompact: manual, auto
}

// Output is a hook's answer on stdout, in Claude Code's hook output shape.
type Output struct {
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput carries the context added to the conversation.
type SpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Result is what one hook did: the output for the agent (nil: print
// nothing) and, for capture events, how many turns were sent.
type Result struct {
	Output *Output
	Sent   int
}

// Run answers one hook: event is the hook's event (Claude Code's name, or
// its kebab-case form; "" takes hook_event_name from the input). It reads
// the input from stdin and returns the output to print. Any error means
// the agent gets nothing; the caller logs it and exits 0 (AGT-3).
func Run(ctx context.Context, cfg Config, event string, stdin io.Reader) (Result, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	raw, err := readInput(ctx, stdin)
	if err != nil {
		return Result{}, err
	}
	in, err := ParseInput(raw)
	if err != nil {
		return Result{}, err
	}
	if event == "" {
		event = in.HookEventName
	}
	name, ok := EventName(event)
	if !ok {
		return Result{}, fmt.Errorf("unknown hook event %q: want SessionStart, UserPromptSubmit, PreCompact, Stop or SessionEnd", event)
	}
	agent := cfg.Agent
	if agent == "" {
		agent = AgentFromDir(in.CWD)
	}
	c := client{cfg: cfg, agent: agent}
	switch name {
	case SessionStart:
		text, err := c.boot(ctx)
		return contextResult(name, text), err
	case UserPromptSubmit:
		text, err := c.recall(ctx, in.Prompt, in.SessionID)
		return contextResult(name, text), err
	default: // PreCompact, Stop, SessionEnd
		n, err := c.capture(ctx, in)
		return Result{Sent: n}, err
	}
}

func contextResult(event, text string) Result {
	if text == "" {
		return Result{}
	}
	return Result{Output: &Output{HookSpecificOutput: &SpecificOutput{HookEventName: event, AdditionalContext: text}}}
}

// EventName returns Claude Code's name for an event given either that name
// or its kebab-case form ("session-start").
func EventName(s string) (string, bool) {
	norm := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	for _, e := range []string{SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd} {
		if strings.ToLower(e) == norm {
			return e, true
		}
	}
	return "", false
}

// readInput reads stdin within ctx: an agent that never closes the pipe
// must not hold the hook past its deadline. On a timeout the reader is
// left blocked on the pipe; the hook's process exits right after.
func readInput(ctx context.Context, r io.Reader) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
		ch <- read{b, err}
	}()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("reading the hook input: %w", ctx.Err())
	case rd := <-ch:
		if rd.err != nil {
			return nil, fmt.Errorf("reading the hook input: %w", rd.err)
		}
		if len(rd.b) > maxInput {
			return nil, fmt.Errorf("the hook input is larger than %d bytes", maxInput)
		}
		return rd.b, nil
	}
}

// ParseInput decodes a hook's JSON input.
func ParseInput(raw []byte) (Input, error) {
	var in Input
	if len(bytes.TrimSpace(raw)) == 0 {
		return in, errors.New("the hook input is empty: want the agent's hook JSON on stdin")
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("the hook input is not JSON: %w", err)
	}
	return in, nil
}

// AgentFromDir is the agent id of a working directory (AGT-2): the base
// name of its git repository's top level, or of the directory itself
// outside a repository, reduced to lower-case letters, digits, '.', '_'
// and '-'. It finds the top level by looking for .git upwards, so it runs
// no program. "" or an unusable name gives "default".
func AgentFromDir(dir string) string {
	if dir == "" {
		return "default"
	}
	dir = filepath.Clean(dir)
	top := dir
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return SanitizeAgent(filepath.Base(top))
}

// SanitizeAgent makes name an agent id: lower case, every run of other
// characters a '-', at most 64 bytes, "default" when nothing is left.
func SanitizeAgent(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-.")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-.")
	}
	if s == "" {
		return "default"
	}
	return s
}

// client calls the server's JSON API for one agent.
type client struct {
	cfg   Config
	agent string
}

// httpError is an answer of the server other than success.
type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string {
	return fmt.Sprintf("the server answered %d: %s", e.status, e.body)
}

func (c client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	u := c.cfg.URL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("the server URL %q: %w", c.cfg.URL, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Key)
	}
	resp, err := c.cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: %w", method, path, &httpError{resp.StatusCode, strings.TrimSpace(string(b))})
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

// boot is the agent's boot context within the token budget.
func (c client) boot(ctx context.Context) (string, error) {
	var b struct {
		Text                                 string
		Identity, Emotion, Knowledge, Events []json.RawMessage
	}
	if err := c.do(ctx, http.MethodGet, "/v1/boot", url.Values{"agent_id": {c.agent}}, nil, &b); err != nil {
		return "", err
	}
	text := strings.TrimSpace(b.Text)
	if text == "" || len(b.Identity)+len(b.Emotion)+len(b.Knowledge)+len(b.Events) == 0 {
		// An agent with nothing to remember adds only headings.
		return "", nil
	}
	text, _ = Truncate(text, c.cfg.BootTokens*4)
	return fmt.Sprintf("What mnemo remembers for agent %q (its boot context):\n\n%s", c.agent, text), nil
}

// Truncate cuts s to at most n bytes, at the last line end that fits when
// there is one in the second half, else at a rune boundary, and says
// whether it cut.
func Truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := s[:n]
	for !utf8.ValidString(cut) && len(cut) > 0 {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexByte(cut, '\n'); i > n/2 {
		cut = cut[:i]
	}
	return cut + "\n…", true
}

// maxQuery bounds the prompt sent as a recall query: the start of a long
// prompt says what it is about.
const maxQuery = 2000

// recall is the few memories that matter for prompt, as lines; those of
// the running session are left out, being already in the conversation.
func (c client) recall(ctx context.Context, prompt, session string) (string, error) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return "", nil
	}
	q, _ := Truncate(prompt, maxQuery)
	var res struct {
		Results []struct {
			Key       string `json:"key"`
			Content   string `json:"content"`
			SessionID string `json:"session_id"`
			Match     string `json:"match"`
		} `json:"results"`
	}
	// A few more than wanted, for those of the running session left out;
	// the server's default maximum is 20.
	body := map[string]any{"agent_id": c.agent, "query": q, "limit": min(c.cfg.Recall+2, 20), "min_match": "weak"}
	if err := c.do(ctx, http.MethodPost, "/v1/recall", nil, body, &res); err != nil {
		return "", err
	}
	own := SessionID(session)
	var lines []string
	for _, r := range res.Results {
		if len(lines) == c.cfg.Recall {
			break
		}
		if session != "" && r.SessionID == own {
			continue
		}
		line, _ := Truncate(strings.Join(strings.Fields(r.Content), " "), 600)
		if r.Key != "" && !strings.HasPrefix(r.Key, keyRoot) {
			line = r.Key + ": " + line
		}
		lines = append(lines, "- "+line)
	}
	if len(lines) == 0 {
		return "", nil
	}
	return "Memories from mnemo that may bear on this prompt:\n" + strings.Join(lines, "\n"), nil
}
