package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/tokens"
	"github.com/mnemo-dev/mnemo/webhook"
)

// Config is mnemo's configuration. Precedence, lowest first: built-in
// defaults, the config file (--config, $MNEMO_CONFIG), environment variables
// (MNEMO_*), flags. `mnemo config` prints the result with secrets hidden.
type Config struct {
	Data         string `yaml:"data"`          // data directory
	Addr         string `yaml:"addr"`          // serve address
	InsecureBind bool   `yaml:"insecure_bind"` // allow a non-loopback address without auth
	Tenant       string `yaml:"tenant"`        // CLI and stdio MCP scope
	Agent        string `yaml:"agent"`
	LogLevel     string `yaml:"log_level"` // debug, info, warn, error; empty = info for serve, warn otherwise
	// Mock is seed 000's mock mode, for development with no services and
	// no state: seeded random vectors, and a store in a temporary
	// directory that is deleted on exit (unless Data is set as well, which
	// keeps it: "mock_mode with persist").
	Mock bool `yaml:"mock"`

	// Store chooses where memories live.
	Store StoreConfig `yaml:"store"`

	SQLite struct {
		Synchronous string `yaml:"synchronous"` // FULL (default) or NORMAL
	} `yaml:"sqlite"`

	Limits struct {
		MaxContentChars int `yaml:"max_content_chars"`
		MaxMessageChars int `yaml:"max_message_chars"` // a conversation message's content
		MaxDataBytes    int `yaml:"max_data_bytes"`
		MaxTags         int `yaml:"max_tags"`
		MaxBatch        int `yaml:"max_batch"`
		// Untrusted, say "/untrusted", routes writes that lack seed 004
		// §3.2's provenance there instead of refusing them.
		Untrusted string `yaml:"untrusted"`
	} `yaml:"limits"`

	Recall struct {
		DefaultLimit int    `yaml:"default_limit"` // seed 001 MEMORY_RETRIEVAL_LIMIT
		MaxLimit     int    `yaml:"max_limit"`
		Profile      string `yaml:"profile"`
	} `yaml:"recall"`

	HTTP struct {
		MaxBodyBytes int64         `yaml:"max_body_bytes"`
		Timeout      time.Duration `yaml:"timeout"`
		RateLimit    float64       `yaml:"rate_limit"` // requests per second per key or client; 0 = off
		RateBurst    int           `yaml:"rate_burst"`
		// DefaultAgent is the agent of seed 001's /memory/… routes when a
		// request names none and its key may use several: "default".
		DefaultAgent string `yaml:"default_agent"`
	} `yaml:"http"`

	Auth struct {
		Keys []KeyConfig `yaml:"keys"`
	} `yaml:"auth"`

	Embedding EmbeddingConfig `yaml:"embedding"`

	// Context configures what is built for prompts: runs' short-term
	// memory, sessions' working memory, snapshots and the default read.
	Context struct {
		Tokenizer          string        `yaml:"tokenizer"`            // cl100k_base (default), o200k_base, p50k_base
		RunTokenLimit      int           `yaml:"run_token_limit"`      // seed 000 FR-1: 2,000
		KeepRounds         int           `yaml:"keep_rounds"`          // 3
		MaxRuns            int           `yaml:"max_runs"`             // open runs per agent: 64
		RunIdle            time.Duration `yaml:"run_idle"`             // a run unchanged this long is closed: 24h
		SessionIdle        time.Duration `yaml:"session_idle"`         // seed 001: 30m
		ArchiveFacts       bool          `yaml:"archive_facts"`        // write a swept session's marked facts to long-term memory
		TopicBoost         float64       `yaml:"topic_boost"`          // seed 001: 1.3
		SnapshotTokenLimit int           `yaml:"snapshot_token_limit"` // seed 000 FR-6: 500
	} `yaml:"context"`

	// Lifecycle configures reflect (seed 000 FR-5, seed 003's sleep cycle).
	Lifecycle struct {
		ArchiveBelow       float64        `yaml:"archive_below"`        // tidy: vitality under this is archived (0.1)
		RetentionDays      int            `yaml:"retention_days"`       // 365
		RetentionMinAccess int            `yaml:"retention_min_access"` // 3
		MaxEntries         int            `yaml:"max_entries"`          // 10,000 active memories per agent
		EvictByConfidence  bool           `yaml:"evict_by_confidence"`  // seed 001's eviction order
		CompactOver        int            `yaml:"compact_over"`         // a tag with more active memories is merged (50)
		TypeQuota          map[string]int `yaml:"type_quota"`           // govern: at most this many active memories of a type
		Every              time.Duration  `yaml:"every"`                // serve runs reflect for every agent this often (24h; 0 in the file means the default)
		Grace              time.Duration  `yaml:"grace"`                // archived memories restorable this long (720h)
		Schedule           *bool          `yaml:"schedule"`             // serve runs reflect on its own (default true)
	} `yaml:"lifecycle"`

	// Events configures seed 002's event layers. Tasks say what a task, a
	// success and an error are in events, for summaries (L4) and
	// capabilities (L5); unset fields keep events.DefaultTaskRules'.
	Events struct {
		Strict     bool          `yaml:"strict"`      // refuse types not in known_types
		KnownTypes []string      `yaml:"known_types"` // the types strict mode accepts
		ColdAfter  time.Duration `yaml:"cold_after"`  // events older move to compressed cold segments (2160h)
		Tasks      struct {
			SuccessSuffixes []string `yaml:"success_suffixes"` // Completed, Succeeded, Success, Done, Finished
			FailureSuffixes []string `yaml:"failure_suffixes"` // Failed, Failure, Errored, Aborted
			ErrorSuffixes   []string `yaml:"error_suffixes"`   // Failed, Failure, Error, Errored, Exception
			SuccessStatuses []string `yaml:"success_statuses"` // data.status values: success, ok, done, ...
			FailureStatuses []string `yaml:"failure_statuses"` // failure, failed, error, ...
			TaskField       string   `yaml:"task_field"`       // the data field naming the task type: task_type
			MinSuccesses    int      `yaml:"min_successes"`    // successes that make a capability: 3
		} `yaml:"tasks"`
		// Relations are L2's rules for structured events; unset fields keep
		// events.DefaultRelationRules'.
		Relations struct {
			Temporal      *bool               `yaml:"temporal"`       // an edge from each event to the previous one of its source (true)
			StartSuffixes []string            `yaml:"start_suffixes"` // Started, Start
			EndSuffixes   []string            `yaml:"end_suffixes"`   // Stopped, Finished, Completed, ...
			ErrorSuffixes []string            `yaml:"error_suffixes"` // Failed, Error, Failure
			RetrySuffixes []string            `yaml:"retry_suffixes"` // Retry, Retried, Retrying
			Pairs         map[string][]string `yaml:"pairs"`          // end type: the start types it closes
		} `yaml:"relations"`
		// TextRelations extract entity, emotion and intent relations from
		// events' text in the background (by llm when set, else rules).
		TextRelations struct {
			Enabled bool `yaml:"enabled"`
			Queue   int  `yaml:"queue"` // events waiting for extraction; more are dropped with a warning (4096)
		} `yaml:"text_relations"`
		// Profile is the adaptive user profile's update schedule.
		Profile struct {
			InteractionTypes []string      `yaml:"interaction_types"` // event types that count as an interaction; none: only the API records them
			Initial          int           `yaml:"initial"`           // interactions updating it each (100)
			Ladder           []int         `yaml:"ladder"`            // then every n interactions: 1, 5, 10, 50
			PerStage         int           `yaml:"per_stage"`         // updates at each step of the ladder (10)
			Weekly           time.Duration `yaml:"weekly"`            // then this often (168h)
		} `yaml:"profile"`
		// Vectors are L3's embeddings of events: text by the embedding
		// section's embedder, media by one embedder per modality.
		Vectors struct {
			Disabled     bool                            `yaml:"disabled"`      // keep events without vectors
			KeepFor      time.Duration                   `yaml:"keep_for"`      // vectors older are pruned (720h) ...
			KeepAccessed int                             `yaml:"keep_accessed"` // ... unless searches found them this often (3)
			Media        map[string]OpenAIEmbedderConfig `yaml:"media"`         // image, audio, video: an OpenAI-compatible endpoint each
		} `yaml:"vectors"`
		// Webhook is how replays POST to a subscriber.
		Webhook struct {
			Timeout    time.Duration `yaml:"timeout"`     // one request (10s)
			Attempts   int           `yaml:"attempts"`    // tries per event before giving up (5)
			Backoff    time.Duration `yaml:"backoff"`     // after the first failure, doubled each time (200ms) ...
			MaxBackoff time.Duration `yaml:"max_backoff"` // ... up to this (5s)
		} `yaml:"webhook"`
	} `yaml:"events"`

	// LLM is an OpenAI-compatible chat model (OpenAI, Ollama, vLLM,
	// LiteLLM). When set, it writes the one-sentence summaries of a run's
	// compacted rounds and reads the topic, emotion and variables of a
	// session's turns; the rules stand in whenever it fails. Off by default:
	// nothing on the write path needs it.
	LLM struct {
		BaseURL    string        `yaml:"base_url"`
		Model      string        `yaml:"model"`
		APIKey     Secret        `yaml:"api_key"`
		Timeout    time.Duration `yaml:"timeout"`
		MaxRetries int           `yaml:"max_retries"`
		// Extract asks the model, after each batch of conversation
		// messages, for memories worth keeping (seed 001's should_store).
		Extract bool `yaml:"extract"`
	} `yaml:"llm"`
}

