package mcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// nested returns a JSON value that nests n arrays: [[[…1…]]].
func nested(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", n) + "1" + strings.Repeat("]", n))
}

// TestDeepArguments calls every tool with arguments nesting deeper than a
// request may, and the tools that keep free JSON with a value one level
// deeper than MaxJSONDepth (API-21): an invalid_input tool error naming
// where, and the limit; a value at the limit is kept.
func TestDeepArguments(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, newService(t))
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				msg := fails(t, cs, tool.Name, map[string]any{"deep": nested(mnemo.MaxRequestDepth + 1)}, mnemo.EINVALID)
				if !strings.Contains(msg, "deep[0][0][0][0][0]…") || !strings.Contains(msg, fmt.Sprint(mnemo.MaxRequestDepth)) {
					t.Errorf("%s with too deep arguments: %q; want where and the limit", tool.Name, msg)
				}
			}
			over := nested(mnemo.MaxJSONDepth + 1)
			for _, tt := range []struct {
				tool, field string
				depth       int
				args        map[string]any
			}{
				{"set_memory", "data", mnemo.MaxJSONDepth + 1, map[string]any{"key": "/deep", "json_content": over, "source": "test"}},
				{"set_memory", "source", mnemo.MaxJSONDepth + 2, map[string]any{"key": "/deep", "json_content": 1, "source": map[string]any{"kind": over}}},
				{"remember", "source", mnemo.MaxJSONDepth + 2, map[string]any{"content": "x", "source": map[string]any{"kind": over}}},
			} {
				msg := fails(t, cs, tt.tool, tt.args, mnemo.EINVALID)
				if want := fmt.Sprintf("%s nests %d levels of arrays and objects; at most %d", tt.field, tt.depth, mnemo.MaxJSONDepth); !strings.Contains(msg, want) {
					t.Errorf("%s %s too deep: %q; want %q", tt.tool, tt.field, msg, want)
				}
			}
			ok(t, cs, "set_memory", map[string]any{"key": "/deep", "json_content": nested(mnemo.MaxJSONDepth), "source": "test"}, nil)
		})
	}
}
