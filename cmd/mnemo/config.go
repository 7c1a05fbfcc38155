package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// Config is mnemo's configuration. Precedence, lowest first: built-in
// defaults, the config file (--config, $MNEMO_CONFIG), environment variables
// (MNEMO_*), flags. `mnemo config` prints the result with secrets hidden.
// Each section is a type of its own (see the package comment for where).
type Config struct {
	// Data is the data directory: by default the user's (defaultDataDir),
	// which the CLI and the server share wherever they start.
	Data         string `yaml:"data"`
	Addr         string `yaml:"addr"`          // serve address
	InsecureBind bool   `yaml:"insecure_bind"` // allow a non-loopback address without auth
	Tenant       string `yaml:"tenant"`        // CLI and stdio MCP scope
	Agent        string `yaml:"agent"`
	LogLevel     string `yaml:"log_level"` // debug, info, warn, error; empty = info for serve, warn otherwise
	// Mock is mock mode (OPS-1, OPS-2), for development with no services
	// and no state: seeded random vectors, and a store in a temporary
	// directory that is deleted on exit (unless Data is set as well, which
	// keeps it: "mock_mode with persist").
	Mock bool `yaml:"mock"`
	// Mask is the CLI's mask profile (SEC-8): its commands read
	// confidential and restricted memories masked, as an API key with mask
	// does, and may not export them or change a security level. It is the
	// CLI's: the server's callers read as their keys say.
	Mask bool `yaml:"mask,omitempty"`

	// Store chooses where memories live.
	Store  StoreConfig  `yaml:"store"`
	SQLite SQLiteConfig `yaml:"sqlite"`

	Limits LimitsConfig `yaml:"limits"`
	Recall RecallConfig `yaml:"recall"`

	HTTP HTTPConfig `yaml:"http"`
	Auth AuthConfig `yaml:"auth"`

	Embedding EmbeddingConfig `yaml:"embedding"`

	// Context configures what is built for prompts: runs' short-term
	// memory, sessions' working memory, snapshots and the default read.
	Context ContextConfig `yaml:"context"`

	// Lifecycle configures reflect, the sleep cycle.
	Lifecycle LifecycleConfig `yaml:"lifecycle"`

	// Events configures the event layers.
	Events EventsConfig `yaml:"events"`

	// LLM is an OpenAI-compatible chat model, off by default.
	LLM LLMConfig `yaml:"llm"`

	// Backup schedules serve's backups of the store.
	Backup BackupConfig `yaml:"backup"`

	// dataDefault is set when Data is the per-user default, no setting
	// having chosen it; dataErr says why there is none.
	dataDefault bool
	dataErr     error
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

// defaultConfig is the configuration with nothing set: each section's
// defaults.
func defaultConfig() Config {
	return Config{
		Addr: "127.0.0.1:7077", Tenant: "default", Agent: "default",
		Store:     defaultStoreConfig(),
		SQLite:    defaultSQLiteConfig(),
		Limits:    defaultLimitsConfig(),
		Recall:    defaultRecallConfig(),
		HTTP:      defaultHTTPConfig(),
		Embedding: defaultEmbeddingConfig(),
		Context:   defaultContextConfig(),
		Lifecycle: defaultLifecycleConfig(),
		Backup:    defaultBackupConfig(),
	}
}

// validate checks c, naming the first bad field: the top-level settings,
// then each section in turn.
func (c *Config) validate() error {
	if err := c.Context.validate(); err != nil {
		return err
	}
	if err := c.SQLite.validate(); err != nil {
		return err
	}
	if err := c.Store.validate(); err != nil {
		return err
	}
	switch c.LogLevel {
	case "", "debug", "info", "warn", "error":
	default:
		return &ConfigError{"log_level", "must be debug, info, warn or error"}
	}
	for _, section := range []interface{ validate() error }{
		&c.Limits, &c.Recall, &c.Embedding, &c.Lifecycle, &c.Events, &c.LLM, &c.HTTP, &c.Auth, &c.Backup,
	} {
		if err := section.validate(); err != nil {
			return err
		}
	}
	if c.Data == "" {
		if c.dataErr != nil {
			return c.dataErr
		}
		return &ConfigError{"data", "must not be empty"}
	}
	return nil
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
	if c.Data == "" {
		c.Data, c.dataErr = defaultDataDir(getenv)
		c.dataDefault = c.dataErr == nil
	}
	return c, c.validate()
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