// EmbeddingConfig chooses the embedder of semantic recall.
type EmbeddingConfig struct {
	// Provider is builtin (the default, the same as ensemble: GloVe SIF
	// word vectors and the Universal Sentence Encoder Lite, both in the
	// binary, their cosines averaged), glove or use (one of the two alone),
	// hashed (hashed TF-IDF, no model), random (seeded random vectors:
	// mock mode), openai (any OpenAI-compatible /v1/embeddings) or none
	// (lexical recall only).
	Provider string `yaml:"provider"`
	// Dimension of hashed and random vectors.
	Dimension int `yaml:"dimension"`
	// Seed of random vectors.
	Seed uint64 `yaml:"seed"`
	// CacheSize is how many query embeddings are kept (seed 000: 1,000).
	CacheSize int `yaml:"cache_size"`
	// QueryTimeout bounds a query's embedding: past it, recall answers by
	// hashed TF-IDF similarity, degraded (0: memory.DefaultQueryEmbedTimeout).
	QueryTimeout time.Duration `yaml:"query_timeout"`
	// Async writes memories before their vectors are made. Unset: on for
	// openai, off for the in-process embedders, which take microseconds.
	Async *bool `yaml:"async"`

	OpenAI OpenAIEmbedderConfig `yaml:"openai"`
}

