package http_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	mhttp "github.com/mnemo-dev/mnemo/http"
)

// TestLongTermRoutes walks the /memory/… routes (API-6 to API-10) through a
// memory's life.
func TestLongTermRoutes(t *testing.T) {
	base := serve(t, mhttp.Options{})
	var ids []string
	for i := range 3 {
		var m mnemo.Memory
		if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "u1", "content": fmt.Sprintf("fact %d", i), "category": "fact"}, &m); st != 201 {
			t.Fatalf("remember: %d %s", st, raw)
		}
		ids = append(ids, m.ID)
	}
	call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "u2", "content": "other user"}, nil)

	var l listAnswer
	if st, raw := call(t, "GET", base+"/memory/long-term?agent_id=u1&limit=10&offset=0", nil, &l); st != 200 ||
		len(l.Memories) != 3 || l.Total != 3 || l.Limit != 10 || l.Offset != 0 || l.HasMore || l.NextOffset != nil {
		t.Fatalf("list: %d %s", st, raw)
	}
	var m mnemo.Memory
	if st, raw := call(t, "GET", base+"/memory/long-term/"+ids[1]+"?agent_id=u1", nil, &m); st != 200 || m.ID != ids[1] || m.Content != "fact 1" {
		t.Fatalf("get: %d %s", st, raw)
	}
	var del struct{ Deleted int }
	if st, raw := call(t, "DELETE", base+"/memory/long-term/"+ids[1]+"?agent_id=u1", nil, &del); st != 200 || del.Deleted != 1 {
		t.Fatalf("delete: %d %s", st, raw)
	}
	if st, raw := call(t, "GET", base+"/memory/long-term/"+ids[1]+"?agent_id=u1", nil, nil); st != 404 || problem(t, raw).Code != mnemo.ENOTFOUND {
		t.Fatalf("get after delete: %d %s", st, raw)
	}
	if st, raw := call(t, "DELETE", base+"/memory/long-term?agent_id=u1", nil, &del); st != 200 || del.Deleted != 2 {
		t.Fatalf("clear: %d %s", st, raw)
	}
	if call(t, "GET", base+"/memory/long-term?agent_id=u1", nil, &l); l.Total != 0 || len(l.Memories) != 0 {
		t.Fatalf("list after clear: %+v", l)
	}
	// Clearing one agent leaves the others.
	if call(t, "GET", base+"/memory/long-term?agent_id=u2", nil, &l); l.Total != 1 {
		t.Fatalf("u2 after clearing u1: %+v", l)
	}
	// Working memory: none before the session's first message, then the
	// session's state; clearing long-term memory keeps it (API-9).
	st, raw := call(t, "GET", base+"/memory/working/session-1?agent_id=u1", nil, nil)
	if p := problem(t, raw); st != 404 || p.Code != mnemo.ENOTFOUND || !strings.Contains(p.Detail, `"session-1"`) {
		t.Fatalf("working memory: %d %s", st, raw)
	}
	for _, text := range []string{"Hi, I'm planning a trip to Kyoto.", "What about Kyoto in April?"} {
		if st, raw := call(t, "POST", base+"/v1/sessions/session-1/turns", map[string]any{"agent_id": "u1", "text": text}, nil); st != 200 {
			t.Fatalf("turn: %d %s", st, raw)
		}
	}
	call(t, "DELETE", base+"/memory/long-term?agent_id=u1", nil, nil)
	var wm agentcontext.WorkingMemory
	if st, raw := call(t, "GET", base+"/memory/working/session-1?agent_id=u1", nil, &wm); st != 200 || wm.TurnCount != 2 || wm.SessionID != "session-1" || !strings.Contains(wm.CurrentTopic, "kyoto") {
		t.Fatalf("working memory: %d %s", st, raw)
	}
}

