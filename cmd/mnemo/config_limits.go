package main

import (
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// The sections that bound writes (limits) and recall (recall).

// LimitsConfig is the limits section: the sizes a write may have.
type LimitsConfig struct {
	MaxContentChars int `yaml:"max_content_chars"`
	MaxMessageChars int `yaml:"max_message_chars"` // a conversation message's content
	MaxDataBytes    int `yaml:"max_data_bytes"`
	MaxTags         int `yaml:"max_tags"`
	MaxBatch        int `yaml:"max_batch"`
	// Untrusted, say "/untrusted", routes writes that lack the provenance
	// FS-6 asks for there instead of refusing them.
	Untrusted string `yaml:"untrusted"`
}

// RecallConfig is the recall section.
type RecallConfig struct {
	DefaultLimit int    `yaml:"default_limit"` // REC-5; MEMORY_RETRIEVAL_LIMIT sets it too
	MaxLimit     int    `yaml:"max_limit"`
	Profile      string `yaml:"profile"`
}

func defaultLimitsConfig() LimitsConfig {
	l := mnemo.DefaultLimits()
	return LimitsConfig{MaxContentChars: l.MaxContentChars, MaxMessageChars: l.MaxMessageChars,
		MaxDataBytes: l.MaxDataBytes, MaxTags: l.MaxTags, MaxBatch: l.MaxBatch}
}

func defaultRecallConfig() RecallConfig {
	return RecallConfig{DefaultLimit: 5, MaxLimit: 20, Profile: "hybrid"}
}

// validate checks the limits section.
func (c *LimitsConfig) validate() error {
	for _, v := range []struct {
		field string
		n     int
	}{
		{"limits.max_content_chars", c.MaxContentChars}, {"limits.max_message_chars", c.MaxMessageChars},
		{"limits.max_data_bytes", c.MaxDataBytes},
		{"limits.max_tags", c.MaxTags}, {"limits.max_batch", c.MaxBatch},
	} {
		if v.n < 1 {
			return &ConfigError{v.field, "must be at least 1"}
		}
	}
	if u := c.Untrusted; u != "" {
		if k, err := mnemo.NormalizeKey(u); err != nil || !strings.HasPrefix(u, "/") || k == "/" {
			return &ConfigError{"limits.untrusted", fmt.Sprintf("must be a key path such as /untrusted, got %q", u)}
		}
	}
	return nil
}

// validate checks the recall section. The profile is checked when the
// service is made, against the ranking profiles there are.
func (c *RecallConfig) validate() error {
	for _, v := range []struct {
		field string
		n     int
	}{
		{"recall.default_limit", c.DefaultLimit}, {"recall.max_limit", c.MaxLimit},
	} {
		if v.n < 1 {
			return &ConfigError{v.field, "must be at least 1"}
		}
	}
	if c.DefaultLimit > c.MaxLimit {
		return &ConfigError{"recall.default_limit", "must not exceed recall.max_limit"}
	}
	return nil
}

// limits returns the write limits of c.
func (c *Config) limits() mnemo.Limits {
	l := mnemo.DefaultLimits()
	l.MaxContentChars, l.MaxDataBytes, l.MaxTags, l.MaxBatch = c.Limits.MaxContentChars, c.Limits.MaxDataBytes, c.Limits.MaxTags, c.Limits.MaxBatch
	l.MaxMessageChars = c.Limits.MaxMessageChars
	l.Untrusted = c.Limits.Untrusted
	return l
}
