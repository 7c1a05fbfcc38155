package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/tokens"
)

// ContextConfig is the context section: what is built for prompts, runs'
// short-term memory, sessions' working memory, snapshots and the default
// read.
type ContextConfig struct {
	Tokenizer          string        `yaml:"tokenizer"`            // cl100k_base (default), o200k_base, p50k_base
	RunTokenLimit      int           `yaml:"run_token_limit"`      // CTX-3: 2,000
	KeepRounds         int           `yaml:"keep_rounds"`          // CTX-4: 3
	MaxRuns            int           `yaml:"max_runs"`             // open runs per agent: 64
	RunIdle            time.Duration `yaml:"run_idle"`             // a run unchanged this long is closed: 24h
	SessionIdle        time.Duration `yaml:"session_idle"`         // CTX-11: 30m
	ArchiveFacts       bool          `yaml:"archive_facts"`        // write a swept session's marked facts to long-term memory
	TopicBoost         float64       `yaml:"topic_boost"`          // REC-15: 1.3
	SnapshotTokenLimit int           `yaml:"snapshot_token_limit"` // CTX-14: 500
}

func defaultContextConfig() ContextConfig {
	return ContextConfig{
		Tokenizer:     tokens.CL100K,
		RunTokenLimit: 2000, KeepRounds: 3, MaxRuns: 64, RunIdle: 24 * time.Hour,
		SessionIdle: 30 * time.Minute, TopicBoost: 1.3, SnapshotTokenLimit: 500,
	}
}

// validate checks the context section.
func (c *ContextConfig) validate() error {
	if _, err := tokens.New(c.Tokenizer); err != nil {
		return &ConfigError{"context.tokenizer", fmt.Sprintf("must be one of %s", strings.Join(tokens.Names(), ", "))}
	}
	for _, v := range []struct {
		field string
		n     int
		min   int
	}{
		{"context.run_token_limit", c.RunTokenLimit, 100},
		{"context.keep_rounds", c.KeepRounds, 1},
		{"context.max_runs", c.MaxRuns, 1},
		{"context.snapshot_token_limit", c.SnapshotTokenLimit, 20},
	} {
		if v.n < v.min {
			return &ConfigError{v.field, fmt.Sprintf("must be at least %d", v.min)}
		}
	}
	if c.RunIdle < time.Minute {
		return &ConfigError{"context.run_idle", "must be at least 1m"}
	}
	if c.SessionIdle < time.Second {
		return &ConfigError{"context.session_idle", "must be at least 1s"}
	}
	if c.TopicBoost < 1 || c.TopicBoost > 10 {
		return &ConfigError{"context.topic_boost", "must be from 1 to 10"}
	}
	return nil
}
