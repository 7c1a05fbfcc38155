package main

import (
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/llm"
)

// LLMConfig is the llm section: an OpenAI-compatible chat model (OpenAI,
// Ollama, vLLM, LiteLLM). When set, it writes the one-sentence summaries of
// a run's compacted rounds and reads the topic, emotion and variables of a
// session's turns; the rules stand in whenever it fails. Off by default:
// nothing on the write path needs it.
type LLMConfig struct {
	BaseURL    string        `yaml:"base_url"`
	Model      string        `yaml:"model"`
	APIKey     Secret        `yaml:"api_key"`
	Timeout    time.Duration `yaml:"timeout"`
	MaxRetries int           `yaml:"max_retries"`
	// Extract asks the model, after each batch of conversation
	// messages, for memories worth keeping (MEM-7's should_store).
	Extract bool `yaml:"extract"`
}

// validate checks the llm section: both of base_url and model or
// neither, and a client can be made of them.
func (c *LLMConfig) validate() error {
	if (c.BaseURL == "") != (c.Model == "") {
		return &ConfigError{"llm", "base_url and model go together"}
	}
	if _, err := c.client(); err != nil {
		return &ConfigError{"llm.base_url", mnemo.ErrorMessage(err)}
	}
	return nil
}

// client returns the configured chat model, nil when there is none.
func (c *LLMConfig) client() (*llm.Client, error) {
	if c.BaseURL == "" {
		return nil, nil
	}
	return llm.New(llm.Config{BaseURL: c.BaseURL, Model: c.Model, APIKey: string(c.APIKey),
		Timeout: c.Timeout, MaxRetries: c.MaxRetries})
}

// llm returns the configured chat model, nil when there is none.
func (c *Config) llm() (*llm.Client, error) { return c.LLM.client() }
