package main

import (
	"fmt"
	"regexp"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
)

// The sections of `mnemo serve`'s JSON API: http and auth.

// HTTPConfig is the http section.
type HTTPConfig struct {
	MaxBodyBytes int64         `yaml:"max_body_bytes"`
	Timeout      time.Duration `yaml:"timeout"`
	RateLimit    float64       `yaml:"rate_limit"` // requests per second per key or client; 0 = off
	RateBurst    int           `yaml:"rate_burst"`
	// DefaultAgent is the agent of the /memory/… routes (API-6 to API-10)
	// when a request names none and its key may use several: "default".
	DefaultAgent string `yaml:"default_agent"`
}

// AuthConfig is the auth section: the API keys. With none, the API has
// no auth.
type AuthConfig struct {
	Keys []KeyConfig `yaml:"keys"`
}

// KeyConfig is one API key: its secret (usually "${MNEMO_KEY_…}" from the
// environment) or the secret's sha256 hex hash, mapped to one tenant and
// optionally some agents, with scopes read, write, admin; mask makes it
// read confidential and restricted memories masked.
type KeyConfig struct {
	Name   string   `yaml:"name"`
	Secret Secret   `yaml:"secret,omitempty"`
	Hash   string   `yaml:"hash,omitempty"`
	Tenant string   `yaml:"tenant"`
	Agents []string `yaml:"agents,omitempty"`
	Scopes []string `yaml:"scopes"`
	Mask   bool     `yaml:"mask,omitempty"`
}

func defaultHTTPConfig() HTTPConfig {
	return HTTPConfig{MaxBodyBytes: 8 << 20, Timeout: 30 * time.Second}
}

// validate checks the http section.
func (c *HTTPConfig) validate() error {
	if c.MaxBodyBytes < 1024 {
		return &ConfigError{"http.max_body_bytes", "must be at least 1024"}
	}
	if c.Timeout <= 0 {
		return &ConfigError{"http.timeout", "must be positive, such as 30s"}
	}
	if c.RateLimit < 0 || c.RateBurst < 0 {
		return &ConfigError{"http.rate_limit", "must not be negative"}
	}
	return nil
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// validate checks the auth section, naming the first bad key by its index.
func (c *AuthConfig) validate() error {
	names := map[string]bool{}
	for i, k := range c.Keys {
		field := fmt.Sprintf("auth.keys[%d]", i)
		switch {
		case k.Name == "":
			return &ConfigError{field + ".name", "is required"}
		case names[k.Name]:
			return &ConfigError{field + ".name", fmt.Sprintf("%q is used twice", k.Name)}
		case (k.Secret == "") == (k.Hash == ""):
			return &ConfigError{field, "give exactly one of secret and hash"}
		case k.Hash != "" && !sha256Hex.MatchString(k.Hash):
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

// apiKeys turns the configured keys into the HTTP server's, hashing
// secrets: only hashes are kept in memory.
func (c *Config) apiKeys() ([]mhttp.APIKey, error) {
	keys := make([]mhttp.APIKey, len(c.Auth.Keys))
	for i, k := range c.Auth.Keys {
		hash := k.Hash
		if k.Secret != "" {
			hash = mhttp.HashKey(string(k.Secret))
		}
		keys[i] = mhttp.APIKey{Name: k.Name, Hash: hash, Tenant: k.Tenant, Agents: k.Agents, Scopes: k.Scopes, Mask: k.Mask}
	}
	if err := mhttp.ValidateKeys(keys); err != nil {
		return nil, &ConfigError{Field: "auth.keys", Msg: mnemo.ErrorMessage(err)}
	}
	return keys, nil
}