// TestPagination pages every list route the same way.
func TestPagination(t *testing.T) {
	base := serve(t, mhttp.Options{})
	for i := range 5 {
		call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "p", "key": "/h", "content": fmt.Sprintf("version %d", i)}, nil)
		call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "p", "content": fmt.Sprintf("note %d", i)}, nil)
	}
	// 6 live memories (/h and 5 notes); /h has 5 revisions.
	next := func(n int) *int { return &n }
	tests := []struct {
		query     string
		n         int
		want      page
		wantItems int
	}{
		{"", 6, page{Total: 6, Limit: 50}, 6},
		{"limit=2", 6, page{Total: 6, Limit: 2, HasMore: true, NextOffset: next(2)}, 2},
		{"limit=2&offset=2", 6, page{Total: 6, Limit: 2, Offset: 2, HasMore: true, NextOffset: next(4)}, 2},
		{"limit=2&offset=4", 6, page{Total: 6, Limit: 2, Offset: 4}, 2},
		{"limit=4&offset=4", 6, page{Total: 6, Limit: 4, Offset: 4}, 2},
		{"limit=2&offset=9", 6, page{Total: 6, Limit: 2, Offset: 9}, 0},
		{"limit=1000", 6, page{Total: 6, Limit: 1000}, 6},
	}
	routes := []struct {
		path  string
		total int // of the test data on this route
	}{
		{"/v1/memories?agent_id=p", 6},
		{"/memory/long-term?agent_id=p", 6},
		{"/v1/history?agent_id=p&key=/h", 5},
	}
	for _, rt := range routes {
		for _, tt := range tests {
			want, wantItems := tt.want, tt.wantItems
			want.Total = rt.total
			if want.Offset+want.Limit >= rt.total {
				want.HasMore, want.NextOffset = false, nil
			}
			wantItems = max(0, min(want.Limit, rt.total-want.Offset))
			t.Run(rt.path+"&"+tt.query, func(t *testing.T) {
				var got struct {
					listAnswer
					Revisions []mnemo.Revision `json:"revisions"`
				}
				st, raw := call(t, "GET", base+rt.path+"&"+tt.query, nil, &got)
				items := len(got.Memories) + len(got.Revisions)
				if st != 200 || items != wantItems || got.Total != want.Total || got.Limit != want.Limit || got.Offset != want.Offset ||
					got.HasMore != want.HasMore || (got.NextOffset == nil) != (want.NextOffset == nil) ||
					(got.NextOffset != nil && *got.NextOffset != *want.NextOffset) {
					t.Fatalf("%d %s\nwant %d items and %+v", st, raw, wantItems, want)
				}
			})
		}
		// Following next_offset visits every item once.
		seen := map[string]bool{}
		for off, pages := 0, 0; ; pages++ {
			var got struct {
				listAnswer
				Revisions []mnemo.Revision `json:"revisions"`
			}
			call(t, "GET", fmt.Sprintf("%s%s&limit=2&offset=%d", base, rt.path, off), nil, &got)
			for _, m := range got.Memories {
				seen[m.ID] = true
			}
			for _, r := range got.Revisions {
				seen[fmt.Sprint(r.Seq)] = true
			}
			if !got.HasMore {
				break
			}
			if pages > 10 {
				t.Fatalf("%s: paging does not end", rt.path)
			}
			off = *got.NextOffset
		}
		if len(seen) != rt.total {
			t.Errorf("%s: paging saw %d items, want %d", rt.path, len(seen), rt.total)
		}
	}
}

