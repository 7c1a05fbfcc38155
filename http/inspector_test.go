package http_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/web"
)

// TestWhoami checks GET /v1/whoami with keys (API-13): the key's own
// grant, nothing without a key; and without keys, the default tenant.
func TestWhoami(t *testing.T) {
	ts := start(t, mhttp.Options{Keys: []mhttp.APIKey{
		apiKey("reader", "tenant-a", []string{"a1"}, mhttp.ScopeRead),
	}}, nil)
	var me struct {
		KeyName string   `json:"key_name"`
		Tenant  string   `json:"tenant"`
		Agents  []string `json:"agents"`
		Scopes  []string `json:"scopes"`
	}
	if st, raw := callAs(t, secret("reader"), "GET", ts.URL+"/v1/whoami", nil, &me); st != 200 || me.KeyName != "reader" || me.Tenant != "tenant-a" ||
		!slices.Equal(me.Agents, []string{"a1"}) || !slices.Equal(me.Scopes, []string{"read"}) {
		t.Fatalf("whoami: %d %s", st, raw)
	}
	if st, raw := call(t, "GET", ts.URL+"/v1/whoami", nil, nil); st != 401 || problem(t, raw).Code != mnemo.EUNAUTHORIZED {
		t.Fatalf("whoami without a key: %d %s", st, raw)
	}
	open := serve(t, mhttp.Options{})
	if st, raw := call(t, "GET", open+"/v1/whoami", nil, &me); st != 200 || me.Tenant != mhttp.DefaultTenant || me.KeyName != "" || len(me.Scopes) != 3 || me.Agents == nil {
		t.Fatalf("whoami without keys configured: %d %s", st, raw)
	}
}

