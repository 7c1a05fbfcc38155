package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestDeepJSON gives every command that takes JSON a value nesting one
// level deeper than MaxJSONDepth, or a line deeper than a request may
// (API-21): exit 2 with one line naming what to flatten and the limit, and
// nothing stored. A value at the limit is kept.
func TestDeepJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nested := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	over, at := nested(mnemo.MaxJSONDepth+1), nested(mnemo.MaxJSONDepth)
	lines := filepath.Join(t.TempDir(), "deep.jsonl")
	if err := os.WriteFile(lines, []byte(`{"content":"fine"}`+"\n"+`{"content":"x","data":`+over+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	limits := fmt.Sprintf("nests %d levels of arrays and objects; at most %d", mnemo.MaxJSONDepth+1, mnemo.MaxJSONDepth)
	for _, tt := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"remember --value", "", []string{"remember", "--key", "/deep", "--value", over}, "--value " + limits},
		{"remember --source", "", []string{"remember", "x", "--source", over}, "source " + limits},
		{"import", "", []string{"import", lines}, "line 2: data " + limits},
		{"events append --payload", "", []string{"events", "append", "--type", "x", "--payload", over}, "event data " + limits},
		{"events append --metadata", "", []string{"events", "append", "--type", "x", "--metadata", `{"m":` + at + `}`}, "event metadata " + limits},
		{"events append --file", `{"type":"x","data":` + nested(mnemo.MaxRequestDepth) + "}\n", []string{"events", "append", "-f", "-"},
			fmt.Sprintf("line 1: the event nests deeper than %d levels of arrays and objects at data[0][0][0][0][0]…", mnemo.MaxRequestDepth)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := run(t, dir, tt.stdin, tt.args...)
			if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, %q; want 2 and one line saying %q", code, errs, tt.want)
			}
		})
	}
	if code, out, errs := run(t, dir, "", "list", "--json"); code != 0 || strings.Contains(out, `"id"`) {
		t.Errorf("after the refusals: exit %d %s %s; want no memory", code, out, errs)
	}
	if code, _, errs := run(t, dir, "", "remember", "--key", "/deep", "--value", at); code != 0 {
		t.Errorf("--value at the limit: exit %d %s", code, errs)
	}
}
