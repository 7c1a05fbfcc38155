package migrations

import (
	"reflect"
	"testing"
	"testing/fstest"
)

func TestList(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files []string
		want  []Migration
		err   string
	}{
		{name: "none", files: nil, want: nil},
		{name: "ordered by version, not by name", files: []string{"m/0002_b.sql", "m/1_a.sql", "m/0010_j.sql",
			"m/0003_c.sql", "m/0004_d.sql", "m/0005_e.sql", "m/0006_f.sql", "m/0007_g.sql", "m/0008_h.sql", "m/0009_i.sql"},
			want: []Migration{{1, "m/1_a.sql"}, {2, "m/0002_b.sql"}, {3, "m/0003_c.sql"}, {4, "m/0004_d.sql"},
				{5, "m/0005_e.sql"}, {6, "m/0006_f.sql"}, {7, "m/0007_g.sql"}, {8, "m/0008_h.sql"}, {9, "m/0009_i.sql"},
				{10, "m/0010_j.sql"}}},
		{name: "other files and directories ignored", files: []string{"m/0001_core.sql", "m/README", "m/0002_x.sql.bak", "other/0002_y.sql", "m/sub/0002_z.sql"},
			want: []Migration{{1, "m/0001_core.sql"}}},
		{name: "no underscore", files: []string{"m/0001.sql"}, err: "migration 0001.sql: name must start with a version number"},
		{name: "gap", files: []string{"m/0001_a.sql", "m/0003_c.sql"}, err: "migration m/0003_c.sql: expected version 2"},
		{name: "not from 1", files: []string{"m/0002_b.sql"}, err: "migration m/0002_b.sql: expected version 1"},
		{name: "zero", files: []string{"m/0000_z.sql", "m/0001_a.sql"}, err: "migration m/0000_z.sql: expected version 1"},
		{name: "twice", files: []string{"m/0001_a.sql", "m/0001_b.sql"}, err: "expected version 2"},
		{name: "no number", files: []string{"m/0001_a.sql", "m/core.sql"}, err: "migration core.sql: name must start with a version number"},
		{name: "negative", files: []string{"m/-1_a.sql"}, err: "migration m/-1_a.sql: expected version 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys[f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			got, err := List(fsys, "m")
			if tt.err != "" {
				if err == nil || !containsAt(err.Error(), tt.err) {
					t.Fatalf("List = %v, %v; want error %q", got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("List = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// containsAt reports whether s ends with want: the message is exactly the
// one the backends prefix with their name.
func containsAt(s, want string) bool {
	return len(s) >= len(want) && s[len(s)-len(want):] == want
}
