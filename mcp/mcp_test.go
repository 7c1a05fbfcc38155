package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/mcp"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

var alice = mnemo.Scope{TenantID: "default", AgentID: "alice"}

// newService returns a service over a real SQLite store in a temporary
// directory.
func newService(t *testing.T) *service.Mnemo {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return service.New(db, service.Options{})
}

// connectMemory connects a client to a server over svc that serves sc, over
// an in-memory transport: the stdio path, without the pipes.
func connectMemory(t *testing.T, svc *service.Mnemo, sc mnemo.Scope) *mcpsdk.ClientSession {
	t.Helper()
	srv := mcp.NewServer(svc, mcp.Options{Scope: sc, Version: "test"})
	ct, st := mcpsdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return cs
}

// serveHTTP serves svc's MCP handler on a loopback server and returns its URL.
func serveHTTP(t *testing.T, svc *service.Mnemo) string {
	t.Helper()
	ts := httptest.NewServer(mcp.NewServer(svc, mcp.Options{Version: "test"}).HTTPHandler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// connectHTTP connects a client to the MCP endpoint at url as agent (no
// X-Mnemo-Agent header when agent is empty).
func connectHTTP(t *testing.T, url, agent string) *mcpsdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: headerTransport{agent}}
	tr := &mcpsdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type headerTransport struct{ agent string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.agent != "" {
		r = r.Clone(r.Context())
		r.Header.Set(mcp.AgentHeader, h.agent)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// transports connect a client to a server over svc serving agent alice, by
// every way in.
var transports = []struct {
	name    string
	connect func(t *testing.T, svc *service.Mnemo) *mcpsdk.ClientSession
}{
	{"memory", func(t *testing.T, svc *service.Mnemo) *mcpsdk.ClientSession { return connectMemory(t, svc, alice) }},
	{"http", func(t *testing.T, svc *service.Mnemo) *mcpsdk.ClientSession {
		return connectHTTP(t, serveHTTP(t, svc), alice.AgentID)
	}},
}

// call calls tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcpsdk.ClientSession, tool string, args any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	return res
}

// ok calls tool, fails the test if the call fails, and decodes its
// structured content into out.
func ok(t *testing.T, cs *mcpsdk.ClientSession, tool string, args any, out any) *mcpsdk.CallToolResult {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v): %s", tool, args, text(res))
	}
	decode(t, res.StructuredContent, out)
	return res
}

// fails calls tool, fails the test unless the call fails with code, and
// returns the error message.
func fails(t *testing.T, cs *mcpsdk.ClientSession, tool string, args any, code string) string {
	t.Helper()
	res := call(t, cs, tool, args)
	var out struct{ Error mcp.ToolError }
	decode(t, res.StructuredContent, &out)
	if !res.IsError || out.Error.Code != code || !strings.HasPrefix(text(res), code+": ") {
		t.Fatalf("%s(%v): isError %v, error %+v, text %q; want code %s", tool, args, res.IsError, out.Error, text(res), code)
	}
	return out.Error.Message
}