// OpenAIEmbedderConfig is an OpenAI-compatible /v1/embeddings endpoint:
// embedding.openai, and the media embedders of events.vectors.media.
type OpenAIEmbedderConfig struct {
	BaseURL    string        `yaml:"base_url"`
	Model      string        `yaml:"model"`
	APIKey     Secret        `yaml:"api_key"`
	Dimension  int           `yaml:"dimension"`
	BatchSize  int           `yaml:"batch_size"`
	Timeout    time.Duration `yaml:"timeout"`
	MaxRetries int           `yaml:"max_retries"`
}

// StoreConfig chooses the backend and configures it.
type StoreConfig struct {
	// Backend is sqlite (the default: <data>/mnemo.db), files (seed 004's
	// memory root), postgres, or memory (nothing kept: mock mode's store).
	Backend string `yaml:"backend"`
	Files   struct {
		Root string `yaml:"root"` // the memory root; default <data>/files
		// History is what compaction does with log.jsonl (seed 004 §7.3):
		// keep (option A, the default) or rotate into archive/ (option B).
		History string `yaml:"history"`
		// CompactEvery is the log size in lines that triggers compaction:
		// 0 means 100,000 (seed 004 §10), -1 on demand only.
		CompactEvery int `yaml:"compact_every"`
		// NoSync skips the fsync after each append: faster, and an
		// acknowledged write can be lost to a power cut (not to a crash).
		NoSync bool `yaml:"no_sync"`
	} `yaml:"files"`
	Postgres struct {
		// DSN is a postgres:// URL or a key=value string, usually
		// "${MNEMO_POSTGRES_DSN}": it may hold a password.
		DSN      Secret `yaml:"dsn"`
		PoolSize int    `yaml:"pool_size"` // connections; 0: pgxpool's default
		EfSearch int    `yaml:"ef_search"` // pgvector's hnsw.ef_search; 0: 100
		RLS      bool   `yaml:"rls"`       // row-level security by tenant
		Schema   string `yaml:"schema"`    // a schema of its own; empty: the DSN's search_path
		// SpoolDir keeps acknowledged writes while the database is
		// unreachable, replayed when it is back; default <data>/spool.
		SpoolDir string `yaml:"spool_dir"`
		// FailoverAfter bounds one attempt of a request's call on the
		// database: past it the write goes to the spool (0: 2s).
		FailoverAfter time.Duration `yaml:"failover_after"`
		// ProbeEvery is how often an unreachable database is tried
		// again (0: 1s).
		ProbeEvery time.Duration `yaml:"probe_every"`
	} `yaml:"postgres"`
}

// Store backends.
const (
	BackendSQLite   = "sqlite"
	BackendFiles    = "files"
	BackendPostgres = "postgres"
	BackendMemory   = "memory"
)

// Embedding providers.
const (
	ProviderBuiltin  = "builtin"
	ProviderGloVe    = "glove"
	ProviderUSE      = "use"
	ProviderEnsemble = "ensemble"
	ProviderHashed   = "hashed"
	ProviderRandom   = "random"
	ProviderOpenAI   = "openai"
	ProviderNone     = "none"
)

