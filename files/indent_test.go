package files

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestIndent: within its levels indent writes what json.Indent writes;
// deeper it copies the JSON compact; the result is the same JSON.
func TestIndent(t *testing.T) {
	for _, tt := range []struct {
		src  string
		max  int
		want string
	}{
		{`{"a":[1,{"b":"x,y:[]{}"}],"c":{},"d":[]}`, 9, "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x,y:[]{}\"\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}"},
		{`{"a":[1,{"b":"q\"[,"}],"c":{}}`, 1, "{\n  \"a\": [1,{\"b\":\"q\\\"[,\"}],\n  \"c\": {}\n}"},
		{`[[[[1]]]]`, 2, "[\n  [\n    [[1]]\n  ]\n]"},
		{`"s"`, 2, `"s"`},
		{`{"k":"\\"}`, 0, `{"k":"\\"}`},
	} {
		if got := string(indent(nil, []byte(tt.src), tt.max)); got != tt.want {
			t.Errorf("indent(%s, %d) =\n%s\nwant\n%s", tt.src, tt.max, got, tt.want)
		}
	}
}

// FuzzIndent checks indent against json.Indent on any JSON: the same text
// when every level is indented, and the same JSON, no larger than a bound
// linear in its size, when few are.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"x"}],"c":{},"d":[]}`, `[[[[[[[[[[[[1,2]]]]]]]]]]]]`, `"\"\\[{"`, `{"":{"":{"":[true,null,-1.5e3]}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(s)) != nil {
			return
		}
		src := compact.Bytes()
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indent(nil, src, 1<<20); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("indent(%s) =\n%s\njson.Indent:\n%s", src, got, want.Bytes())
		}
		for _, levels := range []int{0, 1, 3, indentLevels} {
			got := indent(nil, src, levels)
			var back bytes.Buffer
			if err := json.Compact(&back, got); err != nil || !bytes.Equal(back.Bytes(), src) {
				t.Fatalf("indent(%s, %d) = %s: not the same JSON (%v)", src, levels, got, err)
			}
			// A line and two spaces a level for each byte, at most.
			if bound := len(src) * (2 + 2*levels); len(got) > max(bound, len(src)) {
				t.Fatalf("indent(%s, %d) is %d bytes, over %d", src, levels, len(got), bound)
			}
		}
	})
}

// TestIndexFileGrowsLinearly: the index file of deeply nested content is a
// few times its compact size, whatever the depth, so that writing it never
// holds the other writers up for long (FS-16).
func TestIndexFileGrowsLinearly(t *testing.T) {
	for _, content := range []string{
		strings.Repeat("[", 9000) + strings.Repeat("]", 9000), // decoders stop at 10,000
		strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000),
		strings.Repeat("[", 64) + strings.TrimSuffix(strings.Repeat("0,", 30000), ",") + strings.Repeat("]", 64),
	} {
		b, err := indexFile(Envelope{Key: "/deep", Valid: true, Content: json.RawMessage(content)})
		if err != nil {
			t.Fatal(err)
		}
		if limit := 10*len(content) + 200; len(b) > limit {
			t.Errorf("the index file of %d bytes of content (%.20s…) is %d bytes, over %d", len(content), content, len(b), limit)
		}
		var e Envelope
		var back bytes.Buffer
		if err := json.Unmarshal(b, &e); err != nil || json.Compact(&back, e.Content) != nil || back.String() != content {
			t.Errorf("the index file of %.20s… does not read back: %v", content, err)
		}
	}
}