// TestBadInputEverywhere sends bad requests to every route and checks that
// each gets a clear problem and that nothing changed.
func TestBadInputEverywhere(t *testing.T) {
	ts := start(t, mhttp.Options{MaxBody: 1024, Registry: newRegistry()}, nil)
	var kept mnemo.Memory
	call(t, "POST", ts.URL+"/v1/memories", map[string]any{"agent_id": "a", "key": "/k", "content": "kept"}, &kept)
	call(t, "POST", ts.URL+"/v1/messages", map[string]any{"agent_id": "a", "session_id": "s", "messages": []any{map[string]any{"role": "user", "content": "hi"}}}, nil)
	var before mnemo.Stats
	call(t, "GET", ts.URL+"/v1/stats?agent_id=a", nil, &before)

	tests := []struct {
		route, method, path string
		body                any
		status              int
		code                string
	}{
		{"GET /healthz", "GET", "/healthz?verbose=1", nil, 400, mnemo.EINVALID},
		{"GET /openapi.json", "GET", "/openapi.json?format=yaml", nil, 400, mnemo.EINVALID},
		{"GET /metrics", "GET", "/metrics?name[]=x", nil, 400, mnemo.EINVALID},
		{"POST /v1/memories", "POST", "/v1/memories", `{"agent_id":"a","content":"x","tenant_id":"other"}`, 400, mnemo.EINVALID},
		{"POST /v1/memories", "POST", "/v1/memories?agent_id=a", `{"content":"x"}`, 400, mnemo.EINVALID},
		{"POST /v1/memories", "POST", "/v1/memories", `{"agent_id":"a","key":"/k","content":"` + strings.Repeat("x", 2048) + `"}`, 413, mnemo.ETOOLARGE},
		{"POST /v1/memories/batch", "POST", "/v1/memories/batch", `{"agent_id":"a","memories":[{"content":"ok"},{"content":7}]}`, 400, mnemo.EINVALID},
		{"POST /v1/memories/batch", "POST", "/v1/memories/batch", `{"agent_id":"a","memories":[{"content":"ok"},{"key":"relative","content":"x"}]}`, 400, mnemo.EINVALID},
		{"POST /v1/messages", "POST", "/v1/messages", `{"agent_id":"a","session_id":"s","messages":[{"role":"user","content":"x","mood":"sad"}]}`, 400, mnemo.EINVALID},
		{"POST /v1/messages", "POST", "/v1/messages", `{"agent_id":"a","session_id":"s","messages":[{"role":"","content":"x"}]}`, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&limit=0", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&limit=1001", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&offset=-1", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&order=random", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&agentid=b", nil, 400, mnemo.EINVALID},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a&key=/k&all=true", nil, 400, mnemo.EINVALID},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a&all=yes", nil, 400, mnemo.EINVALID},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?agent_id=a&key=../k", nil, 400, mnemo.EINVALID},
		{"DELETE /v1/memories", "DELETE", "/v1/memories?all=true", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/" + kept.ID, nil, 400, mnemo.EINVALID},
		{"GET /v1/memories/{id}", "GET", "/v1/memories/" + kept.ID + "?agent_id=a&key=/k", nil, 400, mnemo.EINVALID},
		{"DELETE /v1/memories/{id}", "DELETE", "/v1/memories/" + kept.ID + "?agent_id=a%20b", nil, 400, mnemo.EINVALID},
		{"DELETE /v1/memories/{id}", "DELETE", "/v1/memories/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"GET /v1/keys", "GET", "/v1/keys?agent_id=a", nil, 400, mnemo.EINVALID},
		{"GET /v1/history", "GET", "/v1/history?agent_id=a&key=/k&limit=x", nil, 400, mnemo.EINVALID},
		{"GET /v1/history", "GET", "/v1/history?agent_id=a&key=no-slash", nil, 400, mnemo.EINVALID},
		{"POST /v1/recall", "POST", "/v1/recall", `{"agent_id":"a","query":"x","limit":-1}`, 400, mnemo.EINVALID},
		{"POST /v1/recall", "POST", "/v1/recall", `{"agent_id":"a","query":"x","min_confidence":2}`, 400, mnemo.EINVALID},
		{"POST /v1/surface", "POST", "/v1/surface", `{"agent_id":"a","query":"x","now":"someday soon"}`, 400, mnemo.EINVALID},
		{"POST /v1/surface", "POST", "/v1/surface", `["a"]`, 400, mnemo.EINVALID},
		{"POST /v1/recall", "POST", "/v1/recall", `{"agent_id":"a","query":"x","traverse_hops":4}`, 400, mnemo.EINVALID},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a", nil, 400, mnemo.EINVALID},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/a/../b", nil, 400, mnemo.EINVALID},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&traverse_hops=4", nil, 400, mnemo.EINVALID},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&traverse_hops=x", nil, 400, mnemo.EINVALID},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&limit=0", nil, 400, mnemo.EINVALID},
		{"GET /v1/recall/path", "GET", "/v1/recall/path?agent_id=a&prefix=/&limit=100000", nil, 400, mnemo.EINVALID},
		{"GET /v1/stats", "GET", "/v1/stats", nil, 400, mnemo.EINVALID},
		{"GET /v1/export", "GET", "/v1/export", nil, 400, mnemo.EINVALID},
		{"GET /v1/export", "GET", "/v1/export?agent_id=a&format=csv", nil, 400, mnemo.EINVALID},
		{"POST /v1/import", "POST", "/v1/import?agent_id=a", "{\"content\":\"fine\"}\n{\"content\":\"x\",\"bogus\":1}\n", 400, mnemo.EINVALID},
		{"POST /v1/import", "POST", "/v1/import?agent_id=a", "{\"content\":\"x\",\"priority\":9}", 400, mnemo.EINVALID},
		{"POST /v1/import", "POST", "/v1/import?agent_id=a", "not json", 400, mnemo.EINVALID},
		{"POST /v1/import", "POST", "/v1/import", "{\"content\":\"x\"}", 400, mnemo.EINVALID},
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=a&from=claude", "[{\"uuid\":\"c\",\"chat_messages\":[{\"uuid\":\"m\",\"sender\":\"human\",\"text\":\"hi\",\"created_at\":\"soon\"}]}]", 400, mnemo.EINVALID},
		{"POST /v1/import/history", "POST", "/v1/import/history?agent_id=a", "[]", 400, mnemo.EINVALID},
		{"POST /v1/import/history", "POST", "/v1/import/history?from=codex", "{}", 400, mnemo.EINVALID},
		{"GET /memory/long-term", "GET", "/memory/long-term?agent_id=a&limit=-5", nil, 400, mnemo.EINVALID},
		{"GET /memory/long-term", "GET", "/memory/long-term?agent_id=a&created_after=mondayish", nil, 400, mnemo.EINVALID},
		{"DELETE /memory/long-term", "DELETE", "/memory/long-term?agent_id=a&key=/k", nil, 400, mnemo.EINVALID}, // must not clear all
		{"DELETE /memory/long-term", "DELETE", "/memory/long-term?all=true", nil, 400, mnemo.EINVALID},          // no agent_id is the default agent (TestSeed001RoutesWithoutAgent)
		{"GET /memory/long-term/{id}", "GET", "/memory/long-term/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"DELETE /memory/long-term/{id}", "DELETE", "/memory/long-term/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"DELETE /memory/long-term/{id}", "DELETE", "/memory/long-term/" + kept.ID + "?agent_id=a&all=true", nil, 400, mnemo.EINVALID},
		{"GET /memory/working/{session_id}", "GET", "/memory/working/s?agent_id=" + strings.Repeat("x", 300), nil, 400, mnemo.EINVALID},
		{"GET /memory/working/{session_id}", "GET", "/memory/working/s?agent_id=a&turns=3", nil, 400, mnemo.EINVALID},
		{"POST /v1/runs", "POST", "/v1/runs", `{"agent_id":"a","trigger":{"type":""}}`, 400, mnemo.EINVALID},
		{"POST /v1/runs", "POST", "/v1/runs", `{"agent_id":"a","trigger":{"type":"cron"},"token_limit":-1}`, 400, mnemo.EINVALID},
		{"POST /v1/runs", "POST", "/v1/runs", `{"agent_id":"a","trigger":{"type":"cron"},"focus":"` + strings.Repeat("f", 1001) + `"}`, 413, mnemo.ETOOLARGE},
		{"GET /v1/runs", "GET", "/v1/runs", nil, 400, mnemo.EINVALID},
		{"GET /v1/runs/{run_id}", "GET", "/v1/runs/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"POST /v1/runs/{run_id}/calls", "POST", "/v1/runs/nope/calls", `{"agent_id":"a","name":"f"}`, 404, mnemo.ENOTFOUND},
		{"POST /v1/runs/{run_id}/calls", "POST", "/v1/runs/nope/calls", `{"agent_id":"a","name":"f","input":{"a":1},"bogus":1}`, 400, mnemo.EINVALID},
		{"POST /v1/runs/{run_id}/responses", "POST", "/v1/runs/nope/responses", `{"agent_id":"a","text":""}`, 400, mnemo.EINVALID},
		{"POST /v1/runs/{run_id}/instructions", "POST", "/v1/runs/nope/instructions", `{"agent_id":"a","text":"x"}`, 404, mnemo.ENOTFOUND},
		{"DELETE /v1/runs/{run_id}", "DELETE", "/v1/runs/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"POST /v1/sessions/{session_id}/turns", "POST", "/v1/sessions/s/turns", `{"agent_id":"a","role":"system","text":"x"}`, 400, mnemo.EINVALID},
		{"GET /v1/sessions", "GET", "/v1/sessions?agent_id=a&all=1", nil, 400, mnemo.EINVALID},
		{"GET /v1/sessions/{session_id}", "GET", "/v1/sessions/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"DELETE /v1/sessions/{session_id}", "DELETE", "/v1/sessions/s?agent_id=a&archive=maybe", nil, 400, mnemo.EINVALID},
		{"POST /v1/snapshot", "POST", "/v1/snapshot", `{"agent_id":"a","trigger":{"type":"cron"},"token_limit":3}`, 400, mnemo.EINVALID},
		{"GET /v1/boot", "GET", "/v1/boot?agent_id=a&format=yaml", nil, 400, mnemo.EINVALID},
		{"POST /v1/read", "POST", "/v1/read", `{"agent_id":"a"}`, 400, mnemo.EINVALID},
		{"POST /v1/reflect", "POST", "/v1/reflect", `{"agent_id":"a","phases":["dream"]}`, 400, mnemo.EINVALID},
		{"POST /v1/prune", "POST", "/v1/prune", `{"agent_id":"a"}`, 400, mnemo.EINVALID},
		{"POST /v1/prune", "POST", "/v1/prune", `{"agent_id":"a","security_levels":["secret"]}`, 400, mnemo.EINVALID},
		{"POST /v1/reset", "POST", "/v1/reset", `{"agent_id":"a","all":true}`, 400, mnemo.EINVALID},
		{"POST /v1/restore", "POST", "/v1/restore", `{"agent_id":"a"}`, 400, mnemo.EINVALID},
		{"POST /v1/restore", "POST", "/v1/restore", `{"agent_id":"a","ledger_seq":12345}`, 404, mnemo.ENOTFOUND},
		{"GET /v1/ledger", "GET", "/v1/ledger?agent_id=a&since=the+dawn+of+time", nil, 400, mnemo.EINVALID},
		{"GET /v1/ledger", "GET", "/v1/ledger?agent_id=a&limit=0", nil, 400, mnemo.EINVALID},
		{"POST /v1/ingest", "POST", "/v1/ingest", `{"agent_id":"a","text":""}`, 400, mnemo.EINVALID},
		{"POST /v1/events", "POST", "/v1/events", `{"agent_id":"a","type":""}`, 400, mnemo.EINVALID},
		{"POST /v1/events", "POST", "/v1/events", `{"agent_id":"a","type":"x","data":"` + strings.Repeat("x", 2048) + `"}`, 413, mnemo.ETOOLARGE},
		{"POST /v1/events", "POST", "/v1/events", `{"agent_id":"a","type":"x","tenant_id":"other"}`, 400, mnemo.EINVALID},
		{"POST /v1/events/batch", "POST", "/v1/events/batch", `{"agent_id":"a","events":[{"type":"x"},{"type":"x","metadata":[1]}]}`, 400, mnemo.EINVALID},
		{"GET /v1/events", "GET", "/v1/events?agent_id=a&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", nil, 400, mnemo.EINVALID},
		{"GET /v1/events", "GET", "/v1/events?agent_id=a&cursor=nope", nil, 400, mnemo.EINVALID},
		{"GET /v1/events/{id}", "GET", "/v1/events/nope?agent_id=a", nil, 404, mnemo.ENOTFOUND},
		{"GET /v1/events/stream", "GET", "/v1/events/stream?agent_id=a&speed=-1", nil, 400, mnemo.EINVALID},
		{"POST /v1/events/replay", "POST", "/v1/events/replay", `{"agent_id":"a","webhook_url":"ftp://x/y"}`, 400, mnemo.EINVALID},
		{"GET /v1/events/export", "GET", "/v1/events/export?agent_id=a&format=xml", nil, 400, mnemo.EINVALID},
		{"GET /v1/events/graph/neighbours", "GET", "/v1/events/graph/neighbours?agent_id=a", nil, 400, mnemo.EINVALID},
		{"GET /v1/events/graph/traverse", "GET", "/v1/events/graph/traverse?agent_id=a&node=x&depth=99", nil, 400, mnemo.EINVALID},
		{"GET /v1/events/graph/path", "GET", "/v1/events/graph/path?agent_id=a&from=x", nil, 400, mnemo.EINVALID},
		{"POST /v1/events/graph/links", "POST", "/v1/events/graph/links", `{"agent_id":"a","source":"x","target":"x"}`, 400, mnemo.EINVALID},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", `{"agent_id":"a","period":"fortnight"}`, 400, mnemo.EINVALID},
		{"POST /v1/events/summaries", "POST", "/v1/events/summaries", `{"agent_id":"a","period":"day","at":"the 5th of never"}`, 400, mnemo.EINVALID},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=a&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", nil, 400, mnemo.EINVALID},
		{"GET /v1/events/summaries", "GET", "/v1/events/summaries?agent_id=a&period=minute", nil, 400, mnemo.EINVALID},
		{"GET /v1/events/capabilities", "GET", "/v1/events/capabilities?agent_id=a&limit=0", nil, 400, mnemo.EINVALID},
		{"POST /v1/events/capabilities/extract", "POST", "/v1/events/capabilities/extract", `{"agent_id":"a","task_type":"x"}`, 400, mnemo.EINVALID},
		{"POST /v1/events/search", "POST", "/v1/events/search", `{"agent_id":"a","vector":[1],"model":"m","from":"2026-02-01T00:00:00Z","to":"2026-01-01T00:00:00Z"}`, 400, mnemo.EINVALID},
		{"POST /v1/events/graph/text", "POST", "/v1/events/graph/text", `{"agent_id":"a"}`, 400, mnemo.EINVALID},
		{"GET /v1/profile", "GET", "/v1/profile?agent_id=", nil, 400, mnemo.EINVALID},
		{"PUT /v1/profile", "PUT", "/v1/profile", `{"agent_id":"a","version":"one"}`, 400, mnemo.EINVALID},
		{"POST /v1/profile/interactions", "POST", "/v1/profile/interactions", `{"agent_id":"a","text":"  "}`, 400, mnemo.EINVALID},
		{"GET /v1/whoami", "GET", "/v1/whoami?agent_id=a", nil, 400, mnemo.EINVALID},
		{"GET /v1/agents", "GET", "/v1/agents?tenant=x", nil, 400, mnemo.EINVALID},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + kept.ID, `{"agent_id":"a"}`, 400, mnemo.EINVALID},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + kept.ID, `{"agent_id":"a","priority":7}`, 400, mnemo.EINVALID},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + kept.ID, `{"agent_id":"a","security_level":"secret"}`, 400, mnemo.EINVALID},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + kept.ID, `{"agent_id":"a","content":"  "}`, 400, mnemo.EINVALID},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/" + kept.ID, `{"agent_id":"a","key":"/other"}`, 400, mnemo.EINVALID},
		{"PATCH /v1/memories/{id}", "PATCH", "/v1/memories/nope", `{"agent_id":"a","pinned":true}`, 404, mnemo.ENOTFOUND},
		{"GET /v1/keys/tree", "GET", "/v1/keys/tree?agent_id=a&prefix=%01", nil, 400, mnemo.EINVALID},
		{"GET /v1/keys/tree", "GET", "/v1/keys/tree?agent_id=a&limit=0", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&pinned=maybe", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&security_levels=secret", nil, 400, mnemo.EINVALID},
		{"GET /v1/memories", "GET", "/v1/memories?agent_id=a&archived_only=1x", nil, 400, mnemo.EINVALID},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.route] = true
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			st, raw := call(t, tt.method, ts.URL+tt.path, tt.body, nil)
			p := problem(t, raw)
			if st != tt.status || p.Code != tt.code || p.Status != st || p.Detail == "" {
				t.Fatalf("%d %s, want %d %s with a detail", st, raw, tt.status, tt.code)
			}
		})
	}
	covers(t, ts.Srv.Routes(), covered)

	var after mnemo.Stats
	call(t, "GET", ts.URL+"/v1/stats?agent_id=a", nil, &after)
	var got mnemo.Memory
	call(t, "GET", ts.URL+"/v1/memories/"+kept.ID+"?agent_id=a", nil, &got)
	if after.Memories != before.Memories || after.Keys != before.Keys || after.Sessions != before.Sessions || got.Version != kept.Version || got.Content != "kept" {
		t.Fatalf("bad requests changed the store: %+v -> %+v, %+v", before, after, got)
	}
}

