package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestWriteNotApplied checks that remember and set_memory say when a write
// lost last-write-wins to a newer revision of its key, with its time.
func TestWriteNotApplied(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	ahead := time.Now().Add(time.Hour).UTC()
	for _, key := range []string{"/city", "/user/city"} {
		content := "lives in Berlin"
		if _, err := svc.Write(t.Context(), alice, []mnemo.Draft{{Key: key, Content: &content, UpdatedAt: &ahead}}); err != nil {
			t.Fatal(err)
		}
	}
	type out struct {
		Applied         bool       `json:"applied"`
		WinnerUpdatedAt *time.Time `json:"winner_updated_at"`
	}
	var o out
	res := ok(t, cs, "remember", map[string]any{"key": "/city", "content": "lives in Rome"}, &o)
	if o.Applied || o.WinnerUpdatedAt == nil || !o.WinnerUpdatedAt.Equal(ahead) || !strings.Contains(text(res), "Not applied") {
		t.Errorf("remember = %+v %q, want not applied, winner %v", o, text(res), ahead)
	}
	o = out{}
	res = ok(t, cs, "set_memory", map[string]any{"key": "/user/city", "json_content": map[string]any{"city": "Rome"}, "source": "user said so"}, &o)
	if o.Applied || o.WinnerUpdatedAt == nil || !o.WinnerUpdatedAt.Equal(ahead) || !strings.Contains(text(res), "Not applied") {
		t.Errorf("set_memory = %+v %q, want not applied, winner %v", o, text(res), ahead)
	}
	o = out{}
	if ok(t, cs, "remember", map[string]any{"key": "/fresh", "content": "likes green tea"}, &o); !o.Applied {
		t.Errorf("a fresh remember = %+v, want applied", o)
	}
}
