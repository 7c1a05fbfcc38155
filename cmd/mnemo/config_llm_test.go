package main

import "testing"

func TestLLMConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, func() LLMConfig { return LLMConfig{} }, (*LLMConfig).validate, []sectionCase[LLMConfig]{
		{"a model", func(c *LLMConfig) { c.BaseURL, c.Model = "http://127.0.0.1:11434/v1", "llama3" }, ""},
		{"no model", func(c *LLMConfig) { c.BaseURL = "http://127.0.0.1:11434/v1" }, "llm"},
		{"no base_url", func(c *LLMConfig) { c.Model = "llama3" }, "llm"},
		{"bad base_url", func(c *LLMConfig) { c.BaseURL, c.Model = "ftp://x", "llama3" }, "llm.base_url"},
	})
}
