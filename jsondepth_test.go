package mnemo_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestJSONDepth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{``, 0}, {`1`, 0}, {`"[[["`, 0}, {`[]`, 1}, {`{"a":1}`, 1}, {`[[1],[2]]`, 2},
		{`{"a":{"b":[{"c":"]]]}"}]}}`, 4}, {`["\"[", "\\", [1]]`, 2},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), 10000},
	} {
		if got := mnemo.JSONDepth([]byte(tt.in)); got != tt.want {
			t.Errorf("JSONDepth(%.40s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestCheckRequestDepth(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct {
		name, doc, want string
	}{
		{"at the limit", `{"a":` + deep(mnemo.MaxRequestDepth-1) + `}`, ""},
		{"a batch", `{"agent_id":"a","memories":[{"content":"x"},{"data":` + deep(100) + `}]}`, "at memories[1].data[0][0][0]…"},
		{"objects", `{"a":1,"b":{"c":` + strings.Repeat(`{"d":`, 100) + "1" + strings.Repeat("}", 100) + `}}`, "at b.c.d.d.d.d…"},
		{"a key that looks like a value", `{"[":{"]":` + deep(100) + `}}`, "at [.][0][0][0][0]…"},
		{"the top", deep(100), "at [0][0][0][0][0][0]…"},
		{"cut short", `{"x":` + strings.Repeat("[", 100), "at x[0][0][0][0][0]…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := mnemo.CheckRequestDepth("request body", []byte(tt.doc))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckRequestDepth: %v", err)
				}
				return
			}
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(mnemo.ErrorMessage(err), "request body nests deeper than 72 levels of arrays and objects "+tt.want+"; a JSON value such as data may nest at most 64") {
				t.Fatalf("CheckRequestDepth = %v; want it to name %s", err, tt.want)
			}
		})
	}
}

// FuzzJSONDepth checks mnemo.JSONDepth against a decoder's view of any valid
// JSON, and mnemo.CheckRequestDepth's verdict against mnemo.JSONDepth.
func FuzzJSONDepth(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"]"}]}`, `"\\"`, `[[["\"]"]]]`, `{"[{":{"}]":[]}}`, strings.Repeat("[", 80) + strings.Repeat("]", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			mnemo.JSONDepth([]byte(s)) // anything: no panic
			mnemo.CheckRequestDepth("x", []byte(s))
			return
		}
		want, depth := 0, 0
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
				want = max(want, depth)
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
		if got := mnemo.JSONDepth([]byte(s)); got != want {
			t.Fatalf("JSONDepth(%s) = %d, the decoder says %d", s, got, want)
		}
		if err := mnemo.CheckRequestDepth("x", []byte(s)); (err != nil) != (want > mnemo.MaxRequestDepth) {
			t.Fatalf("CheckRequestDepth(%s) = %v at depth %d", s, err, want)
		}
	})
}
