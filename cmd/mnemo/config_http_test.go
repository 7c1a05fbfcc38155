package main

import (
	"strings"
	"testing"
)

func TestHTTPConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultHTTPConfig, (*HTTPConfig).validate, []sectionCase[HTTPConfig]{
		{"rate limit", func(c *HTTPConfig) { c.RateLimit, c.RateBurst = 10, 20 }, ""},
		{"max_body_bytes", func(c *HTTPConfig) { c.MaxBodyBytes = 1023 }, "http.max_body_bytes"},
		{"timeout", func(c *HTTPConfig) { c.Timeout = 0 }, "http.timeout"},
		{"rate_limit", func(c *HTTPConfig) { c.RateLimit = -1 }, "http.rate_limit"},
		{"rate_burst", func(c *HTTPConfig) { c.RateBurst = -1 }, "http.rate_limit"},
	})
}

func TestAuthConfigValidate(t *testing.T) {
	t.Parallel()
	key := func() KeyConfig {
		return KeyConfig{Name: "bot", Secret: "s3cret-s3cret-s3cret", Tenant: "acme", Scopes: []string{"read", "write"}}
	}
	one := func(k KeyConfig) func(*AuthConfig) { return func(c *AuthConfig) { c.Keys = []KeyConfig{k} } }
	with := func(f func(*KeyConfig)) func(*AuthConfig) { k := key(); f(&k); return one(k) }
	testSection(t, func() AuthConfig { return AuthConfig{} }, (*AuthConfig).validate, []sectionCase[AuthConfig]{
		{"a key", one(key()), ""},
		{"a hash", with(func(k *KeyConfig) { k.Secret, k.Hash = "", strings.Repeat("ab", 32) }), ""},
		{"no name", with(func(k *KeyConfig) { k.Name = "" }), "auth.keys[0].name"},
		{"twice", func(c *AuthConfig) { c.Keys = []KeyConfig{key(), key()} }, "auth.keys[1].name"},
		{"secret and hash", with(func(k *KeyConfig) { k.Hash = strings.Repeat("ab", 32) }), "auth.keys[0]"},
		{"neither", with(func(k *KeyConfig) { k.Secret = "" }), "auth.keys[0]"},
		{"hash", with(func(k *KeyConfig) { k.Secret, k.Hash = "", strings.Repeat("AB", 32) }), "auth.keys[0].hash"},
		{"short secret", with(func(k *KeyConfig) { k.Secret = "short" }), "auth.keys[0].secret"},
		{"no tenant", with(func(k *KeyConfig) { k.Tenant = "" }), "auth.keys[0].tenant"},
		{"no scopes", with(func(k *KeyConfig) { k.Scopes = nil }), "auth.keys[0].scopes"},
		{"unknown scope", with(func(k *KeyConfig) { k.Scopes = []string{"root"} }), "auth.keys[0].scopes"},
	})
}
