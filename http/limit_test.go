package http_test

import (
	"strconv"
	"testing"

	mhttp "github.com/mnemo-dev/mnemo/http"
)

func TestRateLimit(t *testing.T) {
	// One request per 1000 s with bursts of 2: the third request of a
	// client within the test is always refused.
	opts := mhttp.Options{RateLimit: 0.001, RateBurst: 2}
	withKeys := opts
	withKeys.Keys = []mhttp.APIKey{apiKey("k1", "t1", nil, mhttp.ScopeRead), apiKey("k2", "t1", nil, mhttp.ScopeRead)}
	tests := []struct {
		name    string
		opts    mhttp.Options
		secrets []string // the client of each request
		want    []int
	}{
		{"per key", withKeys,
			[]string{secret("k1"), secret("k1"), secret("k1"), secret("k2"), secret("k2"), secret("k2")},
			[]int{200, 200, 429, 200, 200, 429}},
		{"bad keys per IP", withKeys,
			[]string{"guess1", "guess2", "guess3", secret("k1")},
			[]int{401, 401, 429, 200}},
		{"per IP without auth", opts,
			[]string{"", "", ""},
			[]int{200, 200, 429}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := serve(t, tt.opts)
			for i, s := range tt.secrets {
				resp, raw := send(t, s, "GET", base+"/v1/stats?agent_id=a", nil)
				if resp.StatusCode != tt.want[i] {
					t.Fatalf("request %d: %d %s, want %d", i, resp.StatusCode, raw, tt.want[i])
				}
				if resp.StatusCode != 429 {
					continue
				}
				if p := problem(t, raw); p.Code != mhttp.ERATELIMITED || p.Status != 429 {
					t.Fatalf("request %d: %+v, want rate_limited", i, p)
				}
				if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
					t.Fatalf("request %d: Retry-After %q", i, resp.Header.Get("Retry-After"))
				}
			}
		})
	}
}
