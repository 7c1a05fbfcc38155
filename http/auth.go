package http

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/security"
)

// Scopes an API key can hold. They are independent, not a hierarchy: a key
// holds each scope it needs, so that, say, a key that may clear memories
// need not also be able to read them.
const (
	// ScopeRead lists, gets, counts and searches memories. Recall records
	// an access, but that is bookkeeping, not a write: read is enough.
	ScopeRead = "read"
	// ScopeWrite remembers, tombstones and forgets single memories or keys.
	ScopeWrite = "write"
	// ScopeAdmin clears every memory of an agent and reads /metrics.
	ScopeAdmin = "admin"
)

// scopes lists every scope, in the order they are documented.
var scopes = []string{ScopeRead, ScopeWrite, ScopeAdmin}

// APIKey grants the holder of a secret access to one tenant. Only the
// secret's hash is configured, so that a leaked config does not leak keys.
type APIKey struct {
	// Name identifies the key in logs and errors; it is not secret.
	Name string
	// Hash is the hex SHA-256 of the secret (see HashKey).
	Hash string
	// Tenant is the tenant of every request made with the key: the tenant
	// comes from the key only, never from the request.
	Tenant string
	// Agents are the agents the key may use; empty means every agent of
	// the tenant. A key with exactly one agent uses it when a request names
	// none.
	Agents []string
	// Scopes are what the key may do: ScopeRead, ScopeWrite, ScopeAdmin.
	Scopes []string
	// Mask makes the key read confidential and restricted memories masked
	// in every answer (SEC-3, SEC-8): their content and summary become a
	// marker and a length; their data, entities, when they happened and
	// what was built from them are left out or masked the same way. The
	// key may not change a security level (SEC-9), nor export, which is
	// whole by design. What it writes above what it reads is stored and
	// answered masked (SEC-10). Without it, a read key reads them whole.
	Mask bool
}

// HashKey returns the hex SHA-256 of secret, the form APIKey.Hash takes.
// A plain hash is enough, unlike for passwords: secrets are long random
// strings that no dictionary holds.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// ValidateKeys reports the first key that is malformed: a missing or
// repeated name, a hash that is not 64 hex digits or is repeated, an invalid
// tenant or agent, an unknown scope or none. A config loader should call it
// so that a typo fails at start-up rather than locking a client out.
func ValidateKeys(keys []APIKey) error {
	names := make(map[string]bool, len(keys))
	hashes := make(map[string]bool, len(keys))
	for i, k := range keys {
		if k.Name == "" {
			return mnemo.Errorf(mnemo.EINVALID, "keys[%d]: name is required", i)
		}
		if names[k.Name] {
			return mnemo.Errorf(mnemo.EINVALID, "keys[%d]: name %q is used twice", i, k.Name)
		}
		names[k.Name] = true
		if err := validateKey(k); err != nil {
			return mnemo.Errorf(mnemo.EINVALID, "key %q: %s", k.Name, mnemo.ErrorMessage(err))
		}
		h := strings.ToLower(k.Hash)
		if hashes[h] {
			return mnemo.Errorf(mnemo.EINVALID, "key %q: its hash is also another key's", k.Name)
		}
		hashes[h] = true
	}
	return nil
}

func validateKey(k APIKey) error {
	if b, err := hex.DecodeString(k.Hash); err != nil || len(b) != sha256.Size {
		return mnemo.Errorf(mnemo.EINVALID, "hash must be 64 hex digits (the SHA-256 of the secret)")
	}
	if err := mnemo.CheckScope(mnemo.Scope{TenantID: k.Tenant, AgentID: "any"}); err != nil {
		return err
	}
	for _, a := range k.Agents {
		if err := mnemo.CheckScope(mnemo.Scope{TenantID: k.Tenant, AgentID: a}); err != nil {
			return err
		}
	}
	if len(k.Scopes) == 0 {
		return mnemo.Errorf(mnemo.EINVALID, "give at least one scope of %s", strings.Join(scopes, ", "))
	}
	for _, sc := range k.Scopes {
		if !slices.Contains(scopes, sc) {
			return mnemo.Errorf(mnemo.EINVALID, "unknown scope %q: use %s", sc, strings.Join(scopes, ", "))
		}
	}
	return nil
}

// Auth is what a request's credentials grant.
type Auth struct {
	KeyName string   // "" when the server has no keys
	Tenant  string   // the tenant of every call the request makes
	Agents  []string // the agents it may use; empty means all of the tenant's
	Scopes  []string
	Mask    bool // confidential and restricted memories are read masked
}

// Clearance is what a reads whole (SEC-8): with Mask, public and internal
// memories; without, every level. A request without a valid key reads
// masked, though no route that reads answers it.
func (a Auth) Clearance() security.Clearance {
	if a.Mask || a.Tenant == "" {
		return security.Masked
	}
	return security.Clearance{}
}

// Has reports whether a holds scope.
func (a Auth) Has(scope string) bool { return slices.Contains(a.Scopes, scope) }

// Scope returns the scope of a call on agent, which the request named (in
// its body, its query or a header). An empty agent means the key's only
// agent, if it has exactly one. An agent the key may not use is an
// EFORBIDDEN error; an invalid or missing one is EINVALID.
func (a Auth) Scope(agent string) (mnemo.Scope, error) {
	if agent == "" && len(a.Agents) == 1 {
		agent = a.Agents[0]
	}
	if agent != "" && len(a.Agents) > 0 && !slices.Contains(a.Agents, agent) {
		return mnemo.Scope{}, mnemo.Errorf(mnemo.EFORBIDDEN, "key %q may not use agent %q", a.KeyName, agent)
	}
	sc := mnemo.Scope{TenantID: a.Tenant, AgentID: agent}
	return sc, mnemo.CheckScope(sc)
}

