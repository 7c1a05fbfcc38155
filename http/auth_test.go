package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
)

func TestHashKey(t *testing.T) {
	// sha256("abc"), from FIPS 180-2.
	if got := mhttp.HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("HashKey(abc) = %s", got)
	}
}

func TestValidateKeys(t *testing.T) {
	good := apiKey("k", "t1", nil, mhttp.ScopeRead)
	with := func(f func(*mhttp.APIKey)) mhttp.APIKey { k := good; f(&k); return k }
	tests := []struct {
		name string
		keys []mhttp.APIKey
		want string // in the error; "" = valid
	}{
		{"valid", []mhttp.APIKey{good, apiKey("k2", "t2", []string{"a1", "a2"}, allScopes...)}, ""},
		{"upper-case hash", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Hash = strings.ToUpper(k.Hash) })}, ""},
		{"no name", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Name = "" })}, "name is required"},
		{"name twice", []mhttp.APIKey{good, with(func(k *mhttp.APIKey) { k.Hash = mhttp.HashKey("other") })}, "used twice"},
		{"hash twice", []mhttp.APIKey{good, with(func(k *mhttp.APIKey) { k.Name = "k2" })}, "also another key's"},
		{"secret as hash", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Hash = "hunter2" })}, "64 hex digits"},
		{"short hash", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Hash = k.Hash[:62] })}, "64 hex digits"},
		{"no tenant", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Tenant = "" })}, "tenant_id is required"},
		{"bad agent", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Agents = []string{"a b"} })}, "agent_id"},
		{"no scope", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Scopes = nil })}, "at least one scope"},
		{"unknown scope", []mhttp.APIKey{with(func(k *mhttp.APIKey) { k.Scopes = []string{"root"} })}, `unknown scope "root"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mhttp.ValidateKeys(tt.keys)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("ValidateKeys = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || mnemo.ErrorCode(err) != mnemo.EINVALID):
				t.Fatalf("ValidateKeys = %v, want invalid_input containing %q", err, tt.want)
			}
		})
	}
}

func TestAuthentication(t *testing.T) {
	bad := apiKey("bad", "t1", nil, "root") // invalid: ignored, but auth stays on
	// Two keys of one secret: which tenant it means is unknowable, so neither counts.
	dup1, dup2 := apiKey("dup", "t1", nil, allScopes...), apiKey("dup", "t2", nil, allScopes...)
	dup2.Name = "dup2"
	base := serve(t, mhttp.Options{Keys: []mhttp.APIKey{apiKey("k", "t1", nil, allScopes...), bad, dup1, dup2}})
	tests := []struct {
		name    string
		header  http.Header
		status  int
		wwwAuth string // WWW-Authenticate, on 401
	}{
		{"no key", nil, 401, `Bearer realm="mnemo"`},
		{"wrong key", http.Header{"Authorization": {"Bearer nope"}}, 401, `Bearer realm="mnemo", error="invalid_token"`},
		{"empty bearer", http.Header{"Authorization": {"Bearer "}}, 401, `Bearer realm="mnemo"`},
		{"basic scheme", http.Header{"Authorization": {"Basic " + secret("k")}}, 401, `Bearer realm="mnemo", error="invalid_token"`},
		{"hash as secret", http.Header{"Authorization": {"Bearer " + mhttp.HashKey(secret("k"))}}, 401, `Bearer realm="mnemo", error="invalid_token"`},
		{"invalid key's secret", http.Header{"Authorization": {"Bearer " + secret("bad")}}, 401, `Bearer realm="mnemo", error="invalid_token"`},
		{"secret of two keys", http.Header{"Authorization": {"Bearer " + secret("dup")}}, 401, `Bearer realm="mnemo", error="invalid_token"`},
		{"bearer", http.Header{"Authorization": {"Bearer " + secret("k")}}, 200, ""},
		{"lower-case scheme", http.Header{"Authorization": {"bearer " + secret("k")}}, 200, ""},
		{"X-API-Key", http.Header{"X-Api-Key": {secret("k")}}, 200, ""},
		{"Authorization wins over X-API-Key", http.Header{"Authorization": {"Bearer nope"}, "X-Api-Key": {secret("k")}}, 401, `Bearer realm="mnemo", error="invalid_token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", base+"/v1/stats?agent_id=a", nil)
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status == 401 {
				var p mhttp.Problem
				json.NewDecoder(resp.Body).Decode(&p)
				if p.Code != mnemo.EUNAUTHORIZED || resp.Header.Get("WWW-Authenticate") != tt.wwwAuth {
					t.Fatalf("problem %+v, WWW-Authenticate %q; want unauthorized, %q", p, resp.Header.Get("WWW-Authenticate"), tt.wwwAuth)
				}
			}
		})
	}
	// A config whose every key is invalid locks everyone out, rather than
	// turning auth off.
	locked := serve(t, mhttp.Options{Keys: []mhttp.APIKey{bad}})
	if st, raw := call(t, "GET", locked+"/v1/stats?agent_id=a", nil, nil); st != 401 {
		t.Errorf("only invalid keys, no key: %d %s, want 401", st, raw)
	}
	// Public routes need no key, and ignore a bad one.
	for _, path := range []string{"/healthz", "/openapi.json"} {
		if st, raw := callAs(t, "nope", "GET", base+path, nil, nil); st != 200 {
			t.Errorf("GET %s with a bad key: %d %s", path, st, raw)
		}
	}
}