// TestAsOfRoutes asks recall and list what held at a past time (REC-27):
// a key's earlier value, with the time it ended.
func TestAsOfRoutes(t *testing.T) {
	base := serve(t, mhttp.Options{})
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/user/city", "content": "Ana lives in Lisbon"}, nil); st != 201 {
		t.Fatalf("remember: %d %s", st, raw)
	}
	time.Sleep(20 * time.Millisecond)
	between := time.Now().UTC()
	time.Sleep(20 * time.Millisecond)
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/user/city", "content": "Ana lives in Porto"}, nil); st != 200 && st != 201 {
		t.Fatalf("rewrite: %d %s", st, raw)
	}
	var rec struct {
		Results []mnemo.Memory `json:"results"`
	}
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "where does Ana live", "as_of": between}, &rec); st != 200 ||
		len(rec.Results) != 1 || rec.Results[0].Content != "Ana lives in Lisbon" || rec.Results[0].ValidTo == nil || !rec.Results[0].ValidTo.After(between) {
		t.Fatalf("recall as of: %d %s", st, raw)
	}
	rec.Results = nil
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "where does Ana live"}, &rec); st != 200 ||
		len(rec.Results) != 1 || rec.Results[0].Content != "Ana lives in Porto" || rec.Results[0].ValidTo != nil {
		t.Fatalf("recall now: %d %s", st, raw)
	}
	var l listAnswer
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a&as_of="+between.Format(time.RFC3339Nano), nil, &l); st != 200 ||
		len(l.Memories) != 1 || l.Memories[0].Content != "Ana lives in Lisbon" {
		t.Fatalf("list as of: %d %s", st, raw)
	}
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a&as_of=9999-12-31T00:00:00Z", nil, nil); st != 400 {
		t.Fatalf("a bad as_of: %d %s", st, raw)
	}
}