// KeyConfig is one API key: its secret (usually "${MNEMO_KEY_…}" from the
// environment) or the secret's sha256 hex hash, mapped to one tenant and
// optionally some agents, with scopes read, write, admin.
type KeyConfig struct {
	Name   string   `yaml:"name"`
	Secret Secret   `yaml:"secret,omitempty"`
	Hash   string   `yaml:"hash,omitempty"`
	Tenant string   `yaml:"tenant"`
	Agents []string `yaml:"agents,omitempty"`
	Scopes []string `yaml:"scopes"`
}

// Secret is a string that marshals as "<secret>", so printing a config
// never shows one.
type Secret string

// MarshalYAML hides the secret.
func (s Secret) MarshalYAML() (any, error) {
	if s == "" {
		return "", nil
	}
	return "<secret>", nil
}

// defaultConfig is the configuration with nothing set.
func defaultConfig() Config {
	var c Config
	c.Data = "./mnemo-data"
	c.Addr = "127.0.0.1:7077"
	c.Tenant = "default"
	c.Agent = "default"
	c.Store.Backend = BackendSQLite
	c.SQLite.Synchronous = "FULL"
	l := mnemo.DefaultLimits()
	c.Limits.MaxContentChars, c.Limits.MaxDataBytes, c.Limits.MaxTags, c.Limits.MaxBatch = l.MaxContentChars, l.MaxDataBytes, l.MaxTags, l.MaxBatch
	c.Limits.MaxMessageChars = l.MaxMessageChars
	c.Recall.DefaultLimit, c.Recall.MaxLimit, c.Recall.Profile = 5, 20, "hybrid"
	c.Embedding.Provider = ProviderBuiltin
	c.Embedding.Dimension = 256
	c.Embedding.Seed = 42
	c.Embedding.CacheSize = 1000
	c.Context.Tokenizer = tokens.CL100K
	c.Context.RunTokenLimit, c.Context.KeepRounds, c.Context.MaxRuns = 2000, 3, 64
	c.Context.SessionIdle, c.Context.TopicBoost, c.Context.SnapshotTokenLimit = 30*time.Minute, 1.3, 500
	c.Context.RunIdle = 24 * time.Hour
	c.Lifecycle.ArchiveBelow, c.Lifecycle.RetentionDays, c.Lifecycle.RetentionMinAccess, c.Lifecycle.MaxEntries = 0.1, 365, 3, 10000
	c.Lifecycle.Every, c.Lifecycle.Grace, c.Lifecycle.CompactOver = 24*time.Hour, 30*24*time.Hour, 50
	c.HTTP.MaxBodyBytes = 8 << 20
	c.HTTP.Timeout = 30 * time.Second
	return c
}

// ConfigError names the setting that is wrong.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("config: %s: %s", e.Field, e.Msg) }

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// parseConfig reads a YAML config over c: unknown keys are errors, and
// ${VAR} references are replaced by the environment (an unset variable is
// an error, so a missing secret never becomes an empty key).
func parseConfig(r io.Reader, c *Config, getenv func(string) string) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var missing []string
	expand := func(m string) string {
		name := envRef.FindStringSubmatch(m)[1]
		v := getenv(name)
		if v == "" {
			missing = append(missing, name)
		}
		return v
	}
	// Comments are left as they are: a commented-out secret needs no
	// variable.
	lines := strings.SplitAfter(string(raw), "\n")
	for i, line := range lines {
		code := line[:yamlCommentAt(line)]
		lines[i] = envRef.ReplaceAllStringFunc(code, expand) + line[len(code):]
	}
	expanded := strings.Join(lines, "")
	if len(missing) > 0 {
		return &ConfigError{Field: "${" + missing[0] + "}", Msg: "environment variable is not set"}
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(expanded)))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		if ce := unknownKey([]byte(expanded), reflect.TypeOf(c)); ce != nil {
			return ce
		}
		return &ConfigError{Field: "file", Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	return nil
}

// yamlCommentAt is where a YAML comment starts in line (a # at its start or
// after a blank, outside quotes), or len(line).
func yamlCommentAt(line string) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return len(line)
}

// envNames are the environment variables mnemo reads.
func envNames() []string {
	names := []string{"MNEMO_CONFIG", "MNEMO_MOCK", "MEMORY_RETRIEVAL_LIMIT"}
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
		{"MNEMO_EMBEDDING", &c.Embedding.Provider}, {"MNEMO_PROFILE", &c.Recall.Profile},
		{"MNEMO_TOKENIZER", &c.Context.Tokenizer},
		{"MNEMO_LLM_BASE_URL", &c.LLM.BaseURL}, {"MNEMO_LLM_MODEL", &c.LLM.Model},
		{"MNEMO_LLM_API_KEY", (*string)(&c.LLM.APIKey)},
		{"MNEMO_STORE", &c.Store.Backend}, {"MNEMO_FILES_ROOT", &c.Store.Files.Root},
		{"MNEMO_POSTGRES_DSN", (*string)(&c.Store.Postgres.DSN)}, {"MNEMO_SPOOL_DIR", &c.Store.Postgres.SpoolDir},
	}
}

