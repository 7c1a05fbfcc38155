package http_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/service"
)

// nested returns a JSON value that nests n arrays: [[[…1…]]].
func nested(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }

// TestDeepBodies sends every route that reads a body a document nesting
// deeper than a request may (API-21): each answers 400 invalid_input naming
// where it goes too deep and the limits, before anything decodes it. A new
// route with a body joins by construction.
func TestDeepBodies(t *testing.T) {
	t.Parallel()
	ts := start(t, mhttp.Options{}, nil)
	bodies, lines, files := ts.Srv.BodyRoutes()
	for _, r := range ts.Srv.Routes() {
		m, _, _ := strings.Cut(r, " ")
		if (m == "POST" || m == "PUT" || m == "PATCH") && !contains(bodies, r) && !contains(lines, r) && !contains(files, r) {
			t.Errorf("route %s takes no body in the route table: say which, so this test sends it one", r)
		}
	}
	deep := nested(mnemo.MaxRequestDepth + 1)
	for _, r := range slices.Concat(bodies, lines, files) {
		t.Run(r, func(t *testing.T) {
			method, path, _ := strings.Cut(r, " ")
			for _, p := range []string{"{id}", "{run_id}", "{session_id}"} {
				path = strings.ReplaceAll(path, p, "x")
			}
			body := `{"agent_id":"a","deep":` + deep + `}`
			want := "deep[0][0][0][0][0]…"
			if contains(lines, r) {
				path += "?agent_id=a"
				body = `{"content":"fine"}` + "\n" + `{"content":"x","data":` + deep + "}\n"
				want = "data[0][0][0][0][0]…"
			}
			if contains(files, r) {
				// Another tool's file: the MCP memory server's, line by line.
				path += "?agent_id=a&from=mcp-memory"
				body = `{"type":"entity","name":"a"}` + "\n" + `{"type":"entity","name":"b","deep":` + deep + "}\n"
				want = "deep[0][0][0][0][0]…"
			}
			st, raw := call(t, method, ts.URL+path, body, nil)
			p := problem(t, raw)
			if st != 400 || p.Code != mnemo.EINVALID || !strings.Contains(p.Detail, want) ||
				!strings.Contains(p.Detail, fmt.Sprint(mnemo.MaxRequestDepth)) || !strings.Contains(p.Detail, fmt.Sprint(mnemo.MaxJSONDepth)) {
				t.Errorf("%d %s; want 400 invalid_input naming %s and the limits", st, raw, want)
			}
		})
	}
}

// TestDeepValues writes, through every route that keeps free JSON, a value
// one level deeper than MaxJSONDepth, inside a request that may nest so
// far: a 400 invalid_input naming the field and the limit, and nothing
// stored. A value at the limit is kept, on sqlite and on files.
func TestDeepValues(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testDeepValues(t, serve(t, mhttp.Options{}), true)
	})
	t.Run("files", func(t *testing.T) {
		t.Parallel()
		st, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		srv := mhttp.NewServer(service.New(st, service.Options{}), mhttp.Options{})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			st.Close()
		})
		testDeepValues(t, "http://"+ln.Addr().String(), false) // it keeps no events
	})
}

func testDeepValues(t *testing.T, base string, events bool) {
	over, at := nested(mnemo.MaxJSONDepth+1), nested(mnemo.MaxJSONDepth)
	var kept mnemo.Memory
	if st, raw := call(t, "POST", base+"/v1/memories", `{"agent_id":"a","key":"/deep","data":`+at+`}`, &kept); st != 201 {
		t.Fatalf("data at the limit: %d %s, want 201", st, raw)
	}
	var run struct {
		ID string `json:"run_id"`
	}
	if st, raw := call(t, "POST", base+"/v1/runs", `{"agent_id":"a","trigger":{"type":"cron"}}`, &run); st != 201 {
		t.Fatalf("open a run: %d %s", st, raw)
	}
	tests := []struct {
		name, method, path, body, field string
		events                          bool
	}{
		{"remember data", "POST", "/v1/memories", `{"agent_id":"a","data":` + over + `}`, "data", false},
		{"remember source", "POST", "/v1/memories", `{"agent_id":"a","content":"x","source":` + over + `}`, "source", false},
		{"batch data", "POST", "/v1/memories/batch", `{"agent_id":"a","memories":[{"content":"fine"},{"data":` + over + `}]}`, "data", false},
		{"import data", "POST", "/v1/import?agent_id=a", `{"content":"fine"}` + "\n" + `{"data":` + over + "}\n", "data", false},
		{"run trigger", "POST", "/v1/runs", `{"agent_id":"a","trigger":{"type":"cron","payload":` + over + `}}`, "trigger.payload", false},
		{"call input", "POST", "/v1/runs/" + run.ID + "/calls", `{"agent_id":"a","name":"f","input":` + over + `}`, "input", false},
		{"call output", "POST", "/v1/runs/" + run.ID + "/calls", `{"agent_id":"a","name":"f","output":` + over + `}`, "output", false},
		{"event data", "POST", "/v1/events", `{"agent_id":"a","type":"x","data":` + over + `}`, "event data", true},
		{"event metadata", "POST", "/v1/events", `{"agent_id":"a","type":"x","metadata":{"m":` + nested(mnemo.MaxJSONDepth) + `}}`, "event metadata", true},
		{"event batch", "POST", "/v1/events/batch", `{"agent_id":"a","events":[{"type":"x"},{"type":"x","data":` + over + `}]}`, "event data", true},
	}
	for _, tt := range tests {
		if tt.events && !events {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			st, raw := call(t, tt.method, base+tt.path, tt.body, nil)
			p := problem(t, raw)
			want := fmt.Sprintf("%s nests %d levels of arrays and objects; at most %d", tt.field, mnemo.MaxJSONDepth+1, mnemo.MaxJSONDepth)
			if st != 400 || p.Code != mnemo.EINVALID || !strings.Contains(p.Detail, want) {
				t.Errorf("%d %s; want 400 invalid_input saying %q", st, raw, want)
			}
		})
	}
	var list listAnswer
	if st, raw := call(t, "GET", base+"/v1/memories?agent_id=a", nil, &list); st != 200 || list.Total != 1 || list.Memories[0].ID != kept.ID {
		t.Errorf("after the refusals the agent holds %d memories (%s), want only the one at the limit", list.Total, raw)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
