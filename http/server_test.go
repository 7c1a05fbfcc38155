package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/memory"
)

func TestMemoryLifecycle(t *testing.T) {
	base := serve(t, mhttp.Options{})
	if st, _ := call(t, "GET", base+"/healthz", nil, nil); st != 200 {
		t.Fatalf("healthz %d", st)
	}

	var m mnemo.Memory
	st, raw := call(t, "POST", base+"/v1/memories", map[string]any{
		"agent_id": "a1", "content": "Prefers Python for data work", "key": "/user/preference/lang",
		"tags": []string{"lang"}, "category": "preference",
	}, &m)
	if st != 201 || m.ID == "" || m.TenantID != "default" || m.Key != "/user/preference/lang" {
		t.Fatalf("remember %d %s", st, raw)
	}

	var batch struct{ IDs []string }
	st, raw = call(t, "POST", base+"/v1/memories/batch", map[string]any{
		"agent_id": "a1", "memories": []map[string]any{{"content": "Uses Go at work"}, {"content": "Likes hiking", "tags": []string{"hobby"}}},
	}, &batch)
	if st != 201 || len(batch.IDs) != 2 {
		t.Fatalf("batch %d %s", st, raw)
	}

	var got mnemo.Memory
	if st, raw := call(t, "GET", base+"/v1/memories/"+m.ID+"?agent_id=a1", nil, &got); st != 200 || got.Content != m.Content {
		t.Fatalf("get %d %s", st, raw)
	}
	if st, raw := call(t, "GET", base+"/v1/memories/"+m.ID+"?agent_id=a2", nil, nil); st != 404 || problem(t, raw).Code != "not_found" {
		t.Fatalf("other agent get %d %s", st, raw)
	}
	if st, _ := call(t, "GET", base+"/v1/keys?agent_id=a1&key=/user/preference/lang", nil, &got); st != 200 || got.ID != m.ID {
		t.Fatalf("get by key %d", st)
	}

	var list struct {
		Memories []mnemo.Memory
		Total    int
		Limit    int
		Offset   int
	}
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a1&limit=2&offset=1", nil, &list); st != 200 || list.Total != 3 || len(list.Memories) != 2 || list.Limit != 2 || list.Offset != 1 {
		t.Fatalf("list %d %s", st, raw)
	}
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a1&tags=hobby", nil, &list); st != 200 || list.Total != 1 {
		t.Fatalf("list by tag %d %s", st, raw)
	}

	var res memory.Result
	st, raw = call(t, "POST", base+"/v1/recall", map[string]any{"agent_id": "a1", "query": "python", "explain": true}, &res)
	if st != 200 || len(res.Results) != 1 || res.Results[0].ID != m.ID || res.Results[0].Explain == nil || res.Degraded {
		t.Fatalf("recall %d %s", st, raw)
	}
	if st, _ := call(t, "GET", base+"/v1/memories/"+m.ID+"?agent_id=a1", nil, &got); st != 200 || got.AccessCount != 1 {
		t.Fatalf("recall did not record access: %+v", got)
	}
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if st, raw := call(t, "POST", base+"/v1/surface", map[string]any{"agent_id": "a1", "query": "hiking", "now": now, "tags": []string{"hobby"}, "limit": 3}, &res); st != 200 || len(res.Results) != 1 {
		t.Fatalf("surface %d %s", st, raw)
	}

	var hist struct{ Revisions []mnemo.Revision }
	if st, _ := call(t, "GET", base+"/v1/history?agent_id=a1&key=/user/preference/lang", nil, &hist); st != 200 || len(hist.Revisions) != 1 {
		t.Fatalf("history %d %+v", st, hist)
	}
	var stats mnemo.Stats
	if st, _ := call(t, "GET", base+"/v1/stats?agent_id=a1", nil, &stats); st != 200 || stats.Memories != 3 || stats.Keys != 1 {
		t.Fatalf("stats %d %+v", st, stats)
	}

	var del struct{ Deleted int }
	if st, raw := call(t, "DELETE", base+"/v1/memories/"+batch.IDs[0]+"?agent_id=a1", nil, &del); st != 200 || del.Deleted != 1 {
		t.Fatalf("delete %d %s", st, raw)
	}
	if st, _ := call(t, "DELETE", base+"/v1/memories/"+batch.IDs[0]+"?agent_id=a1", nil, nil); st != 404 {
		t.Fatalf("second delete %d", st)
	}
	if st, raw := call(t, "DELETE", base+"/v1/memories?agent_id=a1&key=/user/preference/lang", nil, &del); st != 200 || del.Deleted != 1 {
		t.Fatalf("forget key %d %s", st, raw)
	}
	if st, _ := call(t, "DELETE", base+"/v1/memories?agent_id=a1", nil, nil); st != 400 {
		t.Fatalf("clear without all=true %d", st)
	}
	if st, raw := call(t, "DELETE", base+"/v1/memories?agent_id=a1&all=true", nil, &del); st != 200 || del.Deleted != 1 {
		t.Fatalf("clear %d %s", st, raw)
	}
}

