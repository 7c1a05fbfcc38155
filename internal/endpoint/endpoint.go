// Package endpoint reads the store arguments of `mnemo migrate-store`:
// sqlite:PATH, files:DIR, postgres:DSN, or a bare postgres:// URL. It is a
// package of its own, beside the CLI, so that its fuzzer builds without
// the whole command.
package endpoint

import (
	"fmt"
	"strings"
)

// The backends an endpoint names, as the CLI's store.backend names them.
const (
	SQLite   = "sqlite"
	Files    = "files"
	Postgres = "postgres"
)

// Parse splits spec into its backend and where it is. On an error, kind
// and arg are empty and the error says what to give.
func Parse(spec string) (kind, arg string, err error) {
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		return Postgres, spec, nil
	}
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || strings.TrimSpace(arg) == "" {
		return "", "", fmt.Errorf("%q: give sqlite:PATH, files:DIR or postgres:DSN", spec)
	}
	switch kind {
	case SQLite, Files, Postgres:
		return kind, arg, nil
	}
	return "", "", fmt.Errorf("%q: unknown store %q: give sqlite:PATH, files:DIR or postgres:DSN", spec, kind)
}