func decode(t *testing.T, v, out any) {
	t.Helper()
	if out == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

func text(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wire is everything a result says, as the client received it.
func wire(t *testing.T, res *mcpsdk.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type memoryJSON struct {
	ID            string          `json:"id"`
	Key           string          `json:"key"`
	Content       string          `json:"content"`
	Data          json.RawMessage `json:"data"`
	Type          string          `json:"type"`
	SecurityLevel string          `json:"security_level"`
	Masked        bool            `json:"masked"`
	Source        json.RawMessage `json:"source"`
	AccessCount   int             `json:"access_count"`
}

type found struct {
	Count    int          `json:"count"`
	Memories []memoryJSON `json:"memories"`
	Results  []memoryJSON `json:"results"`
	Total    int          `json:"total"`
}

func TestListTools(t *testing.T) {
	cs := connectMemory(t, newService(t), alice)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcpsdk.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	structured := []string{"remember", "recall", "surface", "recall_path", "forget", "status", "set_memory", "boot", "reflect", "ingest", "capabilities", "event_summary", "search_events", "link"}
	for _, name := range structured {
		tool := tools[name]
		if tool == nil {
			t.Errorf("tool %s is missing", name)
			continue
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", name)
		}
		var in struct {
			Type                 string                    `json:"type"`
			Properties           map[string]map[string]any `json:"properties"`
			AdditionalProperties any                       `json:"additionalProperties"`
		}
		decode(t, tool.InputSchema, &in)
		if in.Type != "object" || in.AdditionalProperties != false {
			t.Errorf("%s input schema: type %q, additionalProperties %v; want a closed object", name, in.Type, in.AdditionalProperties)
		}
		for p, s := range in.Properties {
			if strings.Contains(p, "tenant") || strings.Contains(p, "agent") {
				t.Errorf("%s takes %s: the scope must come from the connection", name, p)
			}
			if s["description"] == nil && name != "status" {
				t.Errorf("%s.%s has no description", name, p)
			}
		}
		if slices.Contains(structured, name) && tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", name)
		}
	}
	if len(tools) != len(structured) {
		t.Errorf("%d tools, want %d", len(tools), len(structured))
	}
	var in struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	decode(t, tools["remember"].InputSchema, &in)
	for _, p := range []string{"content", "key", "uri", "type", "priority", "tags", "importance", "confidence", "category", "source", "security_level", "pinned", "expires_at", "emotion_val"} {
		if in.Properties[p] == nil {
			t.Errorf("remember has no %s parameter", p)
		}
	}
	if !slices.Equal(in.Required, []string{"content"}) {
		t.Errorf("remember requires %v, want [content]", in.Required)
	}
	decode(t, tools["set_memory"].InputSchema, &in)
	if !slices.Equal(in.Required, []string{"key", "json_content", "source"}) {
		t.Errorf("set_memory requires %v, want [key json_content source]", in.Required)
	}
}

func TestRememberRecallSurfacePathForget(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			svc := newService(t)
			cs := tr.connect(t, svc)

			var rem struct {
				ID     string     `json:"id"`
				Memory memoryJSON `json:"memory"`
			}
			res := ok(t, cs, "remember", map[string]any{
				"content": "The user prefers tabs over spaces in Go code", "key": "/user/preference/indent",
				"type": "preference", "priority": 1, "tags": []string{"Go", "style"},
			}, &rem)
			if rem.ID == "" || rem.Memory.Key != "/user/preference/indent" || rem.Memory.Type != "preference" || string(rem.Memory.Source) != `"manual"` {
				t.Fatalf("remember: %+v", rem)
			}
			if !strings.Contains(text(res), rem.ID) {
				t.Errorf("remember text %q does not name the id", text(res))
			}
			ok(t, cs, "remember", map[string]any{"content": "Deploys happen on Thursdays", "uri": "knowledge://team/deploys"}, nil)

			var got found
			res = ok(t, cs, "recall", map[string]any{"query": "tabs spaces", "explain": true}, &got)
			if got.Count != 1 || got.Memories[0].ID != rem.ID || got.Memories[0].AccessCount != 1 {
				t.Fatalf("recall: %+v", got)
			}
			if !strings.Contains(text(res), "tabs over spaces") {
				t.Errorf("recall text %q lacks the memory", text(res))
			}

			got = found{}
			ok(t, cs, "surface", map[string]any{"keywords": []string{"tabs", "indent"}, "types": []string{"preference"}}, &got)
			if got.Count != 1 || got.Results[0].ID != rem.ID {
				t.Fatalf("surface: %+v", got)
			}
			if m, err := svc.Get(t.Context(), alice, rem.ID); err != nil || m.AccessCount != 1 {
				t.Fatalf("after surface: access count %d, %v; want 1 (surface records nothing)", m.AccessCount, err)
			}

			got = found{}
			ok(t, cs, "recall_path", map[string]any{"uri": "/user"}, &got)
			if got.Count != 1 || got.Total != 1 || got.Memories[0].Key != "/user/preference/indent" {
				t.Fatalf("recall_path /user: %+v", got)
			}
			got = found{}
			ok(t, cs, "recall_path", map[string]any{"uri": "knowledge://team", "traverse_hops": 2}, &got)
			if got.Count != 1 || got.Memories[0].Key != "knowledge://team/deploys" {
				t.Fatalf("recall_path knowledge://team: %+v", got)
			}

			var st struct {
				Version  string `json:"version"`
				AgentID  string `json:"agent_id"`
				Memories int    `json:"memories"`
				Keys     int    `json:"keys"`
			}
			ok(t, cs, "status", map[string]any{}, &st)
			if st.Version != "test" || st.AgentID != "alice" || st.Memories != 2 || st.Keys != 2 {
				t.Fatalf("status: %+v", st)
			}

			var fg struct{ Forgotten int }
			ok(t, cs, "forget", map[string]any{"id": rem.ID}, &fg)
			ok(t, cs, "forget", map[string]any{"key": "knowledge://team/deploys", "hard": true}, &fg)
			if fg.Forgotten != 1 {
				t.Fatalf("forget: %+v", fg)
			}
			got = found{}
			ok(t, cs, "recall", map[string]any{"query": "tabs deploys"}, &got)
			if got.Count != 0 || len(got.Memories) != 0 {
				t.Fatalf("recall after forget: %+v", got)
			}
			fails(t, cs, "forget", map[string]any{"id": rem.ID}, mnemo.ENOTFOUND)
		})
	}
}

