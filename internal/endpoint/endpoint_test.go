package endpoint

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ spec, kind, arg string }{
		{"sqlite:./data", SQLite, "./data"},
		{"files:/srv/memory", Files, "/srv/memory"},
		{"postgres:postgres://u@h/db", Postgres, "postgres://u@h/db"},
		{"postgresql://u@h/db", Postgres, "postgresql://u@h/db"},
		{"postgres:host=h dbname=d", Postgres, "host=h dbname=d"},
		{"sqlite:", "", ""},
		{"sqlite:  ", "", ""},
		{"memory:x", "", ""},
		{"./data", "", ""},
	} {
		kind, arg, err := Parse(c.spec)
		if kind != c.kind || arg != c.arg || (err == nil) != (c.kind != "") {
			t.Errorf("Parse(%q) = %q, %q, %v", c.spec, kind, arg, err)
		}
		if err != nil && !strings.Contains(err.Error(), "give sqlite:PATH, files:DIR or postgres:DSN") {
			t.Errorf("Parse(%q): error %q does not say what to give", c.spec, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"sqlite:./d", "files:/x", "postgres:postgres://h/db", "postgresql://h", ":", "sqlite:\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		kind, arg, err := Parse(spec)
		if err != nil {
			if kind != "" || arg != "" {
				t.Fatalf("an error with a result: %q %q", kind, arg)
			}
			return
		}
		if kind != SQLite && kind != Files && kind != Postgres || strings.TrimSpace(arg) == "" || !strings.Contains(spec, arg) {
			t.Fatalf("Parse(%q) = %q, %q", spec, kind, arg)
		}
	})
}