// applyEnv overrides c with MNEMO_* variables and seed 001's
// MEMORY_RETRIEVAL_LIMIT.
func applyEnv(c *Config, getenv func(string) string) error {
	for _, s := range envStrings(c) {
		if v := getenv(s.name); v != "" {
			*s.dst = v
		}
	}
	if v := getenv("MNEMO_MOCK"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return &ConfigError{Field: "MNEMO_MOCK", Msg: fmt.Sprintf("must be true or false, got %q", v)}
		}
		c.Mock = b
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
}

// validate checks c, naming the first bad field.
func (c *Config) validate() error {
	if _, err := tokens.New(c.Context.Tokenizer); err != nil {
		return &ConfigError{"context.tokenizer", fmt.Sprintf("must be one of %s", strings.Join(tokens.Names(), ", "))}
	}
	for _, v := range []struct {
		field string
		n     int
		min   int
	}{
		{"context.run_token_limit", c.Context.RunTokenLimit, 100},
		{"context.keep_rounds", c.Context.KeepRounds, 1},
		{"context.max_runs", c.Context.MaxRuns, 1},
		{"context.snapshot_token_limit", c.Context.SnapshotTokenLimit, 20},
	} {
		if v.n < v.min {
			return &ConfigError{v.field, fmt.Sprintf("must be at least %d", v.min)}
		}
	}
	if c.Context.RunIdle < time.Minute {
		return &ConfigError{"context.run_idle", "must be at least 1m"}
	}
	if c.Context.SessionIdle < time.Second {
		return &ConfigError{"context.session_idle", "must be at least 1s"}
	}
	if c.Context.TopicBoost < 1 || c.Context.TopicBoost > 10 {
		return &ConfigError{"context.topic_boost", "must be from 1 to 10"}
	}
	switch strings.ToUpper(c.SQLite.Synchronous) {
	case "FULL", "NORMAL":
		c.SQLite.Synchronous = strings.ToUpper(c.SQLite.Synchronous)
	default:
		return &ConfigError{"sqlite.synchronous", "must be FULL or NORMAL"}
	}
	if c.Data == "" {
		return &ConfigError{"data", "must not be empty"}
	}
	if err := c.Store.validate(); err != nil {
		return err
	}
	switch c.LogLevel {
	case "", "debug", "info", "warn", "error":
	default:
		return &ConfigError{"log_level", "must be debug, info, warn or error"}
	}
	for _, v := range []struct {
		field string
		n     int
	}{
		{"limits.max_content_chars", c.Limits.MaxContentChars}, {"limits.max_message_chars", c.Limits.MaxMessageChars},
		{"limits.max_data_bytes", c.Limits.MaxDataBytes},
		{"limits.max_tags", c.Limits.MaxTags}, {"limits.max_batch", c.Limits.MaxBatch},
		{"recall.default_limit", c.Recall.DefaultLimit}, {"recall.max_limit", c.Recall.MaxLimit},
	} {
		if v.n < 1 {
			return &ConfigError{v.field, "must be at least 1"}
		}
	}
	if u := c.Limits.Untrusted; u != "" {
		if k, err := mnemo.NormalizeKey(u); err != nil || !strings.HasPrefix(u, "/") || k == "/" {
			return &ConfigError{"limits.untrusted", fmt.Sprintf("must be a key path such as /untrusted, got %q", u)}
		}
	}
	if c.Events.Strict && len(c.Events.KnownTypes) == 0 {
		return &ConfigError{"events.known_types", "strict mode needs the list of known event types"}
	}
	if c.Events.ColdAfter < 0 {
		return &ConfigError{"events.cold_after", "must not be negative"}
	}
	if c.Recall.DefaultLimit > c.Recall.MaxLimit {
		return &ConfigError{"recall.default_limit", "must not exceed recall.max_limit"}
	}
	switch c.Embedding.Provider {
	case ProviderBuiltin, ProviderGloVe, ProviderUSE, ProviderEnsemble, ProviderHashed, ProviderRandom, ProviderNone:
	case ProviderOpenAI:
		if c.Embedding.OpenAI.BaseURL == "" || c.Embedding.OpenAI.Model == "" {
			return &ConfigError{"embedding.openai", "base_url and model are required"}
		}
	default:
		return &ConfigError{"embedding.provider", "must be builtin, glove, use, ensemble, hashed, random, openai or none"}
	}
	if c.Embedding.Dimension < 1 || c.Embedding.Dimension > 4096 {
		return &ConfigError{"embedding.dimension", "must be between 1 and 4096"}
	}
	if c.Embedding.CacheSize < 0 {
		return &ConfigError{"embedding.cache_size", "must not be negative"}
	}
	if c.Embedding.QueryTimeout < 0 {
		return &ConfigError{"embedding.query_timeout", "must not be negative"}
	}
	if l := c.Lifecycle; l.ArchiveBelow < 0 || l.ArchiveBelow >= 1 {
		return &ConfigError{"lifecycle.archive_below", "must be from 0 to below 1"}
	} else if l.RetentionDays < 1 || l.RetentionMinAccess < 0 || l.MaxEntries < 1 || l.CompactOver < 2 {
		return &ConfigError{"lifecycle", "retention_days and max_entries must be at least 1, compact_over at least 2, retention_min_access not negative"}
	} else if l.Every < time.Minute || l.Grace < time.Hour {
		return &ConfigError{"lifecycle", "every must be at least 1m and grace at least 1h"}
	}
	for typ, n := range c.Lifecycle.TypeQuota {
		if n < 1 {
			return &ConfigError{"lifecycle.type_quota." + typ, "must be at least 1"}
		}
	}
	if c.Events.Tasks.MinSuccesses < 0 {
		return &ConfigError{"events.tasks.min_successes", "must not be negative (0 means 3)"}
	}
	if err := c.validateEvents(); err != nil {
		return err
	}
	if (c.LLM.BaseURL == "") != (c.LLM.Model == "") {
		return &ConfigError{"llm", "base_url and model go together"}
	}
	if c.LLM.BaseURL != "" {
		if _, err := c.llm(); err != nil {
			return &ConfigError{"llm.base_url", mnemo.ErrorMessage(err)}
		}
	}
	if c.HTTP.MaxBodyBytes < 1024 {
		return &ConfigError{"http.max_body_bytes", "must be at least 1024"}
	}
	if c.HTTP.Timeout <= 0 {
		return &ConfigError{"http.timeout", "must be positive, such as 30s"}
	}
	if c.HTTP.RateLimit < 0 || c.HTTP.RateBurst < 0 {
		return &ConfigError{"http.rate_limit", "must not be negative"}
	}
	names := map[string]bool{}
	for i, k := range c.Auth.Keys {
		field := fmt.Sprintf("auth.keys[%d]", i)
		switch {
		case k.Name == "":
			return &ConfigError{field + ".name", "is required"}
		case names[k.Name]:
			return &ConfigError{field + ".name", fmt.Sprintf("%q is used twice", k.Name)}
		case (k.Secret == "") == (k.Hash == ""):
			return &ConfigError{field, "give exactly one of secret and hash"}
		case k.Hash != "" && !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(k.Hash):
			return &ConfigError{field + ".hash", "must be the sha256 of the secret in lower-case hex"}
		case len(k.Secret) > 0 && len(k.Secret) < 16:
			return &ConfigError{field + ".secret", "must be at least 16 characters"}
		case k.Tenant == "":
			return &ConfigError{field + ".tenant", "is required"}
		case len(k.Scopes) == 0:
			return &ConfigError{field + ".scopes", "give at least one of read, write, admin"}
		}
		for _, s := range k.Scopes {
			if s != "read" && s != "write" && s != "admin" {
				return &ConfigError{field + ".scopes", fmt.Sprintf("unknown scope %q: use read, write or admin", s)}
			}
		}
		names[k.Name] = true
	}
	return nil
}