func TestMessages(t *testing.T) {
	base := serve(t, mhttp.Options{})
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var out struct{ IDs []string }
	st, raw := call(t, "POST", base+"/v1/messages", map[string]any{
		"agent_id": "conv", "session_id": "session_1",
		"messages": []map[string]any{
			{"key": "/turn/D1:1", "role": "user", "name": "Caroline", "content": "I went to a LGBTQ support group yesterday", "created_at": at},
			{"key": "/turn/D1:2", "role": "user", "name": "Melanie", "content": "Wow, that's cool!", "created_at": at},
		},
	}, &out)
	if st != 201 || len(out.IDs) != 2 {
		t.Fatalf("messages %d %s", st, raw)
	}
	var res memory.Result
	call(t, "POST", base+"/v1/surface", map[string]any{"agent_id": "conv", "query": "When did Caroline go to the support group?", "now": at}, &res)
	if len(res.Results) == 0 || res.Results[0].Key != "/turn/D1:1" || res.Results[0].SessionID != "session_1" {
		t.Fatalf("surface = %+v", res.Results)
	}
}

func TestBadInput(t *testing.T) {
	base := serve(t, mhttp.Options{MaxBody: 1024})
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"unknown field", "POST", "/v1/memories", `{"agent_id":"a","content":"x","colour":"red"}`, 400, "invalid_input"},
		{"not json", "POST", "/v1/memories", `{"agent_id":`, 400, "invalid_input"},
		{"empty body", "POST", "/v1/memories", ``, 400, "invalid_input"},
		{"two values", "POST", "/v1/memories", `{"agent_id":"a","content":"x"}{}`, 400, "invalid_input"},
		{"wrong type", "POST", "/v1/memories", `{"agent_id":"a","content":5}`, 400, "invalid_input"},
		{"no agent", "POST", "/v1/memories", `{"content":"x"}`, 400, "invalid_input"},
		{"too large body", "POST", "/v1/memories", `{"agent_id":"a","content":"` + strings.Repeat("x", 2048) + `"}`, 413, "too_large"},
		{"bad limit", "GET", "/v1/memories?agent_id=a&limit=x", nil, 400, "invalid_input"},
		{"bad time", "GET", "/v1/memories?agent_id=a&created_after=whenever", nil, 400, "invalid_input"},
		{"limit over max", "POST", "/v1/recall", `{"agent_id":"a","query":"x","limit":21}`, 400, "invalid_input"},
		{"empty query", "POST", "/v1/recall", `{"agent_id":"a","query":""}`, 400, "invalid_input"},
		{"unknown profile", "POST", "/v1/recall", `{"agent_id":"a","query":"x","profile":"magic"}`, 400, "invalid_input"},
		{"bad key", "GET", "/v1/keys?agent_id=a&key=../x", nil, 400, "invalid_input"},
		{"no route", "GET", "/v2/nothing", nil, 404, "not_found"},
		{"wrong method", "PUT", "/v1/memories", `{}`, 405, "invalid_input"},
		{"messages no session", "POST", "/v1/messages", `{"agent_id":"a","messages":[{"role":"user","content":"x"}]}`, 400, "invalid_input"},
		{"batch empty", "POST", "/v1/memories/batch", `{"agent_id":"a","memories":[]}`, 400, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, raw := call(t, tt.method, base+tt.path, tt.body, nil)
			if st != tt.status {
				t.Fatalf("status %d, want %d: %s", st, tt.status, raw)
			}
			p := problem(t, raw)
			if p.Code != tt.code || p.Status != tt.status || p.Detail == "" {
				t.Fatalf("problem %+v, want code %s", p, tt.code)
			}
		})
	}
	// Nothing was stored by any of them.
	var list struct{ Total int }
	if call(t, "GET", base+"/v1/memories?agent_id=a", nil, &list); list.Total != 0 {
		t.Fatalf("bad requests stored %d memories", list.Total)
	}
}

