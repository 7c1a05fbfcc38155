package http_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/memory"
)

func newRegistry() *prometheus.Registry { return prometheus.NewRegistry() }

func TestMetrics(t *testing.T) {
	var path string
	ts := start(t, mhttp.Options{
		Keys: []mhttp.APIKey{
			apiKey("app", "t1", nil, mhttp.ScopeRead, mhttp.ScopeWrite),
			apiKey("prometheus", "t1", nil, mhttp.ScopeAdmin),
		},
		Registry: newRegistry(),
		StoreBytes: func() int64 {
			fi, err := os.Stat(path)
			if err != nil {
				return 0
			}
			return fi.Size()
		},
	}, nil)
	path = ts.Path
	app := secret("app")
	callAs(t, app, "POST", ts.URL+"/v1/memories", map[string]any{"agent_id": "a", "content": "Prefers Python"}, nil)
	callAs(t, app, "POST", ts.URL+"/v1/recall", map[string]any{"agent_id": "a", "query": "python"}, nil)
	callAs(t, app, "POST", ts.URL+"/v1/surface", map[string]any{"agent_id": "a", "query": "python"}, nil)
	callAs(t, app, "GET", ts.URL+"/v1/memories/nope?agent_id=a", nil, nil)
	callAs(t, app, "GET", ts.URL+"/nowhere", nil, nil)

	// Break the full-text index, as a corrupt or missing FTS table would:
	// recall falls back to substring matching and says it is degraded.
	raw, err := sql.Open("sqlite", ts.Path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DROP TABLE memories_fts`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	var res memory.Result
	callAs(t, app, "POST", ts.URL+"/v1/recall", map[string]any{"agent_id": "a", "query": "python"}, &res)
	if !res.Degraded || len(res.Results) != 1 {
		t.Fatalf("recall without the FTS table = %+v, want 1 degraded result", res)
	}

	if st, raw := callAs(t, app, "GET", ts.URL+"/metrics", nil, nil); st != 403 {
		t.Fatalf("/metrics without admin: %d %s", st, raw)
	}
	resp, body := send(t, secret("prometheus"), "GET", ts.URL+"/metrics", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	text := string(body)
	tests := []struct {
		series string
		want   func(float64) bool
	}{
		{`mnemo_http_request_duration_seconds_count{route="POST /v1/memories",status="2xx"}`, eq(1)},
		{`mnemo_http_request_duration_seconds_count{route="POST /v1/recall",status="2xx"}`, eq(2)},
		{`mnemo_http_request_duration_seconds_count{route="GET /v1/memories/{id}",status="4xx"}`, eq(1)},
		{`mnemo_http_request_duration_seconds_count{route="unmatched",status="4xx"}`, eq(1)},
		{`mnemo_http_request_duration_seconds_count{route="GET /metrics",status="4xx"}`, eq(1)},
		{`mnemo_http_requests_in_flight`, eq(1)}, // this scrape
		{`mnemo_recall_duration_seconds_count{op="recall"}`, eq(2)},
		{`mnemo_recall_duration_seconds_count{op="surface"}`, eq(1)},
		{`mnemo_recall_degraded_total{op="recall"}`, eq(1)},
		{`mnemo_recall_degraded_total{op="surface"}`, eq(0)},
		{`mnemo_http_rate_limited_total`, eq(0)},
		{`mnemo_store_size_bytes`, func(v float64) bool { return v > 0 }},
	}
	for _, tt := range tests {
		v, ok := sample(text, tt.series)
		if !ok || !tt.want(v) {
			t.Errorf("%s = %v (found %v)", tt.series, v, ok)
		}
	}
	if strings.Contains(text, "python") || strings.Contains(text, "Python") {
		t.Error("metrics hold memory content or query text")
	}
}

func eq(want float64) func(float64) bool { return func(v float64) bool { return v == want } }

// sample returns the value of series in a Prometheus text exposition.
func sample(text, series string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

func TestNoMetricsWithoutRegistry(t *testing.T) {
	base := serve(t, mhttp.Options{})
	if st, raw := call(t, "GET", base+"/metrics", nil, nil); st != 404 || problem(t, raw).Code != mnemo.ENOTFOUND {
		t.Fatalf("/metrics without a registry: %d %s", st, raw)
	}
}

// TestAccessLog checks that each request is logged once, with what
// identifies it and nothing it carried.
func TestAccessLog(t *testing.T) {
	var logs syncBuffer
	ts := start(t, mhttp.Options{
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		Keys:   []mhttp.APIKey{apiKey("app", "t1", nil, mhttp.ScopeRead, mhttp.ScopeWrite)},
	}, nil)
	app := secret("app")
	callAs(t, app, "POST", ts.URL+"/v1/memories", map[string]any{"agent_id": "a", "key": "/secret/path", "content": "the launch code is xyzzy-plugh"}, nil)
	callAs(t, app, "POST", ts.URL+"/v1/recall", map[string]any{"agent_id": "a", "query": "what is the launch code"}, nil)
	callAs(t, app, "GET", ts.URL+"/v1/keys?agent_id=a&key=/secret/path", nil, nil)
	callAs(t, "wrong", "GET", ts.URL+"/v1/stats?agent_id=a", nil, nil)
	// Shutdown waits for every request to finish, logging included.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ts.Srv.Shutdown(ctx)

	out := logs.String()
	for _, leak := range []string{"launch", "xyzzy", "/secret/path", secret("app")} {
		if strings.Contains(out, leak) {
			t.Errorf("the log holds %q:\n%s", leak, out)
		}
	}
	type line struct {
		Msg      string `json:"msg"`
		Method   string `json:"method"`
		Route    string `json:"route"`
		Status   int    `json:"status"`
		Duration *int64 `json:"duration"`
		Bytes    int64  `json:"bytes"`
		Key      string `json:"key"`
		Tenant   string `json:"tenant"`
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v line
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if v.Msg == "request" {
			got = append(got, v)
		}
	}
	want := []line{
		{Method: "POST", Route: "POST /v1/memories", Status: 201, Key: "app", Tenant: "t1"},
		{Method: "POST", Route: "POST /v1/recall", Status: 200, Key: "app", Tenant: "t1"},
		{Method: "GET", Route: "GET /v1/keys", Status: 200, Key: "app", Tenant: "t1"},
		{Method: "GET", Route: "GET /v1/stats", Status: 401},
	}
	if len(got) != len(want) {
		t.Fatalf("%d request lines, want %d:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		g := got[i]
		if g.Method != w.Method || g.Route != w.Route || g.Status != w.Status || g.Key != w.Key || g.Tenant != w.Tenant || g.Duration == nil || g.Bytes <= 0 {
			t.Errorf("line %d = %+v, want %+v with a duration and bytes", i, g, w)
		}
	}
}
