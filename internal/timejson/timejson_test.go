package timejson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// request is a body with times at every depth: a batch's memories, an
// embedded filter, a list of events and a map.
type request struct {
	Memories []mnemo.Draft `json:"memories"`
	mnemo.Filter
	Events []struct {
		TS *time.Time `json:"ts,omitempty"`
	} `json:"events"`
	Marks map[string]time.Time `json:"marks"`
}

var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func TestRewrite(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in, want, err string
	}{
		{"RFC 3339 stays as sent", `{"created_after":"2026-11-20T15:04:05.1+02:00"}`, `{"created_after":"2026-11-20T15:04:05.1+02:00"}`, ""},
		{"a date", `{"created_after":"2026-11-20"}`, `{"created_after":"2026-11-20T00:00:00Z"}`, ""},
		{"words", `{"occurred_before":"yesterday"}`, `{"occurred_before":"2026-11-25T00:00:00Z"}`, ""},
		{"any case, as encoding/json matches", `{"AS_OF":"2026-11-20"}`, `{"AS_OF":"2026-11-20T00:00:00Z"}`, ""},
		{"in a batch", `{"memories":[{"content":"a"},{"content":"b","valid_to":"2026-11-20"}]}`, `{"memories":[{"content":"a"},{"content":"b","valid_to":"2026-11-20T00:00:00Z"}]}`, ""},
		{"in a list and a map", `{"events":[{"ts":"2026-11-20"}],"marks":{"x":"2026-11-21"}}`, `{"events":[{"ts":"2026-11-20T00:00:00Z"}],"marks":{"x":"2026-11-21T00:00:00Z"}}`, ""},
		{"occurred_at is read later", `{"memories":[{"occurred_at":"every Sunday"},{"created_at":"2026-11-20"}]}`, `{"memories":[{"occurred_at":"every Sunday"},{"created_at":"2026-11-20T00:00:00Z"}]}`, ""},
		{"named by its path", `{"memories":[{},{"valid_to":"soonish"}]}`, "", `memories[1].valid_to "soonish" is not a time`},
		{"a map's key in the path", `{"marks":{"x":"never"}}`, "", `marks.x "never" is not a time`},
		{"not a string", `{"as_of":12}`, "", "as_of must be a time, a JSON string, not 12"},
		{"out of range as sent", `{"as_of":"9999-12-31T00:00:00Z"}`, "", "as_of 9999-12-31T00:00:00Z is outside the supported range"},
		{"occurred_at checked", `{"memories":[{"occurred_at":"nope"}]}`, "", `memories[0].occurred_at "nope" is not a time`},
		{"not JSON: left to the decoder", `{"as_of":`, `{"as_of":`, ""},
		{"other fields untouched", `{"tags":["2026-11-20"],"memories":[{"data":{"created_at":"x"}}]}`, `{"tags":["2026-11-20"],"memories":[{"data":{"created_at":"x"}}]}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Rewrite([]byte(tt.in), reflect.TypeFor[request](), now)
			if tt.err != "" {
				if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(mnemo.ErrorMessage(err), tt.err) {
					t.Fatalf("Rewrite(%s) = %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || !jsonEqual(out, []byte(tt.want)) {
				t.Fatalf("Rewrite(%s) = %s, %v; want %s", tt.in, out, err, tt.want)
			}
		})
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// FuzzRewrite rewrites any body (TIME-2): never a panic; an error is
// EINVALID; a body left unchanged is returned as it came; a rewritten one
// decodes, and every time in it then lies in the supported range (TIME-1).
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		`{"memories":[{"content":"a","occurred_at":"2026-11-20","valid_to":"1678-01-01"}]}`,
		`{"created_after":"2261-12-31T23:59:59.999999999Z"}`, `{"created_after":"2262-01-01"}`,
		`{"created_before":"1677-12-31"}`, `{"as_of":12}`, `{"AS_OF":"last Tuesday"}`, `[1,2]`,
		`{"memories":{"x":1}}`, `{"events":[{"ts":"1678-01-01T00:00:00Z"},{"ts":"3 days ago"}]}`,
		`{"marks":{"a":"每两周"}}`, `{"memories":[[[[[]]]]]}`, `null`, `{"occurred_after":null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		out, changed, err := Rewrite([]byte(doc), reflect.TypeFor[request](), now)
		if err != nil {
			if mnemo.ErrorCode(err) != mnemo.EINVALID {
				t.Fatalf("Rewrite(%q) = %v, want EINVALID", doc, err)
			}
			return
		}
		if !changed {
			if string(out) != doc {
				t.Fatalf("Rewrite(%q) unchanged returned %q", doc, out)
			}
			return
		}
		var r request
		if err := json.Unmarshal(out, &r); err != nil {
			return // wrong in another way: the decoder says so
		}
		times := []*time.Time{r.CreatedAfter, r.CreatedBefore, r.OccurredAfter, r.OccurredBefore, r.AsOf}
		for _, d := range r.Memories {
			times = append(times, d.CreatedAt, d.UpdatedAt, d.ExpiresAt, d.ValidFrom, d.ValidTo)
		}
		for _, e := range r.Events {
			times = append(times, e.TS)
		}
		for _, m := range r.Marks {
			times = append(times, &m)
		}
		for _, tm := range times {
			if tm != nil && !mnemo.InTimeRange(*tm) {
				t.Fatalf("Rewrite(%q) = %s: %v is outside the range", doc, out, *tm)
			}
		}
	})
}
