// Package migrations lists a SQL backend's embedded schema migrations: one
// file per version, NNNN_name.sql, numbered from 1 without gaps, applied in
// version order. Applying them, which differs by database, stays in each
// backend.
package migrations

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// A Migration is one schema version and the file that defines it.
type Migration struct {
	Version int
	Name    string // the file's path in its fs.FS, such as migrations/0001_core.sql
}

// List returns the migrations in dir of fsys in version order. It refuses a
// .sql file whose name does not start with a version number, and a set of
// versions that is not 1, 2, ... n.
func List(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names {
		base := path.Base(name)
		prefix, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(prefix)
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a version number", base)
		}
		ms = append(ms, Migration{Version: v, Name: name})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.Name, i+1)
		}
	}
	return ms, nil
}