// TestInspectorRoutes checks the inspector's routes end to end over
// SQLite (API-13, API-14): agents, the new list filters, PATCH of keyed
// and keyless memories with history and ledger, the key tree, stats and
// boot's token count.
func TestInspectorRoutes(t *testing.T) {
	ts := start(t, mhttp.Options{}, nil)
	url := func(p string) string { return ts.URL + p }
	write := func(agent string, body map[string]any) mnemo.Memory {
		t.Helper()
		body["agent_id"] = agent
		var m mnemo.Memory
		if st, raw := call(t, "POST", url("/v1/memories"), body, &m); st != 201 {
			t.Fatalf("write: %d %s", st, raw)
		}
		return m
	}
	keyed := write("a", map[string]any{"key": "/user/lang", "content": "The user writes Go every day", "tags": []string{"lang"}})
	loose := write("a", map[string]any{"content": "The office plants need water on Mondays", "type": "event"})
	write("a", map[string]any{"key": "/user/prefs/theme", "content": "Prefers the dark theme in editors", "pinned": true})
	write("a", map[string]any{"key": "kb://go/generics", "content": "Go generics arrived in version 1.18", "security_level": "confidential", "source": map[string]any{"kind": "web", "name": "go.dev", "retrieved_at": "2025-01-01T00:00:00Z", "locator": "https://go.dev/doc/go1.18"}})
	write("b", map[string]any{"content": "Agent b keeps its own notes here"})

	// Agents, counted.
	var ag struct {
		Agents []mnemo.AgentCount `json:"agents"`
	}
	if st, raw := call(t, "GET", url("/v1/agents"), nil, &ag); st != 200 ||
		!slices.Equal(ag.Agents, []mnemo.AgentCount{{AgentID: "a", Memories: 4}, {AgentID: "b", Memories: 1}}) {
		t.Fatalf("agents: %d %s", st, raw)
	}

	// The list's filters.
	listIDs := func(q string) []string {
		t.Helper()
		var l listAnswer
		if st, raw := call(t, "GET", url("/v1/memories?agent_id=a&"+q), nil, &l); st != 200 {
			t.Fatalf("list %s: %d %s", q, st, raw)
		}
		var ids []string
		for _, m := range l.Memories {
			ids = append(ids, m.Key+"|"+m.ID[len(m.ID)-4:])
		}
		return ids
	}
	if got := listIDs("pinned=true"); len(got) != 1 || !strings.HasPrefix(got[0], "/user/prefs/theme|") {
		t.Errorf("pinned=true: %v", got)
	}
	if got := listIDs("pinned=false"); len(got) != 3 {
		t.Errorf("pinned=false: %v", got)
	}
	if got := listIDs("security_levels=confidential"); len(got) != 1 || !strings.HasPrefix(got[0], "kb://go/generics|") {
		t.Errorf("security_levels=confidential: %v", got)
	}

	// PATCH a keyed memory: by its key, a revision in history.
	var up memory.UpdateResult
	if st, raw := call(t, "PATCH", url("/v1/memories/"+keyed.ID), map[string]any{"agent_id": "a", "content": "The user writes Go and Rust", "tags": []string{"lang", "Rust"}, "priority": 1}, &up); st != 200 ||
		up.ID != keyed.ID || up.Content != "The user writes Go and Rust" || !slices.Equal(up.Tags, []string{"lang", "rust"}) || up.Priority != 1 || !up.Applied ||
		!slices.Equal(up.Changed, []string{"content", "tags", "priority"}) {
		t.Fatalf("patch keyed: %d %s", st, raw)
	}
	var h historyAnswer
	if call(t, "GET", url("/v1/history?agent_id=a&key=/user/lang"), nil, &h); h.Total != 2 || h.Revisions[0].Memory.Content != keyed.Content {
		t.Fatalf("history after patch: %+v", h)
	}

	// PATCH a keyless memory: in place, same id, found by its new words.
	if st, raw := call(t, "PATCH", url("/v1/memories/"+loose.ID), map[string]any{"agent_id": "a", "content": "The office ferns need water on Fridays", "pinned": true, "security_level": "restricted"}, &up); st != 200 ||
		up.ID != loose.ID || !up.Pinned || up.SecurityLevel != "restricted" || up.Type != "event" || !up.CreatedAt.Equal(loose.CreatedAt) {
		t.Fatalf("patch keyless: %d %s", st, raw)
	}
	var res memory.Result
	call(t, "POST", url("/v1/surface"), map[string]any{"agent_id": "a", "query": "ferns Fridays"}, &res)
	if len(res.Results) == 0 || res.Results[0].ID != loose.ID {
		t.Fatalf("surface of the new words: %+v", res.Results)
	}
	// Nothing to change, bad input: stable codes.
	if st, raw := call(t, "PATCH", url("/v1/memories/"+loose.ID), map[string]any{"agent_id": "a", "content": "x"}, nil); st != 400 || problem(t, raw).Code != mnemo.EINVALID {
		t.Fatalf("patch to too short text: %d %s", st, raw)
	}
	if st, raw := call(t, "PATCH", url("/v1/memories/"+loose.ID), map[string]any{"agent_id": "b", "pinned": false}, nil); st != 404 || problem(t, raw).Code != mnemo.ENOTFOUND {
		t.Fatalf("patch from another agent: %d %s", st, raw)
	}

	// Archive through PATCH: a ledger entry that restore undoes.
	if st, raw := call(t, "PATCH", url("/v1/memories/"+loose.ID), map[string]any{"agent_id": "a", "archived": true}, &up); st != 200 || !up.Archived || up.LedgerSeq == 0 {
		t.Fatalf("archive: %d %s", st, raw)
	}
	if got := listIDs("archived_only=true"); len(got) != 1 || !strings.HasSuffix(got[0], loose.ID[len(loose.ID)-4:]) {
		t.Errorf("archived_only: %v", got)
	}
	var restored struct{ Restored []string }
	if st, raw := call(t, "POST", url("/v1/restore"), map[string]any{"agent_id": "a", "ledger_seq": up.LedgerSeq}, &restored); st != 200 || !slices.Equal(restored.Restored, []string{loose.ID}) {
		t.Fatalf("restore the archive: %d %s", st, raw)
	}
	if got := listIDs("archived_only=true"); len(got) != 0 {
		t.Errorf("archived_only after restore: %v", got)
	}
	if st, raw := call(t, "PATCH", url("/v1/memories/"+keyed.ID), map[string]any{"agent_id": "a", "archived": true}, &up); st != 200 || !up.Archived {
		t.Fatalf("archive a keyed memory: %d %s", st, raw)
	}
	if st, raw := call(t, "PATCH", url("/v1/memories/"+keyed.ID), map[string]any{"agent_id": "a", "archived": false}, &up); st != 200 || up.Archived || up.LedgerSeq == 0 {
		t.Fatalf("unarchive: %d %s", st, raw)
	}
	var ledger struct{ Entries []mnemo.LedgerEntry }
	call(t, "GET", url("/v1/ledger?agent_id=a&memory_id="+keyed.ID), nil, &ledger)
	if len(ledger.Entries) != 2 || ledger.Entries[0].Action != mnemo.ActionRestore || ledger.Entries[1].Action != mnemo.ActionArchive {
		t.Fatalf("ledger of the keyed memory: %+v", ledger.Entries)
	}

	// The key tree.
	var tree struct {
		Children []mnemo.KeyChild `json:"children"`
		HasMore  bool             `json:"has_more"`
	}
	if st, raw := call(t, "GET", url("/v1/keys/tree?agent_id=a&prefix="), nil, &tree); st != 200 ||
		!slices.Equal(tree.Children, []mnemo.KeyChild{{Name: "/user/", Dir: true, Count: 2}, {Name: "kb://", Dir: true, Count: 1}}) {
		t.Fatalf("key tree at the top: %d %s", st, raw)
	}
	if st, raw := call(t, "GET", url("/v1/keys/tree?agent_id=a&prefix=/user/"), nil, &tree); st != 200 ||
		!slices.Equal(tree.Children, []mnemo.KeyChild{{Name: "lang", Count: 1}, {Name: "prefs/", Dir: true, Count: 1}}) {
		t.Fatalf("key tree under /user/: %d %s", st, raw)
	}

	// Stats: by type, degradations, recall latency (a surface ran above).
	var st struct {
		Memories        int            `json:"memories"`
		ByType          map[string]int `json:"by_type"`
		DegradedReasons []string       `json:"degraded_reasons"`
		RecallLatency   *struct {
			P50 float64 `json:"p50_ms"`
			P95 float64 `json:"p95_ms"`
			N   int     `json:"count"`
		} `json:"recall_latency"`
	}
	if code, raw := call(t, "GET", url("/v1/stats?agent_id=a"), nil, &st); code != 200 || st.ByType["event"] != 1 || st.ByType["knowledge"] != 3 ||
		st.DegradedReasons == nil || st.RecallLatency == nil || st.RecallLatency.N != 1 || st.RecallLatency.P95 < st.RecallLatency.P50 {
		t.Fatalf("stats: %d %s", code, raw)
	}

	// Boot counts its tokens.
	var boot struct {
		Text   string `json:"text"`
		Tokens int    `json:"tokens"`
	}
	if code, raw := call(t, "GET", url("/v1/boot?agent_id=a"), nil, &boot); code != 200 || boot.Text == "" || boot.Tokens <= 0 || boot.Tokens > len(boot.Text) {
		t.Fatalf("boot: %d %s", code, raw)
	}
}