func TestSetMemory(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	type setOut struct {
		Key       string     `json:"key"`
		Tombstone bool       `json:"tombstone"`
		ID        string     `json:"id"`
		Memory    memoryJSON `json:"memory"`
	}
	set := func(key string, content any, source any) setOut {
		t.Helper()
		var out setOut
		ok(t, cs, "set_memory", map[string]any{"key": key, "json_content": content, "source": source}, &out)
		return out
	}

	first := set("/user/calendar/dentist", map[string]any{"when": "2026-02-23T10:00:00+08:00", "what": "dentist"}, "user said so in chat")
	second := set("/user/calendar//dentist/", map[string]any{"when": "2026-02-24T10:00:00+08:00", "what": "dentist"}, map[string]any{"kind": "user", "name": "chat"})
	if first.ID == "" || second.ID != first.ID || second.Key != "/user/calendar/dentist" {
		t.Fatalf("upsert: first %+v, second %+v; want one memory", first, second)
	}
	m, err := svc.GetByKey(t.Context(), alice, "/user/calendar/dentist")
	if err != nil || !strings.Contains(string(m.Data), "2026-02-24") || !strings.Contains(string(m.Source), `"kind":"user"`) {
		t.Fatalf("stored: %s %s, %v", m.Data, m.Source, err)
	}

	// {} is content, null is a tombstone (FS-3).
	if out := set("/user/calendar/dentist", map[string]any{}, "cleared"); out.Tombstone || string(out.Memory.Data) != "{}" {
		t.Fatalf("set {}: %+v", out)
	}
	if _, err := svc.GetByKey(t.Context(), alice, "/user/calendar/dentist"); err != nil {
		t.Fatalf("after {}: %v; want the key to stay", err)
	}
	if out := set("/user/calendar/dentist", nil, "done"); !out.Tombstone {
		t.Fatalf("set null: %+v", out)
	}
	if _, err := svc.GetByKey(t.Context(), alice, "/user/calendar/dentist"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("after null: %v; want not_found", err)
	}

	// Provenance (FS-6, FS-7).
	full := map[string]any{"kind": "web", "name": "go.dev", "retrieved_at": "2026-02-22T10:00:00Z", "locator": map[string]any{"url": "https://go.dev/doc/"}}
	set("/kb/go/generics", map[string]any{"since": "1.18"}, full)
	set("/notes/go", map[string]any{"x": 1}, map[string]any{"kind": "agent", "name": "planner"})
	without := func(field string) map[string]any {
		m := map[string]any{}
		for k, v := range full {
			if k != field {
				m[k] = v
			}
		}
		return m
	}
	tests := []struct {
		name   string
		key    string
		source any
		want   string // in the message
	}{
		{"kb string", "/kb/go/x", "a blog", "must be an object"},
		{"kb no locator", "/kb/go/x", without("locator"), "missing locator"},
		{"kb kind only", "/kb/go/x", map[string]any{"kind": "user"}, "missing name, retrieved_at, locator"},
		{"web no name", "/notes/x", without("name"), "missing name"},
		{"tool no fields", "/notes/x", map[string]any{"kind": "tool"}, "missing name, retrieved_at, locator"},
		{"file bad time", "/notes/x", map[string]any{"kind": "file", "name": "a.md", "retrieved_at": "yesterday", "locator": "a.md"}, "RFC 3339"},
		{"unknown kind", "/notes/x", map[string]any{"kind": "rumour"}, "source.kind"},
		{"empty source", "/notes/x", "", "source is empty"},
		{"null source", "/notes/x", nil, "/properties/source"},
		{"number source", "/notes/x", 7, "source"},
	}
	for _, tt := range tests {
		msg := fails(t, cs, "set_memory", map[string]any{"key": tt.key, "json_content": map[string]any{"a": 1}, "source": tt.source}, mnemo.EINVALID)
		if !strings.Contains(msg, tt.want) {
			t.Errorf("%s: message %q lacks %q", tt.name, msg, tt.want)
		}
	}
	// remember obeys the same rules.
	fails(t, cs, "remember", map[string]any{"content": "generics", "key": "/kb/go/y"}, mnemo.EINVALID)
	if st, _ := svc.Stats(t.Context(), alice); st.Memories != 2 {
		t.Fatalf("%d memories after rejected writes, want 2", st.Memories)
	}
}

