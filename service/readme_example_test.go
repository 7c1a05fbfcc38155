package service_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeGoSnippet keeps the Go snippet of docs/CLIENTS.md ("Go") the
// code that Example runs: the fence after `<!-- readme-run: go -->` must be
// in example_test.go verbatim.
func TestReadmeGoSnippet(t *testing.T) {
	readme, err := os.ReadFile("../docs/CLIENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)<!-- readme-run: go -->\n```go\n(.*?)```\n").FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("docs/CLIENTS.md has no <!-- readme-run: go --> snippet")
	}
	for _, b := range blocks {
		if !strings.Contains(string(src), string(b[1])) {
			t.Errorf("docs/CLIENTS.md's Go snippet is not in example_test.go, which runs it:\n%s", b[1])
		}
	}
}