// anonymous returns every request's Auth when the server has no keys: the
// default tenant, every agent, every scope.
func anonymous() Auth { return Auth{Tenant: DefaultTenant, Scopes: slices.Clone(scopes)} }

// authState is what the server learnt of a request's credentials. It is
// kept whether or not they were good, so that a public route can ignore a
// bad key while a protected one refuses it.
type authState struct {
	auth Auth
	err  error // EUNAUTHORIZED when the request has no valid key
}

type authKey struct{}

// AuthFromContext returns the Auth of the request whose context is ctx, for
// handlers mounted with Server.Handle (such as the MCP endpoint) that must
// scope their calls. ok is false when the request carried no valid key, or
// the context is not a request's of this package. When the server has no
// keys every request gets the default tenant with every scope and agent.
func AuthFromContext(ctx context.Context) (Auth, bool) {
	st, ok := ctx.Value(authKey{}).(*authState)
	if !ok || st.err != nil {
		return Auth{}, false
	}
	// A copy, so that no handler can change what the key grants.
	a := st.auth
	a.Agents, a.Scopes = slices.Clone(a.Agents), slices.Clone(a.Scopes)
	return a, true
}

// keyring holds the configured keys, hashed, for lookup.
type keyring struct {
	keys []hashedKey
}

type hashedKey struct {
	hash []byte
	auth Auth
}

// newKeyring returns the keys that are valid; invalid is told of the
// others, which no secret can match. Keys that share a hash are all left
// out: which tenant such a secret belongs to is anyone's guess.
func newKeyring(keys []APIKey, invalid func(APIKey, error)) *keyring {
	shared := map[string]int{}
	for _, k := range keys {
		shared[strings.ToLower(k.Hash)]++
	}
	kr := &keyring{}
	for _, k := range keys {
		err := validateKey(k)
		switch {
		case err != nil:
		case k.Name == "":
			err = mnemo.Errorf(mnemo.EINVALID, "name is required")
		case shared[strings.ToLower(k.Hash)] > 1:
			err = mnemo.Errorf(mnemo.EINVALID, "its hash is also another key's")
		}
		if err != nil {
			invalid(k, err)
			continue
		}
		h, _ := hex.DecodeString(k.Hash)
		kr.keys = append(kr.keys, hashedKey{hash: h, auth: Auth{
			KeyName: k.Name, Tenant: k.Tenant,
			Agents: slices.Clone(k.Agents), Scopes: slices.Clone(k.Scopes), Mask: k.Mask,
		}})
	}
	return kr
}

// lookup returns the Auth of secret. It compares the secret's hash with
// every key's in constant time and never stops early, so that timing tells
// an attacker nothing about how close a guess came or which key matched.
func (kr *keyring) lookup(secret string) (Auth, bool) {
	sum := sha256.Sum256([]byte(secret))
	var found Auth
	ok := false
	for _, k := range kr.keys {
		if subtle.ConstantTimeCompare(sum[:], k.hash) == 1 {
			found, ok = k.auth, true
		}
	}
	return found, ok
}

// errNoKey and errBadKey are the two ways to fail authentication; they
// differ in what WWW-Authenticate tells the client (RFC 6750 §3.1).
var (
	errNoKey  = mnemo.Errorf(mnemo.EUNAUTHORIZED, "no API key: send Authorization: Bearer <key> or X-API-Key: <key>")
	errBadKey = mnemo.Errorf(mnemo.EUNAUTHORIZED, "the API key is not valid")
)

// Authenticate returns what the credentials in h grant: a bearer token in
// Authorization, or else an X-API-Key header. With no keys configured
// every request is the default tenant's with every scope. It is exported
// for handlers that see only a request's headers, such as the MCP SDK's
// per-call scope hook; handlers mounted with Handle can use
// AuthFromContext instead.
func (s *Server) Authenticate(h http.Header) (Auth, error) {
	if !s.authOn {
		return anonymous(), nil
	}
	secret := h.Get("X-API-Key")
	if v := h.Get("Authorization"); v != "" {
		scheme, token, _ := strings.Cut(v, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return Auth{}, errBadKey
		}
		secret = strings.TrimSpace(token)
	}
	if secret == "" {
		return Auth{}, errNoKey
	}
	a, ok := s.keys.lookup(secret)
	if !ok {
		return Auth{}, errBadKey
	}
	return a, nil
}

// scopeAuthenticated marks a route that needs a valid key but checks what
// the key may do itself: the handlers mounted with Handle.
const scopeAuthenticated = "authenticated"

// authorize checks that the request may use a route that needs scope ("" is
// public). On failure it sets WWW-Authenticate as RFC 6750 asks.
func authorize(w http.ResponseWriter, r *http.Request, scope string) error {
	if scope == "" {
		return nil
	}
	st, _ := r.Context().Value(authKey{}).(*authState)
	if st == nil {
		return mnemo.Errorf(mnemo.EINTERNAL, "request not authenticated by the server")
	}
	switch {
	case st.err == errNoKey:
		w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
		return st.err
	case st.err != nil:
		w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo", error="invalid_token"`)
		return st.err
	case scope == scopeAuthenticated || st.auth.Has(scope):
		return nil
	}
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="mnemo", error="insufficient_scope", scope=%q`, scope))
	return mnemo.Errorf(mnemo.EFORBIDDEN, "key %q does not have the %s scope", st.auth.KeyName, scope)
}

// requestScope returns the scope of a call on agent by the request r.
func requestScope(r *http.Request, agent string) (mnemo.Scope, error) {
	a, ok := AuthFromContext(r.Context())
	if !ok {
		return mnemo.Scope{}, mnemo.Errorf(mnemo.EUNAUTHORIZED, "no API key")
	}
	return a.Scope(agent)
}
