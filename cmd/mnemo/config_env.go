package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// The environment variables and flags that override the configuration.

// envNames are the environment variables mnemo reads.
func envNames() []string {
	names := []string{"MNEMO_CONFIG", "MNEMO_MOCK", "MNEMO_MASK", "MEMORY_RETRIEVAL_LIMIT"}
	for _, s := range envStrings(&Config{}) {
		names = append(names, s.name)
	}
	slices.Sort(names)
	return names
}

// envTypos returns a warning for each MNEMO_* variable of environ that
// mnemo does not read but that is a few letters from one it does: set,
// and silently ignored, it would leave a person wondering why it has no
// effect. Other MNEMO_* names (${MNEMO_KEY_…} in a config file, test and
// benchmark settings) are not mnemo's settings and pass.
func envTypos(environ []string) []string {
	known := envNames()
	var warns []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "MNEMO_") || slices.Contains(known, name) {
			continue
		}
		if near := nearest(name, known); near != "" && editDistance(name, near) <= 2 {
			warns = append(warns, fmt.Sprintf("environment variable %s is not read by mnemo: did you mean %s? (mnemo reads %s)", name, near, strings.Join(known, ", ")))
		}
	}
	return warns
}

// envStrings are the string settings of c that environment variables set.
func envStrings(c *Config) []struct {
	name string
	dst  *string
} {
	return []struct {
		name string
		dst  *string
	}{
		{"MNEMO_DATA", &c.Data}, {"MNEMO_ADDR", &c.Addr}, {"MNEMO_TENANT", &c.Tenant},
		{"MNEMO_AGENT", &c.Agent}, {"MNEMO_LOG_LEVEL", &c.LogLevel},
		{"MNEMO_EMBEDDING", &c.Embedding.Provider}, {"MNEMO_EMBEDDING_MODE", &c.Embedding.Mode}, {"MNEMO_EMBEDDING_PATH", &c.Embedding.Path}, {"MNEMO_PROFILE", &c.Recall.Profile},
		{"MNEMO_TOKENIZER", &c.Context.Tokenizer},
		{"MNEMO_LLM_BASE_URL", &c.LLM.BaseURL}, {"MNEMO_LLM_MODEL", &c.LLM.Model},
		{"MNEMO_LLM_API_KEY", (*string)(&c.LLM.APIKey)},
		{"MNEMO_STORE", &c.Store.Backend}, {"MNEMO_FILES_ROOT", &c.Store.Files.Root},
		{"MNEMO_POSTGRES_DSN", (*string)(&c.Store.Postgres.DSN)}, {"MNEMO_SPOOL_DIR", &c.Store.Postgres.SpoolDir},
	}
}

// applyEnv overrides c with MNEMO_* variables and MEMORY_RETRIEVAL_LIMIT
// (REC-5, OPS-4).
func applyEnv(c *Config, getenv func(string) string) error {
	for _, s := range envStrings(c) {
		if v := getenv(s.name); v != "" {
			*s.dst = v
		}
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"MNEMO_MOCK", &c.Mock}, {"MNEMO_MASK", &c.Mask}} {
		if v := getenv(f.name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return &ConfigError{Field: f.name, Msg: fmt.Sprintf("must be true or false, got %q", v)}
			}
			*f.dst = b
		}
	}
	if v := getenv("MEMORY_RETRIEVAL_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return &ConfigError{Field: "MEMORY_RETRIEVAL_LIMIT", Msg: fmt.Sprintf("must be a positive whole number, got %q", v)}
		}
		c.Recall.DefaultLimit = n
	}
	return nil
}

// applyFlags overrides c with the global flags that were set.
func applyFlags(c *Config, fs *pflag.FlagSet) {
	set := func(name string, dst *string) {
		if f := fs.Lookup(name); f != nil && f.Changed {
			*dst = f.Value.String()
		}
	}
	set("data", &c.Data)
	set("tenant", &c.Tenant)
	set("agent", &c.Agent)
	set("log-level", &c.LogLevel)
	set("store", &c.Store.Backend)
	if f := fs.Lookup("mask"); f != nil && f.Changed {
		c.Mask = f.Value.String() == "true"
	}
}