// TestSetMemoryUntrusted: with limits.untrusted set, a write without the
// provenance FS-6 and FS-7 ask for is quarantined, not refused.
func TestSetMemoryUntrusted(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{Limits: mnemo.Limits{Untrusted: "/untrusted"}})
	cs := connectMemory(t, svc, alice)
	tests := []struct {
		key    string
		source any
		want   string
	}{
		{"/kb/go/x", "a blog", "/untrusted/kb/go/x"},
		{"/notes/x", map[string]any{"kind": "tool"}, "/untrusted/notes/x"},
		{"/notes/y", map[string]any{"kind": "agent", "name": "planner"}, "/notes/y"}, // enough provenance: where it was asked
	}
	for _, tt := range tests {
		var out struct {
			Key string `json:"key"`
		}
		ok(t, cs, "set_memory", map[string]any{"key": tt.key, "json_content": map[string]any{"a": 1}, "source": tt.source}, &out)
		m, err := svc.GetByKey(t.Context(), alice, tt.want)
		if err != nil {
			t.Fatalf("%s: not at %s: %v", tt.key, tt.want, err)
		}
		if routed := tt.want != tt.key; routed != slices.Contains(m.Tags, "untrusted") {
			t.Errorf("%s: tags %v, routed %v", tt.key, m.Tags, routed)
		}
	}
}