func TestProblemContentType(t *testing.T) {
	base := serve(t, mhttp.Options{})
	resp, err := http.Get(base + "/v1/memories/nope?agent_id=a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestConcurrentWriters(t *testing.T) {
	base := serve(t, mhttp.Options{})
	const writers, each = 8, 25
	errc := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				body, _ := json.Marshal(map[string]any{"agent_id": "shared", "content": fmt.Sprintf("writer %d note %d", w, i)})
				resp, err := http.Post(base+"/v1/memories", "application/json", bytes.NewReader(body))
				if err != nil {
					errc <- err
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 201 {
					errc <- fmt.Errorf("status %d", resp.StatusCode)
					return
				}
			}
			errc <- nil
		}(w)
	}
	for w := 0; w < writers; w++ {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	var list struct{ Total int }
	call(t, "GET", base+"/v1/memories?agent_id=shared", nil, &list)
	if list.Total != writers*each {
		t.Fatalf("stored %d of %d acknowledged writes", list.Total, writers*each)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	base := serve(t, mhttp.Options{})
	call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "src", "key": "/a", "content": "alpha", "tags": []string{"t"}}, nil)
	call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "src", "content": "beta", "security_level": "confidential"}, nil)
	st, exported := call(t, "GET", base+"/v1/export?agent_id=src", nil, nil)
	if st != 200 || bytes.Count(exported, []byte("\n")) != 2 {
		t.Fatalf("export %d %s", st, exported)
	}
	// Into a fresh server, twice: the second import changes nothing, and
	// says so (API-22). A
	// tenant's import keeps only the ids its agent holds (it may learn
	// nothing of other tenants' ids), so the memories come back whole
	// under new ids, the same on both imports, given in ids.
	other := serve(t, mhttp.Options{})
	var mapping map[string]string
	for i := 0; i < 2; i++ {
		var out struct {
			Imported, Skipped int
			IDs               map[string]string
		}
		if st, raw := call(t, "POST", other+"/v1/import?agent_id=src", string(exported), &out); st != 200 || out.Imported != 2-2*i || out.Skipped != 2*i || len(out.IDs) != 2 {
			t.Fatalf("import %d: %d %s", i, st, raw)
		}
		if i == 0 {
			mapping = out.IDs
		}
	}
	_, again := call(t, "GET", other+"/v1/export?agent_id=src", nil, nil)
	want := string(exported)
	for old, new := range mapping {
		want = strings.ReplaceAll(want, old, new)
	}
	if want != string(again) {
		t.Fatalf("round trip differs:\n%s\n%s", want, again)
	}
	// Into the same agent of the same store: ids kept, nothing new.
	var out struct {
		Skipped int
		IDs     map[string]string
	}
	if st, raw := call(t, "POST", base+"/v1/import?agent_id=src", string(exported), &out); st != 200 || out.Skipped != 2 || len(out.IDs) != 0 {
		t.Fatalf("import into its own agent: %d %s", st, raw)
	}
	if _, same := call(t, "GET", base+"/v1/export?agent_id=src", nil, nil); !bytes.Equal(same, exported) {
		t.Fatalf("importing into its own agent changed it:\n%s\n%s", exported, same)
	}
}