// TestMessageEntities: a message's aliases (REC-28) join its speaker and
// the names it says, and a recall naming an alias prefers the message; a
// message with too many is refused.
func TestMessageEntities(t *testing.T) {
	base := serve(t, mhttp.Options{})
	var ids struct {
		IDs []string `json:"ids"`
	}
	if st, raw := call(t, "POST", base+"/v1/messages", map[string]any{"agent_id": "a", "session_id": "s", "messages": []any{
		map[string]any{"role": "user", "name": "Ana", "content": "I adopted a dog last week", "entities": []string{"Ana Silva", "my sister"}},
		map[string]any{"role": "user", "name": "Bruno", "content": "I adopted a cat last week"},
	}}, &ids); st != 201 || len(ids.IDs) != 2 {
		t.Fatalf("messages: %d %s", st, raw)
	}
	var m mnemo.Memory
	if st, raw := call(t, "GET", base+"/v1/memories/"+ids.IDs[0]+"?agent_id=a", nil, &m); st != 200 || !slices.Equal(m.Entities, []string{"Ana", "Ana Silva", "my sister"}) {
		t.Fatalf("get: %d %s", st, raw)
	}
	var rec struct {
		Results []mnemo.Memory `json:"results"`
	}
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "what did Ana Silva adopt"}, &rec); st != 200 ||
		len(rec.Results) == 0 || rec.Results[0].ID != ids.IDs[0] {
		t.Fatalf("recall by alias: %d %s", st, raw)
	}
	many := make([]string, mnemo.MaxEntities+1)
	for i := range many {
		many[i] = fmt.Sprint("alias ", i)
	}
	if st, raw := call(t, "POST", base+"/v1/messages", map[string]any{"agent_id": "a", "session_id": "s", "messages": []any{
		map[string]any{"role": "user", "content": "hi", "entities": many}}}, nil); st < 400 || st >= 500 {
		t.Fatalf("too many entities: %d %s", st, raw)
	}
}