// TestScopes sends a request to every route with keys of each scope: only
// a key with the scope the route needs gets past authorization.
func TestScopes(t *testing.T) {
	keys := []mhttp.APIKey{
		apiKey("reader", "t1", nil, mhttp.ScopeRead),
		apiKey("writer", "t1", nil, mhttp.ScopeWrite),
		apiKey("admin", "t1", nil, mhttp.ScopeAdmin),
	}
	ts := start(t, mhttp.Options{Keys: keys, Registry: newRegistry()}, nil)
	tests := []struct {
		route, method, path string
		body                any
		scope               string // "" = public
	}{
		{"GET /healthz", "GET", "/healthz", nil, ""},
		{"GET /openapi.json", "GET", "/openapi.json", nil, ""},
		{"GET /metrics", "GET", "/metrics", nil, mhttp.ScopeAdmin},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a", "content": "x"}, mhttp.ScopeWrite},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a", "key": "/k", "content": nil}, mhttp.ScopeWrite}, // tombstone
		{"POST /v1/memories/batch", "POST", "/v1/memories/batch", map[string]any{"agent_id": "a", "memories": []any{map[string]any{"content": "x"}}}, mhttp.ScopeWrite},
		{"POST /v1/messages", "POST", "/v1/messages", map[string]any{"agent_id": "a", "session_id": "s", "messages": []any{map[string]any{"role": "user", "content": "x"}}}, mhttp.ScopeWrite},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a", nil, mhttp.ScopeRead},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a&key=/k", nil, mhttp.ScopeWrite},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a&all=true", nil, mhttp.ScopeAdmin},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/x?agent_id=a", nil, mhttp.ScopeRead},
		{"DELETE /v1/memories/{id}", "DELETE", "/v1/memories/x?agent_id=a", nil, mhttp.ScopeWrite},
		{"GET /v1/keys", "GET", "/v1/keys?agent_id=a&key=/k", nil, mhttp.ScopeRead},
		{"GET /v1/history", "GET", "/v1/history?agent_id=a&key=/k", nil, mhttp.ScopeRead},
		{"POST /v1/recall", "POST", "/v1/recall", map[string]any{"agent_id": "a", "query": "x"}, mhttp.ScopeRead},
		{"POST /v1/surface", "POST", "/v1/surface", map[string]any{"agent_id": "a", "query": "x"}, mhttp.ScopeRead},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&traverse_hops=2", nil, mhttp.ScopeRead},
		{"GET /v1/stats", "GET", "/v1/stats?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/export", "GET", "/v1/export?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/import", "POST", "/v1/import?agent_id=a", map[string]any{"content": "x"}, mhttp.ScopeWrite},
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=a&from=claude", []any{map[string]any{"uuid": "c1", "chat_messages": []any{map[string]any{"uuid": "m1", "sender": "human", "text": "hello there", "created_at": "2025-01-01T00:00:00Z"}}}}, mhttp.ScopeWrite},
		{"GET /memory/long-term", "GET", "/memory/long-term?agent_id=a", nil, mhttp.ScopeRead},
		{"DELETE /memory/long-term", "DELETE", "/memory/long-term?agent_id=a", nil, mhttp.ScopeAdmin},
		{"GET /memory/long-term/{id}", "GET", "/memory/long-term/x?agent_id=a", nil, mhttp.ScopeRead},
		{"DELETE /memory/long-term/{id}", "DELETE", "/memory/long-term/x?agent_id=a", nil, mhttp.ScopeWrite},
		{"GET /memory/working/{session_id}", "GET", "/memory/working/s?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/runs", "POST", "/v1/runs", map[string]any{"agent_id": "a", "trigger": map[string]any{"type": "cron"}}, mhttp.ScopeWrite},
		{"GET /v1/runs", "GET", "/v1/runs?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/runs/{run_id}", "GET", "/v1/runs/r?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/runs/{run_id}/calls", "POST", "/v1/runs/r/calls", map[string]any{"agent_id": "a", "name": "f"}, mhttp.ScopeWrite},
		{"POST /v1/runs/{run_id}/responses", "POST", "/v1/runs/r/responses", map[string]any{"agent_id": "a", "text": "x"}, mhttp.ScopeWrite},
		{"POST /v1/runs/{run_id}/instructions", "POST", "/v1/runs/r/instructions", map[string]any{"agent_id": "a", "text": "x"}, mhttp.ScopeWrite},
		{"DELETE /v1/runs/{run_id}", "DELETE", "/v1/runs/r?agent_id=a", nil, mhttp.ScopeWrite},
		{"POST /v1/sessions/{session_id}/turns", "POST", "/v1/sessions/s/turns", map[string]any{"agent_id": "a", "text": "hi"}, mhttp.ScopeWrite},
		{"GET /v1/sessions", "GET", "/v1/sessions?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/sessions/{session_id}", "GET", "/v1/sessions/s?agent_id=a", nil, mhttp.ScopeRead},
		{"DELETE /v1/sessions/{session_id}", "DELETE", "/v1/sessions/s?agent_id=a", nil, mhttp.ScopeWrite},
		{"POST /v1/snapshot", "POST", "/v1/snapshot", map[string]any{"agent_id": "a", "trigger": map[string]any{"type": "cron"}}, mhttp.ScopeRead},
		{"GET /v1/boot", "GET", "/v1/boot?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/read", "POST", "/v1/read", map[string]any{"agent_id": "a", "token_limit": 100}, mhttp.ScopeRead},
		{"POST /v1/reflect", "POST", "/v1/reflect", map[string]any{"agent_id": "a", "dry_run": true}, mhttp.ScopeWrite},
		{"POST /v1/prune", "POST", "/v1/prune", map[string]any{"agent_id": "a", "tags": []string{"x"}, "dry_run": true}, mhttp.ScopeAdmin},
		{"POST /v1/reset", "POST", "/v1/reset", map[string]any{"agent_id": "a"}, mhttp.ScopeAdmin},
		{"POST /v1/restore", "POST", "/v1/restore", map[string]any{"agent_id": "a", "ledger_seq": 1}, mhttp.ScopeAdmin},
		{"GET /v1/ledger", "GET", "/v1/ledger?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/ingest", "POST", "/v1/ingest", map[string]any{"agent_id": "a", "text": "- a note worth keeping", "dry_run": true}, mhttp.ScopeWrite},
		{"POST /v1/events", "POST", "/v1/events", map[string]any{"agent_id": "a", "type": "x"}, mhttp.ScopeWrite},
		{"POST /v1/events/batch", "POST", "/v1/events/batch", map[string]any{"agent_id": "a", "events": []any{map[string]any{"type": "x"}}}, mhttp.ScopeWrite},
		{"GET /v1/events", "GET", "/v1/events?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/events/{id}", "GET", "/v1/events/e?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/events/stream", "GET", "/v1/events/stream?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/events/replay", "POST", "/v1/events/replay", map[string]any{"agent_id": "a", "to": "2000-01-01T00:00:00Z", "webhook_url": "http://127.0.0.1:1/hook"}, mhttp.ScopeAdmin},
		{"GET /v1/events/export", "GET", "/v1/events/export?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/events/graph/neighbours", "GET", "/v1/events/graph/neighbours?agent_id=a&node=x", nil, mhttp.ScopeRead},
		{"GET /v1/events/graph/traverse", "GET", "/v1/events/graph/traverse?agent_id=a&node=x", nil, mhttp.ScopeRead},
		{"GET /v1/events/graph/path", "GET", "/v1/events/graph/path?agent_id=a&from=x&to=y", nil, mhttp.ScopeRead},
		{"POST /v1/events/graph/links", "POST", "/v1/events/graph/links", map[string]any{"agent_id": "a", "source": "x", "target": "y"}, mhttp.ScopeWrite},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", map[string]any{"agent_id": "a", "period": "day"}, mhttp.ScopeWrite},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=a", nil, mhttp.ScopeRead},
		{"GET /v1/events/capabilities", "GET", "/v1/events/capabilities?agent_id=a", nil, mhttp.ScopeRead},
		{"POST /v1/events/capabilities/extract", "POST", "/v1/events/capabilities/extract", map[string]any{"agent_id": "a"}, mhttp.ScopeWrite},
		{"POST /v1/events/search", "POST", "/v1/events/search", map[string]any{"agent_id": "a", "vector": []float32{1}, "model": "m"}, mhttp.ScopeRead},
		{"POST /v1/events/graph/text", "POST", "/v1/events/graph/text", map[string]any{"agent_id": "a", "event_id": "x"}, mhttp.ScopeWrite},
		{"GET /v1/profile", "GET", "/v1/profile?agent_id=a", nil, mhttp.ScopeRead},
		{"PUT /v1/profile", "PUT", "/v1/profile", map[string]any{"agent_id": "a", "version": 99}, mhttp.ScopeWrite},
		{"POST /v1/profile/interactions", "POST", "/v1/profile/interactions", map[string]any{"agent_id": "a", "text": "hi"}, mhttp.ScopeWrite},
		{"GET /v1/whoami", "GET", "/v1/whoami", nil, "authenticated"},
		{"GET /v1/agents", "GET", "/v1/agents", nil, mhttp.ScopeRead},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/x", map[string]any{"agent_id": "a", "pinned": true}, mhttp.ScopeWrite},
		{"GET /v1/keys/tree", "GET", "/v1/keys/tree?agent_id=a&prefix=/", nil, mhttp.ScopeRead},
	}
	covered := map[string]bool{}
	scopes := ts.Srv.RouteScopes()
	for _, tt := range tests {
		covered[tt.route] = true
		if tt.scope != "" && !slices.Contains(scopes[tt.route], tt.scope) {
			t.Errorf("%s: the route table says it needs %v, the test %s", tt.route, scopes[tt.route], tt.scope)
		}
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp, raw := send(t, "", tt.method, ts.URL+tt.path, tt.body)
			if tt.scope == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("public route without a key: %d %s", resp.StatusCode, raw)
				}
				return
			}
			if resp.StatusCode != 401 || problem(t, raw).Code != mnemo.EUNAUTHORIZED {
				t.Fatalf("no key: %d %s, want 401 unauthorized", resp.StatusCode, raw)
			}
			for _, k := range keys {
				resp, raw := send(t, secret(k.Name), tt.method, ts.URL+tt.path, tt.body)
				if k.Scopes[0] == tt.scope || tt.scope == "authenticated" {
					if resp.StatusCode == 401 || resp.StatusCode == 403 {
						t.Errorf("key %s with scope %s: %d %s", k.Name, tt.scope, resp.StatusCode, raw)
					}
					continue
				}
				want := `Bearer realm="mnemo", error="insufficient_scope", scope="` + tt.scope + `"`
				if resp.StatusCode != 403 || problem(t, raw).Code != mnemo.EFORBIDDEN || resp.Header.Get("WWW-Authenticate") != want {
					t.Errorf("key %s without scope %s: %d %s %q, want 403 forbidden", k.Name, tt.scope, resp.StatusCode, raw, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
	covers(t, ts.Srv.Routes(), covered)
}

// TestTenantIsolation has tenant A try every route on tenant B's data,
// with the same agent id, and checks that A sees, counts, finds and
// deletes nothing of B's, and that B's data is whole afterwards.
func TestTenantIsolation(t *testing.T) {
	ts := start(t, mhttp.Options{Keys: []mhttp.APIKey{
		apiKey("a", "tenant-a", nil, allScopes...),
		apiKey("b", "tenant-b", nil, allScopes...),
	}, Registry: newRegistry()}, nil)
	a, b := secret("a"), secret("b")
	url := func(p string) string { return ts.URL + p }

	// B's data: a keyed memory with two revisions, a message, a plain one.
	var mB mnemo.Memory
	for _, content := range []string{"B keeps pythons in the attic", "B keeps pythons in the cellar"} {
		if st, raw := callAs(t, b, "POST", url("/v1/memories"), map[string]any{"agent_id": "shared", "key": "/pets", "content": content}, &mB); st != 201 {
			t.Fatalf("B remember: %d %s", st, raw)
		}
	}
	if st, raw := callAs(t, b, "POST", url("/v1/messages"), map[string]any{"agent_id": "shared", "session_id": "sB",
		"messages": []any{map[string]any{"role": "user", "content": "pythons are quiet"}}}, nil); st != 201 {
		t.Fatalf("B messages: %d %s", st, raw)
	}
	if st, raw := callAs(t, b, "POST", url("/v1/runs"), map[string]any{"agent_id": "shared", "run_id": "rB", "trigger": map[string]any{"type": "cron", "payload": "pythons"}}, nil); st != 201 {
		t.Fatalf("B run: %d %s", st, raw)
	}
	if st, raw := callAs(t, b, "POST", url("/v1/sessions/sB/turns"), map[string]any{"agent_id": "shared", "text": "my pythons are quiet"}, nil); st != 200 {
		t.Fatalf("B turn: %d %s", st, raw)
	}
	if st, raw := callAs(t, b, "POST", url("/v1/events/batch"), map[string]any{"agent_id": "shared", "events": []any{
		map[string]any{"id": "bev1", "type": "AgentStarted", "source": "b", "vectors": []any{map[string]any{"modality": "image", "model": "m", "vector": []float32{1, 0}}}},
		map[string]any{"id": "bev2", "type": "AgentStopped", "source": "b"}}}, nil); st != 201 {
		t.Fatalf("B events: %d %s", st, raw)
	}
	// B's link from its memory to its event.
	if st, raw := callAs(t, b, "POST", url("/v1/events/graph/links"), map[string]any{"agent_id": "shared", "source": mB.ID, "target": "bev1"}, nil); st != 201 {
		t.Fatalf("B link: %d %s", st, raw)
	}
	// B's summaries (L4) and capabilities (L5).
	if st, raw := callAs(t, b, "POST", url("/v1/events/batch"), map[string]any{"agent_id": "shared", "events": []any{
		map[string]any{"id": "bev3", "type": "DeployCompleted", "source": "b", "data": map[string]any{"tools": []string{"bevtool"}}},
		map[string]any{"id": "bev4", "type": "DeployCompleted", "source": "b", "data": map[string]any{"tools": []string{"bevtool"}}},
		map[string]any{"id": "bev5", "type": "DeployCompleted", "source": "b", "data": map[string]any{"tools": []string{"bevtool"}}}}}, nil); st != 201 {
		t.Fatalf("B outcomes: %d %s", st, raw)
	}
	if st, raw := callAs(t, b, "POST", url("/v1/events/summaries"), map[string]any{"agent_id": "shared", "period": "day"}, nil); st != 200 || !strings.Contains(string(raw), "bev") {
		t.Fatalf("B summary: %d %s", st, raw)
	}
	if st, raw := callAs(t, b, "POST", url("/v1/profile/interactions"), map[string]any{"agent_id": "shared", "text": "I love bevel gears"}, nil); st != 200 {
		t.Fatalf("B interaction: %d %s", st, raw)
	}
	bState := func() string {
		var r agentcontext.Run
		var wm agentcontext.WorkingMemory
		callAs(t, b, "GET", url("/v1/runs/rB?agent_id=shared"), nil, &r)
		callAs(t, b, "GET", url("/v1/sessions/sB?agent_id=shared"), nil, &wm)
		return fmt.Sprintf("%d rounds, %d instructions; %d turns", len(r.Rounds), len(r.Instructions), wm.TurnCount)
	}
	beforeState := bState()
	snapshot := func() (mnemo.Stats, historyAnswer) {
		var st mnemo.Stats
		var h historyAnswer
		callAs(t, b, "GET", url("/v1/stats?agent_id=shared"), nil, &st)
		callAs(t, b, "GET", url("/v1/history?agent_id=shared&key=/pets"), nil, &h)
		return st, h
	}
	before, beforeHist := snapshot()
	if before.Memories != 2 || beforeHist.Total != 2 {
		t.Fatalf("B's data: %+v, %d revisions", before, beforeHist.Total)
	}

	type check func(t *testing.T, st int, raw []byte)
	status := func(want int) check {
		return func(t *testing.T, st int, raw []byte) {
			if st != want {
				t.Fatalf("status %d, want %d: %s", st, want, raw)
			}
		}
	}
	noEventsOfB := func(t *testing.T, st int, raw []byte) {
		if st != 200 || strings.Contains(string(raw), "bev") {
			t.Fatalf("%d %s, want nothing of B's", st, raw)
		}
	}
	notFound := func(t *testing.T, st int, raw []byte) {
		if st != 404 || problem(t, raw).Code != mnemo.ENOTFOUND {
			t.Fatalf("%d %s, want 404 not_found", st, raw)
		}
	}
	emptyList := func(t *testing.T, st int, raw []byte) {
		var l listAnswer
		if st != 200 || json.Unmarshal(raw, &l) != nil || l.Total != 0 || len(l.Memories) != 0 {
			t.Fatalf("%d %s, want an empty list", st, raw)
		}
	}
	noResults := func(t *testing.T, st int, raw []byte) {
		var res memory.Result
		if st != 200 || json.Unmarshal(raw, &res) != nil || len(res.Results) != 0 {
			t.Fatalf("%d %s, want no results", st, raw)
		}
	}
	deletedNone := func(t *testing.T, st int, raw []byte) {
		var d struct{ Deleted int }
		if st != 200 || json.Unmarshal(raw, &d) != nil || d.Deleted != 0 {
			t.Fatalf("%d %s, want nothing deleted", st, raw)
		}
	}
	noBData := func(t *testing.T, st int, raw []byte) {
		if st != 200 || strings.Contains(string(raw), "python") || strings.Contains(string(raw), "tenant-b") {
			t.Fatalf("%d %s, want 200 with nothing of B's", st, raw)
		}
	}
	invalid := func(t *testing.T, st int, raw []byte) {
		if st != 400 || problem(t, raw).Code != mnemo.EINVALID {
			t.Fatalf("%d %s, want 400 invalid_input", st, raw)
		}
	}
	noneArchived := func(t *testing.T, st int, raw []byte) {
		var a lifecycle.ArchiveResult
		if st != 200 || json.Unmarshal(raw, &a) != nil || len(a.Archived) != 0 {
			t.Fatalf("%d %s, want nothing archived", st, raw)
		}
	}
	inA := func(t *testing.T, st int, raw []byte) {
		var m mnemo.Memory
		if st != 201 || json.Unmarshal(raw, &m) != nil || m.TenantID != "tenant-a" {
			t.Fatalf("%d %s, want a write in tenant-a", st, raw)
		}
	}
	tests := []struct {
		route, method, path string
		body                any
		check               check
	}{
		// Reads first, while A has nothing of its own.
		{"GET /healthz", "GET", "/healthz", nil, noBData},
		{"GET /openapi.json", "GET", "/openapi.json", nil, noBData},
		{"GET /metrics", "GET", "/metrics", nil, noBData},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=shared", nil, emptyList},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=shared&tenant_id=tenant-b", nil, invalid},
		{"GET /memory/long-term", "GET", "/memory/long-term?agent_id=shared&include_archived=true&include_expired=true", nil, emptyList},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/" + mB.ID + "?agent_id=shared", nil, notFound},
		{"GET /memory/long-term/{id}", "GET", "/memory/long-term/" + mB.ID + "?agent_id=shared", nil, notFound},
		{"GET /v1/keys", "GET", "/v1/keys?agent_id=shared&key=/pets", nil, notFound},
		{"GET /v1/history", "GET", "/v1/history?agent_id=shared&key=/pets", nil, func(t *testing.T, st int, raw []byte) {
			var h historyAnswer
			if st != 200 || json.Unmarshal(raw, &h) != nil || h.Total != 0 || len(h.Revisions) != 0 {
				t.Fatalf("%d %s, want no revisions", st, raw)
			}
		}},
		{"GET /v1/stats", "GET", "/v1/stats?agent_id=shared", nil, func(t *testing.T, st int, raw []byte) {
			var s mnemo.Stats
			if st != 200 || json.Unmarshal(raw, &s) != nil || s.Memories != 0 || s.Keys != 0 || s.Sessions != 0 {
				t.Fatalf("%d %s, want zero counts", st, raw)
			}
		}},
		{"GET /v1/export", "GET", "/v1/export?agent_id=shared", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || len(raw) != 0 {
				t.Fatalf("%d %s, want an empty export", st, raw)
			}
		}},
		{"GET /v1/whoami", "GET", "/v1/whoami", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || !strings.Contains(string(raw), `"tenant":"tenant-a"`) || strings.Contains(string(raw), "tenant-b") {
				t.Fatalf("%d %s, want tenant-a", st, raw)
			}
		}},
		{"GET /v1/agents", "GET", "/v1/agents", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), "shared") {
				t.Fatalf("%d %s, want none of B's agents", st, raw)
			}
		}},
		{"GET /v1/keys/tree", "GET", "/v1/keys/tree?agent_id=shared&prefix=/", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), "pets") {
				t.Fatalf("%d %s, want none of B's keys", st, raw)
			}
		}},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + mB.ID, map[string]any{"agent_id": "shared", "content": "A rewrites B"}, notFound},
		{"POST /v1/recall", "POST", "/v1/recall", map[string]any{"agent_id": "shared", "query": "pythons attic cellar quiet"}, noResults},
		{"POST /v1/surface", "POST", "/v1/surface", map[string]any{"agent_id": "shared", "query": "pythons attic cellar quiet"}, noResults},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=shared&prefix=/&traverse_hops=3", nil, func(t *testing.T, st int, raw []byte) {
			var res memory.PathResult
			if st != 200 || json.Unmarshal(raw, &res) != nil || len(res.Memories) != 0 || len(res.Linked) != 0 || strings.Contains(string(raw), "bev") {
				t.Fatalf("%d %s, want nothing of B's", st, raw)
			}
		}},
		{"POST /v1/recall", "POST", "/v1/recall", map[string]any{"agent_id": "shared", "query": "pythons", "tenant_id": "tenant-b"}, invalid},
		{"GET /memory/working/{session_id}", "GET", "/memory/working/sB?agent_id=shared", nil, notFound},
		{"GET /v1/runs", "GET", "/v1/runs?agent_id=shared", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), "rB") {
				t.Fatalf("%d %s, want no runs", st, raw)
			}
		}},
		{"GET /v1/runs/{run_id}", "GET", "/v1/runs/rB?agent_id=shared", nil, notFound},
		{"POST /v1/runs/{run_id}/calls", "POST", "/v1/runs/rB/calls", map[string]any{"agent_id": "shared", "name": "f"}, notFound},
		{"POST /v1/runs/{run_id}/responses", "POST", "/v1/runs/rB/responses", map[string]any{"agent_id": "shared", "text": "x"}, notFound},
		{"POST /v1/runs/{run_id}/instructions", "POST", "/v1/runs/rB/instructions", map[string]any{"agent_id": "shared", "text": "x"}, notFound},
		{"DELETE /v1/runs/{run_id}", "DELETE", "/v1/runs/rB?agent_id=shared", nil, notFound},
		{"GET /v1/sessions", "GET", "/v1/sessions?agent_id=shared", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), "sB") {
				t.Fatalf("%d %s, want no sessions", st, raw)
			}
		}},
		{"GET /v1/sessions/{session_id}", "GET", "/v1/sessions/sB?agent_id=shared", nil, notFound},
		{"DELETE /v1/sessions/{session_id}", "DELETE", "/v1/sessions/sB?agent_id=shared&archive=true", nil, notFound},
		{"POST /v1/snapshot", "POST", "/v1/snapshot", map[string]any{"agent_id": "shared", "trigger": map[string]any{"type": "cron", "payload": "pythons"}}, noBData},
		{"GET /v1/boot", "GET", "/v1/boot?agent_id=shared", nil, noBData},
		{"POST /v1/read", "POST", "/v1/read", map[string]any{"agent_id": "shared", "token_limit": 500}, noBData},
		{"GET /v1/ledger", "GET", "/v1/ledger?agent_id=shared", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), `"seq"`) {
				t.Fatalf("%d %s, want no ledger entries", st, raw)
			}
		}},
		{"POST /v1/reflect", "POST", "/v1/reflect", map[string]any{"agent_id": "shared"}, func(t *testing.T, st int, raw []byte) {
			var rep lifecycle.ReflectReport
			if st != 200 || json.Unmarshal(raw, &rep) != nil || rep.Examined != 0 {
				t.Fatalf("%d %s, want nothing examined", st, raw)
			}
		}},
		{"POST /v1/prune", "POST", "/v1/prune", map[string]any{"agent_id": "shared", "types": []string{"event", "knowledge"}}, noneArchived},
		{"POST /v1/reset", "POST", "/v1/reset", map[string]any{"agent_id": "shared"}, noneArchived},
		{"POST /v1/restore", "POST", "/v1/restore", map[string]any{"agent_id": "shared", "ledger_seq": 1}, notFound},
		{"POST /v1/ingest", "POST", "/v1/ingest", map[string]any{"agent_id": "shared", "text": "- pythons are quiet in the attic", "dry_run": true}, func(t *testing.T, st int, raw []byte) {
			var res lifecycle.IngestResult
			if st != 200 || json.Unmarshal(raw, &res) != nil || res.Skipped != 0 || res.Items[0].Action != "would_write" {
				t.Fatalf("%d %s, want nothing of B's seen", st, raw)
			}
		}},
		// B's events and relations.
		{"GET /v1/events", "GET", "/v1/events?agent_id=shared", nil, noEventsOfB},
		{"GET /v1/events/{id}", "GET", "/v1/events/bev1?agent_id=shared", nil, notFound},
		{"GET /v1/events/stream", "GET", "/v1/events/stream?agent_id=shared", nil, noEventsOfB},
		{"POST /v1/events/replay", "POST", "/v1/events/replay", map[string]any{"agent_id": "shared", "webhook_url": "http://127.0.0.1:1/hook"}, func(t *testing.T, st int, raw []byte) {
			if st != 200 || !strings.Contains(string(raw), `"published":0`) {
				t.Fatalf("%d %s, want nothing replayed", st, raw)
			}
		}},
		{"GET /v1/events/export", "GET", "/v1/events/export?agent_id=shared", nil, noEventsOfB},
		{"GET /v1/events/graph/neighbours", "GET", "/v1/events/graph/neighbours?agent_id=shared&node=bev2", nil, noEventsOfB},
		{"GET /v1/events/graph/traverse", "GET", "/v1/events/graph/traverse?agent_id=shared&node=bev1&depth=3", nil, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), "bev2") {
				t.Fatalf("%d %s, want no edge of B's", st, raw)
			}
		}},
		{"GET /v1/events/graph/path", "GET", "/v1/events/graph/path?agent_id=shared&from=bev1&to=bev2", nil, notFound},
		{"POST /v1/events/graph/links", "POST", "/v1/events/graph/links", map[string]any{"agent_id": "shared", "source": "bev1", "target": "bev2"}, notFound},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=shared", nil, noEventsOfB},
		{"GET /v1/events/capabilities", "GET", "/v1/events/capabilities?agent_id=shared", nil, noEventsOfB},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", map[string]any{"agent_id": "shared", "period": "day"}, func(t *testing.T, st int, raw []byte) {
			var sum mnemo.Summary
			if st != 200 || json.Unmarshal(raw, &sum) != nil || sum.Events != 0 || strings.Contains(string(raw), "bev") {
				t.Fatalf("%d %s, want A's empty day", st, raw)
			}
		}},
		{"POST /v1/events/capabilities/extract", "POST", "/v1/events/capabilities/extract", map[string]any{"agent_id": "shared"}, noEventsOfB},
		{"POST /v1/events/search", "POST", "/v1/events/search", map[string]any{"agent_id": "shared", "vector": []float32{1, 0}, "model": "m"}, noEventsOfB},
		{"POST /v1/events/graph/text", "POST", "/v1/events/graph/text", map[string]any{"agent_id": "shared", "event_id": "bev1"}, notFound},
		{"GET /v1/profile", "GET", "/v1/profile?agent_id=shared", nil, noEventsOfB},
		{"PUT /v1/profile", "PUT", "/v1/profile", map[string]any{"agent_id": "shared", "version": 1}, func(t *testing.T, st int, raw []byte) {
			if st != 409 {
				t.Fatalf("%d %s, want 409: A has no profile at B's version", st, raw)
			}
		}},
		{"POST /v1/profile/interactions", "POST", "/v1/profile/interactions", map[string]any{"agent_id": "shared", "text": "hello"}, func(t *testing.T, st int, raw []byte) {
			if st != 200 || strings.Contains(string(raw), "bevel") || !strings.Contains(string(raw), `"interactions":1`) {
				t.Fatalf("%d %s, want A's first interaction", st, raw)
			}
		}},
		// A's own events under B's ids are A's.
		{"POST /v1/events", "POST", "/v1/events", map[string]any{"agent_id": "shared", "id": "bev1", "type": "mine"}, status(201)},
		{"POST /v1/events/batch", "POST", "/v1/events/batch", map[string]any{"agent_id": "shared", "events": []any{map[string]any{"id": "bev2", "type": "mine"}}}, status(201)},
		// A's own run and session under the same ids are A's.
		{"POST /v1/runs", "POST", "/v1/runs", map[string]any{"agent_id": "shared", "run_id": "rB", "trigger": map[string]any{"type": "cron"}}, status(201)},
		{"POST /v1/sessions/{session_id}/turns", "POST", "/v1/sessions/sB/turns", map[string]any{"agent_id": "shared", "text": "hello"}, func(t *testing.T, st int, raw []byte) {
			var wm agentcontext.WorkingMemory
			if st != 200 || json.Unmarshal(raw, &wm) != nil || wm.TurnCount != 1 {
				t.Fatalf("%d %s, want A's first turn", st, raw)
			}
		}},
		// Deletes.
		{"DELETE /v1/memories/{id}", "DELETE", "/v1/memories/" + mB.ID + "?agent_id=shared", nil, notFound},
		{"DELETE /memory/long-term/{id}", "DELETE", "/memory/long-term/" + mB.ID + "?agent_id=shared", nil, notFound},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=shared&key=/pets", nil, deletedNone},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=shared&all=true", nil, deletedNone},
		{"DELETE /memory/long-term", "DELETE", "/memory/long-term?agent_id=shared", nil, deletedNone},
		// Writes to the same agent and key land in A's tenant.
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "shared", "key": "/pets", "content": nil}, inA}, // a tombstone
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "shared", "key": "/pets", "content": "A has a cat"}, inA},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "shared", "content": "x", "tenant_id": "tenant-b"}, invalid},
		{"POST /v1/memories/batch", "POST", "/v1/memories/batch", map[string]any{"agent_id": "shared", "memories": []any{map[string]any{"key": "/pets", "content": "A has two cats"}}}, status(201)},
		{"POST /v1/messages", "POST", "/v1/messages", map[string]any{"agent_id": "shared", "session_id": "sB", "messages": []any{map[string]any{"role": "user", "content": "hello"}}}, status(201)},
		{"POST /v1/import", "POST", "/v1/import?agent_id=shared", map[string]any{"key": "/imported", "content": "A imports", "tenant_id": "tenant-b", "agent_id": "shared"}, status(200)},
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=shared&from=claude", []any{map[string]any{"uuid": "c1", "chat_messages": []any{map[string]any{"uuid": "m1", "sender": "human", "text": "hello there", "created_at": "2025-01-01T00:00:00Z"}}}}, status(200)},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.route] = true
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			st, raw := callAs(t, a, tt.method, url(tt.path), tt.body, nil)
			tt.check(t, st, raw)
		})
	}
	covers(t, ts.Srv.Routes(), covered)

	if got := bState(); got != beforeState {
		t.Fatalf("B's run and session changed: %s -> %s", beforeState, got)
	}
	after, afterHist := snapshot()
	if !reflect.DeepEqual(after, before) || !reflect.DeepEqual(afterHist, beforeHist) {
		t.Fatalf("B's data changed: %+v -> %+v, %d -> %d revisions", before, after, beforeHist.Total, afterHist.Total)
	}
	var bev mnemo.Event
	if st, _ := callAs(t, b, "GET", url("/v1/events/bev1?agent_id=shared"), nil, &bev); st != 200 || bev.Type != "AgentStarted" || bev.TenantID != "tenant-b" {
		t.Fatalf("B's event: %d %+v", st, bev)
	}
	var imported mnemo.Memory
	if st, _ := callAs(t, a, "GET", url("/v1/keys?agent_id=shared&key=/imported"), nil, &imported); st != 200 || imported.TenantID != "tenant-a" {
		t.Fatalf("A's import is not in A's tenant: %d %+v", st, imported)
	}
	var got mnemo.Memory
	if st, _ := callAs(t, b, "GET", url("/v1/keys?agent_id=shared&key=/pets"), nil, &got); st != 200 || got.Content != "B keeps pythons in the cellar" {
		t.Fatalf("B's /pets: %d %+v", st, got)
	}
	// And B sees nothing of A's.
	var res memory.Result
	callAs(t, b, "POST", url("/v1/recall"), map[string]any{"agent_id": "shared", "query": "cats hello"}, &res)
	if len(res.Results) != 0 {
		t.Fatalf("B recalls A's memories: %+v", res.Results)
	}
}