func TestMasking(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	secrets := map[string]string{
		mnemo.SecurityConfidential: "The launch code is swordfish",
		mnemo.SecurityRestricted:   "The vault code is swordfish",
	}
	var results []*mcpsdk.CallToolResult
	for level, content := range secrets {
		results = append(results, ok(t, cs, "remember", map[string]any{
			"content": content, "key": "/secret/" + level, "security_level": level, "emotion_val": 0.5,
		}, nil))
	}
	var got found
	results = append(results,
		ok(t, cs, "recall", map[string]any{"query": "code swordfish"}, &got),
		ok(t, cs, "surface", map[string]any{"query": "swordfish"}, nil),
		ok(t, cs, "recall_path", map[string]any{"uri": "/secret"}, nil),
	)
	if got.Count != 2 {
		t.Fatalf("recall found %d, want both", got.Count)
	}
	for _, m := range got.Memories {
		if !m.Masked || !strings.HasPrefix(m.Content, "[CONFIDENTIAL]") && !strings.HasPrefix(m.Content, "[RESTRICTED]") {
			t.Errorf("recalled %s memory: masked %v, content %q", m.SecurityLevel, m.Masked, m.Content)
		}
	}
	for _, res := range results {
		if w := wire(t, res); strings.Contains(w, "swordfish") || strings.Contains(w, "emotion_val") {
			t.Errorf("a result shows masked text: %s", w)
		}
	}
	// The store keeps the text: only this channel masks it.
	if m, err := svc.GetByKey(t.Context(), alice, "/secret/confidential"); err != nil || !strings.Contains(m.Content, "swordfish") {
		t.Fatalf("stored: %q, %v", m.Content, err)
	}
}

