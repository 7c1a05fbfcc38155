package importers

import (
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/agenthook"
)

// A Claude Code turn is imported under the session and key its hooks
// capture it with: a turn captured live is not imported again (IMP-2).
func TestClaudeCodeKeysAreTheHooks(t *testing.T) {
	session, turn := "3f1c2a9e-5b7d-4e21-9c3a-0d8e7f6a5b4c", "9a8b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d"
	if got, want := keyPrefix(ClaudeCode, session)+"/"+segment(turn), agenthook.TurnKey(session, turn); got != want {
		t.Errorf("key %s, the hooks' %s", got, want)
	}
	if got, want := sessionID(ClaudeCode, session), agenthook.SessionID(session); got != want {
		t.Errorf("session %s, the hooks' %s", got, want)
	}
}

// Any id a tool writes makes a valid key segment and session id (IMP-2):
// an import never fails on a name, and two ids never share a segment
// unless they are the same id.
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"c-lisbon", "", ".", "..", "a/b", "a b", "\x00", "\xff", "%2F", string(make([]byte, 300))} {
		f.Add(s, "other")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, id := range []string{a, b} {
			for _, f := range Formats {
				key := keyPrefix(f, id) + "/" + segment(id)
				if norm, err := mnemo.NormalizeKey(key); err != nil || norm != key {
					t.Fatalf("id %q: key %q: %v (normalised %q)", id, key, err, norm)
				}
				if _, err := mnemo.CheckID("session_id", sessionID(f, id), false); err != nil {
					t.Fatalf("id %q: session %q: %v", id, sessionID(f, id), err)
				}
			}
		}
		if clean(a) != clean(b) && segment(a) == segment(b) {
			t.Fatalf("ids %q and %q share the segment %q", a, b, segment(a))
		}
	})
}
