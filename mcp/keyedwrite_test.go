package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestMaskedKeyedWrite: the channel reads restricted memories masked, so
// it may not replace one by writing to its key (SEC-15): the tool fails
// with forbidden, without what the memory says, and the memory stays; a
// key it reads whole, or a new one, it writes as ever.
func TestMaskedKeyedWrite(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			svc := service.New(db, service.Options{})
			t.Cleanup(func() { svc.Close() })
			ctx := t.Context()
			secret, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/people/ana", Content: new("Ana's password is Zebra42Tango"), SecurityLevel: mnemo.SecurityRestricted})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/pub/plants", Content: new("The office plants need water on Fridays"), SecurityLevel: mnemo.SecurityPublic}); err != nil {
				t.Fatal(err)
			}
			cs := tr.connect(t, svc)
			for _, tc := range []struct {
				tool string
				args map[string]any
			}{
				{"remember", map[string]any{"key": "/people/ana", "content": "Ana likes green tea in the morning"}},
				{"remember", map[string]any{"uri": "/people/ana", "content": "Ana likes green tea in the morning"}},
				{"set_memory", map[string]any{"key": "/people/ana", "json_content": map[string]any{"tea": "green"}, "source": "user said so in chat"}},
			} {
				msg := fails(t, cs, tc.tool, tc.args, mnemo.EFORBIDDEN)
				if strings.Contains(msg, "Zebra42Tango") || !strings.Contains(msg, "/people/ana") {
					t.Errorf("%s %v: %q", tc.tool, tc.args, msg)
				}
			}
			if m, err := svc.GetByKey(ctx, alice, "/people/ana"); err != nil || m.ID != secret.ID || !strings.Contains(m.Content, "Zebra42Tango") {
				t.Fatalf("the restricted memory after the writes: %+v %v", m, err)
			}
			var out struct{}
			ok(t, cs, "remember", map[string]any{"key": "/pub/plants", "content": "The office plants need water on Mondays"}, &out)
			ok(t, cs, "remember", map[string]any{"key": "/notes/new", "content": "The team lunch is on Thursday"}, &out)
			ok(t, cs, "set_memory", map[string]any{"key": "/people/ana", "json_content": nil, "source": "user said so in chat"}, &out)
		})
	}
}
