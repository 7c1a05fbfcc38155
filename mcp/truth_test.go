package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
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

// TestNoVectorsInAnswers checks that no tool answer carries a memory's
// vector, even when memories have one.
func TestNoVectorsInAnswers(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: hashed.New(32)})
	t.Cleanup(func() { svc.Close() })
	cs := connectMemory(t, svc, alice)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"remember", map[string]any{"key": "/tea", "content": "likes green tea"}},
		{"set_memory", map[string]any{"key": "/user/city", "json_content": map[string]any{"city": "Lisbon"}, "source": "user said so"}},
		{"recall", map[string]any{"query": "tea"}},
		{"surface", map[string]any{"query": "tea"}},
		{"recall_path", map[string]any{"uri": "/"}},
		{"boot", map[string]any{"format": "json"}},
	} {
		res := call(t, cs, c.tool, c.args)
		if w := wire(t, res); res.IsError || strings.Contains(w, `"embedding"`) || strings.Contains(w, `\"embedding\"`) {
			t.Errorf("%s: %.400s; want an answer without vectors", c.tool, w)
		}
	}
}