// validateEvents checks the event layers' settings beyond strict mode and
// tasks.
func (c *Config) validateEvents() error {
	e := c.Events
	for _, v := range []struct {
		field string
		n     int
	}{
		{"events.text_relations.queue", e.TextRelations.Queue}, {"events.profile.initial", e.Profile.Initial},
		{"events.profile.per_stage", e.Profile.PerStage}, {"events.vectors.keep_accessed", e.Vectors.KeepAccessed},
		{"events.webhook.attempts", e.Webhook.Attempts},
	} {
		if v.n < 0 {
			return &ConfigError{v.field, "must not be negative (0 means the default)"}
		}
	}
	if e.TextRelations.Queue > 1<<20 {
		return &ConfigError{"events.text_relations.queue", "must be at most 1048576"}
	}
	for i, n := range e.Profile.Ladder {
		if n < 1 {
			return &ConfigError{fmt.Sprintf("events.profile.ladder[%d]", i), "must be at least 1 (every n interactions)"}
		}
	}
	for _, d := range []struct {
		field string
		d     time.Duration
	}{
		{"events.profile.weekly", e.Profile.Weekly}, {"events.vectors.keep_for", e.Vectors.KeepFor},
		{"events.webhook.timeout", e.Webhook.Timeout}, {"events.webhook.backoff", e.Webhook.Backoff},
		{"events.webhook.max_backoff", e.Webhook.MaxBackoff},
	} {
		if d.d < 0 {
			return &ConfigError{d.field, "must not be negative (0 means the default)"}
		}
	}
	if e.Profile.Weekly > 0 && e.Profile.Weekly < time.Minute {
		return &ConfigError{"events.profile.weekly", "must be at least 1m"}
	}
	if e.Vectors.KeepFor > 0 && e.Vectors.KeepFor < time.Hour {
		return &ConfigError{"events.vectors.keep_for", "must be at least 1h"}
	}
	for _, t := range e.Profile.InteractionTypes {
		if strings.TrimSpace(t) == "" {
			return &ConfigError{"events.profile.interaction_types", "must not hold an empty type"}
		}
	}
	for end, starts := range e.Relations.Pairs {
		if strings.TrimSpace(end) == "" || len(starts) == 0 {
			return &ConfigError{"events.relations.pairs", "each end type needs a name and at least one start type"}
		}
	}
	mods := slices.Sorted(maps.Keys(e.Vectors.Media))
	for _, mod := range mods {
		field := "events.vectors.media." + mod
		switch mod {
		case mnemo.ModalityImage, mnemo.ModalityAudio, mnemo.ModalityVideo:
		default:
			return &ConfigError{field, "the modality must be image, audio or video"}
		}
		if _, err := e.Vectors.Media[mod].embedder(field); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the store's settings.
func (c *StoreConfig) validate() error {
	switch c.Backend {
	case BackendSQLite, BackendFiles, BackendMemory:
	case BackendPostgres:
		dsn := strings.TrimSpace(string(c.Postgres.DSN))
		switch {
		case dsn == "":
			return &ConfigError{"store.postgres.dsn", "is required with store.backend postgres (a postgres:// URL, usually ${MNEMO_POSTGRES_DSN})"}
		case !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") && !strings.Contains(dsn, "="):
			return &ConfigError{"store.postgres.dsn", "must be a postgres:// URL or key=value settings"}
		}
	default:
		return &ConfigError{"store.backend", fmt.Sprintf("must be sqlite, files, postgres or memory, got %q", c.Backend)}
	}
	switch c.Files.History {
	case "", "keep", "rotate":
	default:
		return &ConfigError{"store.files.history", fmt.Sprintf("must be keep or rotate, got %q", c.Files.History)}
	}
	if c.Files.CompactEvery < -1 {
		return &ConfigError{"store.files.compact_every", "must be a number of lines, 0 for the default or -1 for on demand only"}
	}
	p := c.Postgres
	if p.PoolSize < 0 || p.PoolSize > 1000 {
		return &ConfigError{"store.postgres.pool_size", "must be from 1 to 1000 (0: the driver's default)"}
	}
	if p.EfSearch < 0 || p.EfSearch > 1000 {
		return &ConfigError{"store.postgres.ef_search", "must be from 1 to 1000 (0: the default, 100)"}
	}
	if p.FailoverAfter < 0 {
		return &ConfigError{"store.postgres.failover_after", "must not be negative (0 means the default, 2s)"}
	}
	if p.ProbeEvery < 0 {
		return &ConfigError{"store.postgres.probe_every", "must not be negative (0 means the default, 1s)"}
	}
	if p.Schema != "" && !regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`).MatchString(p.Schema) {
		return &ConfigError{"store.postgres.schema", "must be a lower-case SQL identifier"}
	}
	return nil
}

// filesRoot is the files backend's memory root.
func (c *Config) filesRoot() string {
	if c.Store.Files.Root != "" {
		return c.Store.Files.Root
	}
	return filepath.Join(c.Data, "files")
}

// spoolDir is where writes wait while PostgreSQL is unreachable.
func (c *Config) spoolDir() string {
	if c.Store.Postgres.SpoolDir != "" {
		return c.Store.Postgres.SpoolDir
	}
	return filepath.Join(c.Data, "spool")
}

// loadConfig builds the effective configuration.
func loadConfig(path string, getenv func(string) string, fs *pflag.FlagSet) (Config, error) {
	c := defaultConfig()
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return c, &ConfigError{Field: "--config", Msg: err.Error()}
		}
		err = parseConfig(f, &c, getenv)
		f.Close()
		if ce, ok := err.(*ConfigError); ok {
			ce.Field = path + ": " + ce.Field // which file, when there are several
		}
		if err != nil {
			return c, err
		}
	}
	if err := applyEnv(&c, getenv); err != nil {
		return c, err
	}
	if fs != nil {
		applyFlags(&c, fs)
	}
	return c, c.validate()
}

// limits returns the write limits of c.
func (c *Config) limits() mnemo.Limits {
	l := mnemo.DefaultLimits()
	l.MaxContentChars, l.MaxDataBytes, l.MaxTags, l.MaxBatch = c.Limits.MaxContentChars, c.Limits.MaxDataBytes, c.Limits.MaxTags, c.Limits.MaxBatch
	l.MaxMessageChars = c.Limits.MaxMessageChars
	l.Untrusted = c.Limits.Untrusted
	return l
}

// apiKeys turns the configured keys into the HTTP server's, hashing
// secrets: only hashes are kept in memory.
func (c *Config) apiKeys() ([]mhttp.APIKey, error) {
	keys := make([]mhttp.APIKey, len(c.Auth.Keys))
	for i, k := range c.Auth.Keys {
		hash := k.Hash
		if k.Secret != "" {
			hash = mhttp.HashKey(string(k.Secret))
		}
		keys[i] = mhttp.APIKey{Name: k.Name, Hash: hash, Tenant: k.Tenant, Agents: k.Agents, Scopes: k.Scopes}
	}
	if err := mhttp.ValidateKeys(keys); err != nil {
		return nil, &ConfigError{Field: "auth.keys", Msg: mnemo.ErrorMessage(err)}
	}
	return keys, nil
}

// taskRules returns the configured task conventions.
func (c *Config) taskRules() events.TaskRules {
	t := c.Events.Tasks
	return events.TaskRules{SuccessSuffixes: t.SuccessSuffixes, FailureSuffixes: t.FailureSuffixes, ErrorSuffixes: t.ErrorSuffixes,
		SuccessStatuses: t.SuccessStatuses, FailureStatuses: t.FailureStatuses, TaskField: t.TaskField, MinSuccesses: t.MinSuccesses}
}

// relationRules returns the configured L2 rules over the defaults.
func (c *Config) relationRules() *events.RelationRules {
	r, e := events.DefaultRelationRules(), c.Events.Relations
	if e.Temporal != nil {
		r.Temporal = *e.Temporal
	}
	for _, l := range []struct{ dst, src *[]string }{
		{&r.StartSuffixes, &e.StartSuffixes}, {&r.EndSuffixes, &e.EndSuffixes},
		{&r.ErrorSuffixes, &e.ErrorSuffixes}, {&r.RetrySuffixes, &e.RetrySuffixes},
	} {
		if len(*l.src) > 0 {
			*l.dst = *l.src
		}
	}
	if len(e.Pairs) > 0 {
		r.Pairs = e.Pairs
	}
	return &r
}

// eventOptions returns the configured event layers, with the media
// embedders made; the models (Insighter, Analyzer, ...) are the caller's.
func (c *Config) eventOptions() (events.Options, error) {
	e := c.Events
	o := events.Options{
		Strict: e.Strict, KnownTypes: e.KnownTypes, ColdAfter: e.ColdAfter,
		Rules: c.relationRules(), Tasks: c.taskRules(),
		TextRelations: events.TextRelationOptions{On: e.TextRelations.Enabled, Queue: e.TextRelations.Queue},
		Profile: events.ProfileOptions{
			Initial: e.Profile.Initial, Ladder: e.Profile.Ladder, PerStage: e.Profile.PerStage,
			Weekly: e.Profile.Weekly, InteractionTypes: e.Profile.InteractionTypes,
		},
		Vectors: events.VectorOptions{Off: e.Vectors.Disabled, KeepFor: e.Vectors.KeepFor, KeepAccessed: e.Vectors.KeepAccessed},
	}
	for mod, m := range e.Vectors.Media {
		emb, err := m.embedder("events.vectors.media." + mod)
		if err != nil {
			return o, err
		}
		if o.Vectors.Media == nil {
			o.Vectors.Media = map[string]mnemo.Embedder{}
		}
		o.Vectors.Media[mod] = emb
	}
	return o, nil
}

// webhookOptions returns how replays POST to a webhook.
func (c *Config) webhookOptions() webhook.Options {
	w := c.Events.Webhook
	o := webhook.Options{Attempts: w.Attempts, Backoff: w.Backoff, MaxBackoff: w.MaxBackoff}
	if w.Timeout > 0 {
		o.Client = &http.Client{Timeout: w.Timeout}
	}
	return o
}

// llm returns the configured chat model, nil when there is none.
func (c *Config) llm() (*llm.Client, error) {
	if c.LLM.BaseURL == "" {
		return nil, nil
	}
	return llm.New(llm.Config{BaseURL: c.LLM.BaseURL, Model: c.LLM.Model, APIKey: string(c.LLM.APIKey),
		Timeout: c.LLM.Timeout, MaxRetries: c.LLM.MaxRetries})
}
