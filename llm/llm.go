// Package llm is a client for OpenAI-compatible chat completions (OpenAI,
// Ollama, vLLM, LiteLLM: POST /chat/completions), and what mnemo asks of a
// model when one is configured: one sentence for a compacted round of a
// run (agentcontext.Summarizer) and the topic, emotion and variables of a
// session's turn (agentcontext.TurnAnalyzer). Every use has a deterministic
// fallback in the Service; an answer that is not what was asked for is an
// error, never a guess.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/internal/openaiapi"
	"github.com/mnemo-dev/mnemo/memory"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or
	// "http://localhost:11434/v1" (Ollama).
	BaseURL string
	Model   string
	APIKey  string
	// Timeout bounds each attempt (30 s when <= 0); MaxRetries and
	// RetryDelay as in package openaiapi.
	Timeout    time.Duration
	MaxRetries int
	RetryDelay time.Duration
	HTTPClient *http.Client
}

// Client talks to one chat model. It is safe for concurrent use.
type Client struct {
	api   *openaiapi.Client
	model string
}

var (
	_ agentcontext.TurnAnalyzer = (*Client)(nil)
)

// New returns a Client; BaseURL and Model are required.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "llm: model is required")
	}
	api, err := openaiapi.New(openaiapi.Config{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries,
		RetryDelay: cfg.RetryDelay, HTTPClient: cfg.HTTPClient, MaxResponse: 4 << 20, What: "LLM provider",
	})
	if err != nil {
		return nil, err
	}
	return &Client{api: api, model: cfg.Model}, nil
}

// Message is one message of a chat.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Temperature float64   `json:"temperature"`
	// ResponseFormat asks for a JSON object, where the server supports it.
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// Chat returns the model's answer to msgs, at temperature 0.
func (c *Client) Chat(ctx context.Context, msgs []Message, maxTokens int, asJSON bool) (string, error) {
	req := chatRequest{Model: c.model, Messages: msgs, MaxTokens: maxTokens}
	if asJSON {
		req.ResponseFormat = &struct {
			Type string `json:"type"`
		}{"json_object"}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("llm: encode request: %w", err)
	}
	data, err := c.api.Post(ctx, "/chat/completions", body)
	if err != nil {
		return "", err
	}
	var resp chatResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return "", fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "llm: malformed answer"), err)
	}
	if len(resp.Choices) == 0 || strings.TrimSpace(resp.Choices[0].Message.Content) == "" {
		return "", mnemo.Errorf(mnemo.EUNAVAILABLE, "llm: the answer has no content")
	}
	return resp.Choices[0].Message.Content, nil
}

const summarizePrompt = "You compress an AI agent's memory: a tool-call log or a list of notes. Reply with a summary of at most %d words " +
	"(one sentence when that is under 40), keeping names, numbers and outcomes. No preamble."

// Summarize implements agentcontext.Summarizer and lifecycle.Summarizer.
func (c *Client) Summarize(ctx context.Context, text string, maxTokens int) (string, error) {
	out, err := c.Chat(ctx, []Message{
		{Role: "system", Content: fmt.Sprintf(summarizePrompt, max(8, maxTokens*3/4))},
		{Role: "user", Content: text},
	}, maxTokens*2, false)
	if err != nil {
		return "", err
	}
	return strings.Join(strings.Fields(out), " "), nil
}

const analyzePrompt = `You read one message of a conversation for the assistant's working memory.
Reply with a JSON object only:
{"keywords": [up to 5 words naming what the conversation is about, most important first],
 "emotion": one of "neutral", "happy", "grateful", "sad", "angry", "anxious", "frustrated", "confused" (the user's; "" for assistant messages),
 "variables": {name: value} for facts about the user stated in the message (name, location, language, timezone, ...),
 "facts": [facts the user explicitly asked to be remembered]}`

// turnAnswer is the JSON asked for by analyzePrompt.
type turnAnswer struct {
	Keywords  []string          `json:"keywords"`
	Emotion   string            `json:"emotion"`
	Variables map[string]string `json:"variables"`
	Facts     []string          `json:"facts"`
}