// TestAgentRestriction has a key limited to agent a1 try every route on
// agent a2, and use a1 when it names no agent.
func TestAgentRestriction(t *testing.T) {
	ts := start(t, mhttp.Options{Keys: []mhttp.APIKey{
		apiKey("all", "t1", nil, allScopes...),
		apiKey("a1", "t1", []string{"a1"}, allScopes...),
		apiKey("a1a3", "t1", []string{"a1", "a3"}, allScopes...),
	}}, nil)
	all, a1 := secret("all"), secret("a1")
	url := func(p string) string { return ts.URL + p }
	var m1, m2 mnemo.Memory
	callAs(t, all, "POST", url("/v1/memories"), map[string]any{"agent_id": "a1", "key": "/k", "content": "one"}, &m1)
	callAs(t, all, "POST", url("/v1/memories"), map[string]any{"agent_id": "a2", "key": "/k", "content": "two"}, &m2)

	tests := []struct {
		route, method, path string
		body                any
	}{
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a2", "content": "x"}},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a2", "key": "/k", "content": nil}},
		{"POST /v1/memories/batch", "POST", "/v1/memories/batch", map[string]any{"agent_id": "a2", "memories": []any{map[string]any{"content": "x"}}}},
		{"POST /v1/messages", "POST", "/v1/messages", map[string]any{"agent_id": "a2", "session_id": "s", "messages": []any{map[string]any{"role": "user", "content": "x"}}}},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a2", nil},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a2&key=/k", nil},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a2&all=true", nil},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/" + m2.ID + "?agent_id=a2", nil},
		{"DELETE /v1/memories/{id}", "DELETE", "/v1/memories/" + m2.ID + "?agent_id=a2", nil},
		{"GET /v1/keys", "GET", "/v1/keys?agent_id=a2&key=/k", nil},
		{"GET /v1/history", "GET", "/v1/history?agent_id=a2&key=/k", nil},
		{"POST /v1/recall", "POST", "/v1/recall", map[string]any{"agent_id": "a2", "query": "two"}},
		{"POST /v1/surface", "POST", "/v1/surface", map[string]any{"agent_id": "a2", "query": "two"}},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a2&prefix=/", nil},
		{"GET /v1/stats", "GET", "/v1/stats?agent_id=a2", nil},
		{"GET /v1/export", "GET", "/v1/export?agent_id=a2", nil},
		{"POST /v1/import", "POST", "/v1/import?agent_id=a2", map[string]any{"content": "x"}},
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=a2&from=claude", []any{map[string]any{"uuid": "c1", "chat_messages": []any{map[string]any{"uuid": "m1", "sender": "human", "text": "hello there", "created_at": "2025-01-01T00:00:00Z"}}}}},
		{"GET /memory/long-term", "GET", "/memory/long-term?agent_id=a2", nil},
		{"DELETE /memory/long-term", "DELETE", "/memory/long-term?agent_id=a2", nil},
		{"GET /memory/long-term/{id}", "GET", "/memory/long-term/" + m2.ID + "?agent_id=a2", nil},
		{"DELETE /memory/long-term/{id}", "DELETE", "/memory/long-term/" + m2.ID + "?agent_id=a2", nil},
		{"GET /memory/working/{session_id}", "GET", "/memory/working/s?agent_id=a2", nil},
		{"POST /v1/runs", "POST", "/v1/runs", map[string]any{"agent_id": "a2", "trigger": map[string]any{"type": "cron"}}},
		{"GET /v1/runs", "GET", "/v1/runs?agent_id=a2", nil},
		{"GET /v1/runs/{run_id}", "GET", "/v1/runs/r?agent_id=a2", nil},
		{"POST /v1/runs/{run_id}/calls", "POST", "/v1/runs/r/calls", map[string]any{"agent_id": "a2", "name": "f"}},
		{"POST /v1/runs/{run_id}/responses", "POST", "/v1/runs/r/responses", map[string]any{"agent_id": "a2", "text": "x"}},
		{"POST /v1/runs/{run_id}/instructions", "POST", "/v1/runs/r/instructions", map[string]any{"agent_id": "a2", "text": "x"}},
		{"DELETE /v1/runs/{run_id}", "DELETE", "/v1/runs/r?agent_id=a2", nil},
		{"POST /v1/sessions/{session_id}/turns", "POST", "/v1/sessions/s/turns", map[string]any{"agent_id": "a2", "text": "hi"}},
		{"GET /v1/sessions", "GET", "/v1/sessions?agent_id=a2", nil},
		{"GET /v1/sessions/{session_id}", "GET", "/v1/sessions/s?agent_id=a2", nil},
		{"DELETE /v1/sessions/{session_id}", "DELETE", "/v1/sessions/s?agent_id=a2", nil},
		{"POST /v1/snapshot", "POST", "/v1/snapshot", map[string]any{"agent_id": "a2", "trigger": map[string]any{"type": "cron"}}},
		{"GET /v1/boot", "GET", "/v1/boot?agent_id=a2", nil},
		{"POST /v1/read", "POST", "/v1/read", map[string]any{"agent_id": "a2", "token_limit": 100}},
		{"POST /v1/reflect", "POST", "/v1/reflect", map[string]any{"agent_id": "a2"}},
		{"POST /v1/prune", "POST", "/v1/prune", map[string]any{"agent_id": "a2", "tags": []string{"x"}}},
		{"POST /v1/reset", "POST", "/v1/reset", map[string]any{"agent_id": "a2"}},
		{"POST /v1/restore", "POST", "/v1/restore", map[string]any{"agent_id": "a2", "ledger_seq": 1}},
		{"GET /v1/ledger", "GET", "/v1/ledger?agent_id=a2", nil},
		{"POST /v1/ingest", "POST", "/v1/ingest", map[string]any{"agent_id": "a2", "text": "- a note"}},
		{"POST /v1/events", "POST", "/v1/events", map[string]any{"agent_id": "a2", "type": "x"}},
		{"POST /v1/events/batch", "POST", "/v1/events/batch", map[string]any{"agent_id": "a2", "events": []any{map[string]any{"type": "x"}}}},
		{"GET /v1/events", "GET", "/v1/events?agent_id=a2", nil},
		{"GET /v1/events/{id}", "GET", "/v1/events/e?agent_id=a2", nil},
		{"GET /v1/events/stream", "GET", "/v1/events/stream?agent_id=a2", nil},
		{"POST /v1/events/replay", "POST", "/v1/events/replay", map[string]any{"agent_id": "a2", "webhook_url": "http://127.0.0.1:1/hook"}},
		{"GET /v1/events/export", "GET", "/v1/events/export?agent_id=a2", nil},
		{"GET /v1/events/graph/neighbours", "GET", "/v1/events/graph/neighbours?agent_id=a2&node=x", nil},
		{"GET /v1/events/graph/traverse", "GET", "/v1/events/graph/traverse?agent_id=a2&node=x", nil},
		{"GET /v1/events/graph/path", "GET", "/v1/events/graph/path?agent_id=a2&from=x&to=y", nil},
		{"POST /v1/events/graph/links", "POST", "/v1/events/graph/links", map[string]any{"agent_id": "a2", "source": "x", "target": "y"}},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", map[string]any{"agent_id": "a2", "period": "day"}},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=a2", nil},
		{"GET /v1/events/capabilities", "GET", "/v1/events/capabilities?agent_id=a2", nil},
		{"POST /v1/events/capabilities/extract", "POST", "/v1/events/capabilities/extract", map[string]any{"agent_id": "a2"}},
		{"POST /v1/events/search", "POST", "/v1/events/search", map[string]any{"agent_id": "a2", "query": "x"}},
		{"POST /v1/events/graph/text", "POST", "/v1/events/graph/text", map[string]any{"agent_id": "a2", "event_id": "x"}},
		{"GET /v1/profile", "GET", "/v1/profile?agent_id=a2", nil},
		{"PUT /v1/profile", "PUT", "/v1/profile", map[string]any{"agent_id": "a2"}},
		{"POST /v1/profile/interactions", "POST", "/v1/profile/interactions", map[string]any{"agent_id": "a2", "text": "hi"}},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + m2.ID, map[string]any{"agent_id": "a2", "pinned": true}},
		{"GET /v1/keys/tree", "GET", "/v1/keys/tree?agent_id=a2", nil},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.route] = true
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			st, raw := callAs(t, a1, tt.method, url(tt.path), tt.body, nil)
			if p := problem(t, raw); st != 403 || p.Code != mnemo.EFORBIDDEN || !strings.Contains(p.Detail, `"a2"`) {
				t.Fatalf("%d %s, want 403 forbidden naming a2", st, raw)
			}
		})
	}
	covers(t, ts.Srv.Routes(), covered, "GET /healthz", "GET /openapi.json", "GET /v1/whoami", "GET /v1/agents") // no agent

	// The agents a1's key may see: a1 only.
	var ag struct{ Agents []mnemo.AgentCount }
	if st, raw := callAs(t, a1, "GET", url("/v1/agents"), nil, &ag); st != 200 || len(ag.Agents) != 1 || ag.Agents[0].AgentID != "a1" {
		t.Fatalf("agents of a1's key: %d %s, want a1 alone", st, raw)
	}

	// a2 is whole.
	var st mnemo.Stats
	if callAs(t, all, "GET", url("/v1/stats?agent_id=a2"), nil, &st); st.Memories != 1 {
		t.Fatalf("a2 has %d memories, want 1", st.Memories)
	}
	// With no agent named, a key of one agent uses it.
	var l listAnswer
	if s, raw := callAs(t, a1, "GET", url("/memory/long-term"), nil, &l); s != 200 || l.Total != 1 || l.Memories[0].ID != m1.ID {
		t.Fatalf("list without agent: %d %s", s, raw)
	}
	if s, _ := callAs(t, a1, "GET", url("/v1/memories/"+m2.ID), nil, nil); s != 404 {
		t.Fatalf("a2's memory by id without agent: %d, want 404", s)
	}
	var m mnemo.Memory
	if s, raw := callAs(t, a1, "POST", url("/v1/memories"), map[string]any{"content": "three"}, &m); s != 201 || m.AgentID != "a1" {
		t.Fatalf("remember without agent: %d %s", s, raw)
	}
	// A key of two agents must name one.
	if s, raw := callAs(t, secret("a1a3"), "GET", url("/v1/stats"), nil, nil); s != 400 || problem(t, raw).Code != mnemo.EINVALID {
		t.Fatalf("two-agent key without agent: %d %s, want 400", s, raw)
	}
	if s, _ := callAs(t, secret("a1a3"), "GET", url("/v1/stats?agent_id=a3"), nil, nil); s != 200 {
		t.Fatalf("two-agent key on its second agent: %d", s)
	}
}