func TestScopeIsolation(t *testing.T) {
	bob := mnemo.Scope{TenantID: "default", AgentID: "bob"}
	svc := newService(t)
	url := serveHTTP(t, svc)
	tests := []struct {
		name       string
		alice, bob *mcpsdk.ClientSession
	}{
		{"memory", connectMemory(t, svc, alice), connectMemory(t, svc, bob)},
		{"http", connectHTTP(t, url, "alice"), connectHTTP(t, url, "bob")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rem struct{ ID string }
			key := "/isolation/" + tt.name
			ok(t, tt.alice, "remember", map[string]any{"content": "Alice's favourite colour is teal", "key": key}, &rem)

			var got found
			ok(t, tt.bob, "recall", map[string]any{"query": "favourite colour teal"}, &got)
			if got.Count != 0 {
				t.Errorf("bob recalls alice's memory: %+v", got)
			}
			ok(t, tt.bob, "recall_path", map[string]any{"uri": "/"}, &got)
			if got.Total != 0 {
				t.Errorf("bob lists alice's keys: %+v", got)
			}
			fails(t, tt.bob, "forget", map[string]any{"id": rem.ID}, mnemo.ENOTFOUND)
			fails(t, tt.bob, "forget", map[string]any{"key": key}, mnemo.ENOTFOUND)
			var st struct {
				AgentID  string `json:"agent_id"`
				Memories int    `json:"memories"`
			}
			ok(t, tt.bob, "status", nil, &st)
			if st.AgentID != "bob" || st.Memories != 0 {
				t.Errorf("bob's status: %+v", st)
			}
			// Arguments cannot pick the scope.
			fails(t, tt.bob, "recall", map[string]any{"query": "teal", "agent_id": "alice"}, mnemo.EINVALID)

			got = found{}
			ok(t, tt.alice, "recall_path", map[string]any{"uri": key}, &got)
			if got.Count != 1 || got.Memories[0].ID != rem.ID {
				t.Errorf("alice lost her memory: %+v", got)
			}
		})
	}
	for _, tt := range []struct{ agent, want string }{
		{"", mcp.AgentHeader},
		{"two words", "agent_id"},
	} {
		t.Run("http agent "+strconv.Quote(tt.agent), func(t *testing.T) {
			cs := connectHTTP(t, url, tt.agent)
			msg := fails(t, cs, "remember", map[string]any{"content": "orphan"}, mnemo.EINVALID)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message %q does not name %s", msg, tt.want)
			}
		})
	}
	if st, _ := svc.Stats(t.Context(), mnemo.Scope{TenantID: "default", AgentID: "default"}); st.Memories != 0 {
		t.Errorf("calls without a valid agent wrote %d memories to agent default", st.Memories)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	ok(t, cs, "remember", map[string]any{"content": "Existing memory", "key": "/existing"}, nil)
	before, err := svc.Stats(t.Context(), alice)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 2001)
	tests := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"remember", map[string]any{}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "  "}, mnemo.EINVALID},
		{"remember", map[string]any{"content": long}, mnemo.ETOOLARGE},
		{"remember", map[string]any{"content": "x", "priority": 9}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "importance": 2}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "key": "no-slash"}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "key": "/a", "uri": "/b"}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "type": "Not A Word"}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "security_level": "secret"}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "source": 5}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "expires_at": "whenever"}, mnemo.EINVALID},
		{"remember", map[string]any{"content": "x", "tenant_id": "other"}, mnemo.EINVALID},
		{"recall", map[string]any{}, mnemo.EINVALID},
		{"recall", map[string]any{"query": " "}, mnemo.EINVALID},
		{"recall", map[string]any{"query": "x", "limit": 21}, mnemo.EINVALID},
		{"recall", map[string]any{"query": "x", "types": []string{"Bad Type"}}, mnemo.EINVALID},
		{"surface", map[string]any{}, mnemo.EINVALID},
		{"surface", map[string]any{"keywords": []string{}}, mnemo.EINVALID},
		{"surface", map[string]any{"query": "x", "min_vitality": 2}, mnemo.EINVALID},
		{"recall_path", map[string]any{}, mnemo.EINVALID},
		{"recall_path", map[string]any{"uri": "/a/../b"}, mnemo.EINVALID},
		{"forget", map[string]any{}, mnemo.EINVALID},
		{"forget", map[string]any{"id": "no-such-id"}, mnemo.ENOTFOUND},
		{"forget", map[string]any{"key": "/no-such-key", "hard": false}, mnemo.ENOTFOUND},
		{"forget", map[string]any{"key": "bad key"}, mnemo.EINVALID},
		{"status", map[string]any{"verbose": true}, mnemo.EINVALID},
		{"set_memory", map[string]any{"key": "/a", "json_content": 1}, mnemo.EINVALID},
		{"set_memory", map[string]any{"key": "/a", "source": "s"}, mnemo.EINVALID},
		{"set_memory", map[string]any{"key": "a", "json_content": 1, "source": "s"}, mnemo.EINVALID},
		{"set_memory", map[string]any{"key": "knowledge://a", "json_content": 1, "source": "s"}, mnemo.EINVALID},
		{"set_memory", map[string]any{"key": "/existing", "json_content": map[string]any{"big": long + long + strings.Repeat("y", 64<<10)}, "source": "s"}, mnemo.ETOOLARGE},
		{"boot", map[string]any{"format": "xml"}, mnemo.EINVALID},
		{"reflect", map[string]any{"phase": "nap"}, mnemo.EINVALID},
		{"ingest", map[string]any{}, mnemo.EINVALID},
	}
	for _, tt := range tests {
		fails(t, cs, tt.tool, tt.args, tt.code)
	}
	after, err := svc.Stats(t.Context(), alice)
	if err != nil {
		t.Fatal(err)
	}
	if after.Memories != before.Memories || after.Keys != before.Keys || after.Tombstones != before.Tombstones || !after.Newest.Equal(*before.Newest) {
		t.Fatalf("bad input changed the store: before %+v, after %+v", before, after)
	}
	if m, err := svc.GetByKey(t.Context(), alice, "/existing"); err != nil || m.Content != "Existing memory" || m.AccessCount != 0 {
		t.Fatalf("existing memory: %+v, %v", m, err)
	}
}

