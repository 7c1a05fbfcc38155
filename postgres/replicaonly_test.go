package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-dev/mnemo"
)

// A read a replica cancelled, or one it could not run for a migration it
// has not replayed, is read again on the primary; the primary's own errors
// and the caller's are not (PG-11).
func TestReplicaOnly(t *testing.T) {
	pg := func(code, msg string) error {
		return fmt.Errorf("postgres: search: %w", &pgconn.PgError{Code: code, Message: msg})
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{pg("40001", "canceling statement due to conflict with recovery"), true},
		{pg("40P01", "canceling statement due to conflict with recovery"), true},
		{pg("42P01", `relation "memories" does not exist`), true},
		{pg("42703", `column "occurred" does not exist`), true},
		{pg("42883", "function mnemo_rank(text) does not exist"), true},
		{pg("22021", "invalid byte sequence"), false},
		{pg("57014", "canceling statement due to statement timeout"), false},
		{mnemo.Errorf(mnemo.EINVALID, "bad query"), false},
		{context.Canceled, false},
		{errors.New("closed pool"), false},
	} {
		if got := replicaOnly(c.err); got != c.want {
			t.Errorf("replicaOnly(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