// TestMounted checks that a handler mounted with Handle sits behind auth,
// learns the key with AuthFromContext, can stream, and has no timeout.
func TestMounted(t *testing.T) {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond) // longer than the API's timeout
		a, ok := mhttp.AuthFromContext(r.Context())
		_, flusher := w.(http.Flusher)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"auth": a, "ok": ok, "flusher": flusher})
	})
	mount := func(s *mhttp.Server) { s.Handle("/echo", echo) }
	type answer struct {
		Auth    mhttp.Auth
		OK      bool
		Flusher bool
	}

	t.Run("auth", func(t *testing.T) {
		ts := start(t, mhttp.Options{Timeout: 20 * time.Millisecond, Keys: []mhttp.APIKey{apiKey("k", "t1", []string{"a1"}, mhttp.ScopeRead)}}, mount)
		if st, raw := call(t, "POST", ts.URL+"/echo", nil, nil); st != 401 || problem(t, raw).Code != mnemo.EUNAUTHORIZED {
			t.Fatalf("no key: %d %s", st, raw)
		}
		var got answer
		if st, raw := callAs(t, secret("k"), "POST", ts.URL+"/echo", nil, &got); st != 200 {
			t.Fatalf("with key: %d %s", st, raw)
		}
		want := mhttp.Auth{KeyName: "k", Tenant: "t1", Agents: []string{"a1"}, Scopes: []string{mhttp.ScopeRead}}
		if !got.OK || !got.Flusher || got.Auth.KeyName != want.KeyName || got.Auth.Tenant != want.Tenant ||
			!slices.Equal(got.Auth.Agents, want.Agents) || !slices.Equal(got.Auth.Scopes, want.Scopes) {
			t.Fatalf("got %+v, want %+v, ok, flusher", got, want)
		}
		// The same answer from the headers alone, for hooks that see no context.
		a, err := ts.Srv.Authenticate(http.Header{"Authorization": {"Bearer " + secret("k")}})
		if err != nil || a.Tenant != "t1" {
			t.Fatalf("Authenticate = %+v, %v", a, err)
		}
		if _, err := ts.Srv.Authenticate(http.Header{}); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED {
			t.Fatalf("Authenticate without key: %v", err)
		}
	})
	t.Run("no auth", func(t *testing.T) {
		ts := start(t, mhttp.Options{Timeout: 20 * time.Millisecond}, mount)
		var got answer
		if st, raw := call(t, "GET", ts.URL+"/echo", nil, &got); st != 200 {
			t.Fatalf("%d %s", st, raw)
		}
		if !got.OK || got.Auth.Tenant != mhttp.DefaultTenant || got.Auth.KeyName != "" || len(got.Auth.Scopes) != 3 {
			t.Fatalf("got %+v, want the default tenant with every scope", got)
		}
		if sc, err := got.Auth.Scope("bob"); err != nil || sc != (mnemo.Scope{TenantID: "default", AgentID: "bob"}) {
			t.Fatalf("Scope(bob) = %+v, %v", sc, err)
		}
	})
	if _, ok := mhttp.AuthFromContext(t.Context()); ok {
		t.Fatal("AuthFromContext of a context that is no request's: ok")
	}
}