// TestUIServed checks that the server serves the inspector (API-15) when
// given web.Handler: / and the assets with their security headers and
// types, public; an unknown path the API's 404 problem; the API as before.
func TestUIServed(t *testing.T) {
	ts := start(t, mhttp.Options{UI: web.Handler, Keys: []mhttp.APIKey{apiKey("k", "t", nil, mhttp.ScopeRead)}}, nil)
	for _, tt := range []struct{ method, path, ctype, contains string }{
		{"GET", "/", "text/html; charset=utf-8", "mnemo inspector"},
		{"GET", "/index.html", "text/html; charset=utf-8", "mnemo inspector"},
		{"GET", "/app.js", "text/javascript; charset=utf-8", "import"},
		{"GET", "/views/memories.js", "text/javascript; charset=utf-8", "nextSegment"},
		{"GET", "/style.css", "text/css; charset=utf-8", ""},
		{"HEAD", "/", "text/html; charset=utf-8", ""},
	} {
		resp, raw := send(t, "", tt.method, ts.URL+tt.path, nil)
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("Content-Type") != tt.ctype || !strings.Contains(string(raw), tt.contains) ||
			h.Get("Content-Security-Policy") != web.CSP || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" ||
			h.Get("X-Frame-Options") != "DENY" || h.Get("Cross-Origin-Opener-Policy") != "same-origin" || h.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s %s: %d %v", tt.method, tt.path, resp.StatusCode, h)
		}
		if tt.method == "HEAD" && len(raw) != 0 {
			t.Errorf("HEAD / has a body")
		}
	}
	if !strings.Contains(web.CSP, "script-src 'self'") || !strings.Contains(web.CSP, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", web.CSP)
	}
	for _, tt := range []struct{ method, path string }{{"GET", "/nope.js"}, {"GET", "/views/"}, {"POST", "/"}, {"GET", "/../go.mod"}, {"GET", "/v1/nothing"}} {
		resp, raw := send(t, "", tt.method, ts.URL+tt.path, nil)
		if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" || problem(t, raw).Code != mnemo.ENOTFOUND {
			t.Errorf("%s %s: %d %s, want the 404 problem", tt.method, tt.path, resp.StatusCode, raw)
		}
	}
	// The API is as before: it needs a key, and answers JSON without the UI's headers.
	resp, raw := send(t, "", "GET", ts.URL+"/v1/stats?agent_id=a", nil)
	if resp.StatusCode != 401 || resp.Header.Get("Content-Security-Policy") != "" {
		t.Errorf("API without a key: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := send(t, secret("k"), "GET", ts.URL+"/v1/stats?agent_id=a", nil); resp.StatusCode != 200 || !json.Valid(raw) {
		t.Errorf("API with a key: %d %s", resp.StatusCode, raw)
	}
	if resp, _ := send(t, "", "GET", ts.URL+"/healthz", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
}

// TestMaskingKey checks that a key configured with mask reads confidential
// and restricted memories masked in every answer that holds memories, may
// not export them whole, and that a key without mask reads them whole
// (SEC-3).
func TestMaskingKey(t *testing.T) {
	ts := start(t, mhttp.Options{Keys: []mhttp.APIKey{
		apiKey("owner", "t", nil, allScopes...),
		func() mhttp.APIKey {
			k := apiKey("viewer", "t", nil, mhttp.ScopeRead, mhttp.ScopeWrite)
			k.Mask = true
			return k
		}(),
	}}, nil)
	const secretText = "The vault code is 4471 and the alarm word is heron"
	var m mnemo.Memory
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/memories", map[string]any{
		"agent_id": "a", "key": "/ops/vault", "content": secretText, "security_level": "confidential",
		"data": map[string]any{"code": 4471}}, &m); st != 201 {
		t.Fatalf("write: %d %s", st, raw)
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/memories", map[string]any{
		"agent_id": "a", "content": "The vault is in the basement", "security_level": "public"}, nil); st != 201 {
		t.Fatalf("write: %d %s", st, raw)
	}
	reads := []struct {
		method, path string
		body         any
	}{
		{"GET", "/v1/memories/" + m.ID + "?agent_id=a", nil},
		{"GET", "/v1/memories?agent_id=a", nil},
		{"GET", "/v1/keys?agent_id=a&key=/ops/vault", nil},
		{"GET", "/memory/long-term?agent_id=a", nil},
		{"POST", "/v1/recall", map[string]any{"agent_id": "a", "query": "vault code alarm", "explain": true}},
		{"POST", "/v1/surface", map[string]any{"agent_id": "a", "query": "vault"}},
	}
	for _, rd := range reads {
		st, raw := callAs(t, secret("viewer"), rd.method, ts.URL+rd.path, rd.body, nil)
		if st != 200 || strings.Contains(string(raw), "4471") || strings.Contains(string(raw), "heron") || !strings.Contains(string(raw), "[CONFIDENTIAL]") {
			t.Errorf("%s %s as the masking key: %d %s; want the confidential memory masked", rd.method, rd.path, st, raw)
		}
		if !strings.Contains(string(raw), "in the basement") && !strings.Contains(rd.path, "keys") && !strings.Contains(rd.path, m.ID) {
			t.Errorf("%s %s as the masking key: %s; want the public memory whole", rd.method, rd.path, raw)
		}
		if st, raw := callAs(t, secret("owner"), rd.method, ts.URL+rd.path, rd.body, nil); st != 200 || !strings.Contains(string(raw), "heron") {
			t.Errorf("%s %s as the owner: %d %s; want the memory whole", rd.method, rd.path, st, raw)
		}
	}
	if st, raw := callAs(t, secret("viewer"), "GET", ts.URL+"/v1/export?agent_id=a", nil, nil); st != 403 || problem(t, raw).Code != mnemo.EFORBIDDEN {
		t.Errorf("export as the masking key: %d %s; want 403 forbidden", st, raw)
	}
	var me struct{ Mask bool }
	if st, raw := callAs(t, secret("viewer"), "GET", ts.URL+"/v1/whoami", nil, &me); st != 200 || !me.Mask {
		t.Errorf("whoami of the masking key: %d %s; want mask true", st, raw)
	}
	// What the masking key saw is not what is stored.
	if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/memories/"+m.ID+"?agent_id=a", nil, nil); st != 200 || !strings.Contains(string(raw), secretText) {
		t.Errorf("after the masked reads: %d %s; want the stored text unchanged", st, raw)
	}
}
