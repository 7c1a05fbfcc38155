package http_test

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
)

// TestMaskedKeyedWrite: a key that reads restricted memories masked may not
// replace one by writing to its key (SEC-15): 403 forbidden, as
// problem+json, without what the memory says, and the memory stays; it
// writes keys it reads whole, and new ones, as ever.
func TestMaskedKeyedWrite(t *testing.T) {
	t.Parallel()
	for _, st := range gateStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			mask := func(k mhttp.APIKey) mhttp.APIKey { k.Mask = true; return k }
			ts := startOn(t, st.open(t), mhttp.Options{Registry: newRegistry(), Keys: []mhttp.APIKey{
				apiKey("owner", "t", nil, allScopes...),
				mask(apiKey("mrw", "t", nil, allScopes...)),
			}})
			u := func(p string) string { return ts.URL + p }
			owner, masked := secret("owner"), secret("mrw")
			var ana mnemo.Memory
			if st, raw := callAs(t, owner, "POST", u("/v1/memories"), map[string]any{"agent_id": "a", "key": "/people/ana", "content": "Ana's password is Zebra42Tango", "security_level": "restricted"}, &ana); st != 201 {
				t.Fatalf("plant: %d %s", st, raw)
			}
			if st, raw := callAs(t, owner, "POST", u("/v1/memories"), map[string]any{"agent_id": "a", "key": "/pub/plants", "content": "The office plants need water on Fridays", "security_level": "public"}, nil); st != 201 {
				t.Fatalf("plant: %d %s", st, raw)
			}
			for _, tc := range []struct {
				path string
				body map[string]any
				want int
			}{
				{"/v1/memories", map[string]any{"agent_id": "a", "key": "/people/ana", "content": "Ana likes green tea in the morning"}, 403},
				{"/v1/memories/batch", map[string]any{"agent_id": "a", "memories": []any{
					map[string]any{"key": "/notes/one", "content": "The team lunch is on Thursday"},
					map[string]any{"key": "/people/ana", "data": map[string]any{"tea": "green"}}}}, 403},
				{"/v1/memories", map[string]any{"agent_id": "a", "key": "/pub/plants", "content": "The office plants need water on Mondays"}, 201},
				{"/v1/memories", map[string]any{"agent_id": "a", "key": "/notes/two", "content": "The team lunch is on Friday"}, 201},
			} {
				st, raw := callAs(t, masked, "POST", u(tc.path), tc.body, nil)
				if st != tc.want || strings.Contains(string(raw), "Zebra42Tango") {
					t.Errorf("%s %v: %d %s, want %d", tc.path, tc.body, st, raw, tc.want)
				}
				if tc.want == 403 && !strings.Contains(string(raw), `"code":"forbidden"`) {
					t.Errorf("%s: %s", tc.path, raw)
				}
			}
			var m mnemo.Memory
			if st, raw := callAs(t, owner, "GET", u("/v1/memories/"+ana.ID+"?agent_id=a"), nil, &m); st != 200 || m.Content != ana.Content || m.ValidTo != nil {
				t.Fatalf("the restricted memory after the writes: %d %s", st, raw)
			}
			if st, raw := callAs(t, owner, "GET", u("/v1/memories?agent_id=a&key_prefix=/notes/one"), nil, nil); st != 200 || strings.Contains(string(raw), "Thursday") {
				t.Errorf("a refused batch wrote part of it: %d %s", st, raw)
			}
		})
	}
}
