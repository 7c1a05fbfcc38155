package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		terms, prefixes []string
		want            string
	}{
		{[]string{"apple"}, nil, `"apple"`},
		{[]string{"apple", "pie"}, []string{"ban"}, `"apple" OR "pie" OR "ban"*`},
		{nil, []string{"ban", "ch"}, `"ban"* OR "ch"*`},
		{[]string{`a"b`, "or"}, nil, `"a""b" OR "or"`},
	}
	for _, tt := range tests {
		if got := matchExpr(&mnemo.TextQuery{Terms: tt.terms, Prefixes: tt.prefixes}); got != tt.want {
			t.Errorf("matchExpr(%q, %q) = %s, want %s", tt.terms, tt.prefixes, got, tt.want)
		}
	}
}

func TestEscapeLike(t *testing.T) {
	for in, want := range map[string]string{`a`: `a`, `a_b`: `a\_b`, `100%`: `100\%`, `c:\x`: `c:\\x`} {
		if got := escapeLike(in); got != want {
			t.Errorf("escapeLike(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSynchronous(t *testing.T) {
	for _, tt := range []struct {
		option string
		want   int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{"", 2}, {"FULL", 2}, {"normal", 1}} {
		db, err := Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), Options{Synchronous: tt.option})
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := db.writer.QueryRow(`PRAGMA synchronous`).Scan(&got); err != nil || got != tt.want {
			t.Errorf("Synchronous %q: PRAGMA synchronous = %d, %v; want %d", tt.option, got, err, tt.want)
		}
		db.Close()
	}
}

// TestTouchKeepsWritesDurable checks that recording an access, which skips
// the fsync, leaves the writer at synchronous=FULL for the writes after it.
func TestTouchKeepsWritesDurable(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	if err := db.Touch(ctx, scope, []string{"nope"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var level int
	if err := db.writer.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&level); err != nil {
		t.Fatal(err)
	}
	if level != 2 { // FULL
		t.Fatalf("writer synchronous = %d after Touch, want 2 (FULL)", level)
	}
}
