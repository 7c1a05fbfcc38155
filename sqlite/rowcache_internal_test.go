package sqlite

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRowCacheSeesEveryUpdate reads this package's statements that change
// memory rows in place: each must change only columns a kept row's check
// reads (rowStamp, rowVolatile) or that reads do not return, or change
// the stamp with them. A new statement that changes another column would
// have kept rows answer it stale: give it a stamp column too, or add its
// column to volatileColumns.
func TestRowCacheSeesEveryUpdate(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := columnsOf(memoryColumns)
	stamp, volatile := columnsOf(stampColumns), columnsOf(volatileColumns)
	update := regexp.MustCompile("(?s)UPDATE memories SET(.*?)WHERE")
	assign := regexp.MustCompile(`(\w+)\s*=`)
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range update.FindAllStringSubmatch(string(src), -1) {
			found++
			set := m[1]
			var cols []string
			if strings.Contains(set, "insertColumns") {
				cols = columnsOf(insertColumns) // a row stored again
			} else {
				for _, a := range assign.FindAllStringSubmatch(set, -1) {
					cols = append(cols, a[1])
				}
			}
			stamped := slices.ContainsFunc(cols, func(c string) bool { return slices.Contains(stamp, c) })
			for _, c := range cols {
				if !slices.Contains(read, c) || slices.Contains(volatile, c) || stamped {
					continue
				}
				t.Errorf("%s: %q changes %s in place without changing a row's stamp: kept rows would answer it stale", f, strings.Join(strings.Fields(m[0]), " "), c)
			}
		}
	}
	if found < 5 {
		t.Fatalf("found %d statements that change memory rows in place; the pattern no longer finds them", found)
	}
}

// columnsOf returns the column names of a list such as memoryColumns.
func columnsOf(list string) []string {
	var out []string
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		c = strings.TrimPrefix(c, "m.")
		out = append(out, c)
	}
	return out
}