// boot is the warm start of CTX-17 and CTX-18: markdown by layer, or the layers as a
// list; a confidential memory's text never reaches the model.
func TestBoot(t *testing.T) {
	svc := newService(t)
	for _, d := range []mnemo.Draft{
		{Content: new("I am Noa, the Lin family's assistant."), Type: "identity"},
		{Content: new("Mei was happy with the garden plan."), Type: "emotion"},
		{Content: new("The door code is plum-heron-quartz."), Type: "knowledge", SecurityLevel: mnemo.SecurityConfidential},
		{Content: new("Ordered seeds for the garden."), Type: "event"},
	} {
		if _, err := svc.Remember(t.Context(), alice, d); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectMemory(t, svc, alice)
	var out struct {
		Memories  []agentcontext.BootItem `json:"memories"`
		Narrative string                  `json:"narrative"`
		Summary   agentcontext.BootSummary
	}
	res := ok(t, cs, "boot", map[string]any{}, &out)
	md := text(res)
	for _, want := range []string{"## 🪪 Who I am", "I am Noa", "## 💕 Recent emotions", "## 🧠 Key knowledge", "[CONFIDENTIAL] ******", "## 📅 Recent events", "Ordered seeds", "## 📊 Memory overview", "Total 4"} {
		if !strings.Contains(md, want) {
			t.Errorf("narrative lacks %q:\n%s", want, md)
		}
	}
	// The secret is words, not digits: ids and timestamps in the output
	// can hold any run of digits.
	if strings.Contains(md, "heron") || strings.Contains(out.Narrative, "heron") {
		t.Fatalf("boot leaked a confidential memory:\n%s", md)
	}
	if len(out.Memories) != 4 || out.Memories[0].Type != "identity" || out.Memories[3].Type != "event" || out.Summary.Total != 4 {
		t.Fatalf("structured = %+v", out)
	}
	var asJSON struct{ Narrative string }
	res = ok(t, cs, "boot", map[string]any{"format": "json", "lang": "zh"}, &asJSON)
	if asJSON.Narrative != "" || !strings.HasPrefix(text(res), `{"memories":[`) || strings.Contains(text(res), "heron") {
		t.Fatalf("json boot: %s", text(res))
	}
	if md := text(ok(t, cs, "boot", map[string]any{"lang": "zh"}, nil)); !strings.Contains(md, "## 🪪 我是谁") {
		t.Fatalf("zh narrative: %s", md)
	}
	fails(t, cs, "boot", map[string]any{"lang": "fr"}, mnemo.EINVALID)
}

// ingest extracts typed memories from markdown, or previews them.
func TestIngest(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	note := "## 决策\n- DD 流程改用 Codex\n\n## Feelings\n- Grateful for the quiet weekend"
	var dry lifecycle.IngestResult
	res := ok(t, cs, "ingest", map[string]any{"text": note, "source": "memory/2026-02-23.md", "dry_run": true}, &dry)
	if dry.Extracted != 2 || dry.Items[0].Type != "knowledge" || dry.Items[1].Type != "emotion" || text(res) != "Extracted 2, would write 2, skipped 0." {
		t.Fatalf("dry run: %+v %s", dry, text(res))
	}
	var done lifecycle.IngestResult
	ok(t, cs, "ingest", map[string]any{"text": note, "source": "memory/2026-02-23.md"}, &done)
	if done.Written != 2 {
		t.Fatalf("ingest: %+v", done)
	}
	if m, err := svc.GetByKey(t.Context(), alice, "/ingest/memory/2026-02-23.md/feelings/1"); err != nil || m.Type != "emotion" {
		t.Fatalf("stored: %+v, %v", m, err)
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	cs := connectMemory(t, newService(t), alice)
	if _, err := cs.CallTool(t.Context(), &mcpsdk.CallToolParams{Name: "snapshot", Arguments: map[string]any{}}); err == nil {
		t.Fatal("calling an unknown tool succeeded")
	}
}

// recall with a session boosts memories on the session's topic.
func TestRecallWithSession(t *testing.T) {
	svc := newService(t)
	for _, c := range []string{"Booked a hotel near the station", "Kyoto hotel: the ryokan in Gion"} {
		if _, err := svc.Remember(t.Context(), alice, mnemo.Draft{Content: new(c)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.AddTurn(t.Context(), alice, "s1", agentcontext.Turn{Text: "Kyoto, Kyoto, Kyoto: tell me about Kyoto temples."}); err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, svc, alice)
	var out struct {
		Memories []struct {
			Content string
			Explain *struct {
				Components []struct {
					Name  string
					Value float64
				}
			}
		}
	}
	ok(t, cs, "recall", map[string]any{"query": "which hotel", "session": "s1", "explain": true}, &out)
	if len(out.Memories) == 0 || !strings.Contains(out.Memories[0].Content, "Kyoto") {
		t.Fatalf("recall with session: %+v", out)
	}
	boosted := false
	for _, c := range out.Memories[0].Explain.Components {
		boosted = boosted || c.Name == "topic_boost" && c.Value == 1.3
	}
	if !boosted {
		t.Fatalf("no topic boost: %+v", out.Memories[0].Explain)
	}
}

// A memory classified confidential at write, by its content alone, is
// masked on this channel.
func TestAutoClassifiedIsMasked(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	ok(t, cs, "remember", map[string]any{"content": "Mei's e-mail is mei.lin@example.com"}, nil)
	res := call(t, cs, "recall", map[string]any{"query": "Mei e-mail"})
	if res.IsError || strings.Contains(text(res), "mei.lin@example.com") || !strings.Contains(text(res), "[CONFIDENTIAL]") {
		t.Fatalf("recall: %s", text(res))
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if strings.Contains(string(raw), "mei.lin@example.com") {
		t.Fatalf("structured content leaks: %s", raw)
	}
}

// reflect runs the sleep cycle; a soft forget archives and can be undone
// from the ledger; confidential text stays masked in the report.
func TestReflectAndSoftForget(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	ok(t, cs, "remember", map[string]any{"content": "The build runs on Tuesdays", "priority": 3}, nil)
	old := time.Now().Add(-40 * 24 * time.Hour)
	three := 3
	if _, err := svc.Remember(t.Context(), alice, mnemo.Draft{Content: new("Mei's e-mail is mei.lin@example.com"), Priority: &three, CreatedAt: &old}); err != nil {
		t.Fatal(err)
	}
	var soft struct{ Forgotten int }
	res := ok(t, cs, "forget", map[string]any{"key": "", "id": mustID(t, svc, "Tuesdays"), "hard": false}, &soft)
	if soft.Forgotten != 1 || !strings.Contains(text(res), "restorable") {
		t.Fatalf("soft forget: %s", text(res))
	}
	if st, _ := svc.Stats(t.Context(), alice); st.Memories != 2 || st.Archived != 1 {
		t.Fatalf("after a soft forget: %+v", st)
	}
	var out struct {
		Archived []lifecycle.LifeAction
		Report   string
	}
	ok(t, cs, "reflect", map[string]any{"phase": "govern", "dry_run": true}, &out)
	if !strings.Contains(out.Report, "dry run") || len(out.Archived) != 0 {
		t.Fatalf("reflect: %+v", out)
	}
	ok(t, cs, "reflect", map[string]any{}, &out)
	if strings.Contains(out.Report, "mei.lin@example.com") || !strings.Contains(out.Report, "[CONFIDENTIAL] ******") || len(out.Archived) != 1 {
		t.Fatalf("report leaks or is missing: %s", out.Report)
	}
}

func mustID(t *testing.T, svc *service.Mnemo, text string) string {
	t.Helper()
	ms, _, err := svc.List(t.Context(), alice, mnemo.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if strings.Contains(m.Content, text) {
			return m.ID
		}
	}
	t.Fatalf("no memory with %q", text)
	return ""
}

// remember passes the Write Guard and says what it decided.
func TestRememberGuard(t *testing.T) {
	cs := connectMemory(t, newService(t), alice)
	var first, again struct {
		ID    string
		Guard memory.GuardDecision
	}
	ok(t, cs, "remember", map[string]any{"content": "The office closes at 6pm on Fridays"}, &first)
	res := ok(t, cs, "remember", map[string]any{"content": "The office closes at 6pm on Fridays"}, &again)
	if again.Guard.Action != memory.GuardDuplicate || again.ID != first.ID || !strings.HasPrefix(text(res), "Already remembered as "+first.ID) {
		t.Fatalf("duplicate: %+v %s", again, text(res))
	}
	fails(t, cs, "remember", map[string]any{"content": "ok"}, mnemo.EINVALID)
}
