package main

import (
	"testing"
	"time"
)

func TestContextConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultContextConfig, (*ContextConfig).validate, []sectionCase[ContextConfig]{
		{"o200k", func(c *ContextConfig) { c.Tokenizer = "o200k_base" }, ""},
		{"tokenizer", func(c *ContextConfig) { c.Tokenizer = "words" }, "context.tokenizer"},
		{"run_token_limit", func(c *ContextConfig) { c.RunTokenLimit = 99 }, "context.run_token_limit"},
		{"keep_rounds", func(c *ContextConfig) { c.KeepRounds = 0 }, "context.keep_rounds"},
		{"max_runs", func(c *ContextConfig) { c.MaxRuns = 0 }, "context.max_runs"},
		{"snapshot_token_limit", func(c *ContextConfig) { c.SnapshotTokenLimit = 19 }, "context.snapshot_token_limit"},
		{"run_idle", func(c *ContextConfig) { c.RunIdle = time.Second }, "context.run_idle"},
		{"session_idle", func(c *ContextConfig) { c.SessionIdle = time.Millisecond }, "context.session_idle"},
		{"topic_boost", func(c *ContextConfig) { c.TopicBoost = 0.5 }, "context.topic_boost"},
	})
}