// TestAsOfDeletedRoute: recall as of a time before a key was deleted
// answers with the value it held then (REC-27).
func TestAsOfDeletedRoute(t *testing.T) {
	base := serve(t, mhttp.Options{})
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/user/pet", "content": "Ana has a cat named Miso"}, nil); st != 201 {
		t.Fatalf("remember: %d %s", st, raw)
	}
	time.Sleep(20 * time.Millisecond)
	before := time.Now().UTC()
	time.Sleep(20 * time.Millisecond)
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/user/pet", "content": nil}, nil); st >= 300 {
		t.Fatalf("tombstone: %d %s", st, raw)
	}
	var rec struct {
		Results []mnemo.Memory `json:"results"`
	}
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "cat", "as_of": before}, &rec); st != 200 ||
		len(rec.Results) != 1 || rec.Results[0].Content != "Ana has a cat named Miso" || rec.Results[0].ValidTo == nil {
		t.Fatalf("recall as of before the deletion: %d %s", st, raw)
	}
	rec.Results = nil
	if st, raw := call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a", "query": "cat"}, &rec); st != 200 || len(rec.Results) != 0 {
		t.Fatalf("recall now: %d %s", st, raw)
	}
	var l listAnswer
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a&as_of="+before.Format(time.RFC3339Nano), nil, &l); st != 200 ||
		len(l.Memories) != 1 || l.Memories[0].Content != "Ana has a cat named Miso" {
		t.Fatalf("list as of: %d %s", st, raw)
	}
}
