package http_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/lifecycle"
)

// openAPI is the part of an OpenAPI document the tests read.
type openAPI struct {
	OpenAPI    string                          `json:"openapi"`
	Paths      map[string]map[string]operation `json:"paths"`
	Components struct {
		Schemas         map[string]json.RawMessage `json:"schemas"`
		SecuritySchemes map[string]json.RawMessage `json:"securitySchemes"`
	} `json:"components"`
}

type operation struct {
	OperationID string `json:"operationId"`
	Summary     string `json:"summary"`
	Parameters  []struct {
		Name     string          `json:"name"`
		In       string          `json:"in"`
		Required bool            `json:"required"`
		Schema   json.RawMessage `json:"schema"`
	} `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Ref     string `json:"$ref"`
		Content map[string]struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
	Security []map[string][]string `json:"security"`
}

func fetchOpenAPI(t *testing.T, base string) openAPI {
	t.Helper()
	resp, raw := send(t, "", "GET", base+"/openapi.json", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc openAPI
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

var (
	wildcard    = regexp.MustCompile(`\{([^}]+)\}`)
	operationID = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
)

// TestOpenAPIMatchesRoutes fails when the document and the server's routes
// disagree: a route missing from the document, an operation that no route
// serves, or a path parameter, scope or error answer left out.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	for _, opts := range []mhttp.Options{{}, {Registry: newRegistry(), Keys: []mhttp.APIKey{apiKey("k", "t", nil, mhttp.ScopeRead)}}} {
		ts := start(t, opts, nil)
		doc := fetchOpenAPI(t, ts.URL)
		if doc.OpenAPI != "3.1.0" || doc.Components.SecuritySchemes["bearer"] == nil || doc.Components.Schemas["Problem"] == nil {
			t.Fatalf("document head: %+v", doc)
		}
		var documented []string
		ids := map[string]bool{}
		for path, ops := range doc.Paths {
			for method, op := range ops {
				pattern := strings.ToUpper(method) + " " + path
				documented = append(documented, pattern)
				if op.Summary == "" || !operationID.MatchString(op.OperationID) || ids[op.OperationID] {
					t.Errorf("%s: no summary, or a bad or repeated operationId %q", pattern, op.OperationID)
				}
				ids[op.OperationID] = true
				if op.Responses["4XX"].Ref == "" || op.Responses["5XX"].Ref == "" {
					t.Errorf("%s: error answers are not documented", pattern)
				}
				var inPath []string
				for _, p := range op.Parameters {
					if p.In == "path" && p.Required {
						inPath = append(inPath, p.Name)
					}
				}
				var want []string
				for _, m := range wildcard.FindAllStringSubmatch(path, -1) {
					want = append(want, m[1])
				}
				if !slices.Equal(inPath, want) {
					t.Errorf("%s: path parameters %v, want %v", pattern, inPath, want)
				}
				var scopes []string
				for _, req := range op.Security {
					scopes = append(scopes, req["bearer"]...)
				}
				routeScopes := ts.Srv.RouteScopes()[pattern]
				if slices.Equal(routeScopes, []string{"authenticated"}) {
					routeScopes = nil // any valid key: a requirement with no role
					if len(op.Security) == 0 {
						t.Errorf("%s: documented as public, the route needs a key", pattern)
					}
				}
				if !slices.Equal(scopes, routeScopes) {
					t.Errorf("%s: documented scopes %v, the route needs %v", pattern, scopes, routeScopes)
				}
			}
		}
		routes := ts.Srv.Routes()
		slices.Sort(documented)
		slices.Sort(routes)
		if !slices.Equal(documented, routes) {
			t.Fatalf("documented operations:\n%s\nroutes:\n%s", strings.Join(documented, "\n"), strings.Join(routes, "\n"))
		}
		// Every documented operation is served: none falls through to the
		// server's "no route" answer or to 405.
		for _, pattern := range documented {
			method, path, _ := strings.Cut(pattern, " ")
			path = wildcard.ReplaceAllString(path, "x")
			st, raw := callAs(t, secret("k"), method, ts.URL+path, nil, nil)
			if st == 405 || (st == 404 && strings.HasPrefix(problem(t, raw).Detail, "no route")) {
				t.Errorf("%s is documented but not served: %d %s", pattern, st, raw)
			}
		}
	}
}

// TestOpenAPIDescribesAnswers sends a request to every route and validates
// the request body and the answer against the schemas the document gives
// for them, so that a change to a Go type that the document does not
// follow fails here.
func TestOpenAPIDescribesAnswers(t *testing.T) {
	ts := start(t, mhttp.Options{Registry: newRegistry()}, nil)
	doc := fetchOpenAPI(t, ts.URL)
	var m mnemo.Memory
	call(t, "POST", ts.URL+"/v1/memories", map[string]any{"agent_id": "a", "key": "/k", "content": "Prefers Python", "data": map[string]any{"v": 1}, "tags": []string{"lang"}}, &m)
	var gone mnemo.Memory
	call(t, "POST", ts.URL+"/v1/memories", map[string]any{"agent_id": "a", "content": "to forget"}, &gone)
	var ev mnemo.Event
	call(t, "POST", ts.URL+"/v1/events", map[string]any{"agent_id": "a", "type": "AgentStarted", "source": "s", "data": map[string]any{"k": 1}}, &ev)
	var pruned lifecycle.ArchiveResult
	call(t, "POST", ts.URL+"/v1/memories", map[string]any{"agent_id": "a", "content": "a passing thought", "tags": []string{"tmp"}}, nil)
	call(t, "POST", ts.URL+"/v1/prune", map[string]any{"agent_id": "a", "tags": []string{"tmp"}}, &pruned)

	tests := []struct {
		route, method, path string
		body                any
		status              int
	}{
		{"GET /healthz", "GET", "/healthz", nil, 200},
		{"GET /openapi.json", "GET", "/openapi.json", nil, 200},
		{"GET /metrics", "GET", "/metrics", nil, 200},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a", "key": "/k2", "content": "xylophone lessons", "source": "user_stated", "confidence": 0.9}, 201},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a", "key": "/k2", "content": nil}, 201},
		{"POST /v1/memories", "POST", "/v1/memories", map[string]any{"agent_id": "a", "content": 5}, 400},
		{"POST /v1/memories/batch", "POST", "/v1/memories/batch", map[string]any{"agent_id": "a", "memories": []any{map[string]any{"content": "y is a memory too"}}}, 201},
		{"POST /v1/messages", "POST", "/v1/messages", map[string]any{"agent_id": "a", "session_id": "s", "messages": []any{map[string]any{"role": "user", "name": "Ann", "content": "hi"}}}, 201},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&limit=1", nil, 200},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/" + m.ID + "?agent_id=a", nil, 200},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/nope?agent_id=a", nil, 404},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&pinned=false&security_levels=internal,public&archived_only=false", nil, 200},
		{"GET /v1/whoami", "GET", "/v1/whoami", nil, 200},
		{"GET /v1/agents", "GET", "/v1/agents", nil, 200},
		{"GET /v1/keys/tree", "GET", "/v1/keys/tree?agent_id=a&prefix=/", nil, 200},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + m.ID, map[string]any{"agent_id": "a", "content": "Prefers Python 3", "tags": []string{"lang", "py"}, "pinned": true}, 200},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + gone.ID, map[string]any{"agent_id": "a", "content": "to forget, corrected", "archived": true}, 200},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + m.ID, map[string]any{"agent_id": "a", "priority": 9}, 400},
		{"GET /v1/keys", "GET", "/v1/keys?agent_id=a&key=/k", nil, 200},
		{"GET /v1/history", "GET", "/v1/history?agent_id=a&key=/k2", nil, 200},
		{"POST /v1/recall", "POST", "/v1/recall", map[string]any{"agent_id": "a", "query": "python", "explain": true}, 200},
		{"POST /v1/surface", "POST", "/v1/surface", map[string]any{"agent_id": "a", "query": "python", "tags": []string{"lang"}}, 200},
		{"GET /v1/stats", "GET", "/v1/stats?agent_id=a", nil, 200},
		{"GET /v1/export", "GET", "/v1/export?agent_id=a", nil, 200},
		{"POST /v1/import", "POST", "/v1/import?agent_id=a", m, 200}, // an exported record
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=a&from=claude", []any{map[string]any{"uuid": "c1", "name": "t", "created_at": "2025-01-01T00:00:00Z",
			"chat_messages": []any{map[string]any{"uuid": "m1", "sender": "human", "text": "hello there", "created_at": "2025-01-01T00:00:01Z"}}}}, 200},
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=a&from=claude", map[string]any{"uuid": "c1"}, 400},
		{"GET /memory/long-term", "GET", "/memory/long-term?agent_id=a", nil, 200},
		{"GET /memory/long-term/{id}", "GET", "/memory/long-term/" + m.ID + "?agent_id=a", nil, 200},
		{"GET /memory/working/{session_id}", "GET", "/memory/working/s?agent_id=a", nil, 404},
		{"POST /v1/runs", "POST", "/v1/runs", map[string]any{"agent_id": "a", "run_id": "r1", "trigger": map[string]any{"type": "cron", "payload": map[string]any{"job": "x"}}, "focus": "python"}, 201},
		{"POST /v1/runs/{run_id}/calls", "POST", "/v1/runs/r1/calls", map[string]any{"agent_id": "a", "name": "search", "input": map[string]any{"q": "python"}, "output": []any{"a", "b"}}, 200},
		{"POST /v1/runs/{run_id}/responses", "POST", "/v1/runs/r1/responses", map[string]any{"agent_id": "a", "text": "Found two."}, 200},
		{"POST /v1/runs/{run_id}/instructions", "POST", "/v1/runs/r1/instructions", map[string]any{"agent_id": "a", "text": "Be brief."}, 200},
		{"GET /v1/runs", "GET", "/v1/runs?agent_id=a", nil, 200},
		{"GET /v1/runs/{run_id}", "GET", "/v1/runs/r1?agent_id=a", nil, 200},
		{"DELETE /v1/runs/{run_id}", "DELETE", "/v1/runs/r1?agent_id=a", nil, 200},
		{"POST /v1/sessions/{session_id}/turns", "POST", "/v1/sessions/s1/turns", map[string]any{"agent_id": "a", "text": "My name is Ann. Remember that I like Python.", "variables": map[string]string{"plan": "pro"}}, 200},
		{"GET /v1/sessions", "GET", "/v1/sessions?agent_id=a", nil, 200},
		{"GET /v1/sessions/{session_id}", "GET", "/v1/sessions/s1?agent_id=a", nil, 200},
		{"DELETE /v1/sessions/{session_id}", "DELETE", "/v1/sessions/s1?agent_id=a&archive=true", nil, 200},
		{"POST /v1/snapshot", "POST", "/v1/snapshot", map[string]any{"agent_id": "a", "trigger": map[string]any{"type": "cron", "payload": "python"}}, 200},
		{"GET /v1/boot", "GET", "/v1/boot?agent_id=a", nil, 200},
		{"GET /v1/boot", "GET", "/v1/boot?agent_id=a&format=json&lang=zh", nil, 200},
		{"POST /v1/read", "POST", "/v1/read", map[string]any{"agent_id": "a", "token_limit": 200, "tags": []string{"lang"}}, 200},
		{"POST /v1/reflect", "POST", "/v1/reflect", map[string]any{"agent_id": "a", "dry_run": true}, 200},
		{"POST /v1/prune", "POST", "/v1/prune", map[string]any{"agent_id": "a", "tags": []string{"lang"}}, 200},
		{"GET /v1/ledger", "GET", "/v1/ledger?agent_id=a&action=prune", nil, 200},
		{"POST /v1/ingest", "POST", "/v1/ingest", map[string]any{"agent_id": "a", "text": "## Decisions\n- Use Go for the server", "source": "notes.md"}, 200},
		{"POST /v1/events", "POST", "/v1/events", map[string]any{"agent_id": "a", "type": "ToolCalled", "source": "s", "ts": "2030-01-01T00:00:00Z", "metadata": map[string]any{"parent_id": ev.ID}}, 201},
		{"POST /v1/events/batch", "POST", "/v1/events/batch", map[string]any{"agent_id": "a", "events": []any{map[string]any{"id": "stop", "type": "AgentStopped", "source": "s", "ts": "2030-01-02T00:00:00Z",
			"vectors": []any{map[string]any{"modality": "image", "model": "m", "vector": []float32{1, 0}}}}}}, 201},
		{"GET /v1/events", "GET", "/v1/events?agent_id=a&limit=1&types=AgentStarted,AgentStopped", nil, 200},
		{"GET /v1/events/{id}", "GET", "/v1/events/" + ev.ID + "?agent_id=a", nil, 200},
		{"GET /v1/events/stream", "GET", "/v1/events/stream?agent_id=a&speed=0", nil, 200},
		{"POST /v1/events/replay", "POST", "/v1/events/replay", map[string]any{"agent_id": "a", "to": "2000-01-01T00:00:00Z", "speed": 10, "webhook_url": "http://127.0.0.1:1/hook"}, 200},
		{"GET /v1/events/export", "GET", "/v1/events/export?agent_id=a", nil, 200},
		{"GET /v1/events/graph/neighbours", "GET", "/v1/events/graph/neighbours?agent_id=a&node=" + ev.ID, nil, 200},
		{"GET /v1/events/graph/traverse", "GET", "/v1/events/graph/traverse?agent_id=a&depth=2&direction=out&node=" + ev.ID, nil, 200},
		{"GET /v1/events/graph/path", "GET", "/v1/events/graph/path?agent_id=a&to=stop&from=" + ev.ID, nil, 200},
		{"POST /v1/events/graph/links", "POST", "/v1/events/graph/links", map[string]any{"agent_id": "a", "source": m.ID, "target": ev.ID, "type": "about", "confidence": 0.7}, 201},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&limit=20&traverse_hops=2", nil, 200},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&traverse_hops=9", nil, 400},
		{"POST /v1/recall", "POST", "/v1/recall", map[string]any{"agent_id": "a", "query": "python", "traverse_hops": 2, "limit": 10}, 200},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", map[string]any{"agent_id": "a", "period": "week", "at": "2030-01-01T12:00:00Z"}, 200},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", map[string]any{"agent_id": "a", "period": "fortnight"}, 400},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=a&period=week&from=2029-12-01T00:00:00Z&to=2030-02-01T00:00:00Z&limit=5", nil, 200},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=a&from=2030-02-01T00:00:00Z&to=2029-12-01T00:00:00Z", nil, 400},
		{"GET /v1/events/capabilities", "GET", "/v1/events/capabilities?agent_id=a&text=deploy+the+api&task_type=Deploy&limit=3", nil, 200},
		{"POST /v1/events/capabilities/extract", "POST", "/v1/events/capabilities/extract", map[string]any{"agent_id": "a"}, 200},
		{"POST /v1/events/search", "POST", "/v1/events/search", map[string]any{"agent_id": "a", "vector": []float32{1, 0.1}, "model": "m", "limit": 5, "modalities": []string{"image"}}, 200},
		{"POST /v1/events/graph/text", "POST", "/v1/events/graph/text", map[string]any{"agent_id": "a", "event_id": ev.ID}, 200},
		{"POST /v1/profile/interactions", "POST", "/v1/profile/interactions", map[string]any{"agent_id": "a", "text": "I love jazz and I need a piano"}, 200},
		{"GET /v1/profile", "GET", "/v1/profile?agent_id=a", nil, 200},
		{"PUT /v1/profile", "PUT", "/v1/profile", map[string]any{"agent_id": "a", "version": 1, "profile": map[string]any{"interests": []string{"jazz"}}}, 200},
		{"POST /v1/restore", "POST", "/v1/restore", map[string]any{"agent_id": "a", "ledger_seq": pruned.LedgerSeq}, 200},
		{"POST /v1/reset", "POST", "/v1/reset", map[string]any{"agent_id": "a"}, 200},
		{"DELETE /memory/long-term/{id}", "DELETE", "/memory/long-term/" + gone.ID + "?agent_id=a", nil, 200},
		{"DELETE /v1/memories/{id}", "DELETE", "/v1/memories/" + m.ID + "?agent_id=a", nil, 200},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a&key=/k2", nil, 200},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=b&all=true", nil, 200},
		{"DELETE /memory/long-term", "DELETE", "/memory/long-term?agent_id=a", nil, 200},
	}
	problemSchema := resolve(t, doc.Components.Schemas["Problem"])
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.route] = true
		method, path, _ := strings.Cut(tt.route, " ")
		op := doc.Paths[path][strings.ToLower(method)]
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if tt.body != nil && tt.status < 400 {
				if op.RequestBody == nil {
					t.Fatal("the document has no request body")
				}
				media, ok := op.RequestBody.Content["application/json"]
				if !ok {
					media = op.RequestBody.Content["application/x-ndjson"] // one line
				}
				validate(t, "request", resolve(t, media.Schema), tt.body)
			}
			resp, raw := send(t, "", tt.method, ts.URL+tt.path, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("%d %s, want %d", resp.StatusCode, raw, tt.status)
			}
			ct := resp.Header.Get("Content-Type")
			if tt.status >= 400 {
				if ct != "application/problem+json" {
					t.Fatalf("error Content-Type %q", ct)
				}
				validate(t, "problem", problemSchema, decodeJSON(t, raw))
				return
			}
			documented, ok := op.Responses[strconv.Itoa(tt.status)]
			if !ok {
				t.Fatalf("status %d is not documented", tt.status)
			}
			if !strings.HasPrefix(ct, "application/json") {
				for media := range documented.Content {
					if !strings.HasPrefix(ct, strings.Split(media, ";")[0]) {
						t.Fatalf("Content-Type %q, documented %q", ct, media)
					}
				}
				return
			}
			validate(t, "answer", resolve(t, documented.Content["application/json"].Schema), decodeJSON(t, raw))
		})
	}
	covers(t, ts.Srv.Routes(), covered)
}

func resolve(t *testing.T, raw json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving schema: %v", err)
	}
	return rs
}

func decodeJSON(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// validate validates v, as it is sent or received in JSON, against rs.
func validate(t *testing.T, what string, rs *jsonschema.Resolved, v any) {
	t.Helper()
	raw, _ := json.Marshal(v)
	if err := rs.Validate(decodeJSON(t, raw)); err != nil {
		t.Fatalf("%s does not match the document: %v\n%s", what, err, raw)
	}
}