// AnalyzeTurn implements agentcontext.TurnAnalyzer.
func (c *Client) AnalyzeTurn(ctx context.Context, wm *agentcontext.WorkingMemory, t agentcontext.Turn) (agentcontext.TurnAnalysis, error) {
	msg := fmt.Sprintf("role: %s\nmessage: %s", t.Role, t.Text)
	if wm != nil && wm.CurrentTopic != "" {
		msg = "current topic: " + wm.CurrentTopic + "\n" + msg
	}
	out, err := c.Chat(ctx, []Message{{Role: "system", Content: analyzePrompt}, {Role: "user", Content: msg}}, 300, true)
	if err != nil {
		return agentcontext.TurnAnalysis{}, err
	}
	var a turnAnswer
	if err := c.decodeOrRepair(ctx, analyzePrompt, msg, out, &a); err != nil {
		return agentcontext.TurnAnalysis{}, err
	}
	if t.Role != "user" {
		a.Emotion = ""
	}
	return agentcontext.TurnAnalysis{Keywords: a.Keywords, Emotion: a.Emotion, Variables: a.Variables, Facts: a.Facts}, nil
}

// decodeOrRepair decodes a JSON answer into v; when it is not the object
// asked for, it asks the model once to repair it, and if that fails too
// says so clearly — extraction never fails silently.
func (c *Client) decodeOrRepair(ctx context.Context, system, user, out string, v any) error {
	err := decodeObject(out, v)
	if err == nil {
		return nil
	}
	fixed, cerr := c.Chat(ctx, []Message{
		{Role: "system", Content: system},
		{Role: "user", Content: user},
		{Role: "assistant", Content: out},
		{Role: "user", Content: "That was not the JSON object asked for (" + err.Error() + "). Reply with the JSON object only."},
	}, 600, true)
	if cerr != nil {
		return cerr
	}
	if err := decodeObject(fixed, v); err != nil {
		snippet := []rune(strings.Join(strings.Fields(fixed), " "))
		if len(snippet) > 120 {
			snippet = append(snippet[:120], '…')
		}
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "llm: the model returned no valid JSON after a repair attempt: %q", string(snippet))
	}
	return nil
}

// decodeObject reads the JSON object in a model's answer: the answer
// itself, or the object inside a code fence or prose around it.
func decodeObject(out string, v any) error {
	s := strings.TrimSpace(out)
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		s = s[i : j+1]
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "llm: the answer is not the JSON object asked for"), err)
	}
	return nil
}

const extractPrompt = `You read the user's messages of a conversation and pick out what is worth remembering about the user for later conversations: preferences, facts about them, habits.
Reply with a JSON object only: {"memories": [{"should_store": true, "category": "preference" | "fact" | "pattern", "key": a short snake_case name, "value": the memory as one sentence, "confidence": 0 to 1, "source": "user_stated" | "inferred"}]}.
Only what the user said or clearly implies; nothing about the assistant; {"memories": []} when there is nothing.`

type extractAnswer struct {
	Memories []struct {
		ShouldStore bool    `json:"should_store"`
		Category    string  `json:"category"`
		Key         string  `json:"key"`
		Value       string  `json:"value"`
		Confidence  float64 `json:"confidence"`
		Source      string  `json:"source"`
	} `json:"memories"`
}

// ExtractMemories implements memory.Extractor (MEM-7:
// memory_update.should_store).
func (c *Client) ExtractMemories(ctx context.Context, msgs []memory.Message) ([]memory.Extracted, error) {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role == "user" {
			b.WriteString("- " + strings.Join(strings.Fields(m.Content), " ") + "\n")
		}
	}
	if b.Len() == 0 {
		return nil, nil
	}
	user := "User messages:\n" + b.String()
	out, err := c.Chat(ctx, []Message{{Role: "system", Content: extractPrompt}, {Role: "user", Content: user}}, 800, true)
	if err != nil {
		return nil, err
	}
	var a extractAnswer
	if err := c.decodeOrRepair(ctx, extractPrompt, user, out, &a); err != nil {
		return nil, err
	}
	var res []memory.Extracted
	for _, m := range a.Memories {
		if !m.ShouldStore || strings.TrimSpace(m.Value) == "" {
			continue
		}
		res = append(res, memory.Extracted{Category: m.Category, Key: m.Key, Content: m.Value, Confidence: m.Confidence, Source: m.Source})
	}
	return res, nil
}
